// The exit's Conflux join point against a hostile client: duplicated cells,
// SWITCH abuse and unbounded gaps close that set only (another set and a
// plain circuit keep working), reorder memory never exceeds its caps and the
// oldest sets are shed under pressure; linking rules (streams before LINK, a
// second LINK before the LINKED_ACK or with another nonce, relinks past
// the cap, unexpected and late LINKED_ACKs, per-origin caps) and
// BEGIN_DIR on a leg close only the offending circuit.
#include "test_exit_conflux_join_support.hpp"

using namespace conflux;
using namespace conflux::test::join;

namespace {

const cell::BeginMsg kBegin{"example.com", cell::BeginAddrKind::Hostname, 80, 0};

std::size_t closed_sets(const ConfluxJoin& j, exit::SetCloseReason why) {
  return j.stats().sets_closed[static_cast<std::size_t>(why)];
}

// A second set (legs 3 and 4) and a plain circuit (9) that must outlive
// whatever happens to the first set.
struct Bystanders {
  proto::SetId other{};
  void setup(Fixture& f) {
    other = f.link_raw(3, kChanA, 0x77);
    REQUIRE(f.link_raw(4, kChanA, 0x77) == other);
    f.rt.open(9, kChanA);
    f.deliver(3, StreamId{1}, kBegin);
    f.deliver(9, StreamId{1}, kBegin);
  }
  void still_work(Fixture& f) const {
    REQUIRE(f.rt.alive(3));
    REQUIRE(f.rt.alive(4));
    REQUIRE(f.rt.alive(9));
    const CircuitHandle h = ConfluxJoin::set_handle(other);
    CHECK_FALSE(f.inner.was_closed(h));
    CHECK_FALSE(f.inner.was_closed(9));
    const auto before = f.got_on(h).size();
    f.sw(4, 1);
    f.deliver(4, StreamId{1}, data_of(2));
    REQUIRE(f.got_on(h).size() == before + 1);
    CHECK(number_of(f.got_on(h).back().msg) == 2);
    f.deliver(9, StreamId{1}, data_of(7));
    CHECK(number_of(f.got_on(9).back().msg) == 7);
  }
};

}  // namespace

TEST_CASE("join: a peer breaking the sequencing rules closes that set only", "[conflux][join]") {
  Fixture f;
  Bystanders others;
  others.setup(f);
  const auto id = f.link_raw(1, kChanB, 0x51);
  REQUIRE(f.link_raw(2, kChanB, 0x51) == id);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  f.deliver(1, StreamId{1}, kBegin);  // cell 1
  REQUIRE(f.got_on(h).size() == 1);

  SECTION("a duplicate number") {
    f.deliver(1, StreamId{1}, data_of(2));  // cell 2
    f.deliver(2, StreamId{1}, data_of(1));  // leg 2 counts from 0: cell 1 again
  }
  SECTION("SWITCH(0) in the middle of a leg") {
    f.sw(1, 0);
  }
  SECTION("two SWITCHes with no cell between") {
    f.sw(2, 1);
    f.sw(2, 1);
  }
  SECTION("a SWITCH jumping past the reorder window") {
    f.sw(2, 40000);
    f.deliver(2, StreamId{1}, data_of(3));
  }
  SECTION("out of order and duplicated at once") {
    f.sw(2, 3);
    f.deliver(2, StreamId{1}, data_of(4));  // cell 4, queued: 2 and 3 missing
    f.deliver(1, StreamId{1}, data_of(2));  // cell 2, delivered
    f.sw(1, 1);
    f.deliver(1, StreamId{1}, data_of(4));  // cell 4 again: already queued
  }
  CHECK(f.join->set_count() == 1);  // ours is gone, the bystanders' remains
  CHECK(f.rt.closed.at(1) == cell::DestroyReason::Protocol);
  CHECK(f.rt.closed.at(2) == cell::DestroyReason::Protocol);
  CHECK(f.inner.was_closed(h));
  CHECK(closed_sets(*f.join, exit::SetCloseReason::Protocol) == 1);
  CHECK(f.join->stats().reorder_bytes == 0);
  CHECK_FALSE(f.join->send_to_client(h, StreamId{1}, cell::ConnectedMsg{}));
  others.still_work(f);
}

