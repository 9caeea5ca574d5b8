#include "conflux/proto/conflux_resync.hpp"

namespace conflux::proto {

LinkNumbers advertised_numbers(const ConfluxSender& tx, const ConfluxReceiver& rx) noexcept {
  return LinkNumbers{tx.last_seq_sent(), rx.last_delivered()};
}

ConfluxResult<ResyncPlan> plan_resync(LinkNumbers ours, LinkNumbers peer, SeqAbs sent_now) noexcept {
  if (peer.last_seqno_recv > sent_now || ours.last_seqno_sent > sent_now) {
    return Unexpected{ConfluxError::SeqIncoherent};
  }
  ResyncPlan plan;
  plan.send_base = peer.last_seqno_recv;
  plan.recv_base = ours.last_seqno_recv;
  plan.resend = peer.last_seqno_recv < sent_now;
  // tor's data-loss condition, seen from our side: the peer sent more than we
  // had delivered when we advertised. Our peer resends; a C tor peer would
  // not, and the set fills its reorder queue until it is closed.
  plan.peer_in_flight = peer.last_seqno_sent > ours.last_seqno_recv;
  return plan;
}

}  // namespace conflux::proto
