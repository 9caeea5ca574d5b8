#include "conflux/proto/cc_rtt.hpp"

#include <algorithm>

namespace conflux::proto {

namespace {
// tor's DELTA_DISCREPENCY_RATIO_MAX.
constexpr std::uint64_t kDiscrepancyRatio = 5000;
}  // namespace

ClockHealth& process_clock_health() noexcept {
  static ClockHealth health;
  return health;
}

CcRttEstimator::CcRttEstimator(const CcParams& params, ClockHealth& clock) noexcept
    : ewma_cwnd_pct_(params.ewma_cwnd_pct),
      ewma_max_(params.ewma_max),
      ewma_ss_(params.ewma_ss),
      rtt_reset_pct_(params.rtt_reset_pct),
      clock_(&clock) {}

std::uint64_t CcRttEstimator::ewma_count(const CcRttContext& ctx) const noexcept {
  // In slow start the Vegas condition is checked every SENDME, so a short
  // average; afterwards once per update period, so a longer one.
  const std::uint64_t n = ctx.in_slow_start
                              ? ewma_ss_
                              : std::min<std::uint64_t>(ctx.update_rate * ewma_cwnd_pct_ / 100, ewma_max_);
  return std::max<std::uint64_t>(n, 2);
}

bool CcRttEstimator::stalled_or_jumped(std::uint64_t sample, const CcRttContext& ctx) noexcept {
  if (sample == 0) {
    clock_->broken = true;
    return true;
  }
  // Until slow start is over there are too few samples to tell a clock
  // jump from a real change of path delay.
  if (ctx.in_slow_start || ewma_ == 0) return false;
  // Much lower than the average: the clock may have stalled, or the path
  // got faster. Believed unless a stall was seen and not yet cleared.
  if (ewma_ > sample * kDiscrepancyRatio) return clock_->broken;
  // Much higher: a forward jump (or a suspended peer). Skipped, but not
  // cached, since heavy queueing can look the same.
  if (sample > ewma_ * kDiscrepancyRatio) return true;
  clock_->broken = false;
  return false;
}

std::uint64_t CcRttEstimator::on_sendme(std::uint64_t sent_usec, std::uint64_t now_usec,
                                        const CcRttContext& ctx) noexcept {
  const std::uint64_t sample = now_usec > sent_usec ? now_usec - sent_usec : 0;
  if (stalled_or_jumped(sample, ctx)) {
    ++stalls_;
    return 0;
  }
  ewma_ = cc_n_count_ewma(sample, ewma_, ewma_count(ctx));
  max_ = std::max(max_, sample);
  if (min_ == 0) {
    min_ = ewma_;
  } else if (ctx.cwnd == ctx.cwnd_min && !ctx.in_slow_start) {
    min_ = cc_percent_max_mix(ewma_, min_, rtt_reset_pct_);
    ++resets_;
  } else if (ewma_ < min_) {
    // The EWMA, not the raw sample: it averages out other connections'
    // effect on a single SENDME.
    min_ = ewma_;
  }
  return sample;
}

}  // namespace conflux::proto
