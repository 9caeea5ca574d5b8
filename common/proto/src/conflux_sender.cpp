#include "conflux/proto/conflux_sender.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace conflux::proto {

ConfluxSender::Leg* ConfluxSender::find(LegId leg) noexcept {
  const auto it = std::find_if(legs_.begin(), legs_.end(), [&](const Leg& l) { return l.id == leg; });
  return it == legs_.end() ? nullptr : &*it;
}

std::optional<SeqAbs> ConfluxSender::leg_last_seq(LegId leg) const noexcept {
  for (const Leg& l : legs_)
    if (l.id == leg) return l.last;
  return std::nullopt;
}

ConfluxResult<ConfluxOk> ConfluxSender::add_leg(LegId leg, SeqAbs base) {
  if (find(leg) != nullptr) return Unexpected{ConfluxError::DuplicateLeg};
  if (legs_.size() >= max_legs_) return Unexpected{ConfluxError::TooManyLegs};
  // The peer cannot have received more than we sent (tor closes the set on
  // the same incoherence, bug 41155).
  if (base > sent_) return Unexpected{ConfluxError::SeqIncoherent};
  legs_.push_back(Leg{leg, base});
  return ConfluxOk{};
}

ConfluxResult<ConfluxOk> ConfluxSender::rebase_leg(LegId leg, SeqAbs base) {
  Leg* l = find(leg);
  if (l == nullptr) return Unexpected{ConfluxError::UnknownLeg};
  if (base > sent_) return Unexpected{ConfluxError::SeqIncoherent};
  l->last = base;
  return ConfluxOk{};
}

void ConfluxSender::remove_leg(LegId leg) noexcept {
  std::erase_if(legs_, [&](const Leg& l) { return l.id == leg; });
  if (current_ == leg) current_.reset();
}

// The receiver's count for 'leg' must reach seq - 1 before the cell: a
// SWITCH carries the difference when there is one.
ConfluxResult<SendPlan> ConfluxSender::move_to(Leg& leg, SeqAbs seq) {
  if (leg.last >= seq) return Unexpected{ConfluxError::SeqIncoherent};
  const std::uint64_t gap = seq.value() - 1 - leg.last.value();
  // tor refuses relative values of 2^32 - 1 and above (bug 41155).
  if (gap >= std::numeric_limits<std::uint32_t>::max()) return Unexpected{ConfluxError::SwitchOverflow};
  SendPlan plan;
  plan.seq = seq;
  if (gap > 0) {
    plan.switch_first = cell::ConfluxSwitchMsg{SeqRel{static_cast<std::uint32_t>(gap)}};
    ++switches_;
  }
  leg.last = seq;
  current_ = leg.id;
  return plan;
}

ConfluxResult<SendPlan> ConfluxSender::prepare_send(LegId leg, cell::RelayCommand command, StreamId stream) {
  const auto route = route_leg_cell(command, stream);
  if (!route) return Unexpected{route.error()};
  if (*route != LegCellRoute::Sequenced) return Unexpected{ConfluxError::NotMultiplexed};
  Leg* l = find(leg);
  if (l == nullptr) return Unexpected{ConfluxError::UnknownLeg};
  if (sent_.value() == std::numeric_limits<std::uint64_t>::max()) return Unexpected{ConfluxError::SeqIncoherent};
  auto plan = move_to(*l, sent_ + 1);
  if (plan) sent_ += 1;
  return plan;
}

ConfluxResult<SendPlan> ConfluxSender::prepare_resend(LegId leg, SeqAbs seq) {
  Leg* l = find(leg);
  if (l == nullptr) return Unexpected{ConfluxError::UnknownLeg};
  if (seq > sent_ || seq.value() == 0) return Unexpected{ConfluxError::SeqIncoherent};
  return move_to(*l, seq);
}

}  // namespace conflux::proto
