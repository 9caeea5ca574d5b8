// Which idle circuits and Conflux sets the pools close (idle_carriers.hpp):
// tor's expiry of dirty unused circuits, once per NewCircuitPeriod, and the
// least recently used idle carrier closed to make room at a limit.
#include <catch2/catch.hpp>

#include "conflux/client/idle_carriers.hpp"

using namespace std::chrono_literals;
using conflux::client::CarrierUse;

namespace {

const CarrierUse::TimePoint t0{std::chrono::hours(1)};

CarrierUse carrier(std::uint64_t serial, std::size_t streams, std::optional<std::chrono::seconds> dirty_at,
                   std::chrono::seconds used_at, bool retired = false, bool reserved = false) {
  CarrierUse u;
  u.serial = serial;
  u.streams = streams;
  if (dirty_at) u.dirty_since = t0 + *dirty_at;
  u.last_used = t0 + used_at;
  u.retired = retired;
  u.reserved = reserved;
  return u;
}

}  // namespace

TEST_CASE("idle carriers: expiry closes idle circuits dirty past MaxCircuitDirtiness, and retired idle ones") {
  const std::vector<CarrierUse> all{
      carrier(1, 0, 0s, 5s),                        // idle, dirty for 601 s: expired
      carrier(2, 1, 0s, 5s),                        // dirty as long, but carries a stream
      carrier(3, 0, 2s, 5s),                        // idle, dirty for 599 s
      carrier(4, 0, std::nullopt, 0s),              // clean: never expired by dirtiness
      carrier(5, 0, 500s, 500s, /*retired=*/true),  // retired and idle: at once
      carrier(6, 2, 500s, 500s, /*retired=*/true),  // retired, streams still on it
  };
  CHECK(conflux::client::expired_carriers(all, t0 + 601s, 600s) == std::vector<std::uint64_t>{1, 5});
  CHECK(conflux::client::expired_carriers(all, t0 + 600s, 600s) == std::vector<std::uint64_t>{5});
}

TEST_CASE("idle carriers: eviction takes the least recently used idle one, dirty before clean") {
  std::vector<CarrierUse> all{
      carrier(1, 1, 0s, 0s),                                         // busy
      carrier(2, 0, std::nullopt, 1s),                               // clean, oldest
      carrier(3, 0, 5s, 30s),                                        // dirty, used at 30 s
      carrier(4, 0, 5s, 20s),                                        // dirty, used at 20 s
      carrier(5, 0, std::nullopt, 0s, false, /*reserved=*/true),     // linking for a waiting stream
  };
  CHECK(conflux::client::carrier_to_evict(all) == std::optional<std::uint64_t>(4));
  all.erase(all.begin() + 3);
  CHECK(conflux::client::carrier_to_evict(all) == std::optional<std::uint64_t>(3));
  all.erase(all.begin() + 2);
  CHECK(conflux::client::carrier_to_evict(all) == std::optional<std::uint64_t>(2));
  all.erase(all.begin() + 1);
  CHECK(conflux::client::carrier_to_evict(all) == std::nullopt);  // busy or reserved: nothing to close
}

TEST_CASE("idle carriers: the expiry pass is due at once, then once per NewCircuitPeriod") {
  conflux::client::ExpiryPeriod period(30s);
  CHECK(period.due(t0));
  CHECK_FALSE(period.due(t0 + 1s));
  CHECK_FALSE(period.due(t0 + 29s));
  CHECK(period.due(t0 + 30s));
  CHECK_FALSE(period.due(t0 + 59s));
  CHECK(period.due(t0 + 75s));
  CHECK_FALSE(period.due(t0 + 104s));
  CHECK(period.due(t0 + 105s));
}
