// ConfluxTunnel, the client's Conflux set, against fake legs and an exit
// made of the sans-I/O join-point pieces (proxy_conflux_support.hpp).
#include <catch2/catch.hpp>

#include "proxy_conflux_support.hpp"

using namespace conflux;
using namespace conflux::test;
using client::ConfluxTunnel;

namespace {

std::string hex_prefix(const std::array<std::uint8_t, 32>& b) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < 4; ++i) {
    out.push_back(digits[b[i] >> 4]);
    out.push_back(digits[b[i] & 15]);
  }
  return out;
}

cell::RelayMsg begin_msg() { return cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}; }

// A linked two-leg tunnel with one stream whose BEGIN was answered.
struct OpenRig : TunnelRig {
  FakeStream stream;
  StreamId id{};
  // The tunnel tells its streams it is gone: before `stream` goes.
  ~OpenRig() { tunnel.reset(); }
  OpenRig(const OpenRig&) = delete;
  OpenRig& operator=(const OpenRig&) = delete;
  explicit OpenRig(std::size_t num_legs = 2) : TunnelRig(num_legs) {
    make();
    tunnel->start(80);
    open_all();
    REQUIRE(tunnel->state() == ConfluxTunnel::State::Open);
    auto got = tunnel->attach(stream);
    REQUIRE(got);
    id = *got;
    REQUIRE(tunnel->send(id, begin_msg()));
    exit.run();
    REQUIRE(!stream.msgs.empty());
    REQUIRE(std::holds_alternative<cell::ConnectedMsg>(stream.msgs.front()));
  }

  // Sends `bytes` as DATA while the set's windows allow, letting the
  // network move between cells.
  void upload(const std::vector<std::uint8_t>& bytes, bool settle = true) {
    std::size_t at = 0;
    int idle = 0;
    while (at < bytes.size()) {
      if (!tunnel->can_send_data()) {
        exit.run();
        REQUIRE(++idle < 1000);
        continue;
      }
      const std::size_t n = std::min<std::size_t>(498, bytes.size() - at);
      REQUIRE(tunnel->send(id, cell::DataMsg{{bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                              bytes.begin() + static_cast<std::ptrdiff_t>(at + n)}}));
      at += n;
      if (at % (498 * 50) == 0) exit.run();
    }
    if (settle) exit.run();
  }
};

}  // namespace

TEST_CASE("conflux tunnel: legs share only the exit and link with one secret nonce", "[proxy][conflux]") {
  FakeStream s;
  TunnelRig rig(3);
  rig.make();
  rig.tunnel->start(443);
  REQUIRE(rig.legs.size() == 3);
  REQUIRE(rig.requests.size() == 3);
  // Leg 1 is a normal path for the port; the others go to its exit and avoid
  // its guard and middle (and each other's).
  CHECK(rig.requests[0].port == std::optional<std::uint16_t>(443));
  CHECK_FALSE(rig.requests[0].exit);
  CHECK(rig.requests[1].exit == std::optional<client::RelayIdentity>(relay_id(200)));
  CHECK(rig.requests[1].exclude_first_hops == std::set<client::RelayIdentity>{relay_id(1)});
  CHECK(rig.requests[1].exclude_middles == std::set<client::RelayIdentity>{relay_id(101)});
  CHECK(rig.requests[2].exclude_first_hops == std::set<client::RelayIdentity>{relay_id(1), relay_id(2)});
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Linking);
  CHECK_FALSE(rig.tunnel->attach(s));  // no stream before a leg links

  for (auto& l : rig.legs) l->open();
  // One LINK per leg, all with the same nonce, which is not left at zero.
  std::vector<cell::ConfluxLinkMsg> links;
  for (auto& l : rig.legs) {
    REQUIRE(l->to_exit.size() == 1);
    const auto* link = std::get_if<cell::ConfluxLinkMsg>(&l->to_exit.front().msg);
    REQUIRE(link != nullptr);
    CHECK(l->to_exit.front().stream == StreamId{0});
    CHECK(link->desired_ux == cell::ConfluxUx::HighThroughput);
    links.push_back(*link);
  }
  CHECK(links[0].nonce == links[1].nonce);
  CHECK(links[0].nonce == links[2].nonce);
  CHECK(links[0].nonce != cell::ConfluxLinkMsg{}.nonce);
  rig.exit.run();
  CHECK(rig.exit.sets.size() == 1);  // one set at the exit: the nonce matched
  CHECK(rig.exit.linked_acks == 3);
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK(rig.tunnel->linked_legs() == 3);
  CHECK(rig.logged("Conflux set 7 linked leg 3 (3 of 3 legs)"));
  // The nonce is never logged (not even a prefix of it in hex).
  for (const auto& line : rig.log_lines) CHECK(line.find(hex_prefix(links[0].nonce)) == std::string::npos);
  CHECK(rig.tunnel->attach(s));
}

