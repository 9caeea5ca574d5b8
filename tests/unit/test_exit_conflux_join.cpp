// The exit's Conflux join point (exit::ConfluxJoin), sans-I/O: plain
// circuits pass through; two legs link into one set whose streams the exit
// module sees once, in order, under the set's handle; replies are spread
// over the legs with SWITCHes and reordered by a real client set; a dead
// leg's unacknowledged cells reach the client through a replacement leg;
// the switch reports every circuit SENDME. Hostile sequences, caps and
// deadlines: test_exit_conflux_join_faults.cpp.
#include "circuit_switch_test_support.hpp"
#include "test_exit_conflux_join_support.hpp"

using namespace conflux;
using namespace conflux::test::join;

TEST_CASE("join: a plain circuit passes through with its own handle", "[conflux][join]") {
  Fixture f;
  f.rt.open(7, kChanA);
  f.deliver(7, StreamId{1}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0});
  REQUIRE(f.inner.got.size() == 1);
  CHECK(f.inner.got[0].circuit == 7);
  CHECK(f.join->set_count() == 0);
  CHECK(f.join->can_send_data(7));
  CHECK(f.join->send_to_client(7, StreamId{1}, cell::ConnectedMsg{}));
  REQUIRE(f.rt.outbox[7].size() == 1);
  CHECK(f.join->client_channel(7) == kChanA);
  f.join->on_circuit_writable(7);
  CHECK(f.inner.writable == std::vector<CircuitHandle>{7});
  f.join->close_circuit(7, cell::DestroyReason::Protocol);
  CHECK(f.rt.closed.at(7) == cell::DestroyReason::Protocol);
  CHECK(f.inner.was_closed(7));
}

TEST_CASE("join: two legs link, BEGIN on one and DATA on the other reach the exit in order", "[conflux][join]") {
  Fixture f;
  const auto id = f.link_raw(1, kChanA, 0x11);
  CHECK(f.link_raw(2, kChanA, 0x11) == id);
  CHECK(f.join->set_count() == 1);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  CHECK(ConfluxJoin::is_set_handle(h));
  CHECK(f.join->stats().legs == 2);
  CHECK(f.join->stats().legs_linked == 2);

  // Cell 2 (DATA) overtakes cell 1 (BEGIN) on the other leg: held back.
  f.sw(2, 1);
  f.deliver(2, StreamId{5}, data_of(2));
  CHECK(f.inner.got.empty());
  CHECK(f.join->stats().reorder_bytes > 0);
  f.deliver(1, StreamId{5}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 443, 0});
  REQUIRE(f.inner.got.size() == 2);
  CHECK(f.inner.got[0].circuit == h);
  CHECK(is<cell::BeginMsg>(f.inner.got[0].msg));
  CHECK(f.inner.got[1].circuit == h);
  CHECK(f.inner.got[1].stream == StreamId{5});
  CHECK(number_of(f.inner.got[1].msg) == 2);
  CHECK(f.join->stats().reorder_bytes == 0);
  CHECK(f.join->stats().switches_received == 1);

  // Cell 3 on leg 1 (which has seen 1), after a SWITCH(1) over cell 2.
  f.sw(1, 1);
  f.deliver(1, StreamId{5}, data_of(3));
  REQUIRE(f.inner.got.size() == 3);
  CHECK(number_of(f.inner.got[2].msg) == 3);

  // Stream SENDMEs are sequenced (number 4, next on leg 1) and belong to
  // the set's stream.
  f.deliver(1, StreamId{5}, cell::SendmeMsg{});
  REQUIRE(f.inner.got.size() == 4);
  CHECK(f.inner.got[3].circuit == h);
  CHECK(is<cell::SendmeMsg>(f.inner.got[3].msg));
  // The exit module's stream SENDME goes out on a leg.
  CHECK(f.join->send_to_client(h, StreamId{5}, cell::SendmeMsg{}));
  CHECK(f.rt.outbox[1].size() + f.rt.outbox[2].size() == 1);
  CHECK_FALSE(f.join->client_channel(h).has_value());
}

