#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

std::string_view to_string(ConfluxError e) noexcept {
  switch (e) {
    case ConfluxError::UnknownLeg: return "unknown leg";
    case ConfluxError::DuplicateLeg: return "leg already in the set";
    case ConfluxError::NotMultiplexed: return "command is not multiplexed";
    case ConfluxError::SeqIncoherent: return "incoherent sequence numbers";
    case ConfluxError::SwitchOverflow: return "relative sequence number overflows SWITCH";
    case ConfluxError::BeginDirOnSet: return "BEGIN_DIR on a conflux leg";
    case ConfluxError::WrongHop: return "conflux cell from a hop other than the join point";
    case ConfluxError::DuplicateSeq: return "duplicate sequence number";
    case ConfluxError::SeqBeyondWindow: return "sequence number beyond the reorder window";
    case ConfluxError::SwitchZero: return "SWITCH with relative sequence number 0";
    case ConfluxError::SwitchBackToBack: return "SWITCH without a cell since the last SWITCH";
    case ConfluxError::SwitchBeyondWindow: return "SWITCH beyond the reorder window";
    case ConfluxError::SetQueueFull: return "set out-of-order queue full";
    case ConfluxError::GlobalQueueFull: return "global out-of-order budget exhausted";
    case ConfluxError::RetransmitFull: return "retransmit history full";
    case ConfluxError::ResendUnavailable: return "cells to resend were not kept";
    case ConfluxError::AckBeyondSent: return "acknowledgement beyond cells sent";
    case ConfluxError::TooManyLegs: return "too many legs for the set";
    case ConfluxError::TooManySets: return "too many sets";
    case ConfluxError::TooManyOriginLegs: return "too many legs from one origin";
    case ConfluxError::UnexpectedLink: return "unexpected CONFLUX_LINK";
    case ConfluxError::UnexpectedLinked: return "unexpected CONFLUX_LINKED";
    case ConfluxError::NonceMismatch: return "CONFLUX_LINK(ED) nonce mismatch";
    case ConfluxError::UnexpectedLinkedAck: return "unexpected CONFLUX_LINKED_ACK";
    case ConfluxError::DuplicateLinkedAck: return "duplicate CONFLUX_LINKED_ACK";
    case ConfluxError::LinkTimeout: return "conflux link deadline passed";
    case ConfluxError::WindowClosed: return "no leg can send DATA now";
  }
  return "unknown conflux error";
}

ConfluxResult<LegCellRoute> route_leg_cell(cell::RelayCommand cmd, StreamId stream) noexcept {
  if (cmd == cell::RelayCommand::BeginDir) return Unexpected{ConfluxError::BeginDirOnSet};
  if (cmd == cell::RelayCommand::Sendme && stream != StreamId{0}) return LegCellRoute::Sequenced;
  return cell::is_conflux_multiplexed(cmd) ? LegCellRoute::Sequenced : LegCellRoute::LegLocal;
}

ConfluxResult<ConfluxOk> check_join_point(HopNum from, HopNum join_point) noexcept {
  if (from != join_point || join_point.value() == 0) return Unexpected{ConfluxError::WrongHop};
  return ConfluxOk{};
}

}  // namespace conflux::proto
