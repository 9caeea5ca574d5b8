#pragma once
// Private to leg_sched: the ECF policy (leg_sched_ecf.cpp).
#include <memory>
#include <optional>

#include "conflux/proto/leg_sched.hpp"

namespace conflux::proto {

// When a DATA cell sent on `leg` now would arrive: half the leg's minimum
// RTT plus the time the cells ahead of it take at the leg's delivery rate.
// Nothing for an unmeasured leg, or one without a rate whose probe batch is
// out already. Under congestion control: half the circuit's RTT, plus, when
// its cwnd is full, the time until SENDMEs make room for the cell.
[[nodiscard]] std::optional<RttDuration> ecf_arrival(const LegState& leg, RttClock::time_point now) noexcept;

[[nodiscard]] std::unique_ptr<LegScheduler> make_ecf_scheduler(LegSchedParams params);

}  // namespace conflux::proto
