#pragma once
// Conflux leg schedulers: which leg of a linked set carries the next
// multiplexed cell (prop 329 §3; docs/CONFLUX-SCHEDULERS.md).
//
//   Proportional  the thesis' split: cells shared in proportion to 1/RTT
//                 (deterministic credits instead of the thesis' coin flips)
//   MinRtt        tor: only the lowest-RTT leg; none when it cannot send
//   LowRtt        tor: the lowest-RTT leg that can send
//   Blest         ours: the lowest-RTT leg; a slower leg only while the
//                 out-of-order depth and delay it would cause at the
//                 receiver stay within a budget (predicted from RTTs, the
//                 slow leg's queue and delivery rate), and its in-flight
//                 cells within cwnd * rtt_fast / rtt_slow
//   Ecf           ours: Earliest Completion First, each cell on the leg where
//                 it would arrive first (queue ahead at the leg's delivery
//                 rate + half its min RTT), waiting for a leg whose window is
//                 closed when it would still deliver sooner; the throughput UX
//
// Every change of leg costs a SWITCH cell and creates reordering, so legs
// change in runs: once on a leg, the scheduler stays there for at least
// min_run_cells while it can send (and while a Blest gate still allows it),
// and another leg must beat the current one's RTT by rtt_hysteresis_pct.
//
// Use: choose_leg() proposes (it may be called again without sending);
// on_sent() commits a cell to a leg, and counts a SWITCH when that leg is
// not the current one. The set that owns the legs sends the SWITCH on the
// new leg before the cell when LegChoice::switch_first says so.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "conflux/cell/relay_conflux_msgs.hpp"
#include "conflux/proto/leg_sched_leg.hpp"

namespace conflux::proto {

enum class LegSchedKind : std::uint8_t { Proportional, MinRtt, LowRtt, Blest, Ecf };

[[nodiscard]] std::string_view to_string(LegSchedKind k) noexcept;

struct LegSchedParams {
  // Cells a leg keeps once chosen, while it can send; 1 = switch freely.
  std::uint32_t min_run_cells = 32;
  // A run this long is ended when another leg can send, so the relative
  // sequence number a SWITCH carries (u32) cannot overflow.
  std::uint32_t max_run_cells = 1U << 30;
  // Another leg must have an RTT this much lower than the current leg's
  // to take over (MinRtt, LowRtt, Blest's primary).
  std::uint32_t rtt_hysteresis_pct = 10;
  // Blest: predicted out-of-order cells at the receiver a slower leg may
  // cause, and predicted extra in-order delivery delay.
  std::uint32_t reorder_budget_cells = 2000;
  RttDuration max_hol_delay{std::chrono::milliseconds(150)};
  // Blest: a slower leg's in-flight cells stay below
  // cwnd * srtt_fastest / srtt_leg (tor's unused CWNDRTT rule).
  bool cwnd_rtt_quota = true;
};

// What the set asked for in LINK's desired_ux, turned into a scheduler for
// the data we send to it (tor's mapping, except HIGH_THROUGHPUT and
// LOW_MEM_THROUGHPUT, which get Ecf instead of LowRtt / MinRtt).
[[nodiscard]] LegSchedKind leg_sched_for_ux(cell::ConfluxUx ux) noexcept;
// The low-memory UXs switch at most once per window of cells (prop 329
// §3.3) and keep a small reorder budget.
[[nodiscard]] LegSchedParams leg_sched_params_for_ux(cell::ConfluxUx ux) noexcept;

struct LegChoice {
  std::size_t leg = 0;
  bool switch_first = false;  // a SWITCH must go on `leg` before the cell
  friend bool operator==(const LegChoice&, const LegChoice&) = default;
};

struct LegSchedStats {
  std::uint64_t cells = 0;          // cells committed with on_sent()
  std::uint64_t switches = 0;       // SWITCH cells the schedule required
  std::uint64_t runs = 0;           // maximal runs of cells on one leg
  std::uint64_t longest_run = 0;
  std::uint64_t no_leg = 0;         // choose_leg() answers of "no leg can send"
  std::uint64_t sendmes = 0;
  std::uint64_t predicted_ooo_max = 0;  // largest predicted_ooo_depth() seen by choose_leg()
  // Cells per SWITCH (all cells when there was no switch).
  [[nodiscard]] double cells_per_switch() const noexcept {
    return switches == 0 ? static_cast<double>(cells) : static_cast<double>(cells) / static_cast<double>(switches);
  }
};

// Predicted cells waiting in the receiver's reorder queue while the legs
// carrying data have these RTTs: the fastest busy leg's delivery rate
// (inflight / srtt, Little's law) times the one-way delay gap
// (srtt_slow - srtt_fast) / 2 to the slowest busy leg. 0 with one busy leg.
[[nodiscard]] std::uint64_t predicted_ooo_depth(std::span<const LegState> legs) noexcept;
// The same for one pair, with the fast leg sending `fast_rate_cells` per srtt.
[[nodiscard]] std::uint64_t predicted_ooo_depth(RttDuration fast_srtt, std::uint64_t fast_cells_per_rtt,
                                                RttDuration slow_srtt) noexcept;

class LegScheduler {
 public:
  // The most legs a set may have (tor's cfx_max_legs_set caps at 8 by default).
  static constexpr std::size_t kMaxLegs = 16;

