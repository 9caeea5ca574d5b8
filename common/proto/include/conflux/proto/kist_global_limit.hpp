#pragma once
// KIST's optional global write limit (Jansen et al., "Never Been KIST", 2014,
// §5.2 Eq. 2), an option (KISTGlobalLimit): an estimate of how much the host
// can send per run period, capping what one run writes across all sockets.
//
// As printed, Eq. 2 takes the change in the sockets' total send-queue length
// (Σ SIOCOUTQ) between periods, which is not what the host sent. We follow
// the reading its text intends (seeds-digest §2.3): per period,
//
//   drained = queued_before + written - queued_now
//   limit   = max(limit, drained)              (a running maximum)
//
// SIOCOUTQ counts from the first unacknowledged byte, so for one socket
// `drained` is exactly the growth of the kernel's acknowledged-bytes counter
// (tcpi_bytes_acked) between two readings: the runtime takes that, from the
// TCP_INFO call it makes anyway, and needs no count of its own writes.
//
// What we add to the paper, so that the cap cannot stop the relay:
//   - Only back-to-back runs measure a period: a gap over two periods (an
//     idle relay runs only when work arrives) is not a period of draining,
//     and spreading it over the periods it spans would make the first
//     readings tiny. Up to two periods count at their average per period.
//   - No cap until something has drained, and never one below a cell: a cap
//     under one cell would stop every write, and nothing would drain to
//     raise it.
// Kept as the paper has it: the maximum only grows. When the cap binds, a
// run writes about the cap and the sockets drain about that much, so a cap
// learned under light load stays near that rate until a larger drain is
// seen (for experiments; off by default).
#include <chrono>
#include <cstdint>
#include <optional>

namespace conflux::proto {

// One socket's Eq. 2 term between two readings of its acknowledged bytes.
// A counter that went back (another socket, or a reset) drained nothing.
[[nodiscard]] std::uint64_t kist_drained(std::uint64_t acked_before, std::uint64_t acked_now) noexcept;

class KistGlobalLimit {
 public:
  // The sockets read at both this run and the previous one drained `drained`
  // bytes in between, `elapsed` apart; `period` is the run interval. Ignored
  // when `elapsed` exceeds two periods; scaled to one period when over one;
  // whole when shorter or when there is no period.
  void observe(std::uint64_t drained, std::chrono::nanoseconds elapsed, std::chrono::nanoseconds period) noexcept;
  // Bytes one run may write in total: the largest drain per period so far,
  // at least one cell (kKistCellCost); none until something has drained.
  [[nodiscard]] std::optional<std::uint64_t> cap() const noexcept;
  [[nodiscard]] std::uint64_t max_drained() const noexcept { return max_drained_; }

 private:
  std::uint64_t max_drained_ = 0;
};

}  // namespace conflux::proto
