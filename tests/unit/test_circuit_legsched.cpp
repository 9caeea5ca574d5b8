// Conflux leg schedulers, rule by rule on hand-built leg states: tor's
// MinRTT and LowRTT, the thesis' proportional split, the BLEST-style gate,
// SWITCH accounting, run lengths, hysteresis and the UX mapping.
#include <catch2/catch.hpp>

#include <vector>

#include "conflux/proto/leg_sched.hpp"

using namespace conflux;
using namespace conflux::proto;
using std::chrono::milliseconds;

namespace {
const RttClock::time_point t0{};

std::vector<LegState> two_legs(int rtt_a_ms, int rtt_b_ms) {
  std::vector<LegState> legs(2);
  legs[0].on_link_rtt(milliseconds(rtt_a_ms));
  legs[1].on_link_rtt(milliseconds(rtt_b_ms));
  return legs;
}

// Commit what the scheduler chose; returns the leg, or -1 for none.
int send_one(LegScheduler& s, std::vector<LegState>& legs) {
  auto c = s.choose_leg(t0, legs);
  if (!c) return -1;
  REQUIRE(legs[c->leg].on_data_sent(t0));
  CHECK(s.on_sent(c->leg, t0) == c->switch_first);
  return static_cast<int>(c->leg);
}

void fill(LegState& leg) {
  while (leg.can_send()) REQUIRE(leg.on_data_sent(t0));
}
}  // namespace

TEST_CASE("legsched: UX byte selects the scheduler", "[legsched]") {
  CHECK(leg_sched_for_ux(cell::ConfluxUx::NoOpinion) == LegSchedKind::LowRtt);
  CHECK(leg_sched_for_ux(cell::ConfluxUx::MinLatency) == LegSchedKind::MinRtt);
  CHECK(leg_sched_for_ux(cell::ConfluxUx::LowMemLatency) == LegSchedKind::MinRtt);
  CHECK(leg_sched_for_ux(cell::ConfluxUx::HighThroughput) == LegSchedKind::Ecf);
  CHECK(leg_sched_for_ux(cell::ConfluxUx::LowMemThroughput) == LegSchedKind::Ecf);
  CHECK(leg_sched_params_for_ux(cell::ConfluxUx::LowMemLatency).min_run_cells == 1000);
  CHECK(leg_sched_params_for_ux(cell::ConfluxUx::LowMemThroughput).reorder_budget_cells <
        leg_sched_params_for_ux(cell::ConfluxUx::HighThroughput).reorder_budget_cells);
  for (auto k : {LegSchedKind::Proportional, LegSchedKind::MinRtt, LegSchedKind::LowRtt, LegSchedKind::Blest,
                 LegSchedKind::Ecf}) {
    CHECK(make_leg_scheduler(k)->kind() == k);
  }
  CHECK(to_string(LegSchedKind::Blest) == "blest");
  CHECK(to_string(LegSchedKind::Ecf) == "ecf");
}

TEST_CASE("legsched: the first cell needs no SWITCH, a change of leg does", "[legsched]") {
  auto legs = two_legs(200, 50);
  auto s = make_leg_scheduler(LegSchedKind::LowRtt, {.min_run_cells = 1});
  auto c = s->choose_leg(t0, legs);
  REQUIRE(c);
  CHECK(*c == LegChoice{1, false});  // lowest RTT, no SWITCH before the first cell
  CHECK_FALSE(s->on_sent(1, t0));
  fill(legs[1]);
  c = s->choose_leg(t0, legs);
  REQUIRE(c);
  CHECK(*c == LegChoice{0, true});
  CHECK(s->on_sent(0, t0));
  CHECK(s->stats().switches == 1);
  CHECK(s->stats().runs == 2);
  CHECK(s->current_leg() == 0u);
}

