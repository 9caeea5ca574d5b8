#pragma once
// How an authority tests a relay's ORPort. Pluggable: the relay runtime can
// substitute a full link handshake that proves the relay's identity; the
// default connects and completes a TLS handshake within a timeout, which
// shows that something speaking TLS 1.3 listens where the descriptor says.
#include <chrono>
#include <functional>

#include "conflux/dirnet/probe_target.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::dirnet {

// true: reachable. Must finish in bounded time. The target is the caller's
// and lives until the awaitable completes.
using ReachabilityProbe = std::function<net::awaitable<bool>(const ProbeTarget&)>;

// TCP connect to ipv4:or_port and a TLS 1.3 client handshake, both within
// `timeout`; the connection is closed afterwards.
[[nodiscard]] ReachabilityProbe make_tls_probe(std::chrono::milliseconds timeout);

}  // namespace conflux::dirnet
