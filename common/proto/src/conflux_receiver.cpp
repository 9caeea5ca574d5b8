#include "conflux/proto/conflux_receiver.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace conflux::proto {

ConfluxReceiver::ConfluxReceiver(SetId id, ReorderBudget& budget, ReceiverLimits limits)
    : id_(id), budget_(budget), limits_(limits) {}

ConfluxReceiver::~ConfluxReceiver() { budget_.release(id_); }

ConfluxReceiver::Leg* ConfluxReceiver::find(LegId leg) noexcept {
  const auto it = std::find_if(legs_.begin(), legs_.end(), [&](const Leg& l) { return l.id == leg; });
  return it == legs_.end() ? nullptr : &*it;
}

const ConfluxReceiver::Leg* ConfluxReceiver::find(LegId leg) const noexcept {
  const auto it = std::find_if(legs_.begin(), legs_.end(), [&](const Leg& l) { return l.id == leg; });
  return it == legs_.end() ? nullptr : &*it;
}

std::optional<SeqAbs> ConfluxReceiver::leg_last_seq(LegId leg) const noexcept {
  const Leg* l = find(leg);
  if (l == nullptr) return std::nullopt;
  return l->last;
}

std::optional<ConfluxTime> ConfluxReceiver::oldest_queued() const noexcept {
  if (arrivals_.empty()) return std::nullopt;
  return *arrivals_.begin();
}

void ConfluxReceiver::report() noexcept { budget_.update(id_, queued_bytes_, oldest_queued()); }

ConfluxResult<ConfluxOk> ConfluxReceiver::add_leg(LegId leg, SeqAbs base) {
  if (find(leg) != nullptr) return Unexpected{ConfluxError::DuplicateLeg};
  if (legs_.size() >= limits_.max_legs) return Unexpected{ConfluxError::TooManyLegs};
  // The peer cannot number a leg from beyond what it has sent, and we cannot
  // have advertised more than we delivered.
  if (base > delivered_) return Unexpected{ConfluxError::SeqIncoherent};
  Leg l;
  l.id = leg;
  l.last = base;
  l.dup_allowance = resend_allowance();
  legs_.push_back(l);
  return ConfluxOk{};
}

std::uint32_t ConfluxReceiver::resend_allowance() const noexcept {
  // Only a set that already carried data can see resent copies.
  return highest_ > SeqAbs{0} ? limits_.resend_allowance_cells : 0;
}

ConfluxResult<ConfluxOk> ConfluxReceiver::rebase_leg(LegId leg, SeqAbs base) {
  Leg* l = find(leg);
  if (l == nullptr) return Unexpected{ConfluxError::UnknownLeg};
  if (base > delivered_) return Unexpected{ConfluxError::SeqIncoherent};
  l->last = base;
  l->switch_pending = false;
  l->seen_event = false;
  l->dup_allowance = resend_allowance();
  return ConfluxOk{};
}

void ConfluxReceiver::remove_leg(LegId leg) noexcept {
  std::erase_if(legs_, [&](const Leg& l) { return l.id == leg; });
}

ConfluxResult<ConfluxOk> ConfluxReceiver::on_switch(LegId leg, SeqRel relative) {
  Leg* l = find(leg);
  if (l == nullptr) return Unexpected{ConfluxError::UnknownLeg};
  if (l->switch_pending) return Unexpected{ConfluxError::SwitchBackToBack};
  if (relative.value() == 0 && l->seen_event) return Unexpected{ConfluxError::SwitchZero};
  const std::uint64_t next = l->last.value() + relative.value();  // u32 + u64 < 2^64 in practice
  if (next < l->last.value()) return Unexpected{ConfluxError::SwitchBeyondWindow};
  // The next cell on this leg will be next + 1; it must be inside the window.
  if (next >= delivered_.value() + limits_.seq_window) return Unexpected{ConfluxError::SwitchBeyondWindow};
  l->last = SeqAbs{next};
  l->switch_pending = true;
  l->seen_event = true;
  return ConfluxOk{};
}

ConfluxResult<Arrival> ConfluxReceiver::duplicate(Leg& leg, SeqAbs seq) {
  if (leg.dup_allowance == 0) return Unexpected{ConfluxError::DuplicateSeq};
  --leg.dup_allowance;
  Arrival a;
  a.fate = CellFate::DuplicateDropped;
  a.seq = seq;
  return a;
}

ConfluxResult<Arrival> ConfluxReceiver::on_cell(LegId leg, SeqCell cell, ConfluxTime now) {
  const auto route = route_leg_cell(cell.command, cell.stream);
  if (!route) return Unexpected{route.error()};
  if (*route != LegCellRoute::Sequenced) return Unexpected{ConfluxError::NotMultiplexed};
  Leg* l = find(leg);
  if (l == nullptr) return Unexpected{ConfluxError::UnknownLeg};
  if (l->last.value() == std::numeric_limits<std::uint64_t>::max()) return Unexpected{ConfluxError::SeqBeyondWindow};

  const SeqAbs seq = l->last + 1;
  l->last = seq;
  l->switch_pending = false;
  l->seen_event = true;

  if (seq <= delivered_ || queue_.contains(seq.value())) return duplicate(*l, seq);
  if (seq.value() - delivered_.value() > limits_.seq_window) return Unexpected{ConfluxError::SeqBeyondWindow};
  highest_ = std::max(highest_, seq);

  Arrival a;
  a.seq = seq;
  if (seq == delivered_ + 1) {
    delivered_ = seq;
    a.fate = CellFate::Deliver;
    a.deliver = std::move(cell);
    a.memory_pressure = budget_.under_pressure();
    return a;
  }

  const std::size_t cost = cost_of(cell);
  if (queued_bytes_ + cost > limits_.max_set_bytes) {
    const auto queued = queued_data_.find(cell.stream.value());
    const bool within_stream_window =
        cell.command == cell::RelayCommand::Data && cell.stream != StreamId{0} &&
        (queued == queued_data_.end() || queued->second < limits_.stream_window_cells);
    if (!within_stream_window) return Unexpected{ConfluxError::SetQueueFull};
  }
  if (!budget_.can_charge(cost)) return Unexpected{ConfluxError::GlobalQueueFull};
  count_queued(cell, true);
  queue_.emplace(seq.value(), Entry{std::move(cell), now, cost});
  arrivals_.insert(now);
  queued_bytes_ += cost;
  report();
  a.fate = CellFate::Queued;
  a.memory_pressure = budget_.under_pressure();
  return a;
}

std::optional<SeqCell> ConfluxReceiver::pop_ready() {
  const auto it = queue_.begin();
  if (it == queue_.end() || it->first != delivered_.value() + 1) return std::nullopt;
  SeqCell out = std::move(it->second.cell);
  queued_bytes_ -= it->second.cost;
  count_queued(it->second.cell, false);
  arrivals_.erase(arrivals_.find(it->second.arrived));
  queue_.erase(it);
  delivered_ += 1;
  report();
  return out;
}

void ConfluxReceiver::count_queued(const SeqCell& cell, bool add) noexcept {
  if (cell.command != cell::RelayCommand::Data) return;
  const std::uint16_t stream = cell.stream.value();
  if (add) {
    ++queued_data_[stream];
    return;
  }
  auto it = queued_data_.find(stream);
  if (it != queued_data_.end() && --it->second == 0) queued_data_.erase(it);
}

}  // namespace conflux::proto
