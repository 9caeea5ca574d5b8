// A kernel-queue probe on a link whose acknowledgement takes long: the
// relay's peer stops reading (its io_context is not run) with a small
// receive buffer, so the sampled write stays unacknowledged for as long as
// the test wants, deterministically, on loopback. The probe must cost the
// growing schedule's looks (proto/kernel_probe_schedule.hpp), not one every
// 0.5 ms, and, once the peer reads again, record a time within the stated
// resolution.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>

#include "conflux/net/channel.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/tls.hpp"
#include "conflux/proto/kernel_probe_schedule.hpp"
#include "net_loopback_links.hpp"
#include "tls_test_identity.hpp"

using namespace conflux;
using namespace conflux::net;
using conflux::test::CountingReceiver;
using conflux::test::test_relay_cell;
using conflux::test::test_tls_identity;
using namespace std::chrono_literals;

namespace {

SchedulerConfig policy_only(SchedulerPolicy p, KistLimitForm form = KistLimitForm::Deployed) {
  SchedulerConfig c;
  c.preference = {p};
  c.limit_form = form;
  return c;
}

// One TLS link from a relay (on `io`) to a peer on its own io_context, which
// reads only while the test runs it.
struct StallableLink {
  asio::io_context io;
  asio::io_context peer_io;
  SystemClock clock;
  SystemClock peer_clock;
  Scheduler relay;
  Scheduler peer_sched{peer_io, peer_clock, nullptr, policy_only(SchedulerPolicy::Vanilla)};
  asio::ssl::context server_ctx = make_tls_server_context(test_tls_identity());
  asio::ssl::context client_ctx = make_tls_client_context();
  CountingReceiver relay_events;
  CountingReceiver peer_events;
  std::shared_ptr<Channel> sender;
  std::shared_ptr<Channel> receiver;

