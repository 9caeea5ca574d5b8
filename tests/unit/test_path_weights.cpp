// Bandwidth-weighted selection by position (path-spec 2.2, dir-spec 3.8.3):
// frequencies against the computed expectation, the weight each position
// applies, the fallback without weights, and overflow safety.
#include <array>
#include <map>

#include <catch2/catch.hpp>

#include "conflux/path/relay_rules.hpp"
#include "conflux/path/weighted.hpp"
#include "path_test_support.hpp"

using namespace conflux;
using namespace conflux::path;
using namespace conflux::path::test;

namespace {

constexpr int kDraws = 100000;
// Binomial standard error at p = 0.5 over 1e5 draws is 0.0016; 0.01 is > 6 sigma.
constexpr double kTolerance = 0.01;

std::vector<double> frequencies(const std::vector<dir::RouterEntry>& relays, Position pos,
                                const std::optional<dir::BandwidthWeights>& w, std::uint64_t seed) {
  std::vector<const dir::RouterEntry*> ptrs;
  for (const auto& r : relays) ptrs.push_back(&r);
  std::vector<double> f(relays.size());
  Rng rng = seeded(seed);
  for (int i = 0; i < kDraws; ++i) {
    auto k = choose_by_bandwidth(ptrs, pos, w, rng);
    if (!k) FAIL("nothing chosen");
    f[*k] += 1.0 / kDraws;
  }
  return f;
}

std::vector<double> expected(const std::vector<dir::RouterEntry>& relays, Position pos,
                             const std::optional<dir::BandwidthWeights>& w) {
  std::vector<double> e;
  double total = 0;
  for (const auto& r : relays) {
    e.push_back(static_cast<double>(r.bandwidth) * static_cast<double>(position_weight(r.flags, pos, w)));
    total += e.back();
  }
  for (double& x : e) x /= total;
  return e;
}

void require_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("relay " << i << " got " << got[i] << " want " << want[i]);
    CHECK(std::abs(got[i] - want[i]) < kTolerance);
  }
}

}  // namespace

TEST_CASE("uniform_below stays in range and covers it evenly", "[path][weights]") {
  Rng rng = seeded(1);
  CHECK(uniform_below(rng, 0) == 0);
  CHECK(uniform_below(rng, 1) == 0);
  std::array<int, 3> seen{};
  for (int i = 0; i < 30000; ++i) {
    auto v = uniform_below(rng, 3);
    if (v >= 3) FAIL("out of range: " << v);
    ++seen[v];
  }
  for (int n : seen) CHECK(std::abs(n - 10000) < 500);
}

TEST_CASE("without weights, choice frequency follows consensus bandwidth", "[path][weights]") {
  std::vector<dir::RouterEntry> relays{relay(1, kMiddleFlags, 100), relay(2, kMiddleFlags, 200),
                                       relay(3, kMiddleFlags, 300), relay(4, kMiddleFlags, 400)};
  const auto want = std::vector<double>{0.1, 0.2, 0.3, 0.4};
  CHECK(expected(relays, Position::Middle, std::nullopt) == want);
  require_close(frequencies(relays, Position::Middle, std::nullopt, 7), want);
  // Flags do not matter without weights: position_weight is 1 everywhere.
  for (auto pos : {Position::Guard, Position::Middle, Position::Exit})
    CHECK(position_weight(flags(kGuardExitFlags), pos, std::nullopt) == 1);
}