namespace {

// A set of two legs on one channel (10 and 40 ms, NO_OPINION: LowRTT at the
// exit) and a BEGIN on stream 3 from `client`; the set's handle.
CircuitHandle two_leg_stream(Fixture& f, SetClient& client) {
  client.link(f, 1, kChanA, cell::ConfluxUx::NoOpinion, 10ms);
  client.link(f, 2, kChanA, cell::ConfluxUx::NoOpinion, 40ms);
  const auto id = f.join->set_of(1);
  REQUIRE(id);
  const CircuitHandle h = ConfluxJoin::set_handle(*id);
  client.send(f, StreamId{3}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0});
  return h;
}

}  // namespace

TEST_CASE("join: replies are spread over the legs with SWITCHes and arrive in order", "[conflux][join]") {
  Fixture f;
  SetClient client(0x21);
  // LowRTT spills onto the slower leg when the faster one's window is full.
  const CircuitHandle h = two_leg_stream(f, client);
  REQUIRE(f.got_on(h).size() == 1);

  CHECK(f.join->send_to_client(h, StreamId{3}, cell::ConnectedMsg{}));
  std::uint32_t sent = 0;
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  // Both windows full: 1000 cells on each leg, one SWITCH between them.
  CHECK(sent == 2000);
  CHECK(f.rt.outbox[1].size() >= 1000);
  CHECK(f.rt.outbox[2].size() >= 1000);
  CHECK(f.join->stats().switches_sent >= 1);
  CHECK(f.join->stats().retained_bytes > 0);

  // The slow leg's cells arrive first: the client's set reorders them, and
  // its circuit SENDMEs reopen the windows, which the exit module hears.
  client.receive(f, {2, 1});
  CHECK_FALSE(client.error);
  CHECK(f.inner.writable == std::vector<CircuitHandle>{h});
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(sent > 2000);
  client.receive(f, {1, 2});
  CHECK_FALSE(client.error);
  REQUIRE(client.delivered.size() == sent + 1);
  CHECK(is<cell::ConnectedMsg>(client.delivered[0].msg));
  for (std::uint32_t i = 1; i <= sent; ++i) {
    REQUIRE(is<cell::DataMsg>(client.delivered[i].msg));
    REQUIRE(number_of(client.delivered[i].msg) == i);
  }
  // SENDMEs acknowledged most of it: little is kept for retransmission.
  CHECK(f.join->stats().retained_bytes < 1000 * 16);
}

