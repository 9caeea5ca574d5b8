#pragma once
// The sending half of a Conflux set (prop 329 section 2.6). The leg is
// chosen elsewhere (leg_sched.hpp); this object numbers the cells and says
// when a SWITCH must precede one.
//
//   auto plan = tx.prepare_send(leg, cell::RelayCommand::Data);
//   if (plan->switch_first) send_on(leg, *plan->switch_first);
//   send_on(leg, data);            // and retransmit.on_cell_sent(leg, plan->seq, ...)
//
// Semantics as tor's: the set's absolute number counts multiplexed cells
// from 1; each leg remembers the last number it carried; moving to a leg
// whose last number is behind sends SWITCH(last_sent - leg.last), which the
// receiver adds to its count for that leg. Differences: no SWITCH is sent
// when that difference is 0 (it would change nothing, and our receiver
// treats a zero SWITCH as a possible signal), and prepare_resend() numbers
// retransmitted cells without advancing the absolute count.
#include <cstddef>
#include <optional>
#include <vector>

#include "conflux/cell/relay_conflux_msgs.hpp"
#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

struct SendPlan {
  std::optional<cell::ConfluxSwitchMsg> switch_first;  // send it on the same leg, just before
  SeqAbs seq{};                                        // the cell's absolute number
};

class ConfluxSender {
 public:
  explicit ConfluxSender(std::size_t max_legs = 8) noexcept : max_legs_(max_legs) {}

  // 'base' is the peer's last_seqno_recv from the leg's LINK or LINKED (0
  // for a new set): where the peer's count for this leg starts.
  ConfluxResult<ConfluxOk> add_leg(LegId leg, SeqAbs base);
  // A live leg relinked (a LINK/LINKED exchange on it again): the peer now
  // counts it from 'base', its last_seqno_recv from that exchange, which may
  // be below what the leg carried. This is what lets a surviving leg carry
  // a dead leg's cells again: a SWITCH can only move a leg's count forward.
  ConfluxResult<ConfluxOk> rebase_leg(LegId leg, SeqAbs base);
  void remove_leg(LegId leg) noexcept;

  // Numbers the next multiplexed cell (of `stream`), sent on 'leg'. BEGIN_DIR
  // and leg-local commands are refused (route_leg_cell).
  ConfluxResult<SendPlan> prepare_send(LegId leg, cell::RelayCommand command, StreamId stream = StreamId{0});
  // Numbers a retransmitted cell 'seq' (from RetransmitBuffer::cells_to_resend,
  // in order) sent on 'leg'; the absolute count does not move.
  ConfluxResult<SendPlan> prepare_resend(LegId leg, SeqAbs seq);

  [[nodiscard]] SeqAbs last_seq_sent() const noexcept { return sent_; }
  [[nodiscard]] std::optional<LegId> current_leg() const noexcept { return current_; }
  [[nodiscard]] std::optional<SeqAbs> leg_last_seq(LegId leg) const noexcept;
  [[nodiscard]] std::size_t switches_sent() const noexcept { return switches_; }

 private:
  struct Leg {
    LegId id{};
    SeqAbs last{};
  };
  Leg* find(LegId leg) noexcept;
  ConfluxResult<SendPlan> move_to(Leg& leg, SeqAbs seq);

  std::size_t max_legs_;
  std::vector<Leg> legs_;
  SeqAbs sent_{};
  std::optional<LegId> current_;
  std::size_t switches_ = 0;
};

}  // namespace conflux::proto