TEST_CASE("join: an unbounded gap fills the set's reorder cap and the stream's window, then closes the set, within both", "[conflux][join]") {
  exit::ConfluxJoinConfig cfg;
  cfg.set.receiver.max_set_bytes = 64 * 1024;
  Fixture f(cfg);
  Bystanders others;
  others.setup(f);
  const auto id = f.link_raw(1, kChanB, 0x52);
  f.sw(1, 100);  // cells 1..100 never come
  // Beyond the cap the stream may still have a stream window of DATA
  // queued (a correct sender can have that much in flight), and no more.
  const std::size_t cost = 498 + proto::ConfluxReceiver::kEntryOverhead;
  const std::size_t bound = cfg.set.receiver.max_set_bytes + cfg.set.receiver.stream_window_cells * cost;
  std::size_t sent = 0;
  std::size_t most = 0;
  while (f.rt.alive(1) && sent < 10'000) {
    f.deliver(1, StreamId{1}, data_of(static_cast<std::uint32_t>(sent), 498));
    ++sent;
    most = std::max<std::size_t>(most, f.join->stats().reorder_bytes);
    REQUIRE(f.join->stats().reorder_bytes <= bound);
  }
  CHECK_FALSE(f.rt.alive(1));
  CHECK(sent == cfg.set.receiver.stream_window_cells + 1);  // the cap falls inside the stream's window here
  CHECK(most == cfg.set.receiver.stream_window_cells * cost);
  CHECK(f.rt.closed.at(1) == cell::DestroyReason::ResourceLimit);
  CHECK(f.inner.was_closed(ConfluxJoin::set_handle(id)));
  CHECK(closed_sets(*f.join, exit::SetCloseReason::Memory) == 1);
  CHECK(f.join->stats().reorder_bytes == 0);
  others.still_work(f);
}

TEST_CASE("join: under memory pressure the set with the oldest out-of-order data is shed", "[conflux][join]") {
  exit::ConfluxJoinConfig cfg;
  cfg.set.receiver.max_set_bytes = 100 * 1024;
  cfg.budget.cap_bytes = 200 * 1024;
  cfg.budget.pressure_bytes = 120 * 1024;
  Fixture f(cfg);
  const auto old_set = f.link_raw(1, kChanA, 0x53);
  const auto new_set = f.link_raw(2, kChanB, 0x54);
  const auto fill = [&](CircuitHandle leg, std::size_t cells) {
    for (std::size_t i = 0; i < cells && f.rt.alive(leg); ++i) {
      f.deliver(leg, StreamId{1}, data_of(static_cast<std::uint32_t>(i), 498));
      REQUIRE(f.join->stats().reorder_bytes <= cfg.budget.cap_bytes);
    }
  };
  f.sw(1, 1000);
  fill(1, 120);  // ~67 KiB, the older data
  f.now += 1s;
  f.sw(2, 1000);
  fill(2, 120);  // pushes the total over the pressure mark
  CHECK_FALSE(f.rt.alive(1));
  CHECK(f.rt.closed.at(1) == cell::DestroyReason::ResourceLimit);
  CHECK(f.inner.was_closed(ConfluxJoin::set_handle(old_set)));
  REQUIRE(f.rt.alive(2));
  CHECK(f.join->set(new_set) != nullptr);
  CHECK(closed_sets(*f.join, exit::SetCloseReason::Memory) == 1);
  CHECK(f.join->stats().reorder_bytes <= cfg.budget.pressure_bytes);
}

