#pragma once
// The stock tor network's server descriptors (tests/data/tor, written by
// tools/tornet), and a clock that stays at a time they were fresh, for the
// directory tests that feed them to our authorities.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/net/clock.hpp"
#include "test_net_processes_support.hpp"

namespace conflux::test::tordata {

// Published 2026-11-26 00:46:22 (and :21).
inline constexpr std::uint64_t kStockPublished = 1'795'653'982;

// A minute after they were published: every authority computes for one valid-after.
class StockTimeClock final : public net::Clock {
 public:
  [[nodiscard]] Monotonic::time_point now() const override { return Monotonic::now(); }
  [[nodiscard]] std::uint64_t unix_seconds() const override { return kStockPublished + 60; }
};

// Each descriptor of the file, from its "router " line to the next.
inline std::vector<std::string> stock_descriptors() {
  const std::string all = procs::read_text(std::string(CONFLUX_TEST_DATA_DIR) + "/tor/server-descriptors.txt");
  std::vector<std::string> out;
  for (std::size_t at = 0; at < all.size();) {
    const auto next = all.find("\nrouter ", at);
    out.push_back(all.substr(at, next == std::string::npos ? std::string::npos : next + 1 - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  return out;
}

}  // namespace conflux::test::tordata
