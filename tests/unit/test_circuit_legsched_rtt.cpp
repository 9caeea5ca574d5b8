// RTT estimation for Conflux leg scheduling: LINK->LINKED first sample, then
// every 100th DATA cell timed to its circuit SENDME; values by hand.
#include <catch2/catch.hpp>

#include "conflux/proto/leg_sched_leg.hpp"
#include "conflux/proto/leg_sched_rtt.hpp"

using namespace conflux::proto;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {
const RttClock::time_point t0{};
RttClock::time_point at_ms(std::int64_t ms) { return t0 + milliseconds(ms); }
}  // namespace

TEST_CASE("rtt: LINK sample, then every 100th cell to its SENDME, N-EWMA by hand", "[legsched][rtt]") {
  RttEstimator r(RttParams{100, 4});
  CHECK_FALSE(r.measured());
  r.on_link_rtt(milliseconds(100));
  CHECK(r.srtt() == microseconds(100000));
  CHECK(r.min_rtt() == microseconds(100000));

  for (int i = 1; i <= 99; ++i) CHECK_FALSE(r.on_data_sent(at_ms(0)));
  CHECK(r.on_data_sent(at_ms(10)));  // the 100th is stamped
  for (int i = 101; i <= 199; ++i) CHECK_FALSE(r.on_data_sent(at_ms(15)));
  CHECK(r.on_data_sent(at_ms(20)));  // the 200th
  CHECK(r.outstanding() == 2);
  CHECK(r.oldest_stamp() == at_ms(10));

  // 80 ms: (2*80000 + 3*100000) / 5 = 92000
  CHECK(r.on_sendme(at_ms(90)) == microseconds(80000));
  CHECK(r.srtt() == microseconds(92000));
  CHECK(r.min_rtt() == microseconds(80000));
  // 150 ms: (2*150000 + 3*92000) / 5 = 115200
  CHECK(r.on_sendme(at_ms(170)) == microseconds(150000));
  CHECK(r.srtt() == microseconds(115200));
  CHECK(r.min_rtt() == microseconds(80000));
  CHECK(r.last_sample() == microseconds(150000));
  CHECK(r.samples() == 3);

  // A SENDME with nothing stamped gives no sample.
  CHECK_FALSE(r.on_sendme(at_ms(200)).has_value());
  CHECK(r.srtt() == microseconds(115200));
}

TEST_CASE("rtt: the first SENDME sample seeds an unmeasured leg", "[legsched][rtt]") {
  RttEstimator r(RttParams{31, 2});
  for (int i = 1; i <= 31; ++i) (void)r.on_data_sent(at_ms(5));
  CHECK(r.on_sendme(at_ms(68)) == microseconds(63000));
  CHECK(r.srtt() == microseconds(63000));
  // N = 2: (2*33000 + 1*63000) / 3 = 43000
  for (int i = 1; i <= 31; ++i) (void)r.on_data_sent(at_ms(100));
  CHECK(r.on_sendme(at_ms(133)) == microseconds(33000));
  CHECK(r.srtt() == microseconds(43000));
  CHECK(r.min_rtt() == microseconds(33000));
}

TEST_CASE("rtt: a stalled clock and a clock jump are not samples", "[legsched][rtt]") {
  RttEstimator r(RttParams{1, 4});
  (void)r.on_data_sent(at_ms(10));
  CHECK_FALSE(r.on_sendme(at_ms(10)).has_value());  // zero
  CHECK_FALSE(r.measured());
  r.on_link_rtt(milliseconds(1));
  (void)r.on_data_sent(at_ms(0));
  CHECK_FALSE(r.on_sendme(at_ms(0) + std::chrono::seconds(6)).has_value());  // > 5000 x 1 ms
  CHECK(r.srtt() == microseconds(1000));
  CHECK(r.dropped_samples() == 2);
  r.on_link_rtt(microseconds(-5));
  CHECK(r.dropped_samples() == 3);
}

TEST_CASE("rtt: stamps are bounded, overrun is counted, not stored", "[legsched][rtt]") {
  RttEstimator r(RttParams{1, 4});
  for (std::size_t i = 0; i < RttEstimator::kMaxOutstanding; ++i) CHECK(r.on_data_sent(at_ms(1)));
  CHECK_FALSE(r.on_data_sent(at_ms(2)));
  CHECK(r.dropped_stamps() == 1);
  CHECK(r.outstanding() == RttEstimator::kMaxOutstanding);
}

TEST_CASE("leg: window, in-flight cells and SENDMEs under classic windows", "[legsched][leg]") {
  LegState leg;  // cwnd 1000, 100 per SENDME
  leg.on_link_rtt(milliseconds(50));
  for (int i = 0; i < 1000; ++i) REQUIRE(leg.on_data_sent(at_ms(i / 100)));
  CHECK(leg.inflight() == 1000);
  CHECK_FALSE(leg.can_send());
  CHECK(leg.package_window() == 0);
  CHECK_FALSE(leg.on_data_sent(at_ms(20)));
  CHECK(leg.cells_sent() == 1000);

  // Cell 100 went at t=0 (i=99 -> 0 ms): SENDME at 60 ms is a 60 ms sample.
  CHECK(leg.on_sendme(at_ms(60)) == LegSendmeResult::Ok);
  CHECK(leg.inflight() == 900);
  CHECK(leg.can_send());
  CHECK(leg.rtt().last_sample() == microseconds(60000));
  CHECK(leg.rtt().srtt() == microseconds((2 * 60000 + 3 * 50000) / 5));

  leg.set_blocked(true);
  CHECK_FALSE(leg.can_send());
  leg.set_blocked(false);
  CHECK(leg.can_send());

  for (int i = 0; i < 9; ++i) CHECK(leg.on_sendme(at_ms(70 + i)) == LegSendmeResult::Ok);
  CHECK(leg.inflight() == 0);
  CHECK(leg.on_sendme(at_ms(90)) == LegSendmeResult::Unexpected);
}