TEST_CASE("join: DATA the set cannot take yet waits, with every cell after it, until a window opens",
          "[conflux][join]") {
  // The exit module asks can_send_data() before each DATA, but the answer
  // can be stale by the time the cell comes (issue 13: 60 streams on one set
  // closed it). The set keeps the cell, and the order, rather than close.
  Fixture f;
  SetClient client(0x22);
  const CircuitHandle h = two_leg_stream(f, client);
  REQUIRE(f.join->send_to_client(h, StreamId{3}, cell::ConnectedMsg{}));
  std::uint32_t sent = 0;
  while (f.join->can_send_data(h)) REQUIRE(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  const std::size_t on_wire = f.rt.outbox[1].size() + f.rt.outbox[2].size();

  // A stale yes: two more DATA cells, then the stream's END.
  CHECK(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(f.join->send_to_client(h, StreamId{3}, data_of(++sent)));
  CHECK(f.join->send_to_client(h, StreamId{3}, cell::EndMsg{cell::EndReason::Done, std::nullopt}));
  CHECK(f.rt.outbox[1].size() + f.rt.outbox[2].size() == on_wire);
  CHECK(f.join->set_count() == 1);
  CHECK_FALSE(f.join->can_send_data(h));
  CHECK(f.join->stats().sets_closed == std::array<std::uint64_t, exit::kSetCloseReasons>{});

  // The client's SENDMEs open the windows: the waiting cells go, in order,
  // and only then is the exit module told it may send DATA again.
  f.inner.writable.clear();
  client.receive(f, {1, 2});
  CHECK_FALSE(client.error);
  client.receive(f, {1, 2});
  CHECK_FALSE(client.error);
  REQUIRE(client.delivered.size() == sent + 2);
  CHECK(is<cell::ConnectedMsg>(client.delivered.front().msg));
  for (std::uint32_t i = 1; i <= sent; ++i) REQUIRE(number_of(client.delivered[i].msg) == i);
  CHECK(is<cell::EndMsg>(client.delivered.back().msg));
  CHECK(f.inner.writable == std::vector<CircuitHandle>{h});
  CHECK(f.join->can_send_data(h));
}

namespace {

// Legs 1 (10 ms) and 2 (50 ms) linked; stream 4 opened; the exit sends
// CONNECTED and DATA 1..20, all on the fast leg 1, not read yet.
std::pair<proto::SetId, CircuitHandle> unread_on_fast_leg(Fixture& f, SetClient& client) {
  client.link(f, 1, kChanA, cell::ConfluxUx::HighThroughput, 10ms);
  client.link(f, 2, kChanB, cell::ConfluxUx::HighThroughput, 50ms);
  const auto id = f.join->set_of(1);
  REQUIRE(id);
  const CircuitHandle h = ConfluxJoin::set_handle(*id);
  client.send(f, StreamId{4}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0});
  REQUIRE(f.join->send_to_client(h, StreamId{4}, cell::ConnectedMsg{}));
  for (std::uint32_t i = 1; i <= 20; ++i) REQUIRE(f.join->send_to_client(h, StreamId{4}, data_of(i)));
  REQUIRE(f.rt.outbox[1].size() == 21);
  return {*id, h};
}

}  // namespace

TEST_CASE("join: a leg dies with unacknowledged cells, a replacement LINK gets them resent", "[conflux][join]") {
  Fixture f;
  SetClient client(0x31);
  const auto [id, h] = unread_on_fast_leg(f, client);
  // Everything went on the fast leg; it dies before the client read any of it.

  bool both_die = GENERATE(false, true);
  INFO((both_die ? "both legs die" : "one leg dies"));
  f.rt.take(1);
  f.rt.destroyed(1, cell::DestroyReason::ChannelClosed);
  client.set.leg_closed(SetClient::leg(1));
  if (both_die) {
    f.rt.destroyed(2, cell::DestroyReason::ChannelClosed);
    client.set.leg_closed(SetClient::leg(2));
    CHECK(f.join->stats().sets_legless == 1);
  }
  // The set and its stream stay for the replacement.
  CHECK(f.join->set_count() == 1);
  CHECK_FALSE(f.inner.was_closed(h));
  f.now += 5s;
  f.join->tick(f.now);
  CHECK(f.join->set_count() == 1);

  client.link(f, 3, kChanA, cell::ConfluxUx::HighThroughput, 10ms);
  CHECK(f.join->set_of(3) == id);
  CHECK(f.join->stats().sets_legless == 0);
  client.receive(f, {3, 2});
  CHECK_FALSE(client.error);
  REQUIRE(client.delivered.size() == 21);
  CHECK(is<cell::ConnectedMsg>(client.delivered[0].msg));
  for (std::uint32_t i = 1; i <= 20; ++i) CHECK(number_of(client.delivered[i].msg) == i);
  CHECK(f.join->stats().cells_resent == 21);
  // And the set goes on over the new leg.
  client.send(f, StreamId{4}, data_of(99));
  CHECK(number_of(f.got_on(h).back().msg) == 99);
}

TEST_CASE("join: a leg dies with unacknowledged cells, the client relinks the surviving leg and gets them on it",
          "[conflux][join]") {
  Fixture f;
  SetClient client(0x35);
  const auto [id, h] = unread_on_fast_leg(f, client);
  // The fast leg dies with all of it unread; the exit goes on on leg 2.
  f.rt.take(1);
  f.rt.destroyed(1, cell::DestroyReason::ChannelClosed);
  client.set.leg_closed(SetClient::leg(1));
  for (std::uint32_t i = 21; i <= 25; ++i) REQUIRE(f.join->send_to_client(h, StreamId{4}, data_of(i)));
  REQUIRE(f.rt.outbox[2].size() >= 5);
  // The client relinks leg 2: cells 21-25 (numbered before the LINK) wait
  // for the gap, then the lost ones come after the LINKED, on leg 2.
  client.relink(f, 2, cell::ConfluxUx::HighThroughput, 50ms);
  CHECK(f.join->stats().legs_relinked == 1);
  CHECK(f.join->stats().cells_resent == 21);
  CHECK(f.join->stats().cells_resent_on_relinked == 21);
  client.receive(f, {2});
  CHECK_FALSE(client.error);
  REQUIRE(client.delivered.size() == 26);
  CHECK(is<cell::ConnectedMsg>(client.delivered[0].msg));
  for (std::uint32_t i = 1; i <= 25; ++i) CHECK(number_of(client.delivered[i].msg) == i);
  CHECK(client.budget.used_bytes() == 0);
  // Both directions go on over the relinked leg, with no replacement.
  client.send(f, StreamId{4}, data_of(99));
  CHECK(number_of(f.got_on(h).back().msg) == 99);
  REQUIRE(f.join->send_to_client(h, StreamId{4}, data_of(26)));
  client.receive(f, {2});
  REQUIRE(client.delivered.size() == 27);
  CHECK(number_of(client.delivered.back().msg) == 26);
  CHECK(f.join->set_count() == 1);
  CHECK(f.join->stats().legs == 1);
}

TEST_CASE("join: a set without a leg closes after its grace period", "[conflux][join]") {
  exit::ConfluxJoinConfig cfg;
  cfg.legless_grace = 30s;
  Fixture f(cfg);
  const auto id = f.link_raw(1, kChanA, 0x41);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  f.deliver(1, StreamId{1}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0});
  // A stream SENDME while no leg is alive waits for the next leg.
  f.rt.destroyed(1, cell::DestroyReason::ChannelClosed);
  CHECK(f.join->send_to_client(h, StreamId{1}, cell::SendmeMsg{}));
  CHECK(f.join->send_to_client(h, StreamId{1}, cell::ConnectedMsg{}));
  f.now += 29s;
  f.join->tick(f.now);
  CHECK(f.join->set_count() == 1);
  f.now += 2s;
  f.join->tick(f.now);
  CHECK(f.join->set_count() == 0);
  CHECK(f.inner.was_closed(h));
  CHECK(f.join->stats().sets_closed[static_cast<std::size_t>(exit::SetCloseReason::LeglessTimeout)] == 1);
  CHECK_FALSE(f.join->send_to_client(h, StreamId{1}, cell::ConnectedMsg{}));
  // The nonce is forgotten: the same LINK makes a new set.
  CHECK(f.link_raw(2, kChanA, 0x41) != id);
}

