#pragma once
// Which idle carriers (circuits or Conflux sets with no stream) a pool
// closes, shared by CircuitPool and ConfluxPool. Sans-I/O: the pools
// describe their carriers, these functions decide.
//
// - Expiry is tor's circuit_expire_old_circuits_clientside: a carrier
//   without streams whose first stream came more than MaxCircuitDirtiness
//   ago (or that was retired) is closed. As in tor, the pass runs once per
//   NewCircuitPeriod (circuit_expire_old_circs_as_needed), not every tick.
// - Eviction is ours: at a limit on carriers, the least recently used one
//   without streams is closed to make room, dirty ones first (they can serve
//   only their own isolation group; a clean one can serve anyone). Without
//   it, a limit is held for MaxCircuitDirtiness by carriers nobody uses,
//   and every new isolation group waits that long.
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace conflux::client {

struct CarrierUse {
  using TimePoint = std::chrono::steady_clock::time_point;
  std::uint64_t serial = 0;
  std::size_t streams = 0;
  std::optional<TimePoint> dirty_since;  // its first stream
  TimePoint last_used{};                 // its last stream came or went (else when it was launched)
  bool retired = false;                  // takes no new streams
  // Being built or linked for streams waiting now: never evicted.
  bool reserved = false;
};

// Carriers the expiry pass closes now.
[[nodiscard]] std::vector<std::uint64_t> expired_carriers(const std::vector<CarrierUse>& carriers,
                                                          CarrierUse::TimePoint now,
                                                          std::chrono::seconds max_dirtiness);

// The idle carrier to close to make room: dirty ones first, least recently
// used first; none when every carrier has streams or is reserved.
[[nodiscard]] std::optional<std::uint64_t> carrier_to_evict(const std::vector<CarrierUse>& carriers);

// When the expiry pass is due: at the first call, then once per period
// (NewCircuitPeriod).
class ExpiryPeriod {
 public:
  explicit ExpiryPeriod(std::chrono::seconds period) : period_(period) {}
  [[nodiscard]] bool due(CarrierUse::TimePoint now) {
    if (next_ && now < *next_) return false;
    next_ = now + period_;
    return true;
  }

 private:
  std::chrono::seconds period_;
  std::optional<CarrierUse::TimePoint> next_;
};

}  // namespace conflux::client