TEST_CASE("conflux tunnel: a new tunnel of two other tunnels gets another nonce", "[proxy][conflux]") {
  TunnelRig a, b;
  a.make();
  b.make();
  a.tunnel->start(80);
  b.tunnel->start(80);
  a.leg(0).open();
  b.leg(0).open();
  const auto* la = std::get_if<cell::ConfluxLinkMsg>(&a.leg(0).to_exit.front().msg);
  const auto* lb = std::get_if<cell::ConfluxLinkMsg>(&b.leg(0).to_exit.front().msg);
  REQUIRE((la != nullptr && lb != nullptr));
  CHECK(la->nonce != lb->nonce);
}

TEST_CASE("conflux tunnel: usable once the first leg links", "[proxy][conflux]") {
  FakeStream s;
  TunnelRig rig;
  rig.make();
  rig.tunnel->start(80);
  rig.leg(0).open();
  rig.exit.run();
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK(rig.tunnel->linked_legs() == 1);
  CHECK(rig.tunnel->pending_legs() == 1);
  auto id = rig.tunnel->attach(s);
  REQUIRE(id);
  REQUIRE(rig.tunnel->send(*id, begin_msg()));
  rig.exit.run();
  REQUIRE(rig.exit.delivered.size() == 1);
  CHECK(std::holds_alternative<cell::BeginMsg>(rig.exit.delivered[0].msg));
  // The second leg links later and the stream carries on.
  rig.leg(1).open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 2);
  CHECK(s.closed == std::nullopt);
}

TEST_CASE("conflux tunnel: the exit's cells are delivered in order whatever leg carries them", "[proxy][conflux]") {
  OpenRig rig;
  auto* set = rig.exit.set_of(rig.leg(0).serial());
  REQUIRE(set != nullptr);
  // 300 cells from the exit, over both legs (the exit's scheduler picks);
  // leg 2 is delivered before leg 1 so most arrive out of order.
  const auto body = pattern(300 * 400, 3);
  std::size_t sent = 0;
  int rounds = 0;
  while (sent < body.size()) {
    REQUIRE(++rounds < 1000);
    while (sent < body.size() && set->can_send_data(rig.clock.now())) {
      const std::size_t n = std::min<std::size_t>(400, body.size() - sent);
      rig.exit.send(rig.leg(0).serial(), rig.id,
                    cell::DataMsg{{body.begin() + static_cast<std::ptrdiff_t>(sent),
                                   body.begin() + static_cast<std::ptrdiff_t>(sent + n)}});
      sent += n;
      if (sent % 4000 == 0) rig.clock.advance(1ms);
    }
    rig.exit.pump_client(rig.leg(1).serial());
    rig.exit.pump_client(rig.leg(0).serial());
    rig.exit.run();
  }
  rig.exit.run();
  CHECK(rig.stream.data == body);
  CHECK(rig.exit.errors.empty());
}

