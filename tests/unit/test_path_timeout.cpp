// The adaptive circuit build timeout (path-spec 2.4): initial value, the
// Pareto fit against known parameters, clamping, right-censored timeouts,
// the network-change reset, and the bounded history.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "conflux/path/build_timeout.hpp"

using namespace conflux::path;
using std::chrono::milliseconds;

namespace {

// Pareto(xm, alpha) by inverting the CDF.
struct ParetoSource {
  std::mt19937_64 gen;
  double xm, alpha;
  milliseconds next() {
    const double u = std::uniform_real_distribution<double>(1e-12, 1.0)(gen);
    return milliseconds(static_cast<std::int64_t>(xm / std::pow(u, 1.0 / alpha)));
  }
};

double quantile(double xm, double alpha, double q) { return xm / std::pow(1.0 - q, 1.0 / alpha); }

}  // namespace

TEST_CASE("the initial timeout holds until enough builds completed", "[path][cbt]") {
  BuildTimeoutEstimator cbt;
  CHECK(cbt.timeout() == milliseconds(60000));
  CHECK(cbt.close_timeout() == milliseconds(60000));
  for (int i = 0; i < 99; ++i) cbt.add_build_time(milliseconds(3000 + i));
  CHECK(cbt.timeout() == milliseconds(60000));
  CHECK_FALSE(cbt.fit());
  cbt.add_build_time(milliseconds(3000));
  CHECK(cbt.fit());
  CHECK(cbt.timeout() < milliseconds(10000));
}

TEST_CASE("the fit recovers a Pareto distribution's 80% point", "[path][cbt]") {
  for (auto [xm, alpha] : {std::pair{2000.0, 2.5}, std::pair{4000.0, 1.8}, std::pair{2500.0, 4.0}}) {
    ParetoSource src{std::mt19937_64(static_cast<std::uint64_t>(xm * alpha)), xm, alpha};
    BuildTimeoutEstimator cbt;
    for (int i = 0; i < 1000; ++i) cbt.add_build_time(src.next());
    REQUIRE(cbt.fit());
    INFO("xm " << xm << " alpha " << alpha << " fit xm " << cbt.fit()->xm_ms << " alpha " << cbt.fit()->alpha);
    // Xm from the modes sits a little above the true Xm (bins of 10 ms, 10 modes).
    CHECK(cbt.fit()->xm_ms == Approx(xm).epsilon(0.08));
    // alpha inherits that bias (times below Xm count as Xm): tor accepts it.
    CHECK(cbt.fit()->alpha == Approx(alpha).epsilon(0.2));
    const double want = quantile(xm, alpha, 0.8);
    CHECK(static_cast<double>(cbt.timeout().count()) == Approx(want).epsilon(0.15));
    CHECK(cbt.close_timeout() >= cbt.timeout());
    CHECK(cbt.close_timeout() >= milliseconds(60000));
  }
}

TEST_CASE("the timeout is clamped to [min, max]", "[path][cbt]") {
  BuildTimeoutEstimator fast;
  for (int i = 0; i < 200; ++i) fast.add_build_time(milliseconds(100));  // no spread at all
  REQUIRE(fast.fit());
  CHECK(std::isinf(fast.fit()->alpha));
  CHECK(fast.timeout() == milliseconds(1500));

  BuildTimeoutParams p;
  p.max = milliseconds(20000);
  BuildTimeoutEstimator slow(p);
  ParetoSource src{std::mt19937_64(3), 15000, 1.2};
  for (int i = 0; i < 300; ++i) slow.add_build_time(src.next());
  CHECK(slow.timeout() == milliseconds(20000));

  BuildTimeoutEstimator odd;
  odd.add_build_time(milliseconds(-5));  // clamped to 1 ms, no crash
  odd.add_build_time(milliseconds(std::int64_t{1} << 40));
  CHECK(odd.completed() == 2);
}

TEST_CASE("abandoned builds lengthen the timeout (right-censored)", "[path][cbt]") {
  ParetoSource a{std::mt19937_64(5), 2000, 3.0}, b{std::mt19937_64(5), 2000, 3.0};
  BuildTimeoutEstimator plain, censored;
  for (int i = 0; i < 500; ++i) {
    plain.add_build_time(a.next());
    censored.add_build_time(b.next());
    if (i % 10 == 0) censored.add_timeout();  // ~9% abandoned, spread out
  }
  CHECK(censored.abandoned() == 50);
  CHECK(censored.resets() == 0);
  CHECK(censored.fit()->alpha < plain.fit()->alpha);
  CHECK(censored.timeout() > plain.timeout());
}

TEST_CASE("a burst of timeouts means the network changed: start over", "[path][cbt]") {
  BuildTimeoutEstimator cbt;
  for (int i = 0; i < 200; ++i) cbt.add_build_time(milliseconds(2000 + (i % 50) * 20));
  const auto learnt = cbt.timeout();
  REQUIRE(learnt < milliseconds(10000));
  for (int i = 0; i < 17; ++i) cbt.add_timeout();
  CHECK(cbt.resets() == 0);
  CHECK(cbt.timeout() >= learnt);
  cbt.add_timeout();  // 18 of the last 20
  CHECK(cbt.resets() == 1);
  CHECK(cbt.timeout() == milliseconds(60000));
  CHECK(cbt.completed() == 0);
  CHECK_FALSE(cbt.fit());
  // Still failing at 60 s: double.
  for (int i = 0; i < 18; ++i) cbt.add_timeout();
  CHECK(cbt.resets() == 2);
  CHECK(cbt.timeout() == milliseconds(120000));
  for (int i = 0; i < 18; ++i) cbt.add_timeout();
  CHECK(cbt.timeout() == milliseconds(120000));  // capped at max
  // And it learns again once builds complete.
  for (int i = 0; i < 100; ++i) cbt.add_build_time(milliseconds(2500 + (i % 20) * 10));
  CHECK(cbt.timeout() < milliseconds(10000));
}

TEST_CASE("only the last `history` outcomes count", "[path][cbt]") {
  BuildTimeoutEstimator cbt;
  for (int i = 0; i < 1000; ++i) cbt.add_build_time(milliseconds(20000 + (i % 100) * 100));
  const auto slow = cbt.timeout();
  for (int i = 0; i < 1000; ++i) cbt.add_build_time(milliseconds(2000 + (i % 100) * 10));
  CHECK(cbt.completed() == 1000);
  CHECK(cbt.timeout() < slow / 4);
}
