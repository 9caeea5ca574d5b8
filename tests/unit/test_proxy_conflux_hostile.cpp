// A hostile exit against the proxy's Conflux set: cells out of order with a
// gap that never fills, duplicated sequence numbers, SWITCH(0) after a cell,
// a SWITCH past the reorder window. Each closes that set only (its stream is
// told why), another set carries on, and the out-of-order memory never goes
// above its caps: the set's own (4 MiB) and the shared budget's.
#include <catch2/catch.hpp>

#include "proxy_conflux_support.hpp"

using namespace conflux;
using namespace conflux::test;
using client::ConfluxTunnel;

namespace {

struct Rig : TunnelRig {
  FakeStream stream;
  StreamId id{};
  ~Rig() { tunnel.reset(); }
  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;
  explicit Rig(proto::ReorderBudgetConfig budget_config = {})
      : TunnelRig(2, cell::ConfluxUx::HighThroughput, budget_config) {
    make();
    tunnel->start(80);
    open_all();
    REQUIRE(tunnel->state() == ConfluxTunnel::State::Open);
    auto got = tunnel->attach(stream);
    REQUIRE(got);
    id = *got;
    REQUIRE(tunnel->send(id, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}));
    exit.run();
    REQUIRE(!stream.msgs.empty());
  }
  // A cell from the exit's hop on leg `i`, as the hostile exit chooses it.
  void inject(std::size_t i, StreamId s, const cell::RelayMsg& msg) {
    tunnel->on_leg_msg(leg(i).serial(), HopNum{3}, s, msg);
  }
  void data(std::size_t i) { inject(i, id, cell::DataMsg{std::vector<std::uint8_t>(498, 0x5A)}); }
  void switch_by(std::size_t i, std::uint32_t n) { inject(i, StreamId{0}, cell::ConfluxSwitchMsg{SeqRel{n}}); }
  [[nodiscard]] bool closed() const { return tunnel->state() == ConfluxTunnel::State::Closed; }
};

// The bystander: a second set whose exit keeps sending in order.
void check_unharmed(Rig& other) {
  REQUIRE(other.tunnel->state() == ConfluxTunnel::State::Open);
  auto* set = other.exit.set_of(other.leg(0).serial());
  REQUIRE(set != nullptr);
  const std::size_t before = other.stream.data.size();
  for (int i = 0; i < 20 && set->can_send_data(other.clock.now()); ++i)
    other.exit.send(other.leg(0).serial(), other.id, cell::DataMsg{std::vector<std::uint8_t>(100, 7)});
  other.exit.run();
  CHECK(other.stream.data.size() == before + 2000);
  CHECK(!other.stream.closed);
}

// Floods leg 0 with DATA behind a gap until the set closes; the budget's
// use is checked after every cell.
std::size_t flood_gap(Rig& rig, std::size_t cap) {
  rig.switch_by(0, 1000);
  std::size_t cells = 0, peak = 0;
  while (!rig.closed() && cells < 100000) {
    rig.data(0);
    ++cells;
    peak = std::max(peak, rig.budget.used_bytes());
    REQUIRE(rig.budget.used_bytes() <= cap);
  }
  INFO("cells " << cells << ", peak " << peak << " bytes");
  CHECK(rig.closed());
  CHECK(peak > cap / 2);  // it did fill up to near the cap
  return cells;
}

}  // namespace

TEST_CASE("hostile exit: a gap that never fills stops at the set's cap, only that set closes", "[proxy][conflux]") {
  Rig rig;
  Rig other;
  const std::size_t set_cap = proto::ReceiverLimits{}.max_set_bytes;
  flood_gap(rig, set_cap);
  REQUIRE(rig.stream.closed);
  CHECK(rig.stream.closed->find(proto::to_string(proto::ConfluxError::SetQueueFull)) != std::string::npos);
  CHECK(rig.stream.data.empty());  // nothing out of order reached the application
  CHECK(rig.budget.used_bytes() == 0);  // the closed set gave its memory back
  CHECK(rig.leg(0).closed);
  CHECK(rig.leg(1).closed);
  check_unharmed(other);
}

TEST_CASE("hostile exit: the shared budget's hard cap holds before any set's own", "[proxy][conflux]") {
  proto::ReorderBudgetConfig small;
  small.cap_bytes = 512 * 1024;
  small.pressure_bytes = 384 * 1024;
  Rig rig(small);
  flood_gap(rig, small.cap_bytes);
  REQUIRE(rig.stream.closed);
  CHECK(rig.stream.closed->find(proto::to_string(proto::ConfluxError::GlobalQueueFull)) != std::string::npos);
  CHECK(rig.budget.used_bytes() == 0);
}

TEST_CASE("hostile exit: a duplicated sequence number closes the set", "[proxy][conflux]") {
  Rig rig;
  Rig other;
  // CONNECTED took number 1 on one of the legs; the other leg's count is 0,
  // so a cell on it without a SWITCH claims number 1 again. Send one on
  // each leg: whichever carried CONNECTED passes, the other is a duplicate.
  rig.data(0);
  if (!rig.closed()) rig.data(1);
  REQUIRE(rig.closed());
  REQUIRE(rig.stream.closed);
  CHECK(rig.stream.closed->find(proto::to_string(proto::ConfluxError::DuplicateSeq)) != std::string::npos);
  check_unharmed(other);
}

TEST_CASE("hostile exit: SWITCH abuse closes the set", "[proxy][conflux]") {
  Rig other;
  SECTION("SWITCH(0) after a cell on the leg") {
    Rig rig;
    rig.switch_by(0, 5);
    rig.data(0);  // ahead of delivery: queued
    REQUIRE_FALSE(rig.closed());
    rig.switch_by(0, 0);
    REQUIRE(rig.closed());
    CHECK(rig.stream.closed->find(proto::to_string(proto::ConfluxError::SwitchZero)) != std::string::npos);
    CHECK(rig.budget.used_bytes() == 0);
  }
  SECTION("a SWITCH past the reorder window") {
    Rig rig;
    rig.switch_by(1, static_cast<std::uint32_t>(proto::ReceiverLimits{}.seq_window + 10));
    REQUIRE(rig.closed());
    CHECK(rig.stream.closed->find(proto::to_string(proto::ConfluxError::SwitchBeyondWindow)) != std::string::npos);
  }
  SECTION("a cell far beyond the window after a legal SWITCH") {
    Rig rig;
    rig.switch_by(1, static_cast<std::uint32_t>(proto::ReceiverLimits{}.seq_window - 1));
    rig.data(1);  // lands at the window's edge at most: queued or refused
    rig.switch_by(1, 2);
    if (!rig.closed()) rig.data(1);
    REQUIRE(rig.closed());
    CHECK(rig.budget.used_bytes() == 0);
  }
  check_unharmed(other);
}