TEST_CASE("join: a stream SENDME held while legless goes out on the next leg", "[conflux][join]") {
  Fixture f;
  const auto id = f.link_raw(1, kChanA, 0x42);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  f.rt.destroyed(1, cell::DestroyReason::ChannelClosed);
  CHECK(f.join->send_to_client(h, StreamId{1}, cell::SendmeMsg{}));
  CHECK(f.link_raw(2, kChanA, 0x42) == id);
  bool sendme = false;
  for (const auto& s : f.rt.outbox[2]) sendme = sendme || (is<cell::SendmeMsg>(s.msg) && s.stream == StreamId{1});
  CHECK(sendme);
}

TEST_CASE("join: the client closing its last leg ends the set at once", "[conflux][join]") {
  Fixture f;
  const auto id = f.link_raw(1, kChanA, 0x43);
  CHECK(f.link_raw(2, kChanA, 0x43) == id);
  f.rt.destroyed(1, cell::DestroyReason::Finished);
  CHECK(f.join->set_count() == 1);
  f.rt.destroyed(2, cell::DestroyReason::Finished);
  CHECK(f.join->set_count() == 0);
  CHECK(f.inner.was_closed(ConfluxJoin::set_handle(id)));
  CHECK(f.join->stats().sets_closed[static_cast<std::size_t>(exit::SetCloseReason::Client)] == 1);
  CHECK(f.join->stats().legs_closed == 2);
  CHECK(f.join->stats().legs == 0);
}