TEST_CASE("legsched: no legs, or none that can send, is none", "[legsched]") {
  auto s = make_leg_scheduler(LegSchedKind::LowRtt);
  std::vector<LegState> none;
  CHECK_FALSE(s->choose_leg(t0, none).has_value());
  auto legs = two_legs(50, 200);
  legs[0].set_blocked(true);
  legs[1].set_blocked(true);
  CHECK_FALSE(s->choose_leg(t0, legs).has_value());
  CHECK(s->stats().no_leg == 2);
  CHECK_FALSE(s->on_sent(LegScheduler::kMaxLegs, t0));  // out of range: ignored
}

TEST_CASE("legsched: MinRTT stays on the fastest leg and waits when it is full", "[legsched][minrtt]") {
  auto legs = two_legs(50, 200);
  auto s = make_leg_scheduler(LegSchedKind::MinRtt, {.min_run_cells = 1});
  for (int i = 0; i < 1000; ++i) REQUIRE(send_one(*s, legs) == 0);
  CHECK(legs[0].inflight() == 1000);
  CHECK(send_one(*s, legs) == -1);  // never falls back to the slow leg
  CHECK(legs[1].cells_sent() == 0);
  REQUIRE(legs[0].on_sendme(t0 + milliseconds(50)) == LegSendmeResult::Ok);
  CHECK(send_one(*s, legs) == 0);
  CHECK(s->stats().switches == 0);
}

TEST_CASE("legsched: LowRTT spills to the slower leg only when the fast one cannot send", "[legsched][lowrtt]") {
  auto legs = two_legs(50, 200);
  auto s = make_leg_scheduler(LegSchedKind::LowRtt, {.min_run_cells = 1});
  for (int i = 0; i < 1000; ++i) REQUIRE(send_one(*s, legs) == 0);
  CHECK(send_one(*s, legs) == 1);
  REQUIRE(legs[0].on_sendme(t0 + milliseconds(50)) == LegSendmeResult::Ok);
  CHECK(send_one(*s, legs) == 0);  // back as soon as the window reopens
  legs[0].set_blocked(true);       // a blocked channel counts as full
  CHECK(send_one(*s, legs) == 1);
  CHECK(s->stats().switches == 3);
}

TEST_CASE("legsched: runs are honoured while the leg can send", "[legsched][run]") {
  auto legs = two_legs(50, 200);
  auto s = make_leg_scheduler(LegSchedKind::LowRtt, {.min_run_cells = 40});
  for (int i = 0; i < 1000; ++i) REQUIRE(send_one(*s, legs) == 0);
  // Fast leg full: a run on the slow leg of at least 40 cells follows, even
  // though the fast leg reopens after 10 of them.
  for (int i = 0; i < 10; ++i) CHECK(send_one(*s, legs) == 1);
  REQUIRE(legs[0].on_sendme(t0) == LegSendmeResult::Ok);
  for (int i = 10; i < 40; ++i) CHECK(send_one(*s, legs) == 1);
  CHECK(send_one(*s, legs) == 0);
  CHECK(s->stats().switches == 2);
  CHECK(s->stats().longest_run == 1000);
}

TEST_CASE("legsched: a run ends early when its leg cannot send", "[legsched][run]") {
  auto legs = two_legs(50, 200);
  auto s = make_leg_scheduler(LegSchedKind::LowRtt, {.min_run_cells = 500});
  CHECK(send_one(*s, legs) == 0);
  legs[0].set_blocked(true);
  CHECK(send_one(*s, legs) == 1);
  CHECK(s->current_run() == 1);
}

TEST_CASE("legsched: max run length forces a change of leg", "[legsched][run]") {
  auto legs = two_legs(50, 200);
  auto s = make_leg_scheduler(LegSchedKind::LowRtt, {.min_run_cells = 1, .max_run_cells = 5});
  for (int i = 0; i < 5; ++i) CHECK(send_one(*s, legs) == 0);
  CHECK(send_one(*s, legs) == 1);
  CHECK(send_one(*s, legs) == 0);
}

