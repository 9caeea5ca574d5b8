#pragma once
// One directory request as a tor client makes it (tor clients must use
// BEGIN_DIR: tor's directory_must_use_begindir): a one-hop circuit made with
// CREATE_FAST to a relay's ORPort (the TLS link already proved the relay's
// identity, and its onion key may be what we are fetching), a
// BEGIN_DIR stream on it, an HTTP/1.0 GET, and the answer read until the
// relay ends the stream. Bounded: one deadline covers the whole exchange,
// and an answer longer than its cap is abandoned. Used for the consensus,
// certificates and microdescriptors (directory_client.cpp) and for a
// bridge's own descriptor (bridge_directory.cpp).
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "conflux/bytes/result.hpp"
#include "conflux/client/link_pool.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/dirnet/http_client.hpp"

namespace conflux::client {

// A relay reachable for BEGIN_DIR: its ORPort and the identity its link
// must prove: its Ed25519 identity, its RSA fingerprint (all-zero `identity`:
// a relay named only by it, as tor's Bridge and FallbackDir lines do), or both.
struct DirRelay {
  net::tcp::endpoint at;
  crypto::Ed25519Public identity{};
  std::optional<crypto::RsaFingerprint> rsa;
  std::string name;  // for logs
};

// GET `path` from `relay`. The error says what went wrong, for logs.
[[nodiscard]] net::awaitable<Result<dirnet::HttpResponse, std::string>> begin_dir_get(
    LinkPool& links, const net::Clock& clock, DirRelay relay, std::string path, std::size_t max_body,
    std::chrono::milliseconds timeout);

// An HTTP/1.x answer as a relay sends it on a BEGIN_DIR stream (status
// line, headers, blank line, body to the end of the stream); nullopt if it
// is not one.
[[nodiscard]] std::optional<dirnet::HttpResponse> parse_begin_dir_answer(std::string_view answer);

}  // namespace conflux::client