TEST_CASE("conflux tunnel: an upload arrives whole and in order at the exit", "[proxy][conflux]") {
  OpenRig rig;
  const auto body = pattern(2500 * 498, 9);
  rig.upload(body);
  CHECK(rig.exit.uploaded == body);
  CHECK(rig.exit.errors.empty());
  // Circuit SENDMEs reached the set: windows keep moving.
  const auto* set = rig.tunnel->set();
  REQUIRE(set != nullptr);
  std::uint64_t carried = 0;
  for (const auto& leg : set->legs()) carried += leg.cells_sent;
  CHECK(carried >= 2500);
  // Each circuit SENDME told the stream DATA may go again.
  CHECK(rig.stream.writable >= 20);
}

TEST_CASE("conflux tunnel: a leg blocked on its link takes no new DATA, its unblocking wakes the streams",
          "[proxy][conflux][cc]") {
  // tor's circuit_ready_to_send at the client: circuit_blocked_on_n_chan.
  OpenRig rig;
  auto data_on = [](FakeLeg& leg) {
    std::size_t n = 0;
    for (const auto& w : leg.to_exit)
      if (std::holds_alternative<cell::DataMsg>(w.msg)) ++n;
    return n;
  };
  const std::size_t before0 = data_on(rig.leg(0));
  const std::size_t before1 = data_on(rig.leg(1));
  rig.leg(0).blocked = true;
  rig.leg(1).blocked = true;
  CHECK_FALSE(rig.tunnel->can_send_data());
  rig.leg(1).blocked = false;
  const unsigned woken = rig.stream.writable;
  rig.leg(1).owner->on_leg_writable(rig.leg(1).serial());
  CHECK(rig.stream.writable == woken + 1);
  for (int i = 0; i < 20 && rig.tunnel->can_send_data(); ++i)
    REQUIRE(rig.tunnel->send(rig.id, cell::DataMsg{pattern(498, 1)}));
  CHECK(data_on(rig.leg(0)) == before0);
  CHECK(data_on(rig.leg(1)) > before1);
}

TEST_CASE("conflux tunnel: a leg that dies mid-upload is replaced and nothing is lost", "[proxy][conflux]") {
  OpenRig rig;
  const auto body = pattern(3000 * 498, 5);
  // 1525 cells: the last 25 are still in flight when a leg dies.
  const auto half = std::vector<std::uint8_t>(body.begin(), body.begin() + 1525 * 498);
  const auto rest = std::vector<std::uint8_t>(body.begin() + 1525 * 498, body.end());
  rig.upload(half, false);
  // Whichever leg has cells in flight dies (with them).
  REQUIRE((!rig.leg(0).to_exit.empty() || !rig.leg(1).to_exit.empty()));
  std::size_t victim = rig.leg(0).to_exit.empty() ? 1 : 0;
  const auto guard = rig.leg(victim).info().path.front().target.identity;
  const auto launched = rig.legs.size();
  rig.exit.kill(rig.leg(victim).serial());
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);  // the other leg carries on
  CHECK(rig.logged("lost leg"));
  // A replacement was launched through the same guard, to the same exit.
  REQUIRE(rig.legs.size() == launched + 1);
  CHECK(rig.requests.back().first_hop == std::optional<client::RelayIdentity>(relay_id(guard[0])));
  CHECK(rig.requests.back().exit == std::optional<client::RelayIdentity>(relay_id(200)));
  rig.legs.back()->open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 2);
  rig.upload(rest);
  CHECK(rig.exit.uploaded.size() == body.size());
  CHECK(rig.exit.uploaded == body);
  CHECK(rig.exit.errors.empty());
  CHECK(rig.tunnel->set()->stats().cells_resent > 0);
  CHECK(rig.stream.closed == std::nullopt);
  CHECK(rig.tunnel->stats().legs_lost == 1);
}

