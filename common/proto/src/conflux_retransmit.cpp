#include "conflux/proto/conflux_retransmit.hpp"

#include <algorithm>
#include <utility>

namespace conflux::proto {

RetransmitBuffer::Leg* RetransmitBuffer::find(LegId leg) noexcept {
  const auto it = std::find_if(legs_.begin(), legs_.end(), [&](const Leg& l) { return l.id == leg; });
  return it == legs_.end() ? nullptr : &*it;
}

const RetransmitBuffer::Leg* RetransmitBuffer::find(LegId leg) const noexcept {
  const auto it = std::find_if(legs_.begin(), legs_.end(), [&](const Leg& l) { return l.id == leg; });
  return it == legs_.end() ? nullptr : &*it;
}

RetransmitBuffer::Leg& RetransmitBuffer::get(LegId leg) {
  if (Leg* l = find(leg)) return *l;
  legs_.push_back(Leg{leg, {}, false, false, 0, 0});
  return legs_.back();
}

void RetransmitBuffer::pop_front(Leg& l) noexcept {
  bytes_ -= l.cells.front().cost;
  l.cells.pop_front();
}

void RetransmitBuffer::drop_history(Leg& l) noexcept {
  while (!l.cells.empty()) pop_front(l);
}

ConfluxResult<ConfluxOk> RetransmitBuffer::on_cell_sent(LegId leg, SeqAbs seq, SeqCell cell) {
  Leg& l = get(leg);
  if (l.broken) return Unexpected{ConfluxError::RetransmitFull};
  if (!l.restarted && !l.cells.empty() && seq <= l.cells.back().seq) return Unexpected{ConfluxError::SeqIncoherent};
  l.restarted = false;
  const std::size_t cost = cell.body.size() + kEntryOverhead;
  if (l.cells.size() >= limits_.max_cells_per_leg || cost > limits_.max_bytes ||
      bytes_ > limits_.max_bytes - cost) {
    // A gap in the history would make count-based acks land on the wrong
    // cells; give the leg up entirely.
    drop_history(l);
    l.broken = true;
    return Unexpected{ConfluxError::RetransmitFull};
  }
  const bool data = cell.command == cell::RelayCommand::Data;
  if (data) ++l.data_sent;
  const std::uint64_t gate = data ? l.data_sent : l.data_sent + 1;
  l.cells.push_back(Entry{seq, std::move(cell), cost, gate});
  bytes_ += cost;
  return ConfluxOk{};
}

ConfluxResult<ConfluxOk> RetransmitBuffer::on_leg_acked(LegId leg, CellCount data_cells) {
  Leg* l = find(leg);
  if (l == nullptr || l->broken) return ConfluxOk{};  // nothing kept: nothing to free
  const std::uint64_t want = data_cells.value();
  if (want > l->data_sent - l->data_acked) return Unexpected{ConfluxError::AckBeyondSent};
  l->data_acked += want;
  // Free up to and including the acknowledged DATA cells (and the non-DATA
  // cells before them); non-DATA cells after them are not known received
  // yet. Gates never decrease along the deque (it is in send order), even
  // where on_peer_delivered took cells out of the middle.
  while (!l->cells.empty() && l->cells.front().gate <= l->data_acked) pop_front(*l);
  return ConfluxOk{};
}

void RetransmitBuffer::on_peer_delivered(SeqAbs seq) noexcept {
  for (Leg& l : legs_) {
    for (auto it = l.cells.begin(); it != l.cells.end();) {
      if (it->seq <= seq) {
        bytes_ -= it->cost;
        it = l.cells.erase(it);
      } else {
        ++it;
      }
    }
  }
}

void RetransmitBuffer::restart_leg(LegId leg) noexcept {
  if (Leg* l = find(leg)) l->restarted = true;
}

void RetransmitBuffer::on_leg_acked_through(LegId leg, SeqAbs seq) noexcept {
  Leg* l = find(leg);
  if (l == nullptr) return;
  while (!l->cells.empty() && l->cells.front().seq <= seq) pop_front(*l);
}

ConfluxResult<std::vector<ResendCell>> RetransmitBuffer::cells_to_resend(std::span<const LegId> dead_legs,
                                                                         SeqAbs peer_delivered) {
  bool lost = false;
  std::vector<ResendCell> out;
  for (const LegId id : dead_legs) {
    Leg* l = find(id);
    if (l == nullptr) continue;
    if (l->broken) lost = true;
    for (Entry& e : l->cells)
      if (e.seq > peer_delivered) out.push_back(ResendCell{e.seq, std::move(e.cell)});
    forget_leg(id);
  }
  if (lost) return Unexpected{ConfluxError::ResendUnavailable};
  std::sort(out.begin(), out.end(), [](const ResendCell& a, const ResendCell& b) { return a.seq < b.seq; });
  return out;
}

void RetransmitBuffer::forget_leg(LegId leg) noexcept {
  Leg* l = find(leg);
  if (l == nullptr) return;
  drop_history(*l);
  std::erase_if(legs_, [&](const Leg& x) { return x.id == leg; });
}

std::size_t RetransmitBuffer::retained_cells(LegId leg) const noexcept {
  const Leg* l = find(leg);
  return l == nullptr ? 0 : l->cells.size();
}

bool RetransmitBuffer::complete(LegId leg) const noexcept {
  const Leg* l = find(leg);
  return l == nullptr || !l->broken;
}

}  // namespace conflux::proto
