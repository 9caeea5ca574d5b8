// Circuit ID allocation on a link-v4+ channel (tor-spec 5.1.1) and the
// RELAY_EARLY rules (tor-spec 5.6).
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "conflux/proto/circuit_ids.hpp"
#include "conflux/proto/relay_early.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

// Returns the given values in turn, then repeats the last one; counts calls.
struct Script {
  std::vector<std::uint32_t> values;
  std::size_t calls = 0;
  CircIdTable::RandomU32 fn() {
    return [this] {
      const std::size_t i = calls < values.size() ? calls : values.size() - 1;
      ++calls;
      return values[i];
    };
  }
};

}  // namespace

TEST_CASE("the initiator sets the high bit, the responder clears it", "[circ_id]") {
  Script s{{0x12345678u}};
  CircIdTable init(ChannelRole::Initiator, 100, 64, s.fn());
  auto a = init.allocate();
  REQUIRE(a.has_value());
  CHECK(a->value() == 0x92345678u);
  CHECK(init.in_use(*a));

  Script t{{0x92345678u}};
  CircIdTable resp(ChannelRole::Responder, 100, 64, t.fn());
  auto b = resp.allocate();
  REQUIRE(b.has_value());
  CHECK(b->value() == 0x12345678u);

  CHECK(CircIdTable::chosen_by(ChannelRole::Initiator, CircId{0x80000001u}));
  CHECK_FALSE(CircIdTable::chosen_by(ChannelRole::Initiator, CircId{0x7fffffffu}));
  CHECK(CircIdTable::chosen_by(ChannelRole::Responder, CircId{1}));
}

TEST_CASE("0 and used IDs are skipped, tries are bounded", "[circ_id]") {
  // 0x80000000 becomes 0 for the responder: never a circuit ID.
  Script s{{0x80000000u, 0u, 5u}};
  CircIdTable resp(ChannelRole::Responder, 100, 64, s.fn());
  auto a = resp.allocate();
  REQUIRE(a.has_value());
  CHECK(a->value() == 5u);
  CHECK(s.calls == 3);

  Script t{{7u, 7u, 9u}};
  CircIdTable r2(ChannelRole::Responder, 100, 64, t.fn());
  CHECK(r2.allocate()->value() == 7u);
  CHECK(r2.allocate()->value() == 9u);

  Script u{{7u}};
  CircIdTable r3(ChannelRole::Responder, 100, 64, u.fn());
  REQUIRE(r3.allocate().has_value());
  u.calls = 0;
  auto ex = r3.allocate();
  REQUIRE_FALSE(ex.has_value());
  CHECK(ex.error() == CircIdError::Exhausted);
  CHECK(u.calls == 64);
}

TEST_CASE("per-channel circuit limit", "[circ_id]") {
  Script s{{1u, 2u, 3u, 4u}};
  CircIdTable t(ChannelRole::Initiator, 2, 64, s.fn());
  REQUIRE(t.allocate().has_value());
  REQUIRE(t.register_peer(CircId{5}).has_value());
  CHECK(t.size() == 2);
  CHECK(t.allocate().error() == CircIdError::LimitReached);
  CHECK(t.register_peer(CircId{6}).error() == CircIdError::LimitReached);
  CHECK(t.release(CircId{5}));
  CHECK_FALSE(t.release(CircId{5}));
  CHECK(t.register_peer(CircId{6}).has_value());
}

TEST_CASE("IDs the peer chooses are checked", "[circ_id]") {
  CircIdTable init(ChannelRole::Initiator, 10);
  CHECK(init.register_peer(CircId{0}).error() == CircIdError::Zero);
  CHECK(init.register_peer(CircId{0x80000005u}).error() == CircIdError::WrongHalf);
  REQUIRE(init.register_peer(CircId{5}).has_value());
  CHECK(init.register_peer(CircId{5}).error() == CircIdError::InUse);

  CircIdTable resp(ChannelRole::Responder, 10);
  CHECK(resp.register_peer(CircId{5}).error() == CircIdError::WrongHalf);
  CHECK(resp.register_peer(CircId{0x80000005u}).has_value());
}

TEST_CASE("default random IDs are in our half and distinct", "[circ_id]") {
  CircIdTable init(ChannelRole::Initiator, 2000);
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 1000; ++i) {
    auto id = init.allocate();
    REQUIRE(id.has_value());
    CHECK((id->value() & kCircIdHighBit) != 0);
    seen.insert(id->value());
  }
  CHECK(seen.size() == 1000);
  CircIdTable resp(ChannelRole::Responder, 2000);
  for (int i = 0; i < 200; ++i) {
    auto id = resp.allocate();
    REQUIRE(id.has_value());
    CHECK((id->value() & kCircIdHighBit) == 0);
    CHECK(id->value() != 0);
  }
}

TEST_CASE("RELAY_EARLY: 8 outbound are fine, the 9th closes the circuit", "[relay_early]") {
  RelayEarlyGuard g;
  for (int i = 0; i < 100; ++i) CHECK_FALSE(g.on_cell(CellDirection::Outbound, false).has_value());
  for (int i = 0; i < 8; ++i) CHECK_FALSE(g.on_cell(CellDirection::Outbound, true).has_value());
  CHECK(g.remaining() == 0);
  const auto v = g.on_cell(CellDirection::Outbound, true);
  REQUIRE(v.has_value());
  CHECK(*v == RelayEarlyViolation::TooManyRelayEarly);
  CHECK(closes_circuit(*v));
  // Plain RELAY cells are still fine.
  CHECK_FALSE(g.on_cell(CellDirection::Outbound, false).has_value());
}

TEST_CASE("RELAY_EARLY: inbound ones and EXTEND2 outside RELAY_EARLY", "[relay_early]") {
  RelayEarlyGuard g;
  CHECK_FALSE(g.on_cell(CellDirection::Inbound, false).has_value());
  const auto in = g.on_cell(CellDirection::Inbound, true);
  REQUIRE(in.has_value());
  CHECK(*in == RelayEarlyViolation::InboundRelayEarly);
  CHECK(closes_circuit(*in));

  using cell::RelayCommand;
  const auto ext = RelayEarlyGuard::check_recognized(RelayCommand::Extend2, false);
  REQUIRE(ext.has_value());
  CHECK(*ext == RelayEarlyViolation::ExtendNotEarly);
  CHECK_FALSE(closes_circuit(*ext));  // tor drops the cell, keeps the circuit
  CHECK(RelayEarlyGuard::check_recognized(RelayCommand::Extend, false).has_value());
  CHECK_FALSE(RelayEarlyGuard::check_recognized(RelayCommand::Extend2, true).has_value());
  CHECK_FALSE(RelayEarlyGuard::check_recognized(RelayCommand::Data, false).has_value());
  CHECK_FALSE(RelayEarlyGuard::check_recognized(RelayCommand::Begin, true).has_value());
}

TEST_CASE("RELAY_EARLY at the client: EXTEND2 and cells beyond hop 1 use the budget", "[relay_early]") {
  using cell::RelayCommand;
  RelayEarlyBudget b;
  CHECK_FALSE(*b.choose(RelayCommand::BeginDir, true));  // to the first hop: plain RELAY
  CHECK(b.remaining() == 8);
  CHECK(*b.choose(RelayCommand::Extend2, true));
  for (int i = 0; i < 7; ++i) CHECK(*b.choose(RelayCommand::Data, false));
  CHECK(b.remaining() == 0);
  CHECK_FALSE(*b.choose(RelayCommand::Data, false));
  const auto none = b.choose(RelayCommand::Extend2, false);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error() == RelayEarlySendError::NoRelayEarlyLeft);
}
