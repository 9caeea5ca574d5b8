// E4 (seeds-digest; Tang & Goldberg §3.5): a scheduler run reads the
// injected clock once and uses that time for every cell, circuit and socket
// it serves, including the sampled cells whose writes it starts; between
// runs, work arriving (notify) reads no clock at all.
#include <catch2/catch.hpp>

#include "net_loopback_links.hpp"
#include "net_scheduler_runs.hpp"

using namespace conflux;
using namespace conflux::net;
using conflux::test::LoopbackLinks;
using conflux::test::RunRecord;
using conflux::test::watch_runs;
using namespace std::chrono_literals;

namespace {

class CountingClock final : public Clock {
 public:
  [[nodiscard]] Monotonic::time_point now() const override {
    ++reads_;
    return real_.now();
  }
  [[nodiscard]] std::uint64_t unix_seconds() const override { return real_.unix_seconds(); }
  [[nodiscard]] std::uint64_t reads() const noexcept { return reads_; }

 private:
  SystemClock real_;
  mutable std::uint64_t reads_ = 0;
};

struct Watched {
  std::vector<RunRecord> runs;
  std::uint64_t reads = 0;  // over the whole watch, runs or not
};

// 4 sockets with 3 circuits each, 60 cells deep, topped up every ms.
// `sample_every` 1 times every cell (each write has sampled cells).
Watched watch(SchedulerPolicy policy, std::uint32_t sample_every) {
  asio::io_context io;
  CountingClock clock;
  SchedulerConfig cfg;
  cfg.preference = {policy};
  Scheduler relay(io, clock, nullptr, cfg);
  REQUIRE(relay.policy() == policy);
  Channel::Limits limits;
  limits.cell_sample_every = sample_every;
  LoopbackLinks links(io, relay, 4, limits);
  REQUIRE(links.ready());
  links.feed(3, 60, 1000us);
  Watched w;
  const std::uint64_t before = clock.reads();
  w.runs = watch_runs(io, relay, 50, 5000ms, [&] { return clock.reads(); });
  w.reads = clock.reads() - before;
  REQUIRE(w.runs.size() == 50);
  REQUIRE(links.cells_received() > 0);
  return w;
}

void check_one_read_per_run(const Watched& w, bool kist) {
  std::uint64_t most_cells = 0, most_sockets = 0;
  for (const RunRecord& r : w.runs) {
    INFO("run of " << r.cells << " cells over " << r.pending_sockets << " sockets");
    CHECK(r.clock_reads == 1);
    most_cells = std::max(most_cells, r.cells);
    most_sockets = std::max(most_sockets, r.pending_sockets);
  }
  // Runs that served many cells, circuits and sockets read it once too.
  CHECK(most_cells >= 60);
  if (kist) CHECK(most_sockets >= 3);
}

}  // namespace

TEST_CASE("E4: a KIST run reads the clock once whatever it serves", "[net][kist][sched]") {
  SECTION("every cell sampled: the writes a run starts reuse its time") {
    Watched w = watch(SchedulerPolicy::Kist, 1);
    check_one_read_per_run(w, true);
  }
  SECTION("no sampling: the runs are the only clock reads") {
    Watched w = watch(SchedulerPolicy::Kist, 0);
    check_one_read_per_run(w, true);
    CHECK(w.reads == w.runs.size());
  }
}

TEST_CASE("E4: a Vanilla run reads the clock once whatever it serves", "[net][sched]") {
  SECTION("every cell sampled: the writes a run starts reuse its time") {
    Watched w = watch(SchedulerPolicy::Vanilla, 1);
    check_one_read_per_run(w, false);
  }
  SECTION("no sampling: the runs are the only clock reads") {
    Watched w = watch(SchedulerPolicy::Vanilla, 0);
    check_one_read_per_run(w, false);
    CHECK(w.reads == w.runs.size());
  }
}
