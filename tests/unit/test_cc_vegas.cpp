// TOR_VEGAS and tor's RTT estimator against cwnd and RTT sequences computed
// by hand from tor 0.4.9's formulas (see cc_vegas.hpp, cc_rtt.hpp). Exit
// path parameters unless a test says otherwise: cwnd_init 124, sendme_inc 31,
// gamma 186, alpha 186, beta 248, delta 310, ss_cap 600, cwnd_min 124.
#include <catch2/catch.hpp>

#include <vector>

#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/cc_vegas.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

// The sender keeps the window full: package until inflight reaches cwnd.
void fill(Vegas& v) {
  while (v.can_send()) v.on_cell_sent();
}

// One round: fill the window, then one SENDME whose stamped cell took
// `rtt_us` to be acknowledged.
void ack(Vegas& v, std::uint64_t rtt_us, CcChannelState chan = {}) {
  fill(v);
  v.on_sendme(1'000'000, 1'000'000 + rtt_us, chan);
}

CcParams with(std::map<std::string, std::int32_t> kv) { return cc_params_from(kv).params; }

}  // namespace

// ---- RTT estimator -----------------------------------------------------------

TEST_CASE("cc rtt: the first sample is the EWMA and the min, later ones are N-EWMA", "[cc][rtt]") {
  ClockHealth clock;
  CcRttEstimator rtt(CcParams{}, clock);
  const CcRttContext ss{true, 124, 124, 1};
  CHECK(rtt.on_sendme(0, 100'000, ss) == 100'000);
  CHECK(rtt.ewma_usec() == 100'000);
  CHECK(rtt.min_usec() == 100'000);
  CHECK(rtt.max_usec() == 100'000);
  // Slow start: N = cc_ewma_ss = 2, so (2 * 400000 + 100000) / 3.
  CHECK(rtt.on_sendme(0, 400'000, ss) == 400'000);
  CHECK(rtt.ewma_usec() == 300'000);
  CHECK(rtt.min_usec() == 100'000);
  CHECK(rtt.max_usec() == 400'000);
  // EWMA 300000 -> (2 * 60000 + 300000) / 3 = 140000: min follows the EWMA, not the sample.
  CHECK(rtt.on_sendme(0, 60'000, ss) == 60'000);
  CHECK(rtt.ewma_usec() == 140'000);
  CHECK(rtt.min_usec() == 100'000);
  CHECK(rtt.on_sendme(10, 60'010, ss) == 60'000);
  CHECK(rtt.ewma_usec() == 86'666);  // (120000 + 140000) / 3
  CHECK(rtt.min_usec() == 86'666);
}

TEST_CASE("cc rtt: N after slow start is update_rate * ewma_cwnd_pct / 100 within [2, ewma_max]", "[cc][rtt]") {
  ClockHealth clock;
  CcRttEstimator rtt(CcParams{}, clock);
  CHECK(rtt.ewma_count({true, 5000, 124, 1}) == 2);
  CHECK(rtt.ewma_count({false, 0, 124, 31}) == 10);  // 15, capped at 10
  CHECK(rtt.ewma_count({false, 0, 124, 6}) == 3);
  CHECK(rtt.ewma_count({false, 0, 124, 3}) == 2);  // 1, raised to 2
  CHECK(rtt.ewma_count({false, 0, 124, 0}) == 2);
  // Steady state with N = 3: (2 * 200000 + 2 * 100000) / 4.
  CHECK(rtt.on_sendme(0, 100'000, {false, 500, 124, 6}) == 100'000);
  CHECK(rtt.on_sendme(0, 200'000, {false, 500, 124, 6}) == 200'000);
  CHECK(rtt.ewma_usec() == 150'000);
}

TEST_CASE("cc rtt: a zero sample is a clock stall: skipped, and the clock marked broken", "[cc][rtt]") {
  ClockHealth clock;
  CcRttEstimator rtt(CcParams{}, clock);
  const CcRttContext ss{true, 124, 124, 1};
  CHECK(rtt.on_sendme(500, 500, ss) == 0);
  CHECK(clock.broken);
  CHECK(rtt.clock_stalls() == 1);
  CHECK(rtt.ewma_usec() == 0);
  // A stamp after "now" (an injected clock gone backwards) is a stall too.
  CHECK(rtt.on_sendme(600, 500, ss) == 0);
  CHECK(rtt.clock_stalls() == 2);
  // In slow start there are no heuristics: the next sample is taken, and
  // the flag stays as it was.
  CHECK(rtt.on_sendme(0, 100'000, ss) == 100'000);
  CHECK(rtt.ewma_usec() == 100'000);
  CHECK(clock.broken);
}

TEST_CASE("cc rtt: after slow start, jumps are skipped and sudden drops trusted only on a good clock",
          "[cc][rtt]") {
  ClockHealth clock;
  CcRttEstimator rtt(CcParams{}, clock);
  const CcRttContext steady{false, 500, 124, 1};  // N = 2
  REQUIRE(rtt.on_sendme(0, 100'000, steady) == 100'000);

  // More than 5000 x the EWMA: a forward jump, skipped; the flag untouched.
  CHECK(rtt.on_sendme(0, 500'000'001, steady) == 0);
  CHECK(rtt.clock_stalls() == 1);
  CHECK_FALSE(clock.broken);
  CHECK(rtt.ewma_usec() == 100'000);
  // Exactly 5000 x is not a jump: (2 * 500000000 + 100000) / 3.
  CHECK(rtt.on_sendme(0, 500'000'000, steady) == 500'000'000);
  CHECK(rtt.ewma_usec() == 333'366'666);

  // Below 1/5000 of the EWMA on a clock not known broken: kept.
  CHECK(rtt.on_sendme(0, 60'000, steady) == 60'000);
  CHECK(rtt.ewma_usec() == 111'162'222);  // (120000 + 333366666) / 3
  // After a stall the same kind of drop is skipped...
  CHECK(rtt.on_sendme(7, 7, steady) == 0);
  CHECK(clock.broken);
  CHECK(rtt.on_sendme(0, 20'000, steady) == 0);
  CHECK(rtt.ewma_usec() == 111'162'222);
  CHECK(clock.broken);
  // ... until an ordinary sample clears the flag.
  CHECK(rtt.on_sendme(0, 111'162'222, steady) == 111'162'222);
  CHECK_FALSE(clock.broken);
  CHECK(rtt.clock_stalls() == 3);
}

TEST_CASE("cc rtt: at cwnd_min after slow start, min RTT is re-based on the EWMA", "[cc][rtt]") {
  ClockHealth clock;
  CcRttEstimator rtt(CcParams{}, clock);
  REQUIRE(rtt.on_sendme(0, 100'000, {true, 124, 124, 1}) == 100'000);
  // EWMA (2 * 400000 + 100000) / 3 = 300000; rtt_reset_pct 100 = max(ewma, min).
  CHECK(rtt.on_sendme(0, 400'000, {false, 124, 124, 0}) == 400'000);
  CHECK(rtt.min_usec() == 300'000);
  CHECK(rtt.min_rtt_resets() == 1);

  CcRttEstimator half(with({{"cc_rtt_reset_pct", 50}}), clock);
  REQUIRE(half.on_sendme(0, 100'000, {true, 124, 124, 1}) == 100'000);
  CHECK(half.on_sendme(0, 400'000, {false, 124, 124, 0}) == 400'000);
  CHECK(half.min_usec() == 200'000);  // 50% of 300000 + 50% of 100000
}

// ---- Vegas -------------------------------------------------------------------

TEST_CASE("cc vegas: a new circuit starts in slow start at cc_cwnd_init", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  CHECK(v.cwnd() == 124);
  CHECK(v.inflight() == 0);
  CHECK(v.in_slow_start());
  CHECK(v.package_window() == 124);
  CHECK(v.update_rate() == 1);
  fill(v);
  CHECK(v.inflight() == 124);
  CHECK_FALSE(v.can_send());
  CHECK(v.package_window() == 0);
}

TEST_CASE("cc vegas: slow start grows by sendme_inc per SENDME, then by RFC 3742 above ss_cap", "[cc][vegas]") {
  // A constant RTT: BDP = cwnd * min / ewma = cwnd, queue_use 0. The window
  // is full at every SENDME, so each one adds (100 * 31 + 50) / 100 = 31
  // up to cwnd 600, then (31 * 600 + cwnd) / (2 * cwnd).
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  const std::vector<std::uint64_t> expected{155, 186, 217, 248, 279, 310, 341, 372, 403, 434, 465, 496, 527,
                                            558, 589, 620,
                                            635,   // 620 + 19220 / 1240 = 15
                                            650,   // 635 + 19235 / 1270 = 15
                                            664,   // 650 + 19250 / 1300 = 14
                                            678};  // 664 + 19264 / 1328 = 14
  std::vector<std::uint64_t> got;
  std::uint64_t before = v.cwnd();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ack(v, 100'000);
    got.push_back(v.cwnd());
    CHECK(v.in_slow_start());
    CHECK(v.bdp() == before);  // the cwnd the SENDME was measured with
    before = v.cwnd();
  }
  CHECK(got == expected);
  CHECK(v.rtt().ewma_usec() == 100'000);
  CHECK(v.inflight() == 664 - 31);
}

TEST_CASE("cc vegas: an application-limited circuit does not grow in slow start", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  // Full means inflight + cc_cwnd_full_gap (4) * 31 >= cwnd: 62 + 124 >= 124.
  for (int i = 0; i < 62; ++i) v.on_cell_sent();
  v.on_sendme(0, 100'000);
  CHECK(v.cwnd() == 155);
  CHECK(v.inflight() == 31);
  // 31 + 124 >= 155: still full, although nothing more was sent.
  v.on_sendme(0, 100'000);
  CHECK(v.cwnd() == 186);
  CHECK(v.inflight() == 0);
  // 31 + 124 < 186, and 100 * 31 < 25 * 186: not full, so no growth.
  for (int i = 0; i < 31; ++i) v.on_cell_sent();
  v.on_sendme(0, 100'000);
  CHECK(v.cwnd() == 186);
  CHECK_FALSE(v.cwnd_full());
  CHECK(v.in_slow_start());
}

TEST_CASE("cc vegas: a queue reaching gamma ends slow start at BDP + gamma", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  ack(v, 100'000);  // ewma 100000, bdp 124, queue 0: 124 -> 155
  CHECK(v.cwnd() == 155);
  ack(v, 400'000);  // ewma 300000, bdp 155e5 / 3e5 = 51, queue 104 < 186: -> 186
  CHECK(v.rtt().ewma_usec() == 300'000);
  CHECK(v.bdp() == 51);
  CHECK(v.cwnd() == 186);
  ack(v, 1'000'000);  // ewma 766666, bdp 186e5 / 766666 = 24, queue 162: -> 217
  CHECK(v.rtt().ewma_usec() == 766'666);
  CHECK(v.bdp() == 24);
  CHECK(v.cwnd() == 217);
  CHECK(v.in_slow_start());
  ack(v, 1'000'000);  // ewma 922222, bdp 217e5 / 922222 = 23, queue 194 >= 186: cwnd 23 + 186
  CHECK(v.rtt().ewma_usec() == 922'222);
  CHECK(v.bdp() == 23);
  CHECK(v.cwnd() == 209);
  CHECK_FALSE(v.in_slow_start());
  CHECK(v.slow_start_exit() == SlowStartExit::Congestion);
  // (209 + 31 * 31 / 2) / (31 * 31) = 0: every SENDME is an update.
  CHECK(v.update_rate() == 0);
}

TEST_CASE("cc vegas: a blocked channel in slow start is a congestion signal", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  ack(v, 100'000);
  ack(v, 100'000, CcChannelState{true, 40});  // bdp 155, queue 0, but blocked: 155 + 186
  CHECK(v.blocked_chan());
  CHECK(v.cwnd() == 341);
  CHECK(v.slow_start_exit() == SlowStartExit::Congestion);
}

TEST_CASE("cc vegas: slow start ends at cc_ss_max, then steady state moves by cwnd_inc", "[cc][vegas]") {
  // cc_ss_max 500: the 13th SENDME takes cwnd 496 -> 527, clamped to 500.
  ClockHealth clock;
  Vegas v(with({{"cc_ss_max", 500}}), CcPathType::Exit, 31, clock);
  for (int i = 0; i < 12; ++i) ack(v, 100'000);
  CHECK(v.cwnd() == 496);
  ack(v, 100'000);
  CHECK(v.cwnd() == 500);
  CHECK_FALSE(v.in_slow_start());
  CHECK(v.slow_start_exit() == SlowStartExit::SsMax);
  CHECK(v.update_rate() == 1);  // (500 + 480) / 961

  // Steady state, N = 2, min RTT 100000, every SENDME an update:
  ack(v, 100'000);  // queue 0 < alpha, full: +1
  CHECK(v.cwnd() == 501);
  ack(v, 280'000);  // ewma (560000 + 100000) / 3 = 220000, bdp 227, queue 274 > beta: -1
  CHECK(v.rtt().ewma_usec() == 220'000);
  CHECK(v.bdp() == 227);
  CHECK(v.cwnd() == 500);
  ack(v, 490'000);  // ewma 400000, bdp 125, queue 375 > delta: 125 + 310 - 1
  CHECK(v.rtt().ewma_usec() == 400'000);
  CHECK(v.bdp() == 125);
  CHECK(v.cwnd() == 434);
  ack(v, 100'000);  // ewma 200000, bdp 217, queue 217 between alpha and beta: unchanged
  CHECK(v.bdp() == 217);
  CHECK(v.cwnd() == 434);
  ack(v, 100'000);  // ewma 133333, bdp 325, queue 109 < alpha, full: +1
  CHECK(v.rtt().ewma_usec() == 133'333);
  CHECK(v.bdp() == 325);
  CHECK(v.cwnd() == 435);
  CHECK(v.rtt().min_usec() == 100'000);
}

TEST_CASE("cc vegas: steady state updates once per CWND_UPDATE_RATE SENDMEs", "[cc][vegas]") {
  // cc_ss_max 1500: slow start climbs 124 + 31 k to 620 and then by
  // RFC 3742 steps; whatever the path, it stops at 1500, where the update
  // rate is (1500 + 480) / 961 = 2.
  ClockHealth clock;
  Vegas v(with({{"cc_ss_max", 1500}}), CcPathType::Exit, 31, clock);
  while (v.in_slow_start()) ack(v, 100'000);
  CHECK(v.cwnd() == 1500);
  CHECK(v.update_rate() == 2);
  CHECK(v.next_cc_event() == 2);
  ack(v, 100'000);  // countdown 2 -> 1: no update
  CHECK(v.cwnd() == 1500);
  ack(v, 100'000);  // 1 -> 0: +1, reload 2
  CHECK(v.cwnd() == 1501);
  ack(v, 100'000);
  CHECK(v.cwnd() == 1501);
  ack(v, 100'000);
  CHECK(v.cwnd() == 1502);
}

TEST_CASE("cc vegas: cwnd never falls below cc_cwnd_min", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(with({{"cc_ss_max", 500}}), CcPathType::Exit, 31, clock);
  for (int i = 0; i < 13; ++i) ack(v, 100'000);
  REQUIRE(v.cwnd() == 500);
  // ewma (2 * 10000000 + 100000) / 3 = 6700000: bdp 500e5 / 6.7e6 = 7,
  // queue 493 > delta: 7 + 310 - 1 = 316.
  ack(v, 10'000'000);
  CHECK(v.cwnd() == 316);
  // ewma 8900000, bdp 316e5 / 8.9e6 = 3, queue 313 > delta: 3 + 309 = 312.
  ack(v, 10'000'000);
  CHECK(v.cwnd() == 312);
  // cc_vegas_delta_exit 0 instead: bdp + 0 - 1 would be far below 124.
  ClockHealth clock2;
  Vegas w(with({{"cc_ss_max", 500}, {"cc_vegas_delta_exit", 0}}), CcPathType::Exit, 31, clock2);
  for (int i = 0; i < 13; ++i) ack(w, 100'000);
  ack(w, 10'000'000);
  CHECK(w.cwnd() == 124);
}

TEST_CASE("cc vegas: cwnd is clamped to cc_cwnd_max after every SENDME", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(with({{"cc_cwnd_max", 600}}), CcPathType::Exit, 31, clock);
  for (int i = 0; i < 15; ++i) ack(v, 100'000);
  CHECK(v.cwnd() == 589);
  ack(v, 100'000);
  CHECK(v.cwnd() == 600);  // 620, clamped
  CHECK(v.in_slow_start());
}

TEST_CASE("cc vegas: while the clock has never given an RTT, BDP is cwnd less a blocked channel's queue",
          "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  fill(v);
  v.on_sendme(5, 5);  // stalled: no RTT, no BDP, only inflight drops
  CHECK(v.cwnd() == 124);
  CHECK(v.inflight() == 93);
  CHECK(v.rtt().clock_stalls() == 1);
  v.on_sendme(5, 5, CcChannelState{true, 50});  // blocked: bdp = max(124 - 50, 124)
  CHECK(v.bdp() == 124);
  CHECK(v.blocked_chan());
  // queue 0, but the channel is blocked: a congestion signal at bdp + gamma.
  CHECK(v.cwnd() == 310);
  CHECK(v.slow_start_exit() == SlowStartExit::Congestion);
}

TEST_CASE("cc vegas: onion and sbws paths use their own parameter sets", "[cc][vegas]") {
  ClockHealth clock;
  Vegas sbws(CcParams{}, CcPathType::Sbws, 31, clock);
  ack(sbws, 100'000);
  ack(sbws, 100'000, CcChannelState{true, 0});  // blocked: bdp 155 + gamma 124
  CHECK(sbws.cwnd() == 279);
  Vegas onion(CcParams{}, CcPathType::Onion, 31, clock);
  ack(onion, 100'000);
  ack(onion, 100'000, CcChannelState{true, 0});  // bdp 155 + gamma 248
  CHECK(onion.cwnd() == 403);
}

TEST_CASE("cc vegas: the cell that makes inflight + 1 a multiple of sendme_inc triggers a SENDME",
          "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(CcParams{}, CcPathType::Exit, 31, clock);
  std::vector<std::uint64_t> triggers;
  for (std::uint64_t n = 1; n <= 124; ++n) {
    if (v.next_cell_triggers_sendme()) triggers.push_back(n);
    v.on_cell_sent();
  }
  CHECK(triggers == std::vector<std::uint64_t>{31, 62, 93, 124});
}

TEST_CASE("cc vegas: a cc_cwnd_init above cc_cwnd_max starts at cc_cwnd_max", "[cc][vegas]") {
  ClockHealth clock;
  Vegas v(with({{"cc_cwnd_init", 10000}, {"cc_cwnd_max", 500}}), CcPathType::Exit, 31, clock);
  CHECK(v.cwnd() == 500);
}
