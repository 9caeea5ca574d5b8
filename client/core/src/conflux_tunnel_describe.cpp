// A Conflux set's state in one line, for a stalled stream's report at info
// (socks_session.cpp's StallReport): where its ordered stream stands and
// each leg's window and numbers. Names no address.
#include <string>
#include <vector>

#include "conflux/client/conflux_tunnel.hpp"

namespace conflux::client {

std::string ConfluxTunnel::describe_flow() const {
  std::string out = name() + (state_ == State::Open ? " open" : state_ == State::Linking ? " linking" : " closed") +
                    " can_send_data=" + std::to_string(can_send_data());
  if (set_) {
    // Where the ordered stream stands: a gap that never fills (a cell lost
    // with a leg) shows as held cells behind a delivered number that stays.
    const auto& rx = set_->receiver();
    out += " delivered_seq=" + std::to_string(rx.last_delivered().value()) +
           " highest_seq=" + std::to_string(rx.highest_received().value()) +
           " held=" + std::to_string(rx.queued_cells()) +
           " awaiting_replacement=" + std::to_string(set_->awaiting_replacement());
  }
  const auto infos = set_ ? set_->legs() : std::vector<proto::ConfluxLegInfo>{};
  for (const auto& [serial, leg] : legs_) {
    out += " | leg " + std::to_string(serial) + " linked=" + std::to_string(leg.phase == LegPhase::Linked) +
           " relinking=" + std::to_string(leg.relinking) +
           " blocked_on_channel=" + std::to_string(leg.circuit->blocked_on_channel());
    if (const proto::Vegas* v = leg.circuit->leg_vegas())
      out += " cwnd=" + std::to_string(v->cwnd()) + " inflight=" + std::to_string(v->inflight());
    for (const auto& i : infos)
      if (i.id == leg.id)
        out += " last_seq=" + std::to_string(set_->receiver().leg_last_seq(leg.id).value_or(SeqAbs{}).value()) +
               " cells_received=" + std::to_string(i.cells_received) + " cells_sent=" + std::to_string(i.cells_sent) +
               " resend_queued=" + std::to_string(i.resend_queued);
  }
  return out;
}

}  // namespace conflux::client