TEST_CASE("conflux tunnel: the exit's lost cells come back on the surviving leg, relinked", "[proxy][conflux]") {
  OpenRig rig;
  auto* set = rig.exit.set_of(rig.leg(0).serial());
  REQUIRE(set != nullptr);
  const auto body = pattern(200 * 450, 1);
  for (std::size_t at = 0; at < body.size(); at += 450)
    rig.exit.send(rig.leg(0).serial(), rig.id,
                  cell::DataMsg{{body.begin() + static_cast<std::ptrdiff_t>(at),
                                 body.begin() + static_cast<std::ptrdiff_t>(at + 450)}});
  // Kill a leg before the client saw anything on it.
  const std::size_t victim = rig.leg(0).to_client.empty() ? 1 : 0;
  REQUIRE_FALSE(rig.leg(victim).to_client.empty());
  const auto launched = rig.legs.size();
  rig.exit.kill(rig.leg(victim).serial());
  CHECK(rig.logged("relinking to carry"));
  // The replacement is launched but not built: the surviving leg, relinked,
  // brings everything.
  REQUIRE(rig.legs.size() == launched + 1);
  rig.exit.run();
  CHECK(rig.stream.data == body);
  CHECK(rig.exit.relinks == 1);
  CHECK(rig.tunnel->stats().legs_relinked == 1);
  CHECK(set->stats().cells_resent > 0);
  CHECK(set->stats().cells_resent_on_relinked == set->stats().cells_resent);
  CHECK(rig.exit.errors.empty());
  CHECK(rig.tunnel->linked_legs() == 1);
  CHECK(rig.tunnel->can_send_data());
  // The replacement links later with nothing left to resend.
  const auto resent = set->stats().cells_resent;
  rig.legs.back()->open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 2);
  CHECK(set->stats().cells_resent == resent);
}

TEST_CASE("conflux tunnel: with no surviving leg, the exit's lost cells come on the replacement", "[proxy][conflux]") {
  OpenRig rig;
  const auto body = pattern(200 * 450, 3);
  for (std::size_t at = 0; at < body.size(); at += 450)
    rig.exit.send(rig.leg(0).serial(), rig.id,
                  cell::DataMsg{{body.begin() + static_cast<std::ptrdiff_t>(at),
                                 body.begin() + static_cast<std::ptrdiff_t>(at + 450)}});
  auto* set = rig.exit.set_of(rig.leg(0).serial());
  REQUIRE(set != nullptr);
  rig.exit.kill(rig.leg(0).serial());
  rig.exit.kill(rig.leg(1).serial());
  rig.exit.run();
  CHECK(rig.stream.data.empty());
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Linking);
  for (auto& l : rig.legs)
    if (!l->closed) l->open();
  rig.exit.run();
  CHECK(rig.stream.data == body);
  CHECK(rig.exit.relinks == 0);
  CHECK(set->stats().cells_resent_on_relinked == 0);
  CHECK(set->stats().cells_resent > 0);
}

TEST_CASE("conflux tunnel: a replacement goes through the same guard a bounded number of times", "[proxy][conflux]") {
  TunnelRig rig;
  rig.config.same_guard_retries = 1;
  rig.config.link.max_leg_retries = 5;
  rig.make();
  rig.tunnel->start(80);
  rig.open_all();
  const auto guard = relay_id(rig.leg(0).info().path.front().target.identity[0]);
  // The guard kills its leg after every link: once retried through it, then avoided.
  rig.exit.kill(rig.leg(0).serial());
  REQUIRE(rig.requests.back().first_hop == std::optional<client::RelayIdentity>(guard));
  rig.legs.back()->open();
  rig.exit.run();
  rig.exit.kill(rig.legs.back()->serial());
  CHECK_FALSE(rig.requests.back().first_hop);
  CHECK(rig.requests.back().exclude_middles.count(guard) == 1);
  CHECK(rig.legs.back()->info().path.front().target.identity[0] != guard[0]);
}

TEST_CASE("conflux tunnel: the launch budget bounds relaunches, then the set closes", "[proxy][conflux]") {
  TunnelRig rig;  // 2 legs + 3 retries = 5 launches
  rig.make();
  rig.tunnel->start(80);
  for (int round = 0; round < 10 && rig.tunnel->state() != ConfluxTunnel::State::Closed; ++round) {
    const std::size_t n = rig.legs.size();  // closing launches more
    for (std::size_t i = 0; i < n; ++i)
      if (!rig.leg(i).closed) rig.leg(i).close(cell::DestroyReason::None, "build failed");
    rig.tunnel->tick();
  }
  CHECK(rig.legs.size() == 5);
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Closed);
  REQUIRE(rig.closed);
  CHECK(rig.closed->find("no legs left") != std::string::npos);
}

