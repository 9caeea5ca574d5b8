// The kernel-queue probe's poll schedule (proto/kernel_probe_schedule.hpp):
// its resolution, and what one probe costs on a long round trip.
#include <catch2/catch.hpp>

#include "conflux/proto/kernel_probe_schedule.hpp"

using namespace conflux::proto;
using namespace std::chrono_literals;

TEST_CASE("probe schedule: 0.5 ms while young, then an eighth of the age", "[sched][probe]") {
  CHECK(kernel_probe_poll_period(0ns) == 500us);
  CHECK(kernel_probe_poll_period(4ms) == 500us);
  CHECK(kernel_probe_poll_period(8ms) == 1ms);
  CHECK(kernel_probe_poll_period(200ms) == 25ms);
  CHECK(kernel_probe_poll_period(1s) == 125ms);
}

TEST_CASE("probe schedule: the first look waits for the socket's smallest round trip", "[sched][probe]") {
  CHECK(kernel_probe_first_look(0ns) == 500us);  // unknown, or loopback's tens of µs
  CHECK(kernel_probe_first_look(30us) == 500us);
  CHECK(kernel_probe_first_look(40ms) == 40ms);
  CHECK(kernel_probe_polls_until(39ms, 40ms) == 0);
  CHECK(kernel_probe_polls_until(40ms, 40ms) == 1);
  // A 400 ms kernel queue time on a 40 ms link: 20 looks instead of 47 from the write.
  CHECK(kernel_probe_polls_until(400ms) == 47);
  CHECK(kernel_probe_polls_until(400ms, 40ms) == 20);
  CHECK(kernel_probe_polls_until(1s, 40ms) == 28);
}

TEST_CASE("probe schedule: a look is late by at most max(0.5 ms, 1/8 of the true time)", "[sched][probe]") {
  // An acknowledgement just after a look at age t is seen at t + period(t);
  // the true time is then just over t, so the error is period(t).
  for (auto t = 0ns; t < 30s; t += kernel_probe_poll_period(t)) {
    const auto error = kernel_probe_poll_period(t);
    INFO("age " << t.count() << " ns");
    CHECK((error <= 500us || error * 8 <= t));
  }
}

TEST_CASE("probe schedule: looks grow with the log of the age, not with the age", "[sched][probe]") {
  // 8 looks in the first 4 ms, then each 9/8 of the previous age.
  CHECK(kernel_probe_polls_until(4ms) == 8);
  CHECK(kernel_probe_polls_until(200ms) == 41);  // a 200 ms round trip: 400 looks at a fixed 0.5 ms
  CHECK(kernel_probe_polls_until(1s) == 54);     // 2000 at 0.5 ms
  CHECK(kernel_probe_polls_until(kProbeGiveUp) == 83);
}