TEST_CASE("legsched: RTT hysteresis keeps the current leg for small differences", "[legsched][hysteresis]") {
  auto legs = two_legs(100, 95);  // within 10%
  auto s = make_leg_scheduler(LegSchedKind::MinRtt, {.min_run_cells = 1});
  REQUIRE(send_one(*s, legs) == 1);
  // Leg 0 becomes 92 ms (srtt (2*80+3*100)/5) vs 95: not 10% better, stay.
  for (int i = 0; i < 100; ++i) REQUIRE(legs[0].on_data_sent(t0));
  REQUIRE(legs[0].on_sendme(t0 + milliseconds(80)) == LegSendmeResult::Ok);
  REQUIRE(legs[0].rtt().srtt() == milliseconds(92));
  CHECK(send_one(*s, legs) == 1);
  // A much faster sample: (2*20+3*92)/5 = 63.2 ms, now clearly better.
  for (int i = 0; i < 100; ++i) REQUIRE(legs[0].on_data_sent(t0));
  REQUIRE(legs[0].on_sendme(t0 + milliseconds(20)) == LegSendmeResult::Ok);
  CHECK(send_one(*s, legs) == 0);
}

TEST_CASE("legsched: unmeasured legs rank last, with none measured any leg sends", "[legsched]") {
  std::vector<LegState> legs(2);
  auto s = make_leg_scheduler(LegSchedKind::MinRtt, {.min_run_cells = 1});
  CHECK(send_one(*s, legs) == 0);  // an exit before any LINKED_ACK still sends
  legs[1].on_link_rtt(milliseconds(300));
  CHECK(send_one(*s, legs) == 1);  // the measured leg wins over "infinite"
  auto b = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1});
  std::vector<LegState> legs2(2);
  legs2[0].on_link_rtt(milliseconds(50));
  fill(legs2[0]);
  CHECK(send_one(*b, legs2) == -1);  // never onto an unmeasured slower leg
}

TEST_CASE("legsched: proportional split shares cells by 1/RTT, in runs", "[legsched][proportional]") {
  auto legs = two_legs(50, 200);
  legs[0].set_cwnd(1000000);
  legs[1].set_cwnd(1000000);
  auto s = make_leg_scheduler(LegSchedKind::Proportional, {.min_run_cells = 10});
  for (int i = 0; i < 10000; ++i) REQUIRE(send_one(*s, legs) >= 0);
  CHECK(legs[0].cells_sent() == Approx(8000).margin(20));
  CHECK(legs[1].cells_sent() == Approx(2000).margin(20));
  CHECK(s->stats().cells_per_switch() >= 10.0);
  // Equal shares while nothing is measured.
  std::vector<LegState> fresh(3);
  auto e = make_leg_scheduler(LegSchedKind::Proportional, {.min_run_cells = 1});
  for (int i = 0; i < 300; ++i) REQUIRE(send_one(*e, fresh) >= 0);
  for (const auto& l : fresh) CHECK(l.cells_sent() == 100);
}

TEST_CASE("legsched: removing legs renumbers the current one or forces a SWITCH", "[legsched]") {
  std::vector<LegState> legs(3);
  legs[0].on_link_rtt(milliseconds(300));
  legs[1].on_link_rtt(milliseconds(200));
  legs[2].on_link_rtt(milliseconds(50));
  auto s = make_leg_scheduler(LegSchedKind::LowRtt, {.min_run_cells = 1});
  REQUIRE(send_one(*s, legs) == 2);
  legs.erase(legs.begin());
  s->on_leg_removed(0);
  CHECK(s->current_leg() == 1u);
  auto c = s->choose_leg(t0, legs);
  REQUIRE(c);
  CHECK(*c == LegChoice{1, false});
  legs.erase(legs.begin() + 1);
  s->on_leg_removed(1);
  CHECK_FALSE(s->current_leg().has_value());
  c = s->choose_leg(t0, legs);
  REQUIRE(c);
  CHECK(*c == LegChoice{0, true});  // the receiver must learn the new leg's sequence
}

