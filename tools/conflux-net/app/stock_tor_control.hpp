#pragma once
// Asking a stock tor relay of the network, over its ControlPort, whether it
// knows the other relays yet. A fresh stock exit refuses every stream whose
// previous hop is in neither its consensus nor its descriptors (tor's
// RefuseUnknownExits, on by default: connection_exit_begin_conn ends it with
// reason MISC, "open a stream from unknown relay"), and it fetches its first
// consensus listing them a few seconds after ours lists them. So `up` waits
// for that too (docs/CONFLUX-NET.md).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "conflux/crypto/rsa.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::netapp {

// "GETINFO ns/id/FP" for each of `relays` (tor answers 552 for one its
// consensus does not list), after cookie authentication with the file
// `cookie`. nullopt: it knows every one; otherwise what is missing (the
// first unknown fingerprint) or why it could not be asked. Each exchange is
// bounded by `timeout`.
[[nodiscard]] net::asio::awaitable<std::optional<std::string>> stock_tor_unknown_relay(
    net::tcp::endpoint control, std::filesystem::path cookie, std::vector<crypto::RsaFingerprint> relays,
    std::chrono::milliseconds timeout);

}  // namespace conflux::netapp
