// ConfluxTunnel with an exit that is tor's (its LINKED offers no
// resumption): the set behaves as tor's client does (CONFLUX.md "Exits of
// ours and tor's"). The exit is the sans-I/O join-point pieces of
// proxy_conflux_support.hpp, playing tor.
#include <catch2/catch.hpp>

#include "proxy_conflux_support.hpp"

using namespace conflux;
using namespace conflux::test;
using client::ConfluxTunnel;

namespace {

cell::RelayMsg begin_msg() { return cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}; }

struct TorRig : TunnelRig {
  explicit TorRig(std::size_t num_legs = 2) : TunnelRig(num_legs) {
    exit.act_as_tor();
    make();
  }
};

}  // namespace

TEST_CASE("conflux tunnel, tor exit: streams wait until every leg linked", "[proxy][conflux]") {
  FakeStream s;
  TorRig rig;
  rig.tunnel->start(80);
  REQUIRE(rig.legs.size() == 2);
  rig.leg(0).open();
  rig.exit.run();
  CHECK(rig.tunnel->linked_legs() == 1);
  CHECK(rig.tunnel->exit_kind() == ConfluxTunnel::ExitKind::Tor);
  // A tor exit would count data sent before the second LINK as lost.
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Linking);
  CHECK_FALSE(rig.tunnel->attach(s));

  rig.leg(1).open();
  rig.exit.run();
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  auto id = rig.tunnel->attach(s);
  REQUIRE(id);
  REQUIRE(rig.tunnel->send(*id, begin_msg()));
  rig.exit.run();
  REQUIRE(rig.exit.delivered.size() == 1);
  CHECK(std::holds_alternative<cell::ConnectedMsg>(s.msgs.at(0)));
  CHECK(rig.exit.errors.empty());
}

TEST_CASE("conflux tunnel, our exit: usable at the first LINKED, which says it resumes", "[proxy][conflux]") {
  TunnelRig rig;
  rig.make();
  rig.tunnel->start(80);
  rig.leg(0).open();
  rig.exit.run();
  CHECK(rig.tunnel->exit_kind() == ConfluxTunnel::ExitKind::Resumes);
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
}

TEST_CASE("conflux tunnel, tor exit: a leg lost before the set carried anything is replaced", "[proxy][conflux]") {
  TorRig rig;
  rig.tunnel->start(80);
  SECTION("before it linked") {
    rig.leg(0).open();
    rig.exit.run();
    rig.leg(1).close(cell::DestroyReason::None, "channel closed");
    REQUIRE(rig.legs.size() == 3);
    CHECK(rig.tunnel->state() == ConfluxTunnel::State::Linking);
  }
  SECTION("after it linked") {
    rig.open_all();
    REQUIRE(rig.tunnel->state() == ConfluxTunnel::State::Open);
    rig.exit.kill(rig.leg(1).serial());
    REQUIRE(rig.legs.size() == 3);
    CHECK(rig.tunnel->state() == ConfluxTunnel::State::Linking);
    CHECK(rig.logged("closed before the set carried anything"));
  }
  rig.legs.back()->open();
  rig.exit.run();
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK(rig.tunnel->linked_legs() == 2);
  CHECK(rig.exit.relinks == 0);
  CHECK(rig.exit.errors.empty());
}

TEST_CASE("conflux tunnel, tor exit: no launch left, the legs that linked open the set", "[proxy][conflux]") {
  TorRig rig;
  rig.tunnel->start(80);
  rig.leg(0).open();
  rig.exit.run();
  REQUIRE(rig.tunnel->state() == ConfluxTunnel::State::Linking);
  rig.launch_fails = true;
  rig.leg(1).close(cell::DestroyReason::None, "channel closed");
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK(rig.tunnel->linked_legs() == 1);
}

TEST_CASE("conflux tunnel, tor exit: a leg lost mid-download ends the set and its streams, nothing hangs",
          "[proxy][conflux]") {
  FakeStream s;
  TorRig rig;
  rig.tunnel->start(80);
  rig.open_all();
  REQUIRE(rig.tunnel->state() == ConfluxTunnel::State::Open);
  auto id = rig.tunnel->attach(s);
  REQUIRE(id);
  REQUIRE(rig.tunnel->send(*id, begin_msg()));
  rig.exit.run();
  const auto body = pattern(300 * 450, 3);
  for (std::size_t at = 0; at < body.size(); at += 450)
    rig.exit.send(rig.leg(0).serial(), *id,
                  cell::DataMsg{{body.begin() + static_cast<std::ptrdiff_t>(at),
                                 body.begin() + static_cast<std::ptrdiff_t>(at + 450)}});
  const std::size_t launched = rig.legs.size();
  rig.exit.kill(rig.leg(0).serial());
  // No relink (tor refuses a LINK on a live leg) and no replacement (its
  // LINK would reveal the loss): the set closes, and its stream is told.
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Closed);
  REQUIRE(s.closed);
  CHECK(s.closed->find("tor exit cannot resend") != std::string::npos);
  CHECK(rig.legs.size() == launched);
  CHECK(rig.exit.relinks == 0);
  CHECK(rig.leg(1).closed);
}

TEST_CASE("conflux tunnel, tor exit: a stalled leg's gap is held past our own exits' cap, as tor's client does",
          "[proxy][conflux]") {
  // Leg 0's cells stop arriving; a tor exit keeps sending on leg 1 as its
  // SENDMEs come back. Tor's client has no per-set cap by default, so a set
  // of ours with a tor exit must not close at the 4 MiB it holds for ours.
  // Congestion control, as tor's Conflux requires: no stream window either.
  FakeStream s;
  TunnelRig rig;
  rig.exit.act_as_tor();
  rig.exit.set_config.scheduler = proto::LegSchedKind::LowRtt;  // tor's: spills onto the open leg
  rig.config.congestion_control = proto::CcParams{};
  rig.make();
  rig.tunnel->start(80);
  REQUIRE(rig.legs.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    rig.leg(i).cc = proto::CcAgreement{31};
    rig.leg(i).open();
  }
  rig.exit.run();
  REQUIRE(rig.tunnel->state() == ConfluxTunnel::State::Open);
  auto id = rig.tunnel->attach(s);
  REQUIRE(id);
  REQUIRE(rig.tunnel->send(*id, begin_msg()));
  rig.exit.run();
  REQUIRE(std::holds_alternative<cell::ConnectedMsg>(s.msgs.at(0)));
  auto* set = rig.exit.set_of(rig.leg(0).serial());
  REQUIRE(set != nullptr);
  const std::size_t cells = 12000;  // 5.8 MB of DATA bodies
  const auto body = pattern(cells * 480, 7);
  std::size_t sent = 0;
  for (int round = 0; round < 1000 && sent < cells; ++round) {
    while (sent < cells && set->can_send_data(rig.exit.clock.now())) {
      rig.exit.send(rig.leg(0).serial(), *id,
                    cell::DataMsg{{body.begin() + static_cast<std::ptrdiff_t>(sent * 480),
                                   body.begin() + static_cast<std::ptrdiff_t>((sent + 1) * 480)}});
      ++sent;
    }
    rig.exit.pump_client(rig.leg(1).serial());  // leg 0 stalls: its cells stay on the wire
  }
  REQUIRE(sent == cells);
  REQUIRE_FALSE(rig.leg(0).to_client.empty());
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK_FALSE(s.closed);
  rig.exit.run();  // the stall ends
  CHECK(rig.tunnel->state() == ConfluxTunnel::State::Open);
  CHECK_FALSE(s.closed);
  CHECK(s.data.size() == body.size());
  CHECK(s.data == body);
}
