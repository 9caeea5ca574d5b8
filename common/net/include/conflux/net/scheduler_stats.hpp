#pragma once
// What the socket scheduler measured, for metrics and experiments. Counters
// only grow; `*_last` describe the latest KIST run.
//
// Cell timing (Jansen et al. 2014 §4, sampled): one circuit cell in
// `sample_every` is timestamped when it is queued in a channel's mux and
// again when its bytes go to the kernel (relay queue time; inside a
// scheduler run, "now" is the run's one clock reading, so the time is
// short by at most how far into the run the write started). For such a
// write, the socket's send queue (SIOCOUTQ) is noted and the scheduler
// watches the socket's acknowledged-bytes counter until the peer has
// acknowledged everything that was queued up to and including that cell
// (kernel queue time). It reads the counter where a KIST run reads the
// socket anyway, and otherwise polls it at a period that grows with the
// probe's age (proto/kernel_probe_schedule.hpp): the time recorded is when
// the acknowledgement was seen, late by at most max(0.5 ms, 1/8 of the
// true time).
#include <cstdint>

#include "conflux/metrics/histogram.hpp"

namespace conflux::net {

// Seconds: 1 us .. ~8.4 s in powers of two.
[[nodiscard]] inline metrics::Histogram queue_time_histogram() {
  return metrics::Histogram(metrics::exponential_buckets(1e-6, 2.0, 24));
}

struct SchedulerStats {
  std::uint64_t runs = 0;
  std::uint64_t bytes = 0;  // moved from muxes into channel output buffers
  std::uint64_t cells = 0;  // of which fixed-size circuit cells
  // KIST (and KISTLite) runs: the pending sockets each one saw, and the
  // kernel queries it made for them, one per pending socket (TCP_INFO +
  // SIOCOUTQNSD; with KISTLimit Original SO_SNDBUF + SIOCOUTQ + TCP_INFO).
  std::uint64_t kist_runs = 0;
  // Of those, light runs that released the interval timer
  // (KISTSchedHoldMinCells): the next run was not held.
  std::uint64_t kist_runs_released = 0;
  std::uint64_t pending_sockets_total = 0;
  std::uint64_t pending_sockets_max = 0;
  std::uint64_t pending_sockets_last = 0;
  std::uint64_t tcp_info_calls = 0;
  std::uint64_t tcp_info_ns_total = 0;
  std::uint64_t tcp_info_ns_last = 0;
  // The system calls behind those queries: 2 per query for the deployed
  // limit, 3 for the original one (fewer when one fails).
  std::uint64_t kernel_calls = 0;
  std::uint64_t kernel_calls_last = 0;
  // Sockets a run left with cells because they reached their KIST limit.
  std::uint64_t limit_reached = 0;
  // KISTGlobalLimit: the cap on one run's bytes (0 while there is none yet),
  // and the runs that stopped at it with cells left.
  std::uint64_t global_limit_bytes = 0;
  std::uint64_t global_limit_reached = 0;
  // Runs that stopped early because the bandwidth bucket was empty.
  std::uint64_t token_stalls = 0;
  // Sampled cells: seconds from mux to kernel, and in the kernel until acknowledged.
  metrics::Histogram relay_queue_seconds = queue_time_histogram();
  metrics::Histogram kernel_queue_seconds = queue_time_histogram();
  metrics::Histogram pending_sockets = metrics::Histogram(metrics::exponential_buckets(1, 2.0, 12));
  metrics::Histogram tcp_info_seconds = queue_time_histogram();  // per KIST run
  std::uint64_t kernel_probes_dropped = 0;  // samples not probed: too many outstanding
  // The probes' own cost: timer expiries, and the TCP_INFO reads made for
  // probes alone (a KIST run's reading settles or defers them for free).
  std::uint64_t kernel_probe_wakeups = 0;
  std::uint64_t kernel_probe_polls = 0;
  std::uint64_t kernel_probes_settled_in_runs = 0;  // seen acknowledged by a KIST run's query
  std::uint64_t kernel_probes_given_up = 0;         // unacknowledged after proto::kProbeGiveUp
};

}  // namespace conflux::net