  // `send_buffer`: SO_SNDBUF for the relay's socket (0: the kernel's).
  StallableLink(SchedulerPolicy policy, KistLimitForm form, int send_buffer)
      : relay(io, clock, nullptr, policy_only(policy, form)) {
    tcp::acceptor acceptor(peer_io);
    acceptor.open(tcp::v4());
    // A small receive window, inherited by the accepted socket: a peer that
    // does not read stops acknowledging after a few KiB.
    acceptor.set_option(asio::socket_base::receive_buffer_size(4096));
    acceptor.bind(tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    acceptor.listen();
    tcp::socket s(io);
    s.open(tcp::v4());
    if (send_buffer > 0) s.set_option(asio::socket_base::send_buffer_size(send_buffer));
    s.connect(acceptor.local_endpoint());
    tcp::socket r = acceptor.accept();
    Channel::Limits limits;
    limits.cell_sample_every = 0;  // the test samples the one cell it means
    sender = std::make_shared<Channel>(TlsStream(std::move(s), client_ctx), Channel::Role::Initiator, relay,
                                       relay_events, limits);
    receiver = std::make_shared<Channel>(TlsStream(std::move(r), server_ctx), Channel::Role::Responder, peer_sched,
                                         peer_events, Channel::Limits{});
    asio::co_spawn(io, sender->run(), asio::detached);
    asio::co_spawn(peer_io, receiver->run(), asio::detached);
    for (int i = 0; i < 500 && !(relay_events.ready && peer_events.ready); ++i) run_both(2ms);
    sender->set_link_version(5);
    receiver->set_link_version(5);
  }
  ~StallableLink() {
    sender->close("done");
    receiver->close("done");
    run_both(20ms);
  }
  void run_both(std::chrono::milliseconds d) {
    io.restart();
    peer_io.restart();
    io.run_for(d / 2);
    peer_io.run_for(d / 2);
  }
  void push(std::size_t cells) {
    for (std::size_t i = 0; i < cells; ++i) {
      REQUIRE(sender->mux().push(CircId{1}, test_relay_cell(1), clock.now()) == proto::MuxPush::Queued);
    }
    sender->cells_queued();
  }
  // Fills the peer's receive window while it does not read (about 5 KiB on
  // this kernel with a 4 KiB SO_RCVBUF), then sends one sampled cell behind
  // those bytes: a probe that cannot settle.
  void stall_with_one_probe() {
    push(20);
    io.restart();
    for (int i = 0; i < 200 && (sender->writing() || sender->mux().queued_cells() > 0); ++i) io.run_for(5ms);
    REQUIRE_FALSE(sender->writing());
    sender->mux().set_sampling(1);
    push(1);
    sender->mux().set_sampling(0);
    for (int i = 0; i < 100 && relay.stats().relay_queue_seconds.count() == 0; ++i) io.run_for(1ms);
    REQUIRE(relay.stats().relay_queue_seconds.count() == 1);
  }
};

}  // namespace

TEST_CASE("one probe unacknowledged for 1 s costs the schedule's looks, not 2000", "[net][sched][probe]") {
  StallableLink link(SchedulerPolicy::Vanilla, KistLimitForm::Deployed, 0);
  REQUIRE(link.relay_events.ready);
  link.stall_with_one_probe();
  const auto written = link.clock.now();  // within a millisecond after the probe's write
  link.io.restart();
  link.io.run_for(1s);
  const SchedulerStats& st = link.relay.stats();
  REQUIRE(st.kernel_queue_seconds.count() == 0);  // still unacknowledged
  const auto stalled = link.clock.now() - written;
  // `written` is a little after the probe's write (a busy machine: tens of ms): a margin.
  const auto bound =
      proto::kernel_probe_polls_until(std::chrono::duration_cast<std::chrono::nanoseconds>(stalled) + 50ms);
  INFO("polls " << st.kernel_probe_polls << ", wake-ups " << st.kernel_probe_wakeups << ", bound " << bound);
  CHECK(st.kernel_probe_polls <= bound);  // 54 for 1 s; a fixed 0.5 ms period made 2000
  CHECK(st.kernel_probe_polls >= 10);     // it does keep looking (fewer when the machine is busy)
  CHECK(st.kernel_probe_wakeups == st.kernel_probe_polls);  // one probe: one look per wake-up
  CHECK(st.kernel_probes_settled_in_runs == 0);             // Vanilla reads no TCP_INFO

  // The peer reads again: the acknowledgement is seen at the next look,
  // late by at most an eighth of the probe's age then (plus timer delay).
  const auto resumed = link.clock.now() - written;
  for (int i = 0; i < 1000 && st.kernel_queue_seconds.count() == 0; ++i) link.run_both(2ms);
  REQUIRE(st.kernel_queue_seconds.count() == 1);
  const double measured = st.kernel_queue_seconds.sum();
  const double at_resume = std::chrono::duration<double>(resumed).count();
  INFO("measured " << measured << " s, peer resumed at " << at_resume << " s");
  CHECK(measured >= at_resume);
  CHECK(measured <= at_resume * 9 / 8 + 0.05);
}

TEST_CASE("a KIST run that reads the probe's socket anyway defers its polls and settles it", "[net][kist][probe]") {
  // KISTLimit Original with a small send buffer: the full buffer holds the
  // socket at a limit of 0, so it stays pending (tor's limit would let a run
  // take the whole backlog, cwnd * MSS being large on loopback).
  StallableLink link(SchedulerPolicy::Kist, KistLimitForm::Original, 8192);
  REQUIRE(link.relay_events.ready);
  REQUIRE(link.relay.policy() == SchedulerPolicy::Kist);
  link.stall_with_one_probe();
  // Backlogged behind the stalled socket, the channel stays pending: every
  // run (2 ms apart) queries its socket and moves the probe's next look on.
  link.push(400);
  link.io.restart();
  link.io.run_for(1s);
  const SchedulerStats& st = link.relay.stats();
  REQUIRE(st.kernel_queue_seconds.count() == 0);
  INFO("polls " << st.kernel_probe_polls << ", KIST runs " << st.kist_runs);
  CHECK(st.kist_runs >= 50);
  // The timer's looks stop once the period passes the run interval (16 ms of age).
  CHECK(st.kernel_probe_polls <= proto::kernel_probe_polls_until(20ms));
  link.run_both(2ms);
  for (int i = 0; i < 1000 && st.kernel_queue_seconds.count() == 0; ++i) link.run_both(2ms);
  REQUIRE(st.kernel_queue_seconds.count() == 1);
  CHECK(st.kernel_probes_settled_in_runs == 1);
}
