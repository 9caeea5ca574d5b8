#pragma once
// The RTT estimator of congestion control, computed exactly as tor 0.4.9's
// congestion_control_update_circuit_rtt() does, in integer microseconds.
//
// The sender stamps each cell that will make the peer send a SENDME; the
// SENDME gives rtt = now - stamp. Then:
//   - a sample of 0 means the monotonic clock stalled: it is skipped and the
//     clock is marked broken;
//   - once slow start is over and an EWMA exists, a sample more than 5000
//     times the EWMA is a forward jump (skipped), one less than 1/5000 of it
//     is kept unless the clock is already marked broken, and any other
//     sample marks the clock healthy again;
//   - ewma = (2 * rtt + (N - 1) * ewma) / (N + 1), N = cc_ewma_ss in slow
//     start, else clamp(update_rate * cc_ewma_cwnd_pct / 100, 2, cc_ewma_max);
//   - min RTT starts at the first EWMA and follows the EWMA down; when cwnd
//     sits at cwnd_min after slow start it is re-based towards the EWMA
//     (cc_rtt_reset_pct, 100 = the larger of the two) so an abnormally low
//     minimum cannot wedge the circuit at cwnd_min.
//
// Time is passed in. A stamp later than `now` (impossible with tor's
// monotime, possible with an injected clock) counts as a stall rather than
// as tor's unsigned wrap to a huge sample.
#include <chrono>
#include <cstdint>

#include "conflux/proto/cc_params.hpp"

namespace conflux::proto {

using CcClock = std::chrono::steady_clock;

[[nodiscard]] inline std::uint64_t cc_usec(CcClock::time_point t) noexcept {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  return us > 0 ? static_cast<std::uint64_t>(us) : 0;
}

// tor's is_monotime_clock_broken: one flag for the whole process, set by any
// circuit's stalled sample and cleared by any circuit's good one; XON drain
// rates are not computed while it is set. The runtime owns one and hands it
// to every congestion-control object; tests own their own.
struct ClockHealth {
  bool broken = false;
};
// The process's one ClockHealth, for runtimes that have no other.
[[nodiscard]] ClockHealth& process_clock_health() noexcept;

// What the estimator reads of the congestion window's state at the SENDME.
struct CcRttContext {
  bool in_slow_start = true;
  std::uint64_t cwnd = 0;
  std::uint64_t cwnd_min = 0;
  std::uint64_t update_rate = 1;  // CWND_UPDATE_RATE: SENDMEs per cwnd update
};

class CcRttEstimator {
 public:
  CcRttEstimator(const CcParams& params, ClockHealth& clock) noexcept;

  // One SENDME: the stamp of the cell it acknowledges and now. Returns the
  // sample in microseconds, or 0 when it was skipped (stall or jump).
  std::uint64_t on_sendme(std::uint64_t sent_usec, std::uint64_t now_usec, const CcRttContext& ctx) noexcept;

  [[nodiscard]] std::uint64_t ewma_usec() const noexcept { return ewma_; }
  [[nodiscard]] std::uint64_t min_usec() const noexcept { return min_; }
  [[nodiscard]] std::uint64_t max_usec() const noexcept { return max_; }
  [[nodiscard]] std::uint64_t clock_stalls() const noexcept { return stalls_; }
  [[nodiscard]] std::uint64_t min_rtt_resets() const noexcept { return resets_; }
  // N of the N-EWMA for the next sample (tor's n_ewma_count).
  [[nodiscard]] std::uint64_t ewma_count(const CcRttContext& ctx) const noexcept;

 private:
  [[nodiscard]] bool stalled_or_jumped(std::uint64_t sample, const CcRttContext& ctx) noexcept;

  std::uint8_t ewma_cwnd_pct_;
  std::uint8_t ewma_max_;
  std::uint8_t ewma_ss_;
  std::uint8_t rtt_reset_pct_;
  ClockHealth* clock_;
  std::uint64_t ewma_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t stalls_ = 0;
  std::uint64_t resets_ = 0;
};

// tor's n_count_ewma(): the first sample is taken as is.
[[nodiscard]] constexpr std::uint64_t cc_n_count_ewma(std::uint64_t curr, std::uint64_t prev,
                                                      std::uint64_t n) noexcept {
  return prev == 0 ? curr : (2 * curr + (n - 1) * prev) / (n + 1);
}

// tor's percent_max_mix(): pct_max percent of the larger plus the rest of
// the smaller (0 = min, 100 = max).
[[nodiscard]] constexpr std::uint64_t cc_percent_max_mix(std::uint64_t a, std::uint64_t b,
                                                         std::uint8_t pct_max) noexcept {
  const std::uint64_t hi = a > b ? a : b;
  const std::uint64_t lo = a > b ? b : a;
  if (pct_max > 100) return hi;
  return pct_max * hi / 100 + (100 - pct_max) * lo / 100;
}

}  // namespace conflux::proto