TEST_CASE("conflux tunnel: every leg lost and no path for a new one: the set closes and its streams end",
          "[proxy][conflux]") {
  // As when the exit closed the set: both legs destroyed at once, their
  // relays then kept off new paths (issue 13: the streams hung).
  OpenRig rig;
  rig.launch_fails = true;
  for (std::size_t i = 0; i < 2; ++i) rig.leg(i).close(cell::DestroyReason::Internal, "destroyed by the relays");
  if (rig.tunnel->state() != ConfluxTunnel::State::Closed) rig.tunnel->tick();
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Closed);
  REQUIRE(rig.closed);
  CHECK(rig.closed->find("no path") != std::string::npos);
  CHECK(rig.stream.closed.has_value());
}

TEST_CASE("conflux tunnel: LINKED must come in time, from the exit, with our nonce", "[proxy][conflux]") {
  SECTION("no LINKED: the leg is closed at the deadline and replaced") {
    TunnelRig rig;
    rig.make();
    rig.exit.ignore_links = true;
    rig.tunnel->start(80);
    rig.open_all();
    rig.clock.advance(29s);
    rig.tunnel->tick();
    CHECK_FALSE(rig.leg(0).closed);
    rig.clock.advance(2s);
    rig.tunnel->tick();
    CHECK(rig.leg(0).closed);
    CHECK(rig.leg(0).close_reason == "no LINKED in time");
    CHECK(rig.legs.size() == 4);  // both replaced
  }
  SECTION("LINKED with another nonce closes that leg only") {
    TunnelRig rig;
    rig.make();
    rig.tunnel->start(80);
    rig.open_all();
    REQUIRE(rig.tunnel->state() == ConfluxTunnel::State::Open);
    rig.exit.kill(rig.leg(0).serial());
    FakeLeg& forged_leg = *rig.legs.back();  // the replacement, whose LINKED is forged
    forged_leg.open();
    forged_leg.to_exit.clear();
    cell::ConfluxLinkedMsg forged;
    forged.nonce.fill(0x42);
    rig.tunnel->on_leg_msg(forged_leg.serial(), HopNum{3}, StreamId{0}, forged);
    CHECK(forged_leg.closed);
    CHECK(forged_leg.close_reason == "LINKED refused: " + std::string(proto::to_string(proto::ConfluxError::NonceMismatch)));
    CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
    CHECK(rig.tunnel->linked_legs() == 1);
  }
  SECTION("conflux and stream cells from a middle close that leg, not the set") {
    OpenRig rig;
    const auto serial = rig.leg(0).serial();
    rig.tunnel->on_leg_msg(serial, HopNum{2}, rig.id, cell::DataMsg{{1, 2, 3}});
    CHECK(rig.leg(0).closed);
    CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
    CHECK(rig.stream.data.empty());
    const auto serial1 = rig.leg(1).serial();
    rig.tunnel->on_leg_msg(serial1, HopNum{1}, StreamId{0}, cell::ConfluxSwitchMsg{SeqRel{5}});
    CHECK(rig.leg(1).closed);
    CHECK(rig.stream.closed == std::nullopt);
  }
}

TEST_CASE("conflux tunnel: a peer's sequencing violation closes this set only", "[proxy][conflux]") {
  OpenRig rig;
  OpenRig other;
  const auto serial = rig.leg(0).serial();
  // Two SWITCHes with no cell between them.
  rig.tunnel->on_leg_msg(serial, HopNum{3}, StreamId{0}, cell::ConfluxSwitchMsg{SeqRel{1}});
  rig.tunnel->on_leg_msg(serial, HopNum{3}, StreamId{0}, cell::ConfluxSwitchMsg{SeqRel{1}});
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Closed);
  REQUIRE(rig.stream.closed);
  CHECK(rig.stream.closed->find(proto::to_string(proto::ConfluxError::SwitchBackToBack)) != std::string::npos);
  CHECK(rig.leg(0).closed);
  CHECK(rig.leg(1).closed);
  CHECK(rig.tunnel->set() == nullptr);
  CHECK_FALSE(rig.tunnel->send(rig.id, cell::DataMsg{{1}}));
  CHECK(other.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK(other.stream.closed == std::nullopt);
}

