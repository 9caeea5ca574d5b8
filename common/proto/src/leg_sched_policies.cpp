// The four leg-selection policies behind LegScheduler (leg_sched.hpp).
#include <algorithm>
#include <array>
#include <vector>

#include "conflux/proto/leg_sched.hpp"
#include "leg_sched_ecf.hpp"

namespace conflux::proto {
namespace {

using Legs = std::span<const LegState>;

// tor's MINRTT: only the lowest-RTT leg; never fall back to another one,
// so the receiver sees almost no reordering and no throughput gain.
class MinRttScheduler final : public LegScheduler {
 public:
  using LegScheduler::LegScheduler;
  LegSchedKind kind() const noexcept override { return LegSchedKind::MinRtt; }

 protected:
  std::optional<std::size_t> pick(RttClock::time_point, Legs legs) override {
    auto best = lowest_rtt(legs, false);
    if (best && legs[*best].can_send()) return best;
    return std::nullopt;
  }
};

// tor's LOWRTT: the lowest-RTT leg that can send; spills to slower legs
// whenever the fast one is full or blocked.
class LowRttScheduler final : public LegScheduler {
 public:
  using LegScheduler::LegScheduler;
  LegSchedKind kind() const noexcept override { return LegSchedKind::LowRtt; }

 protected:
  std::optional<std::size_t> pick(RttClock::time_point, Legs legs) override { return lowest_rtt(legs, true); }
};

// The thesis' split: leg i carries a share w_i = (1/rtt_i) / sum(1/rtt_j).
// The thesis draws each cell's leg at random; we keep a credit per leg
// instead (every cell adds w_i to each leg and takes 1 from the leg that
// carried it), and at the end of each run pick the sendable leg with the
// most credit. The shares are met exactly over time, without the coin's
// variance, and in runs. Unmeasured legs get no share until some leg is
// measured; then all legs share equally.
class ProportionalScheduler final : public LegScheduler {
 public:
  explicit ProportionalScheduler(LegSchedParams p) noexcept
      : LegScheduler(p), credit_limit_(2.0 * static_cast<double>(params().min_run_cells) + 2.0) {}
  LegSchedKind kind() const noexcept override { return LegSchedKind::Proportional; }

 protected:
  std::optional<std::size_t> pick(RttClock::time_point, Legs legs) override {
    update_weights(legs);
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (weights_[i] <= 0.0 || !legs[i].can_send()) continue;
      if (!best || credits_[i] > credits_[*best]) best = i;
    }
    return best;
  }

  void note_sent(std::size_t leg) override {
    if (leg >= kMaxLegs || nlegs_ == 0) return;
    for (std::size_t i = 0; i < nlegs_; ++i) credits_[i] += weights_[i];
    credits_[leg] -= 1.0;
    // A leg that could not send for a while must not hoard a long burst.
    for (std::size_t i = 0; i < nlegs_; ++i) credits_[i] = std::clamp(credits_[i], -credit_limit_, credit_limit_);
  }

  void note_removed(std::size_t leg) override {
    if (leg >= kMaxLegs) return;
    for (std::size_t i = leg; i + 1 < kMaxLegs; ++i) {
      credits_[i] = credits_[i + 1];
      weights_[i] = weights_[i + 1];
    }
    credits_[kMaxLegs - 1] = 0.0;
    weights_[kMaxLegs - 1] = 0.0;
    if (nlegs_ > leg) --nlegs_;
  }

 private:
  void update_weights(Legs legs) {
    nlegs_ = legs.size();
    double sum = 0.0;
    for (std::size_t i = 0; i < nlegs_; ++i) {
      const auto srtt = legs[i].rtt().srtt().count();
      weights_[i] = srtt > 0 ? 1.0 / static_cast<double>(srtt) : 0.0;
      sum += weights_[i];
    }
    for (std::size_t i = 0; i < nlegs_; ++i) {
      weights_[i] = sum > 0.0 ? weights_[i] / sum : 1.0 / static_cast<double>(nlegs_);
    }
  }

