// Earliest Completion First (Lim et al., "ECF: An MPTCP Path Scheduler to
// Manage Heterogeneous Paths", CoNEXT 2017, the BLEST group's successor):
// each cell goes on the leg where it would ARRIVE first, counting the cells
// already queued ahead of it at that leg's bottleneck, and the scheduler
// waits for a leg whose window is closed when that leg would still deliver
// sooner than any open one. An RTT order alone cannot tell loopback bridges
// of 100 KiB/s and 1 MiB/s apart (their base RTTs are equal), so BLEST and
// LowRTT fill the slow leg's window and it holds the transfer's tail.
#include "leg_sched_ecf.hpp"

#include <algorithm>

namespace conflux::proto {
namespace {

using Legs = std::span<const LegState>;

class EcfScheduler final : public LegScheduler {
 public:
  using LegScheduler::LegScheduler;
  LegSchedKind kind() const noexcept override { return LegSchedKind::Ecf; }

 protected:
  std::optional<std::size_t> pick(RttClock::time_point now, Legs legs) override {
    std::optional<std::size_t> best;
    std::optional<RttDuration> best_eta;
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (!legs[i].can_send()) continue;
      const auto eta = ecf_arrival(legs[i], now);
      if (!eta) continue;
      if (!best_eta || *eta < *best_eta) {
        best = i;
        best_eta = eta;
      }
    }
    if (!best) return std::nullopt;
    // A leg whose window is closed but would still deliver first: wait for
    // its SENDME rather than queue behind a slower bottleneck.
    for (std::size_t i = 0; i < legs.size(); ++i) {
      if (legs[i].can_send() || legs[i].blocked()) continue;
      if (const auto eta = ecf_arrival(legs[i], now); eta && worth_waiting(legs[i], *eta, legs[*best], *best_eta))
        return std::nullopt;
    }
    return best;
  }

  bool may_continue(RttClock::time_point now, Legs legs, std::size_t current) override;

 private:
  [[nodiscard]] bool worth_waiting(const LegState& closed, RttDuration closed_eta, const LegState& open,
                                   RttDuration open_eta) const noexcept;
};

bool EcfScheduler::may_continue(RttClock::time_point now, Legs legs, std::size_t current) {
  if (!legs[current].can_send()) return false;
  const auto mine = ecf_arrival(legs[current], now);
  if (!mine) return false;
  // A run ends early only when another leg (open, or closed and waiting
  // for its SENDME) would deliver more than the HOL budget sooner: runs
  // save SWITCH cells, the budget bounds what they cost in reordering.
  for (std::size_t i = 0; i < legs.size(); ++i) {
    if (i == current || legs[i].blocked()) continue;
    const auto other = ecf_arrival(legs[i], now);
    if (other && *other + params().max_hol_delay < *mine) return false;
  }
  return true;
}

bool EcfScheduler::worth_waiting(const LegState& closed, RttDuration closed_eta, const LegState& open,
                                 RttDuration open_eta) const noexcept {
  if (closed_eta >= open_eta) return false;
  if (!closed.congestion_controlled() || !open.congestion_controlled()) return true;
  // Both legs under congestion control: the data behind this cell is a
  // bulk flow as far as we know, and each leg's Vegas keeps its own window
  // full, so the open leg adds its rate to the set's unless its cells would
  // arrive so much later than the closed leg's that they hold in-order
  // delivery back by more than the HOL budget, or park more of the closed
  // leg's cells in the peer's reorder queue than the reorder budget (ECF's
  // bulk case: with much left to send, the slower path is worth using).
  const auto gap = open_eta - closed_eta;
  if (gap > params().max_hol_delay) return true;
  const auto parked = closed.rate() * static_cast<std::uint64_t>(gap.count()) / 1'000'000ULL;
  return parked > params().reorder_budget_cells;
}

// Under congestion control: the circuit's N-EWMA RTT already holds the
// queue Vegas keeps at the bottleneck, so a cell that may go now arrives
// srtt / 2 later. One over cwnd waits until SENDMEs free its place: they
// come sendme_inc cells at a time, cwnd cells per srtt.
RttDuration cc_arrival(const LegState& leg) noexcept {
  const RttDuration srtt = leg.rtt().srtt();
  const RttDuration one_way = srtt / 2;
  if (leg.inflight() < leg.cwnd()) return one_way;
  const std::uint64_t cwnd = std::max<std::uint64_t>(leg.cwnd(), 1);
  const std::uint64_t inc = leg.sendme_inc();
  const std::uint64_t excess = static_cast<std::uint64_t>(leg.inflight()) + 1 - leg.cwnd();
  const std::uint64_t freed = (excess + inc - 1) / inc * inc;
  return one_way + RttDuration{static_cast<std::int64_t>(static_cast<std::uint64_t>(srtt.count()) * freed / cwnd)};
}

}  // namespace

std::optional<RttDuration> ecf_arrival(const LegState& leg, RttClock::time_point now) noexcept {
  const auto& rtt = leg.rtt();
  if (!rtt.measured()) return std::nullopt;
  if (leg.congestion_controlled()) return cc_arrival(leg);
  const RttDuration one_way = (rtt.min_rtt().count() > 0 ? rtt.min_rtt() : rtt.srtt()) / 2;
  const std::uint64_t rate = rtt.delivery_rate();
  if (rate == 0) {
    // No delivery rate before the first SENDME: one SENDME's worth of cells
    // probes the leg; more would be a guess.
    if (leg.inflight() >= leg.sendme_inc()) return std::nullopt;
    return one_way;
  }
  // Cells ahead of this one, the longest of three estimates:
  //  - the virtual departure clock (cells sent at the delivery rate);
  //  - the unacknowledged cells at the delivery rate (an idle leg has a
  //    stale clock but nothing in flight);
  //  - the queueing delay the last RTT samples saw (srtt - min RTT). The
  //    rate comes from SENDME spacing, and SENDMEs that come back bunched
  //    (a saturated bridge delays its upstream cells too) overstate it by
  //    far; the RTT samples cannot be fooled that way.
  const auto linger = leg.queue_delay(now).value_or(RttDuration{0});
  const auto backlog = RttDuration{static_cast<std::int64_t>((leg.inflight() + 1ULL) * 1'000'000ULL / rate)};
  const auto seen = rtt.srtt() > rtt.min_rtt() ? rtt.srtt() - rtt.min_rtt() : RttDuration{0};
  return one_way + std::max({linger, backlog, seen});
}

std::unique_ptr<LegScheduler> make_ecf_scheduler(LegSchedParams params) {
  return std::make_unique<EcfScheduler>(params);
}

}  // namespace conflux::proto
