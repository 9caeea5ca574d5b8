#pragma once
// What the socket scheduler measured, for metrics and experiments. Counters
// only grow; `*_last` describe the latest KIST run.
#include <cstdint>

namespace conflux::net {

struct SchedulerStats {
  std::uint64_t runs = 0;
  std::uint64_t bytes = 0;  // moved from muxes into channel output buffers
  std::uint64_t cells = 0;  // of which fixed-size circuit cells (KIST counts them one by one)
  // KIST (and KISTLite) runs: the pending sockets each one saw, and the
  // kernel queries (TCP_INFO + SIOCOUTQNSD) it made for them.
  std::uint64_t kist_runs = 0;
  std::uint64_t pending_sockets_total = 0;
  std::uint64_t pending_sockets_max = 0;
  std::uint64_t pending_sockets_last = 0;
  std::uint64_t tcp_info_calls = 0;
  std::uint64_t tcp_info_ns_total = 0;
  std::uint64_t tcp_info_ns_last = 0;
  // Sockets a run left with cells because they reached their KIST limit.
  std::uint64_t limit_reached = 0;
  // Runs that stopped early because the bandwidth bucket was empty.
  std::uint64_t token_stalls = 0;
};

}  // namespace conflux::net
