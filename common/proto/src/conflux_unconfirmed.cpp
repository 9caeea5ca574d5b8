#include "conflux/proto/conflux_unconfirmed.hpp"

#include <algorithm>

namespace conflux::proto {

std::deque<std::uint64_t>* UnconfirmedData::find(LegId leg) noexcept {
  for (auto& [id, cells] : legs_)
    if (id == leg) return &cells;
  return nullptr;
}

void UnconfirmedData::on_data_sent(LegId leg, SeqAbs seq) {
  auto* cells = find(leg);
  if (cells == nullptr) cells = &legs_.emplace_back(leg, std::deque<std::uint64_t>{}).second;
  cells->push_back(seq.value());
  all_.insert(seq.value());
}

void UnconfirmedData::on_acked(LegId leg, std::uint64_t data_cells) {
  auto* cells = find(leg);
  if (cells == nullptr) return;
  for (; data_cells > 0 && !cells->empty(); --data_cells) {
    all_.erase(all_.find(cells->front()));
    cells->pop_front();
  }
}

void UnconfirmedData::forget_leg(LegId leg) {
  auto it = std::find_if(legs_.begin(), legs_.end(), [&](const auto& l) { return l.first == leg; });
  if (it == legs_.end()) return;
  for (const auto seq : it->second) all_.erase(all_.find(seq));
  legs_.erase(it);
}

std::uint64_t UnconfirmedData::span(SeqAbs last_sent) const noexcept {
  if (all_.empty() || last_sent.value() < *all_.begin()) return 0;
  return last_sent.value() - *all_.begin() + 1;
}

std::optional<LegId> UnconfirmedData::oldest_leg() const noexcept {
  if (all_.empty()) return std::nullopt;
  const auto oldest = *all_.begin();
  for (const auto& [id, cells] : legs_)
    if (std::find(cells.begin(), cells.end(), oldest) != cells.end()) return id;
  return std::nullopt;
}

}  // namespace conflux::proto