TEST_CASE("conflux tunnel: stream cells before LINKED, and BEGIN_DIR, are refused", "[proxy][conflux]") {
  OpenRig open;
  CHECK_FALSE(open.tunnel->send(open.id, cell::BeginDirMsg{}));
  CHECK(open.tunnel->state() == ConfluxTunnel::State::Open);
  // DATA on a leg that has not linked yet closes that leg.
  open.exit.kill(open.leg(0).serial());
  FakeLeg& fresh = *open.legs.back();
  fresh.open();  // LINK sent, not answered yet
  open.tunnel->on_leg_msg(fresh.serial(), HopNum{3}, open.id, cell::DataMsg{{1}});
  CHECK(fresh.closed);
  CHECK(open.tunnel->state() == ConfluxTunnel::State::Open);
  // BEGIN_DIR from the exit closes the set.
  open.tunnel->on_leg_msg(open.leg(1).serial(), HopNum{3}, StreamId{9}, cell::BeginDirMsg{});
  CHECK(open.tunnel->state() == ConfluxTunnel::State::Closed);
}

TEST_CASE("conflux tunnel: stream SENDMEs are sequenced both ways and survive a leg's death", "[proxy][conflux]") {
  OpenRig rig;
  for (int i = 0; i < 4; ++i) REQUIRE(rig.tunnel->send(rig.id, cell::SendmeMsg{}));
  // All on the set's current leg, numbered like any multiplexed cell; that
  // leg dies before the exit reads them.
  std::size_t victim = rig.leg(0).to_exit.empty() ? 1 : 0;
  const auto count = std::count_if(rig.leg(victim).to_exit.begin(), rig.leg(victim).to_exit.end(),
                                   [](const Wire& w) { return std::holds_alternative<cell::SendmeMsg>(w.msg); });
  REQUIRE(count == 4);
  rig.exit.kill(rig.leg(victim).serial());
  rig.legs.back()->open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 2);
  // Resent on the replacement: the exit's stream gets all four.
  REQUIRE(rig.exit.stream_sendmes.size() == 4);
  CHECK(rig.exit.stream_sendmes[0] == rig.id);
  CHECK(rig.exit.errors.empty());
  // One from the exit reaches the stream through the set.
  const auto before = rig.stream.msgs.size();
  rig.exit.send(rig.legs.back()->serial(), rig.id, cell::SendmeMsg{});
  rig.exit.run();
  REQUIRE(rig.stream.msgs.size() == before + 1);
  CHECK(std::holds_alternative<cell::SendmeMsg>(rig.stream.msgs.back()));
}

TEST_CASE("conflux tunnel: closing tells every stream and closes every leg", "[proxy][conflux]") {
  OpenRig rig;
  rig.tunnel->close(cell::DestroyReason::Finished, "dirty and unused");
  CHECK(rig.stream.closed == std::optional<std::string>("dirty and unused"));
  CHECK(rig.closed == std::optional<std::string>("dirty and unused"));
  for (auto& l : rig.legs) CHECK(l->closed);
  // Closing twice, or a leg reporting its close late, changes nothing.
  rig.tunnel->close(cell::DestroyReason::Finished, "again");
  rig.tunnel->on_leg_closed(rig.leg(0).serial(), "late");
  CHECK(rig.closed == std::optional<std::string>("dirty and unused"));
}

