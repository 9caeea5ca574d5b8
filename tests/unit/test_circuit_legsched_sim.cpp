// Leg schedulers in a simulated two-leg set (50 ms and 200 ms RTT, classic
// 1000-cell windows, SENDME per 100 cells): the thesis' 4:1 split, MinRTT
// holding to the fast leg, BLEST keeping the slow leg from stalling
// in-order delivery where LowRTT does not, and runs honoured throughout.
#include <catch2/catch.hpp>

#include <cstdio>

#include "test_circuit_legsched_sim.hpp"

using namespace conflux::proto;
using namespace legsim;
using std::chrono::milliseconds;

namespace {

SimConfig two_legs(std::uint64_t fast_rate, std::uint64_t slow_rate) {
  SimConfig cfg;
  cfg.legs = {SimLeg{milliseconds(50), fast_rate}, SimLeg{milliseconds(200), slow_rate}};
  return cfg;
}

SimResult run_kind(LegSchedKind kind, const SimConfig& cfg, LegSchedParams params = {}) {
  auto s = make_leg_scheduler(kind, params);
  auto r = run(*s, cfg);
  std::printf("%-12s cells %6llu/%6llu  finish %7.3f s  max_ooo %6llu  max_hol %7.1f ms  switches %5llu  "
              "cells/switch %8.1f  predicted_ooo_max %6llu\n",
              std::string(to_string(kind)).c_str(), static_cast<unsigned long long>(r.cells_per_leg[0]),
              static_cast<unsigned long long>(r.cells_per_leg.size() > 1 ? r.cells_per_leg[1] : 0), static_cast<double>(r.finish.count()) / 1e6,
              static_cast<unsigned long long>(r.max_ooo), static_cast<double>(r.max_hol_wait.count()) / 1e3,
              static_cast<unsigned long long>(r.switches), r.stats.cells_per_switch(),
              static_cast<unsigned long long>(r.stats.predicted_ooo_max));
  return r;
}

}  // namespace

TEST_CASE("legsim: proportional split delivers 4:1 over 50 ms and 200 ms legs", "[legsched][sim]") {
  auto cfg = two_legs(0, 0);
  cfg.source_cells_per_s = 2000;  // below either leg's window rate: the split, not the windows, decides
  cfg.total_cells = 20000;
  auto r = run_kind(LegSchedKind::Proportional, cfg);
  REQUIRE(r.delivered == cfg.total_cells);
  const double ratio = static_cast<double>(r.cells_per_leg[0]) / static_cast<double>(r.cells_per_leg[1]);
  CHECK(ratio == Approx(4.0).epsilon(0.05));
  CHECK(r.voluntary_short_runs == 0);
  CHECK(r.stats.cells_per_switch() >= 32.0);

  // The same traffic under MinRTT never touches the slow leg.
  auto m = run_kind(LegSchedKind::MinRtt, cfg);
  REQUIRE(m.delivered == cfg.total_cells);
  CHECK(m.cells_per_leg[1] == 0);
  CHECK(m.max_ooo == 0);
}

TEST_CASE("legsim: MinRTT prefers the fast leg until its window closes, LowRTT spills", "[legsched][sim]") {
  auto cfg = two_legs(0, 0);
  cfg.total_cells = 50000;  // an endless backlog: windows decide
  auto m = run_kind(LegSchedKind::MinRtt, cfg);
  REQUIRE(m.delivered == cfg.total_cells);
  CHECK(m.cells_per_leg[1] == 0);
  CHECK(m.none_with_fastest_open == 0);  // it only ever waits for the fast window
  CHECK(m.stats.no_leg > 0);
  // 1000 cells per 50 ms.
  CHECK(static_cast<double>(m.finish.count()) / 1e6 == Approx(2.5).epsilon(0.05));

  auto l = run_kind(LegSchedKind::LowRtt, cfg);
  REQUIRE(l.delivered == cfg.total_cells);
  CHECK(l.cells_on_slow_with_fastest_open <= l.cells_per_leg[1]);
  CHECK(l.cells_per_leg[1] > 0);
  CHECK(l.finish < m.finish);  // the second window adds throughput
  CHECK(l.voluntary_short_runs == 0);
}

TEST_CASE("legsim: BLEST keeps a congested slow leg from stalling in-order delivery", "[legsched][sim]") {
  // Fast leg: 50 ms, 20000 cells/s (its window is about one BDP). Slow leg:
  // 200 ms base but only 1000 cells/s, so a full window there queues for
  // most of a second.
  auto cfg = two_legs(20000, 1000);
  cfg.total_cells = 100000;
  auto low = run_kind(LegSchedKind::LowRtt, cfg);
  auto blest = run_kind(LegSchedKind::Blest, cfg);
  auto minrtt = run_kind(LegSchedKind::MinRtt, cfg);
  auto prop = run_kind(LegSchedKind::Proportional, cfg);
  REQUIRE(low.delivered == cfg.total_cells);
  REQUIRE(blest.delivered == cfg.total_cells);
  REQUIRE(minrtt.delivered == cfg.total_cells);
  REQUIRE(prop.delivered == cfg.total_cells);
  const LegSchedParams p;
  // The bound: the delay gate plus one SENDME interval of RTT lag.
  CHECK(blest.max_hol_wait <= p.max_hol_delay + milliseconds(50));
  CHECK(low.max_hol_wait > 2 * blest.max_hol_wait);
  CHECK(blest.max_ooo < low.max_ooo);
  CHECK(blest.cells_per_leg[1] > 0);           // it does use the slow leg
  CHECK(blest.finish <= minrtt.finish);        // and is no slower than one leg
  // Runs on the slow leg end early only when its gate closes.
  CHECK(blest.stats.cells_per_switch() >= 32.0);
}

TEST_CASE("legsim: bridges of 100 KiB/s and 1 MiB/s with the same base RTT: ECF no slower than the fast one alone",
          "[legsched][sim]") {
  // The bridge experiment: loopback legs (5 ms base RTT each) whose
  // only difference is bandwidth, 5 MiB of 498-byte cells. An RTT-ordered
  // scheduler cannot tell the legs apart until queues build; the slow leg
  // must not hold the download's tail.
  for (const bool slow_first : {true, false}) {
    SimConfig cfg;
    const SimLeg slow{milliseconds(5), 205};
    const SimLeg fast{milliseconds(5), 2105};
    cfg.legs = slow_first ? std::vector<SimLeg>{slow, fast} : std::vector<SimLeg>{fast, slow};
    cfg.total_cells = 10528;
    SimConfig alone = cfg;
    alone.legs = {fast};
    auto single = run_kind(LegSchedKind::MinRtt, alone);
    auto blest = run_kind(LegSchedKind::Blest, cfg);
    auto ecf = run_kind(LegSchedKind::Ecf, cfg);
    REQUIRE(single.delivered == cfg.total_cells);
    REQUIRE(blest.delivered == cfg.total_cells);
    REQUIRE(ecf.delivered == cfg.total_cells);
    INFO("slow leg first: " << slow_first);
    // BLEST puts the slow leg's whole window on it before the queues show.
    CHECK(blest.finish > single.finish);
    // ECF: no slower than the fast leg alone and the slow leg used. The
    // longest reorder wait is the slow leg's probe: a SENDME's worth of
    // cells (100) before its rate is known, 488 ms at 205 cells/s.
    CHECK(ecf.finish <= single.finish);
    CHECK(ecf.cells_per_leg[slow_first ? 0 : 1] > 0);
    CHECK(ecf.max_hol_wait <= milliseconds(550));
    CHECK(ecf.max_hol_wait * 5 < blest.max_hol_wait);
  }
}
