#pragma once
// The sequence numbers carried by LINK / LINKED (prop 329 sections 2.4.4 and
// 2.7) and what each side does with them when a leg joins a set.
//
// Each side advertises on the new leg:
//   last_seqno_sent = its sender's absolute count (max over legs),
//   last_seqno_recv = its receiver's last delivered number.
// On the peer's numbers it then:
//   - numbers its outgoing cells on the leg from the peer's last_seqno_recv
//     (ConfluxSender::add_leg(leg, plan.send_base));
//   - counts the peer's cells on the leg from what it itself advertised as
//     last_seqno_recv (ConfluxReceiver::add_leg(leg, plan.recv_base));
//   - resends, in order, the dead legs' cells numbered above the peer's
//     last_seqno_recv (RetransmitBuffer::cells_to_resend(dead, plan.send_base)).
//
// For a new set everything is 0. When nothing was lost, recv_base equals the
// peer's last_seqno_sent, so this is C tor's rule (new leg: last_seq_recv =
// peer.last_seqno_sent, last_seq_sent = peer.last_seqno_recv). When cells
// were lost, C tor refuses the link (its data-loss check); we resend them.
#include "conflux/proto/conflux_receiver.hpp"
#include "conflux/proto/conflux_sender.hpp"
#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

struct LinkNumbers {
  SeqAbs last_seqno_sent{};
  SeqAbs last_seqno_recv{};
  friend bool operator==(const LinkNumbers&, const LinkNumbers&) = default;
};

// What to put in this side's LINK or LINKED. Keep it: plan_resync needs it.
[[nodiscard]] LinkNumbers advertised_numbers(const ConfluxSender& tx, const ConfluxReceiver& rx) noexcept;

struct ResyncPlan {
  SeqAbs send_base{};    // ConfluxSender::add_leg
  SeqAbs recv_base{};    // ConfluxReceiver::add_leg
  bool resend = false;   // some cells we sent are not yet delivered at the peer
  bool peer_in_flight = false;  // the peer had sent cells we had not delivered
};

// 'ours': what we advertised on this leg; 'peer': what the peer advertised;
// 'sent_now': our sender's count now (it may have moved since we advertised).
// The peer cannot have delivered more than we ever sent: SeqIncoherent.
[[nodiscard]] ConfluxResult<ResyncPlan> plan_resync(LinkNumbers ours, LinkNumbers peer, SeqAbs sent_now) noexcept;

}  // namespace conflux::proto