  explicit LegScheduler(LegSchedParams params) noexcept;
  virtual ~LegScheduler() = default;
  LegScheduler(const LegScheduler&) = delete;
  LegScheduler& operator=(const LegScheduler&) = delete;

  [[nodiscard]] virtual LegSchedKind kind() const noexcept = 0;

  // The leg for the next multiplexed cell, or nothing when no leg may send
  // now (stop reading from the edges until a SENDME or an unblock).
  [[nodiscard]] std::optional<LegChoice> choose_leg(RttClock::time_point now, std::span<const LegState> legs);
  // A multiplexed cell was committed to `leg` (normally the chosen one).
  // Returns whether that was a switch. False for an index >= kMaxLegs.
  bool on_sent(std::size_t leg, RttClock::time_point now);
  // A circuit SENDME arrived on `leg` (after LegState::on_sendme).
  void on_sendme(std::size_t leg, RttClock::time_point now);
  // Leg `leg` left the set; later indices move down by one, as in the
  // caller's vector. If it was the current leg the next cell needs a SWITCH.
  void on_leg_removed(std::size_t leg);

  [[nodiscard]] std::optional<std::size_t> current_leg() const noexcept { return current_; }
  [[nodiscard]] std::uint64_t current_run() const noexcept { return run_; }
  [[nodiscard]] const LegSchedStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const LegSchedParams& params() const noexcept { return params_; }

 protected:
  // The leg the policy wants, ignoring run length; nothing if none may send.
  [[nodiscard]] virtual std::optional<std::size_t> pick(RttClock::time_point now, std::span<const LegState> legs) = 0;
  // Whether the current leg may carry one more cell of its run.
  [[nodiscard]] virtual bool may_continue(RttClock::time_point now, std::span<const LegState> legs,
                                          std::size_t current);
  virtual void note_sent(std::size_t /*leg*/) {}
  virtual void note_removed(std::size_t /*leg*/) {}

  // The measured leg with the lowest srtt, preferring `current_` unless
  // another beats it by the hysteresis margin; unmeasured legs rank last.
  // With `sendable_only`, only legs that can send are considered.
  [[nodiscard]] std::optional<std::size_t> lowest_rtt(std::span<const LegState> legs, bool sendable_only) const;

 private:
  LegSchedParams params_;
  std::optional<std::size_t> current_;
  bool sent_any_ = false;
  std::uint64_t run_ = 0;
  LegSchedStats stats_;
};

[[nodiscard]] std::unique_ptr<LegScheduler> make_leg_scheduler(LegSchedKind kind, LegSchedParams params = {});

}  // namespace conflux::proto
