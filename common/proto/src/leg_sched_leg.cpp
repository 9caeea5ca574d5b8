#include "conflux/proto/leg_sched_leg.hpp"

#include <algorithm>

namespace conflux::proto {

LegState::LegState(LegWindowParams params) noexcept
    : rtt_(RttParams{params.sendme_inc, params.rtt_ewma_n}),
      cwnd_(params.cwnd),
      sendme_inc_(params.sendme_inc == 0 ? 1 : params.sendme_inc) {}

bool LegState::on_data_sent(RttClock::time_point now) noexcept {
  if (inflight_ >= cwnd_) return false;
  ++inflight_;
  ++cells_sent_;
  if (const auto r = rate(); r > 0) {
    busy_until_ = std::max(busy_until_, now) + RttDuration{static_cast<std::int64_t>(1'000'000ULL / r)};
  }
  (void)rtt_.on_data_sent(now);
  return true;
}

void LegState::on_cc(const LegCcView& cc) noexcept {
  cc_ = true;
  cwnd_ = cc.cwnd;
  rtt_.on_cc_rtt(cc.ewma_rtt);
}

std::uint64_t LegState::rate() const noexcept {
  if (!cc_) return rtt_.delivery_rate();
  const auto srtt = rtt_.srtt().count();
  if (srtt <= 0) return 0;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(cwnd_) * 1'000'000ULL / static_cast<std::uint64_t>(srtt));
}

std::optional<RttDuration> LegState::queue_delay(RttClock::time_point now) const noexcept {
  const auto rate = this->rate();
  if (rate == 0) return std::nullopt;
  const auto own = RttDuration{static_cast<std::int64_t>(1'000'000ULL / rate)};
  const auto ahead = busy_until_ > now ? std::chrono::duration_cast<RttDuration>(busy_until_ - now) : RttDuration{0};
  return ahead + own;
}

LegSendmeResult LegState::on_sendme(RttClock::time_point now) noexcept {
  if (inflight_ < sendme_inc_) return LegSendmeResult::Unexpected;
  inflight_ -= sendme_inc_;
  (void)rtt_.on_sendme(now);
  return LegSendmeResult::Ok;
}

}  // namespace conflux::proto