TEST_CASE("join: linking rules close the offending circuit and nothing else", "[conflux][join]") {
  exit::ConfluxJoinConfig cfg;
  cfg.link.max_sets_per_origin = 2;
  Fixture f(cfg);
  const auto id = f.link_raw(1, kChanA, 0x61);
  REQUIRE(f.link_raw(2, kChanA, 0x61) == id);

  SECTION("LINK on a circuit that carried a stream") {
    f.rt.open(5, kChanA);
    f.deliver(5, StreamId{1}, kBegin);
    f.deliver(5, link_msg(0x62));
    CHECK(f.rt.closed.at(5) == cell::DestroyReason::Protocol);
    CHECK(f.inner.was_closed(5));
    CHECK(f.join->stats().links_refused == 1);
  }
  SECTION("a second LINK on a leg before its LINKED_ACK") {
    f.link_raw(3, kChanA, 0x61, cell::ConfluxUx::HighThroughput, /*ack=*/false);
    f.deliver(3, link_msg(0x61));
    CHECK(f.rt.closed.at(3) == cell::DestroyReason::Protocol);
    CHECK(f.join->stats().legs == 2);
    CHECK(f.join->stats().legs_relinked == 0);
  }
  SECTION("a relinking LINK with another set's nonce") {
    f.link_raw(3, kChanB, 0x65);
    f.deliver(2, link_msg(0x65));
    CHECK(f.rt.closed.at(2) == cell::DestroyReason::Protocol);
    CHECK(f.join->stats().legs == 2);
    CHECK(f.join->stats().legs_relinked == 0);
  }
  SECTION("relinks past the set's cap") {
    for (std::size_t i = 0; i < cfg.link.max_relinks_per_set; ++i) {
      f.rt.take(2);
      f.deliver(2, link_msg(0x61));
      REQUIRE(f.rt.alive(2));
      REQUIRE(is<cell::ConfluxLinkedMsg>(f.rt.take(2).front().msg));
      f.deliver(2, cell::ConfluxLinkedAckMsg{});
    }
    CHECK(f.join->stats().legs_relinked == cfg.link.max_relinks_per_set);
    f.deliver(2, link_msg(0x61));
    CHECK(f.rt.closed.at(2) == cell::DestroyReason::Protocol);
    CHECK(f.join->stats().legs == 1);
  }
  SECTION("LINKED_ACK twice, LINKED from the client, LINKED_ACK or SWITCH on a plain circuit") {
    f.deliver(1, cell::ConfluxLinkedAckMsg{});
    CHECK(f.rt.closed.at(1) == cell::DestroyReason::Protocol);
    f.deliver(2, cell::ConfluxLinkedMsg{});
    CHECK(f.rt.closed.at(2) == cell::DestroyReason::Protocol);
    f.rt.open(6, kChanA);
    f.deliver(6, cell::ConfluxLinkedAckMsg{});
    CHECK(f.rt.closed.at(6) == cell::DestroyReason::Protocol);
    f.rt.open(7, kChanA);
    f.sw(7, 1);
    CHECK(f.rt.closed.at(7) == cell::DestroyReason::Protocol);
    // Both legs gone (not by the client): the set waits for a replacement.
    CHECK(f.join->set_count() == 1);
    CHECK(f.join->stats().sets_legless == 1);
  }
  SECTION("BEGIN_DIR on a leg") {
    f.deliver(2, StreamId{3}, cell::BeginDirMsg{});
    CHECK(f.rt.closed.at(2) == cell::DestroyReason::Protocol);
    CHECK(f.join->set_count() == 1);
    CHECK(f.got_on(ConfluxJoin::set_handle(id)).empty());
    CHECK(f.got_on(2).empty());
  }
  SECTION("per-origin set cap") {
    f.link_raw(3, kChanA, 0x63);
    f.rt.open(4, kChanA);
    f.deliver(4, link_msg(0x64));
    CHECK(f.rt.closed.at(4) == cell::DestroyReason::ResourceLimit);
    // Joining an existing set is not a new set; another channel may create.
    f.link_raw(5, kChanA, 0x63);
    f.link_raw(6, kChanB, 0x64);
    CHECK(f.join->set_count() == 3);
  }
  SECTION("numbers no correct peer sends close the set they name") {
    f.rt.open(8, kChanA);
    auto m = link_msg(0x61);
    m.last_seqno_recv = SeqAbs{50};  // "delivered" 50 cells we never sent
    f.deliver(8, m);
    CHECK(f.rt.closed.at(8) == cell::DestroyReason::Protocol);
    CHECK(f.join->set_count() == 0);
    CHECK(f.inner.was_closed(ConfluxJoin::set_handle(id)));
  }
  // The rest of the set is intact unless the section closed it.
  if (f.rt.alive(1) && f.join->set_count() > 0) {
    f.deliver(1, StreamId{1}, kBegin);
    CHECK(f.got_on(ConfluxJoin::set_handle(id)).size() == 1);
  }
}

