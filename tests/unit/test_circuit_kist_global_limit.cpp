// KIST's optional global limit (proto/kist_global_limit.hpp; "Never Been
// KIST" Eq. 2 in its drained reading, seeds-digest K5) against values
// computed by hand.
#include <catch2/catch.hpp>

#include "conflux/proto/kist_global_limit.hpp"

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

TEST_CASE("the global limit counts a longer gap at its average per period", "[kist]") {
  KistGlobalLimit g;
  // 90000 bytes over 30 ms with a 10 ms period: 30000 per period.
  g.observe(90000, 30ms, 10ms);
  CHECK(*g.cap() == 30000);
  // 100000 over 25 ms: 100000 * 10 / 25 = 40000.
  g.observe(100000, 25ms, 10ms);
  CHECK(*g.cap() == 40000);
  // 45000 in 4 ms (a short gap) counts whole, not scaled up to 112500.
  g.observe(45000, 4ms, 10ms);
  CHECK(*g.cap() == 45000);
  // 300000 over an idle 10 s at 2 ms: 60 per period, the maximum stays.
  g.observe(300000, 10s, 2ms);
  CHECK(*g.cap() == 45000);
  // No period or no elapsed time: the drain counts as one period.
  KistGlobalLimit h;
  h.observe(7000, 0ns, 10ms);
  CHECK(*h.cap() == 7000);
  h.observe(8000, 20ms, 0ns);
  CHECK(*h.cap() == 8000);
  // Huge counts do not overflow: the factor (1 - 2^-62) rounds to 1 in
  // double, and the result is the drain itself, not 2^64 cast out of range.
  KistGlobalLimit big;
  big.observe(~0ULL, std::chrono::nanoseconds(1LL << 62), std::chrono::nanoseconds((1LL << 62) - 1));
  CHECK(big.max_drained() == ~0ULL);
  // 2^62 over 4 periods: exactly 2^60.
  KistGlobalLimit large;
  large.observe(1ULL << 62, 40ms, 10ms);
  CHECK(large.max_drained() == (1ULL << 60));
}
