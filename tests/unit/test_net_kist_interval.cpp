// K2 (seeds-digest; "Never Been KIST" §5.3, "Tor's Been KIST" §4.2): with
// work waiting, KIST runs once per KISTSchedRunInterval. Measured with the
// scheduler's own record of when each run started (Scheduler::last_run, the
// injected clock's reading at the start of the run).
#include <algorithm>
#include <catch2/catch.hpp>

#include "net_loopback_links.hpp"
#include "net_scheduler_runs.hpp"

using namespace conflux;
using namespace conflux::net;
using conflux::test::LoopbackLinks;
using conflux::test::watch_runs;
using namespace std::chrono_literals;

TEST_CASE("K2: with work waiting, KIST runs are KISTSchedRunInterval apart", "[net][kist][sched]") {
  asio::io_context io;
  SystemClock clock;
  SchedulerConfig cfg;
  cfg.preference = {SchedulerPolicy::Kist};
  cfg.run_interval = 10ms;  // the papers' value, not the 2 ms default
  Scheduler relay(io, clock, nullptr, cfg);
  REQUIRE(relay.policy() == SchedulerPolicy::Kist);
  LoopbackLinks links(io, relay, 3);
  REQUIRE(links.ready());
  // New cells every millisecond: every run drains what it finds (loopback's
  // limit is large), so each interval has fresh work well before it ends.
  links.feed(2, 30, 1000us);
  auto runs = watch_runs(io, relay, 151, 5000ms);
  REQUIRE(runs.size() == 151);
  REQUIRE(links.cells_received() > 0);

  std::vector<double> ms;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    ms.push_back(std::chrono::duration<double, std::milli>(runs[i].started - runs[i - 1].started).count());
    CHECK(runs[i].cells > 0);  // every run had work: the interval is the timer's, not the feeder's
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= static_cast<double>(ms.size());
  INFO("intervals (ms): min " << ms.front() << ", median " << median << ", mean " << mean << ", max " << ms.back());
  // Never sooner: the timer is armed after the run reads the clock, cannot
  // fire early, and the next run reads the clock after it fired.
  CHECK(ms.front() >= 10.0);
  // K2's own tolerance, 1 ms, on the median of 150 intervals. A timer wakes
  // late by tens to hundreds of microseconds on this 2-core machine even
  // under load; the median ignores the few intervals another process
  // stretches, and it is neither 2 ms (the default interval) nor 1 ms (the
  // feeder's period), which is what a run per notify would give.
  CHECK(median <= 11.0);
}

namespace {

// Two single cells on one socket, the second `gap` after the first run:
// how long after the first run the second one started.
std::chrono::microseconds second_run_after(std::uint32_t hold_min_cells, std::chrono::microseconds gap) {
  asio::io_context io;
  SystemClock clock;
  SchedulerConfig cfg;
  cfg.preference = {SchedulerPolicy::Kist};
  cfg.run_interval = 10ms;
  cfg.hold_min_cells = hold_min_cells;
  Scheduler relay(io, clock, nullptr, cfg);
  REQUIRE(relay.policy() == SchedulerPolicy::Kist);
  LoopbackLinks links(io, relay, 1);
  REQUIRE(links.ready());
  auto push_one = [&] {
    auto& ch = links.senders.front();
    REQUIRE(ch->mux().push(CircId{1}, conflux::test::test_relay_cell(1), clock.now()) == proto::MuxPush::Queued);
    ch->cells_queued();
  };
  const std::uint64_t released_before = relay.stats().kist_runs_released;
  push_one();
  auto first = watch_runs(io, relay, 1, 1000ms);
  REQUIRE(first.size() == 1);
  REQUIRE(first[0].cells == 1);
  asio::steady_timer later(io);
  later.expires_after(gap);
  later.async_wait([&](const boost::system::error_code& ec) {
    if (!ec) push_one();
  });
  auto second = watch_runs(io, relay, 1, 1000ms);
  REQUIRE(second.size() == 1);
  CHECK(second[0].cells == 1);
  CHECK(relay.stats().kist_runs_released - released_before == (hold_min_cells > 1 ? 2u : 0u));
  return std::chrono::duration_cast<std::chrono::microseconds>(second[0].started - first[0].started);
}

}  // namespace

TEST_CASE("a KIST run of fewer than KISTSchedHoldMinCells cells does not hold the next", "[net][kist][sched]") {
  // An idle relay forwarding a request, then its answer 1 ms later: with the
  // hold it waits for the rest of the 10 ms interval, without it it runs at
  // once. The margins are whole milliseconds, not a timing threshold.
  const auto held = second_run_after(0, 1000us);
  const auto released = second_run_after(8, 1000us);
  INFO("second run after (us): held " << held.count() << ", released " << released.count());
  CHECK(held >= 10ms);
  CHECK(released < 5ms);
}
