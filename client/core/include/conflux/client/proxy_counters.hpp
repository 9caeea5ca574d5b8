#pragma once
// What the proxy counts, for its MetricsPort and its heartbeat log line.
// Plain numbers owned by the runtime and updated on its one thread.
#include <array>
#include <cstdint>

namespace conflux::client {

struct ProxyCounters {
  std::uint64_t socks_connections = 0;   // accepted
  std::uint64_t socks_rejected = 0;      // bad or unsupported requests, timeouts in the handshake
  std::uint64_t streams_opened = 0;      // CONNECTED (or RESOLVED) arrived
  std::uint64_t streams_failed = 0;      // the client got an error reply
  std::uint64_t streams_socks_timeout = 0;  // of those: answered at SocksTimeout
  std::uint64_t stream_retries = 0;      // another circuit tried after a refusal
  std::uint64_t streams_active = 0;
  std::uint64_t bytes_to_network = 0;    // application bytes sent in DATA
  std::uint64_t bytes_from_network = 0;  // application bytes received in DATA
  std::array<std::uint64_t, 32> end_reasons{};  // END reasons the exits gave, by code
  // XON/XOFF on streams over congestion-controlled circuits (prop 324),
  // counted when each stream ends.
  std::uint64_t xoffs_sent = 0, xons_sent = 0, xoffs_received = 0, xons_received = 0;
  // Consensuses fetched (tor's directory), by how: BEGIN_DIR to an ORPort,
  // or a DirPort.
  std::uint64_t consensus_begin_dir = 0, consensus_dir_port = 0;
};

}  // namespace conflux::client
