#include "conflux/proto/conflux_reorder_budget.hpp"

#include <algorithm>
#include <utility>

namespace conflux::proto {

bool ReorderBudget::can_charge(std::size_t bytes) const noexcept {
  return bytes <= config_.cap_bytes && used_ <= config_.cap_bytes - bytes;
}

void ReorderBudget::update(SetId set, std::size_t bytes, std::optional<ConfluxTime> oldest) {
  const auto it = sets_.find(set);
  if (it != sets_.end()) {
    used_ -= it->second.bytes;
    sets_.erase(it);
  }
  if (bytes == 0) return;
  used_ += bytes;
  sets_.emplace(set, Usage{bytes, oldest.value_or(ConfluxTime{})});
}

std::vector<SetId> ReorderBudget::sets_to_close() const {
  std::vector<SetId> out;
  if (!under_pressure()) return out;
  std::vector<std::pair<ConfluxTime, SetId>> order;
  order.reserve(sets_.size());
  for (const auto& [id, usage] : sets_) order.emplace_back(usage.oldest, id);
  std::sort(order.begin(), order.end());
  std::size_t remaining = used_;
  for (const auto& [when, id] : order) {
    if (remaining <= config_.pressure_bytes) break;
    out.push_back(id);
    remaining -= sets_.at(id).bytes;
  }
  return out;
}

std::vector<ReorderBudget::SetUsage> ReorderBudget::usage() const {
  std::vector<SetUsage> out;
  out.reserve(sets_.size());
  for (const auto& [id, u] : sets_) out.push_back({id, u.bytes, u.oldest});
  return out;
}

}  // namespace conflux::proto
