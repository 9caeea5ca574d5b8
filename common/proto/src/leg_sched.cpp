#include "conflux/proto/leg_sched.hpp"

#include <algorithm>

namespace conflux::proto {

std::string_view to_string(LegSchedKind k) noexcept {
  switch (k) {
    case LegSchedKind::Proportional: return "proportional";
    case LegSchedKind::MinRtt: return "minrtt";
    case LegSchedKind::LowRtt: return "lowrtt";
    case LegSchedKind::Blest: return "blest";
    case LegSchedKind::Ecf: return "ecf";
  }
  return "unknown";
}

LegSchedKind leg_sched_for_ux(cell::ConfluxUx ux) noexcept {
  switch (ux) {
    case cell::ConfluxUx::NoOpinion: return LegSchedKind::LowRtt;
    case cell::ConfluxUx::MinLatency:
    case cell::ConfluxUx::LowMemLatency: return LegSchedKind::MinRtt;
    // tor uses LowRtt here, which fills the slow leg's whole window and
    // grows the peer's reorder queue without bound (tor-reference.md 1.9).
    // ECF rather than BLEST: legs that differ in bandwidth but not in base
    // RTT (bridges) look alike to an RTT order until queues build.
    case cell::ConfluxUx::HighThroughput:
    case cell::ConfluxUx::LowMemThroughput: return LegSchedKind::Ecf;
  }
  return LegSchedKind::MinRtt;
}

LegSchedParams leg_sched_params_for_ux(cell::ConfluxUx ux) noexcept {
  LegSchedParams p;
  if (ux == cell::ConfluxUx::LowMemLatency) {
    p.min_run_cells = 1000;  // at most one switch per classic window
  } else if (ux == cell::ConfluxUx::LowMemThroughput) {
    p.min_run_cells = 100;
    p.reorder_budget_cells = 250;
    p.max_hol_delay = std::chrono::milliseconds(100);
  }
  return p;
}

std::uint64_t predicted_ooo_depth(RttDuration fast_srtt, std::uint64_t fast_cells_per_rtt,
                                  RttDuration slow_srtt) noexcept {
  if (fast_srtt.count() <= 0 || slow_srtt <= fast_srtt) return 0;
  const auto gap = static_cast<std::uint64_t>((slow_srtt - fast_srtt).count());
  const auto fast = static_cast<std::uint64_t>(fast_srtt.count());
  // cells/rtt * one-way gap / rtt; 64 bits hold 2^32 cells * 2^31 us.
  return fast_cells_per_rtt * gap / (2 * fast);
}

std::uint64_t predicted_ooo_depth(std::span<const LegState> legs) noexcept {
  const LegState* fast = nullptr;
  const LegState* slow = nullptr;
  for (const auto& l : legs) {
    if (l.inflight() == 0 || !l.rtt().measured()) continue;
    if (fast == nullptr || l.rtt().srtt() < fast->rtt().srtt()) fast = &l;
    if (slow == nullptr || l.rtt().srtt() > slow->rtt().srtt()) slow = &l;
  }
  if (fast == nullptr || fast == slow) return 0;
  return predicted_ooo_depth(fast->rtt().srtt(), fast->inflight(), slow->rtt().srtt());
}

LegScheduler::LegScheduler(LegSchedParams params) noexcept : params_(params) {
  if (params_.min_run_cells == 0) params_.min_run_cells = 1;
  if (params_.max_run_cells < params_.min_run_cells) params_.max_run_cells = params_.min_run_cells;
  if (params_.rtt_hysteresis_pct > 99) params_.rtt_hysteresis_pct = 99;
}

std::optional<std::size_t> LegScheduler::lowest_rtt(std::span<const LegState> legs, bool sendable_only) const {
  auto eligible = [&](std::size_t i) { return !sendable_only || legs[i].can_send(); };
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    if (!eligible(i) || !legs[i].rtt().measured()) continue;
    if (!best || legs[i].rtt().srtt() < legs[*best].rtt().srtt()) best = i;
  }
  if (!best) {
    // No RTT yet (an exit before LINKED_ACK): any eligible leg, the current
    // one first, so that data is not held for a measurement.
    if (current_ && *current_ < legs.size() && eligible(*current_)) return current_;
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (eligible(i)) return i;
    }
    return std::nullopt;
  }
  if (current_ && *current_ != *best && *current_ < legs.size() && eligible(*current_) &&
      legs[*current_].rtt().measured()) {
    // Stay unless the best is lower by the margin: RTTs within the noise of
    // SENDME timing would otherwise flip the choice back and forth.
    const auto cur = legs[*current_].rtt().srtt().count();
    const auto b = legs[*best].rtt().srtt().count();
    if (b * 100 >= cur * (100 - static_cast<std::int64_t>(params_.rtt_hysteresis_pct))) return current_;
  }
  return best;
}

bool LegScheduler::may_continue(RttClock::time_point /*now*/, std::span<const LegState> legs, std::size_t current) {
  return legs[current].can_send();
}

std::optional<LegChoice> LegScheduler::choose_leg(RttClock::time_point now, std::span<const LegState> legs) {
  stats_.predicted_ooo_max = std::max(stats_.predicted_ooo_max, predicted_ooo_depth(legs));
  if (legs.size() > kMaxLegs) legs = legs.first(kMaxLegs);
  if (current_ && *current_ < legs.size()) {
    const std::size_t c = *current_;
    if (run_ < params_.min_run_cells && may_continue(now, legs, c)) return LegChoice{c, false};
  }
  auto p = pick(now, legs);
  if (p && current_ && *p == *current_ && run_ >= params_.max_run_cells) {
    // End an over-long run on any other leg that can send.
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (i != *p && legs[i].can_send()) {
        p = i;
        break;
      }
    }
  }
  if (!p) {
    ++stats_.no_leg;
    return std::nullopt;
  }
  return LegChoice{*p, sent_any_ && (!current_ || *current_ != *p)};
}

bool LegScheduler::on_sent(std::size_t leg, RttClock::time_point /*now*/) {
  if (leg >= kMaxLegs) return false;
  const bool same = current_ && *current_ == leg;
  const bool switched = sent_any_ && !same;
  if (switched) ++stats_.switches;
  if (!same) {
    ++stats_.runs;
    run_ = 0;
  }
  current_ = leg;
  ++run_;
  stats_.longest_run = std::max(stats_.longest_run, run_);
  ++stats_.cells;
  sent_any_ = true;
  note_sent(leg);
  return switched;
}

void LegScheduler::on_sendme(std::size_t leg, RttClock::time_point /*now*/) {
  if (leg < kMaxLegs) ++stats_.sendmes;
}

void LegScheduler::on_leg_removed(std::size_t leg) {
  if (current_) {
    if (*current_ == leg) {
      current_.reset();
      run_ = 0;
    } else if (*current_ > leg) {
      --*current_;
    }
  }
  note_removed(leg);
}

}  // namespace conflux::proto