TEST_CASE("join: the exit module closing a set's handle closes every leg", "[conflux][join]") {
  Fixture f;
  const auto id = f.link_raw(1, kChanA, 0x44);
  REQUIRE(f.link_raw(2, kChanB, 0x44) == id);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  f.join->close_circuit(h, cell::DestroyReason::Protocol);
  CHECK(f.rt.closed.at(1) == cell::DestroyReason::Protocol);
  CHECK(f.rt.closed.at(2) == cell::DestroyReason::Protocol);
  CHECK(f.inner.was_closed(h));
  CHECK(f.join->set_count() == 0);
  CHECK_FALSE(f.join->can_send_data(h));
  CHECK_FALSE(f.join->set_of(1).has_value());
  // The legs' own CircuitClosed never reached the exit module.
  CHECK_FALSE(f.inner.was_closed(1));
  CHECK_FALSE(f.inner.was_closed(2));
}

TEST_CASE("join: cells the client resends after a leg died reach the exit module once", "[conflux][join]") {
  Fixture f;
  SetClient client(0x45);
  client.link(f, 1, kChanA, cell::ConfluxUx::HighThroughput, 10ms);
  client.link(f, 2, kChanB, cell::ConfluxUx::HighThroughput, 50ms);
  const CircuitHandle h = ConfluxJoin::set_handle(*f.join->set_of(1));
  client.send(f, StreamId{6}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0});
  // Five DATA cells leave on a leg that dies at the client before their
  // SENDME; they are still in flight to the exit.
  std::vector<proto::LegCell> in_flight;
  for (std::uint32_t i = 1; i <= 5; ++i) {
    auto cells = client.set.send(StreamId{6}, data_of(i), f.now);
    REQUIRE(cells);
    for (auto& c : *cells) in_flight.push_back(c);
  }
  const proto::LegId dead = in_flight.back().leg;
  client.set.leg_closed(dead);
  // The replacement links before the exit sees them: its LINKED says 1 cell delivered.
  client.link(f, 3, kChanA, cell::ConfluxUx::HighThroughput, 10ms);
  for (auto& c : in_flight) f.deliver(c.leg.value(), c.stream, c.msg);
  f.rt.destroyed(dead.value(), cell::DestroyReason::ChannelClosed);
  // The client resends them on the new leg: the exit drops the copies.
  for (auto& c : client.set.flush(f.now)) f.deliver(c.leg.value(), c.stream, c.msg);
  const auto got = f.got_on(h);
  REQUIRE(got.size() == 6);
  for (std::uint32_t i = 1; i <= 5; ++i) CHECK(number_of(got[i].msg) == i);
  CHECK(f.join->stats().duplicates_dropped == 5);
  CHECK(f.join->set_count() == 1);
}

TEST_CASE("switch: every accepted circuit SENDME is reported, and the client's channel is known", "[conflux][switch]") {
  using namespace conflux::test;
  Net net(1);
  Client client(net);
  client.build(1);
  // The circuit's handle, from a first stream message.
  client.send(HopNum{1}, StreamId{1}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}, false);
  auto delivered = of_type<proto::DeliverStreamMessage>(net.relays[0]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  const CircuitHandle circ = delivered[0].circuit;
  CHECK(net.relays[0]->sw->client_channel(circ) == kClientChan);
  CHECK_FALSE(net.relays[0]->sw->client_channel(circ + 1000).has_value());

  // The exit sends 200 DATA cells; the client circuit answers with two SENDMEs.
  net.relays[0]->exit_inbox.clear();
  for (int i = 0; i < 200; ++i) {
    REQUIRE(net.relays[0]->sw->send_to_client(circ, StreamId{1}, cell::DataMsg{{1, 2, 3}}));
    net.pump(0);
    auto [hop, msg] = client.receive();
    REQUIRE(is<cell::DataMsg>(msg));
  }
  CHECK(of_type<proto::CircuitSendme>(net.relays[0]->exit_inbox).size() == 2);
  // The window never closed: no CircuitWritable.
  CHECK(of_type<proto::CircuitWritable>(net.relays[0]->exit_inbox).empty());
}