TEST_CASE("legsched: BLEST uses the slow leg only within its gates", "[legsched][blest]") {
  SECTION("reorder budget: the fast window per RTT times the one-way gap") {
    auto legs = two_legs(50, 200);
    fill(legs[0]);
    // 1000 cells per 50 ms over a 75 ms one-way gap: 1500 cells predicted.
    CHECK(predicted_ooo_depth(milliseconds(50), 1000, milliseconds(200)) == 1500);
    CHECK(predicted_ooo_depth(legs) == 0);  // only one leg busy
    auto tight = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1, .reorder_budget_cells = 1499});
    CHECK(send_one(*tight, legs) == -1);
    auto loose = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1, .reorder_budget_cells = 1500});
    CHECK(send_one(*loose, legs) == 1);
  }
  SECTION("delay bound") {
    auto legs = two_legs(50, 400);  // 175 ms one-way gap
    fill(legs[0]);
    auto s = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1, .reorder_budget_cells = 100000});
    CHECK(send_one(*s, legs) == -1);
    auto wide = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1,
                                                         .reorder_budget_cells = 100000,
                                                         .max_hol_delay = milliseconds(200)});
    CHECK(send_one(*wide, legs) == 1);
  }
  SECTION("a leg without a delivery rate carries one SENDME's worth") {
    auto legs = two_legs(50, 200);
    fill(legs[0]);
    auto s = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1});
    int slow = 0;
    while (send_one(*s, legs) == 1) ++slow;
    CHECK(slow == 100);
    CHECK(predicted_ooo_depth(legs) == 1500);
  }
  SECTION("the slow leg's queue, from its delivery rate, and the in-flight quota") {
    auto legs = two_legs(50, 200);
    // Slow leg: 100 cells sent at t0, SENDME at 300 ms: rate 100 / (300 - 200) ms
    // = 1000 cells/s; sample 300 ms -> srtt (600 + 600) / 5 = 240 ms.
    for (int i = 0; i < 100; ++i) REQUIRE(legs[1].on_data_sent(t0));
    REQUIRE(legs[1].on_sendme(t0 + milliseconds(300)) == LegSendmeResult::Ok);
    REQUIRE(legs[1].rtt().delivery_rate() == 1000);
    REQUIRE(legs[1].rtt().srtt() == milliseconds(240));
    REQUIRE(legs[1].queue_delay(t0) == milliseconds(1));
    fill(legs[0]);
    // The k-th cell waits k ms in the slow leg's queue, so it reaches the
    // receiver 100 + k ms after sending, 75 + k ms after a fast-leg cell.
    // The fast leg delivers 20 cells/ms: the budget of 2000 allows 100 ms.
    auto s = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1});
    while (send_one(*s, legs) == 1) {
    }
    CHECK(legs[1].inflight() == 25);
    CHECK(legs[1].queue_delay(t0) == milliseconds(26));
    // With a large budget the delay bound, 150 ms, binds.
    auto d = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1, .reorder_budget_cells = 100000});
    while (send_one(*d, legs) == 1) {
    }
    CHECK(legs[1].inflight() == 75);
    // With neither, the quota cwnd * 50 / 240 = 208 does.
    auto q = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1,
                                                      .reorder_budget_cells = 100000,
                                                      .max_hol_delay = std::chrono::seconds(10)});
    while (send_one(*q, legs) == 1) {
    }
    CHECK(legs[1].inflight() == 208);
    // Time drains the queue: 100 ms later, 100 cells fewer wait.
    CHECK(legs[1].queue_delay(t0 + milliseconds(100)) == milliseconds(109));
  }
  SECTION("the fast leg is used whenever it can send") {
    auto legs = two_legs(50, 200);
    auto s = make_leg_scheduler(LegSchedKind::Blest, {.min_run_cells = 1});
    CHECK(send_one(*s, legs) == 0);
  }
}
