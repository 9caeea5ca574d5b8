// KIST's optional global limit (proto/kist_global_limit.hpp; "Never Been
// KIST" Eq. 2 in its drained reading, seeds-digest K5) against values
// computed by hand.
#include <catch2/catch.hpp>

#include "conflux/proto/kist_global_limit.hpp"
#include "conflux/proto/kist_limit.hpp"

using namespace conflux::proto;
using namespace std::chrono_literals;

TEST_CASE("a socket's drain is the growth of its acknowledged bytes", "[kist]") {
  // Eq. 2 per socket: queued 30000 before, 20000 written, 14000 queued now:
  // 30000 + 20000 - 14000 = 36000 left the queue, which the peer acknowledged.
  CHECK(kist_drained(1'000'000, 1'036'000) == 36000);
  CHECK(kist_drained(5, 5) == 0);
  CHECK(kist_drained(1'036'000, 1'000'000) == 0);  // counter went back: nothing
}

TEST_CASE("the global limit is the running maximum of bytes drained per period", "[kist]") {
  KistGlobalLimit g;
  // Nothing drained yet: no cap, not a cap of 0.
  CHECK_FALSE(g.cap().has_value());
  g.observe(0, 10ms, 10ms);
  CHECK_FALSE(g.cap().has_value());

  g.observe(36000, 10ms, 10ms);
  REQUIRE(g.cap().has_value());
  CHECK(*g.cap() == 36000);
  // A smaller drain leaves the maximum.
  g.observe(12000, 10ms, 10ms);
  CHECK(*g.cap() == 36000);
  // A larger one raises it.
  g.observe(50000, 10ms, 10ms);
  CHECK(*g.cap() == 50000);
  CHECK(g.max_drained() == 50000);
}

TEST_CASE("the global limit measures back-to-back runs only, per period", "[kist]") {
  KistGlobalLimit g;
  // 30000 bytes over 15 ms with a 10 ms period: 20000 per period.
  g.observe(30000, 15ms, 10ms);
  CHECK(*g.cap() == 20000);
  // Exactly two periods still count: 100000 over 20 ms is 50000.
  g.observe(100000, 20ms, 10ms);
  CHECK(*g.cap() == 50000);
  // Longer gaps are not a period of draining: 900000 over 25 ms, or over an
  // idle 10 s, leaves the maximum.
  g.observe(900000, 25ms, 10ms);
  g.observe(900000, 10s, 2ms);
  CHECK(*g.cap() == 50000);
  // A short gap counts whole, not scaled up: 60000 in 4 ms.
  g.observe(60000, 4ms, 10ms);
  CHECK(*g.cap() == 60000);
  // After an idle gap alone, still no cap.
  KistGlobalLimit idle;
  idle.observe(5000, 1s, 2ms);
  CHECK_FALSE(idle.cap().has_value());
  // No period or no elapsed time: the drain counts as one period.
  KistGlobalLimit h;
  h.observe(7000, 0ns, 10ms);
  CHECK(*h.cap() == 7000);
  h.observe(8000, 20ms, 0ns);
  CHECK(*h.cap() == 8000);
  // Huge counts do not overflow: the factor (1 - 2^-62) rounds to 1 in
  // double, and the result is the drain itself, not 2^64 cast out of range.
  // 2^64 - 1 over just under two periods of 2^61 ns: 2^63 after rounding.
  KistGlobalLimit big;
  big.observe(~0ULL, std::chrono::nanoseconds((1LL << 62) - 1), std::chrono::nanoseconds((1LL << 61)));
  CHECK(big.max_drained() == (1ULL << 63));
  KistGlobalLimit big2;
  big2.observe(~0ULL, std::chrono::nanoseconds(1LL << 62), std::chrono::nanoseconds((1LL << 62) - 1));
  CHECK(big2.max_drained() == ~0ULL);
  // 2^62 over 2 periods: exactly 2^61.
  KistGlobalLimit large;
  large.observe(1ULL << 62, 20ms, 10ms);
  CHECK(large.max_drained() == (1ULL << 61));
}

TEST_CASE("the global cap is never below one cell", "[kist]") {
  // 100 bytes drained (a few control bytes): a cap of 100 would let no cell
  // through, nothing would drain, and the cap would stay. It is one cell.
  KistGlobalLimit g;
  g.observe(100, 10ms, 10ms);
  CHECK(g.max_drained() == 100);
  CHECK(*g.cap() == kKistCellCost);
  g.observe(2000, 10ms, 10ms);
  CHECK(*g.cap() == 2000);
}