  double credit_limit_;
  std::size_t nlegs_ = 0;
  std::array<double, kMaxLegs> weights_{};
  std::array<double, kMaxLegs> credits_{};
};

// BLEST-style (ours; tor's CWNDRTT is unreachable and prop 329 §3.4 is a
// sketch): send on the lowest-RTT leg while it can. When it cannot, a
// slower leg s may carry a cell only if
//   - the cell's predicted one-way delay, min_rtt_s / 2 plus its wait in the
//     leg's queue (LegState::queue_delay, from the delivery rate), exceeds
//     the fast leg's srtt_f / 2 by at most max_hol_delay: that gap is how long
//     cells the fast leg sends meanwhile wait for it at the receiver;
//   - the cells the fast leg delivers in that gap, cwnd_f per srtt_f, fit the
//     reorder budget (BLEST's "does it fit the window" test, with the
//     receiver's reorder queue as the window);
//   - with cwnd_rtt_quota, its in-flight cells stay below
//     cwnd_s * srtt_f / srtt_s (the rule of tor's unused CWNDRTT).
// Under classic windows a leg's cwnd says nothing about its capacity, hence
// the measured delivery rate; until a leg has one it may carry one SENDME's
// worth of cells, a probe. Otherwise wait for a SENDME on the fast leg.
class BlestScheduler final : public LegScheduler {
 public:
  using LegScheduler::LegScheduler;
  LegSchedKind kind() const noexcept override { return LegSchedKind::Blest; }

 protected:
  std::optional<std::size_t> pick(RttClock::time_point now, Legs legs) override {
    const auto fast = lowest_rtt(legs, false);
    if (!fast) return std::nullopt;
    if (legs[*fast].can_send()) return fast;
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (i == *fast || !legs[i].can_send() || !gate(now, legs, *fast, i)) continue;
      if (!best || legs[i].rtt().srtt() < legs[*best].rtt().srtt()) best = i;
    }
    return best;
  }

  bool may_continue(RttClock::time_point now, Legs legs, std::size_t current) override {
    if (!legs[current].can_send()) return false;
    const auto fast = lowest_rtt(legs, false);
    return !fast || *fast == current || gate(now, legs, *fast, current);
  }

 private:
  bool gate(RttClock::time_point now, Legs legs, std::size_t fast, std::size_t slow) const {
    const auto& f = legs[fast];
    const auto& s = legs[slow];
    if (!s.rtt().measured()) return false;  // prop 329: unmeasured = infinite RTT
    if (!f.rtt().measured()) return true;
    const auto fr = f.rtt().srtt();
    const auto sr = s.rtt().srtt();
    const auto wait = s.queue_delay(now);
    if (!wait && s.inflight() >= s.sendme_inc()) return false;
    const auto queue = wait.value_or(RttDuration{0});
    const auto owd_slow = s.rtt().min_rtt() / 2 + queue;
    const auto owd_fast = fr / 2;
    if (owd_slow > owd_fast) {
      const auto gap = owd_slow - owd_fast;
      if (gap > params().max_hol_delay) return false;
      if (predicted_ooo_depth(fr, f.cwnd(), fr + 2 * gap) > params().reorder_budget_cells) return false;
    }
    if (params().cwnd_rtt_quota && sr > fr) {
      const auto quota = static_cast<std::uint64_t>(s.cwnd()) * static_cast<std::uint64_t>(fr.count()) /
                         static_cast<std::uint64_t>(sr.count());
      if (s.inflight() + 1ULL > quota) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<LegScheduler> make_leg_scheduler(LegSchedKind kind, LegSchedParams params) {
  switch (kind) {
    case LegSchedKind::Proportional: return std::make_unique<ProportionalScheduler>(params);
    case LegSchedKind::MinRtt: return std::make_unique<MinRttScheduler>(params);
    case LegSchedKind::LowRtt: return std::make_unique<LowRttScheduler>(params);
    case LegSchedKind::Blest: return std::make_unique<BlestScheduler>(params);
    case LegSchedKind::Ecf: return make_ecf_scheduler(params);
  }
  return std::make_unique<MinRttScheduler>(params);
}

}  // namespace conflux::proto