TEST_CASE("join: a LINKED_ACK that never comes closes the leg at its deadline", "[conflux][join]") {
  Fixture f;
  const auto id = f.link_raw(1, kChanA, 0x71, cell::ConfluxUx::HighThroughput, /*ack*/ false);
  const auto acked = f.link_raw(2, kChanA, 0x72);
  f.now += 29s;
  f.join->tick(f.now);
  CHECK(f.rt.alive(1));
  f.now += 2s;
  f.join->tick(f.now);
  CHECK(f.rt.closed.at(1) == cell::DestroyReason::Timeout);
  CHECK(f.rt.alive(2));
  CHECK(f.join->stats().linked_ack_timeouts == 1);
  CHECK(f.join->set(acked) != nullptr);
  // The unacknowledged set now has no leg: it goes after its grace.
  f.now += 31s;
  f.join->tick(f.now);
  CHECK(f.join->set(id) == nullptr);
  CHECK(f.join->set(acked) != nullptr);
  // An ACK after the deadline is refused too.
  f.link_raw(3, kChanA, 0x73, cell::ConfluxUx::HighThroughput, false);
  f.now += 31s;
  f.deliver(3, cell::ConfluxLinkedAckMsg{});
  CHECK(f.rt.closed.at(3) == cell::DestroyReason::Protocol);
}

TEST_CASE("join: MaxMemInQueues counts each set's reorder queue with its age, and closes a set by its handle",
          "[conflux][join][oom]") {
  Fixture f;
  const auto id = f.link_raw(1, kChanA, 0x61);
  REQUIRE(f.link_raw(2, kChanB, 0x61) == id);
  const CircuitHandle h = ConfluxJoin::set_handle(id);
  CHECK(f.join->buffered_bytes() == 0);
  CHECK(f.join->buffered_circuits().empty());

  // Cell 2 overtakes cell 1: held out of order from kT0 + 2 s.
  f.now = kT0 + 2s;
  f.sw(2, 1);
  f.deliver(2, StreamId{5}, data_of(2, 498));
  f.now = kT0 + 5s;
  f.deliver(2, StreamId{5}, data_of(3, 498));
  const std::size_t held = f.join->stats().reorder_bytes;
  REQUIRE(held > 0);
  CHECK(f.join->buffered_bytes() == held);
  const auto listed = f.join->buffered_circuits();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].circuit == h);
  CHECK(listed[0].bytes == held);
  CHECK(listed[0].oldest == kT0 + 2s);

  // A plain circuit's handle is the switch's to close, not the join's.
  CHECK_FALSE(f.join->close_for_memory(1));
  CHECK(f.rt.alive(1));
  CHECK(f.join->close_for_memory(h));
  CHECK(f.rt.closed.at(1) == cell::DestroyReason::ResourceLimit);
  CHECK(f.rt.closed.at(2) == cell::DestroyReason::ResourceLimit);
  CHECK(f.inner.was_closed(h));
  CHECK(closed_sets(*f.join, exit::SetCloseReason::Memory) == 1);
  CHECK(f.join->buffered_bytes() == 0);
  CHECK(f.join->buffered_circuits().empty());
  CHECK_FALSE(f.join->close_for_memory(h));  // already gone
}