TEST_CASE("conflux tunnel: a dead leg's middle is kept off new legs, a linked set renews its budget",
          "[proxy][conflux]") {
  TunnelRig rig;
  rig.make();
  rig.tunnel->start(80);
  rig.open_all();
  const auto middle = relay_id(rig.leg(0).info().path[1].target.identity[0]);
  // Kill a leg and link its replacement, over and over: more than the
  // 5 launches of one budget, because every round ends fully linked.
  for (int round = 0; round < 6; ++round) {
    FakeLeg& victim = *rig.legs[rig.legs.size() - 2];
    REQUIRE_FALSE(victim.closed);
    rig.exit.kill(victim.serial());
    REQUIRE(rig.tunnel->state() == ConfluxTunnel::State::Open);
    if (round == 0) CHECK(rig.requests.back().exclude_middles.count(middle) == 1);
    rig.legs.back()->open();
    rig.exit.run();
    REQUIRE(rig.tunnel->linked_legs() == 2);
  }
  CHECK(rig.legs.size() == 8);
  // The suspicion ends.
  rig.clock.advance(121s);
  rig.exit.kill(rig.legs[rig.legs.size() - 2]->serial());
  CHECK(rig.requests.back().exclude_middles.count(middle) == 0);
}

TEST_CASE("conflux tunnel: a download keeps its pace after a leg is replaced", "[proxy][conflux]") {
  OpenRig rig;
  auto* set = rig.exit.set_of(rig.leg(0).serial());
  REQUIRE(set != nullptr);
  const std::size_t total_cells = 20000;
  std::size_t sent = 0;
  std::vector<std::size_t> per_round;
  bool killed = false;
  for (int round = 0; round < 4000 && sent < total_cells; ++round) {
    std::size_t n = 0;
    while (sent < total_cells && set->can_send_data(rig.clock.now())) {
      rig.exit.send(rig.legs.back()->serial(), rig.id, cell::DataMsg{std::vector<std::uint8_t>(400, 1)});
      ++sent;
      ++n;
    }
    per_round.push_back(n);
    rig.clock.advance(5ms);
    rig.exit.run();
    if (!killed && sent > total_cells / 4) {
      killed = true;
      // Kill the leg with cells in flight, link its replacement.
      const std::size_t victim = rig.leg(0).to_client.empty() ? 1 : 0;
      rig.exit.kill(rig.leg(victim).serial());
      rig.legs.back()->open();
      rig.exit.run();
      set = rig.exit.set_of(rig.legs.back()->serial());
      REQUIRE(set != nullptr);
    }
  }
  INFO("rounds: " << per_round.size());
  CHECK(sent == total_cells);
  CHECK(per_round.size() < 200);
  CHECK(rig.stream.data.size() == total_cells * 400);
}

TEST_CASE("conflux tunnel: with congestion control only legs whose exit agreed are linked", "[proxy][conflux][cc]") {
  TunnelRig rig;
  rig.config.congestion_control = proto::CcParams{};
  rig.make();
  rig.tunnel->start(80);
  REQUIRE(rig.legs.size() == 2);
  // Every leg is launched asking for it, and its streams run XON/XOFF.
  REQUIRE(rig.tunnel->leg_congestion_control() != nullptr);
  CHECK(rig.tunnel->congestion_control() == rig.tunnel->leg_congestion_control());
  rig.leg(0).cc = proto::CcAgreement{31};
  rig.leg(0).open();
  rig.leg(1).cc = proto::CcAgreement{32};  // another sendme_inc: both ends would count the window apart
  rig.leg(1).open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 1);
  CHECK(rig.leg(1).closed);
  CHECK(rig.leg(1).close_reason == "the exit did not agree to congestion control");
  // Its replacement: an exit that runs fixed windows is not linked either.
  REQUIRE(rig.legs.size() == 3);
  rig.leg(2).open();
  CHECK(rig.leg(2).closed);
  CHECK(rig.tunnel->linked_legs() == 1);
}

TEST_CASE("conflux tunnel: without congestion control, legs ask for nothing and need nothing", "[proxy][conflux][cc]") {
  TunnelRig rig;
  rig.make();
  rig.tunnel->start(80);
  CHECK(rig.tunnel->leg_congestion_control() == nullptr);
  CHECK(rig.tunnel->congestion_control() == nullptr);
  rig.leg(0).open();
  rig.leg(1).cc = proto::CcAgreement{31};  // an exit that would have: no matter
  rig.leg(1).open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 2);
}
