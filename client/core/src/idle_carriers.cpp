#include "conflux/client/idle_carriers.hpp"

#include <tuple>

namespace conflux::client {

std::vector<std::uint64_t> expired_carriers(const std::vector<CarrierUse>& carriers, CarrierUse::TimePoint now,
                                            std::chrono::seconds max_dirtiness) {
  std::vector<std::uint64_t> out;
  for (const auto& c : carriers) {
    if (c.streams != 0 || !c.dirty_since) continue;
    if (c.retired || now - *c.dirty_since > max_dirtiness) out.push_back(c.serial);
  }
  return out;
}

std::optional<std::uint64_t> carrier_to_evict(const std::vector<CarrierUse>& carriers) {
  const CarrierUse* best = nullptr;
  // Clean sorts after dirty; then the oldest use; the serial breaks ties so
  // the choice does not depend on the order the pool lists them in.
  auto key = [](const CarrierUse& c) { return std::make_tuple(!c.dirty_since, c.last_used, c.serial); };
  for (const auto& c : carriers) {
    if (c.streams != 0 || c.reserved) continue;
    if (best == nullptr || key(c) < key(*best)) best = &c;
  }
  if (best == nullptr) return std::nullopt;
  return best->serial;
}

}  // namespace conflux::client