TEST_CASE("position_weight picks the W of the position and flag class", "[path][weights]") {
  const auto w = distinct_weights();
  const auto g = flags(kGuardFlags), e = flags(kExitFlags), d = flags(kGuardExitFlags), m = flags(kMiddleFlags);
  CHECK(position_weight(g, Position::Guard, w) == 7000);
  CHECK(position_weight(d, Position::Guard, w) == 3000);
  CHECK(position_weight(m, Position::Guard, w) == 0);
  CHECK(position_weight(e, Position::Guard, w) == 0);
  CHECK(position_weight(g, Position::Middle, w) == 2000);
  CHECK(position_weight(m, Position::Middle, w) == 10000);
  CHECK(position_weight(e, Position::Middle, w) == 1000);
  CHECK(position_weight(d, Position::Middle, w) == 500);
  CHECK(position_weight(g, Position::Exit, w) == 0);
  CHECK(position_weight(m, Position::Exit, w) == 0);
  CHECK(position_weight(e, Position::Exit, w) == 9000);
  CHECK(position_weight(d, Position::Exit, w) == 4000);
  auto negative = w;
  negative.wmm = -5;
  CHECK(position_weight(m, Position::Middle, negative) == 0);
}

TEST_CASE("each position's weights shape the frequencies", "[path][weights]") {
  std::vector<dir::RouterEntry> relays{relay(1, kGuardFlags, 1000), relay(2, kExitFlags, 1000, kWebPolicy),
                                       relay(3, kGuardExitFlags, 1000, kWebPolicy), relay(4, kMiddleFlags, 1000)};
  const auto w = distinct_weights();
  SECTION("middle: Wmg, Wme, Wmd, Wmm") {
    const auto want = expected(relays, Position::Middle, w);
    CHECK(want[3] == Approx(10000.0 / 13500));
    require_close(frequencies(relays, Position::Middle, w, 11), want);
  }
  SECTION("guard: Wgg and Wgd; exit-only and plain relays never") {
    const auto got = frequencies(relays, Position::Guard, w, 12);
    require_close(got, {0.7, 0.0, 0.3, 0.0});
    CHECK(got[1] == 0.0);
    CHECK(got[3] == 0.0);
  }
  SECTION("exit: Wee and Wed") {
    require_close(frequencies(relays, Position::Exit, w, 13), {0.0, 9.0 / 13, 4.0 / 13, 0.0});
  }
}

TEST_CASE("all-zero weights choose uniformly, an empty list chooses nothing", "[path][weights]") {
  std::vector<dir::RouterEntry> relays{relay(1, kMiddleFlags, 0), relay(2, kMiddleFlags, 0),
                                       relay(3, kMiddleFlags, 0), relay(4, kMiddleFlags, 0)};
  require_close(frequencies(relays, Position::Middle, std::nullopt, 3), {0.25, 0.25, 0.25, 0.25});
  Rng rng = seeded(3);
  CHECK_FALSE(choose_by_bandwidth({}, Position::Middle, std::nullopt, rng));
}

TEST_CASE("huge bandwidths and weights do not overflow", "[path][weights]") {
  // 2^64-1 would overflow 64-bit products and sums; the choice must still
  // follow the (clamped) proportions: here both clamp to 2^48, so 1:1, and
  // a third relay at 2^47 gets half as much.
  std::vector<dir::RouterEntry> relays{relay(1, kMiddleFlags, ~std::uint64_t{0}),
                                       relay(2, kMiddleFlags, ~std::uint64_t{0} - 5),
                                       relay(3, kMiddleFlags, std::uint64_t{1} << 47)};
  dir::BandwidthWeights w = distinct_weights();
  w.wmm = std::int64_t{1} << 40;  // clamped to 2^31
  require_close(frequencies(relays, Position::Middle, w, 5), {0.4, 0.4, 0.2});
  // 10,000 relays at the parser's bandwidth cap with the largest weight.
  std::vector<dir::RouterEntry> many;
  for (int i = 0; i < 10000; ++i) many.push_back(relay(static_cast<std::uint8_t>(i), kMiddleFlags, 1ULL << 30));
  std::vector<const dir::RouterEntry*> ptrs;
  for (const auto& r : many) ptrs.push_back(&r);
  Rng rng = seeded(9);
  std::map<std::size_t, int> hits;
  for (int i = 0; i < 200; ++i) ++hits[*choose_by_bandwidth(ptrs, Position::Middle, w, rng)];
  CHECK(hits.size() > 180);  // spread over the relays, not stuck on one (expected ~198)
}
