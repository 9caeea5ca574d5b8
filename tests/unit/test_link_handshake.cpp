// The link handshake (tor-spec 4), its flow: versions, who authenticates,
// and a peer that goes wrong (garbage, order, bounds). Certificates and
// AUTHENTICATE are in test_link_handshake_auth.cpp.
#include "link_handshake_test_support.hpp"

using namespace conflux;
using namespace conflux::test::link;

TEST_CASE("link handshake: the initiator opens with VERSIONS 4,5 in 2-byte-circuit-ID framing", "[link]") {
  Net n;
  auto hs = n.client_to(n.relay, n.relay.identity());
  CHECK(hs.link_version() == 0);
  hs.start();
  // CircID 0000 | VERSIONS 07 | Length 0004 | 0004 0005
  CHECK(hs.take_output() == test::unhex("0000 07 0004 0004 0005"));
  CHECK(hs.state() == LinkState::InProgress);
}

TEST_CASE("link handshake: client <-> relay", "[link]") {
  Net n;
  auto client = n.client_to(n.relay, n.relay.identity());
  auto relay = n.responder(n.relay);
  run(client, relay);
  REQUIRE(client.state() == LinkState::Done);
  REQUIRE(relay.state() == LinkState::Done);

  const auto& c = *client.done();
  CHECK(c.link_version == 5);
  CHECK(client.link_version() == 5);
  CHECK(c.peer_identity == n.relay.identity());
  CHECK(c.our_address_seen_by_peer == kInitiatorAddr);
  CHECK(c.peer_addresses == std::vector<cell::NetinfoAddress>{kResponderAddr, kResponderAddr6});
  CHECK(c.peer_timestamp == kNow);
  CHECK(c.clock_skew == 0);

  const auto& r = *relay.done();
  CHECK(r.link_version == 5);
  CHECK(r.peer_identity == std::nullopt);  // clients do not authenticate
  CHECK(r.our_address_seen_by_peer == kResponderAddr);
  CHECK(r.peer_addresses.empty());  // clients send no addresses...
  CHECK(r.peer_timestamp == 0);     // ...and no time
  CHECK(r.clock_skew == std::nullopt);
  CHECK(client.take_output().empty());
  CHECK(relay.take_output().empty());
}

TEST_CASE("link handshake: relay <-> relay authenticates both ways", "[link]") {
  Net n;
  auto init = n.relay_to(n.other, n.relay, n.exporter);
  auto resp = n.responder(n.relay);
  run(init, resp, [](std::vector<std::uint8_t>&) {}, kNow, kNow + 90);
  REQUIRE(init.state() == LinkState::Done);
  REQUIRE(resp.state() == LinkState::Done);
  CHECK(init.done()->peer_identity == n.relay.identity());
  CHECK(resp.done()->peer_identity == n.other.identity());
  CHECK(init.done()->link_version == 5);
  CHECK(resp.done()->link_version == 5);
  CHECK(resp.done()->peer_addresses == std::vector<cell::NetinfoAddress>{kInitiatorAddr});
  // Skew = their clock - ours, reported only.
  CHECK(init.done()->clock_skew == 90);
  CHECK(resp.done()->clock_skew == -90);
}

TEST_CASE("link handshake: version negotiation", "[link]") {
  Net n;
  SECTION("responder: VERSIONS 3 only") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0003");
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::NoCommonVersion);
    CHECK(resp.take_output().empty());
  }
  SECTION("responder: an empty VERSIONS") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0000");
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::NoCommonVersion);
  }
  SECTION("responder: odd-length VERSIONS is malformed") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0003 000400");
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("responder: tor's 3,4,5 picks 5; answers VERSIONS, CERTS, AUTH_CHALLENGE, NETINFO") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0006 0003 0004 0005");
    feed(resp, in, kNow);
    CHECK(resp.state() == LinkState::InProgress);
    CHECK(resp.link_version() == 5);
    auto out = resp.take_output();
    REQUIRE(out.size() > 9);
    CHECK(std::vector<std::uint8_t>(out.begin(), out.begin() + 9) == test::unhex("0000 07 0004 0004 0005"));
    std::span<const std::uint8_t> rest(out);
    rest = rest.subspan(9);
    std::vector<cell::CellCommand> cmds;
    while (!rest.empty()) {
      auto f = std::get<cell::Framed>(cell::frame_cell(rest, 5));
      CHECK(f.cell.circ_id == CircId{0});
      cmds.push_back(f.cell.command);
      if (f.cell.command == cell::CellCommand::AuthChallenge) {
        auto ac = cell::decode_auth_challenge_cell(f.cell.payload);
        REQUIRE(ac);
        CHECK(ac->methods == std::vector<std::uint16_t>{3});
      }
      rest = rest.subspan(f.consumed);
    }
    CHECK(cmds == std::vector<cell::CellCommand>{cell::CellCommand::Certs, cell::CellCommand::AuthChallenge,
                                                 cell::CellCommand::Netinfo});
  }
  SECTION("responder: 4 only picks 4") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    feed(resp, in, kNow);
    CHECK(resp.link_version() == 4);
  }
  SECTION("initiator: responder answers 1,2,3") {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.start();
    std::vector<std::uint8_t> in = test::unhex("0000 07 0006 0001 0002 0003");
    feed(client, in, kNow);
    CHECK(client.failure() == LinkFailure::NoCommonVersion);
  }
}

TEST_CASE("link handshake: garbage, out-of-order and duplicate cells fail", "[link]") {
  Net n;
  auto resp = n.responder(n.relay);
  const auto versions = test::unhex("0000 07 0002 0004");
  auto after_versions = [&] {
    std::vector<std::uint8_t> in = versions;
    feed(resp, in, kNow);
    REQUIRE(resp.state() == LinkState::InProgress);
    (void)resp.take_output();
  };

  SECTION("a partial cell") {
    resp.on_cell(test::unhex("0000 07 0002 00"), kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("two cells in one call") {
    auto two = versions;
    two.insert(two.end(), versions.begin(), versions.end());
    resp.on_cell(two, kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("NETINFO before VERSIONS") {
    resp.on_cell(cell_bytes(0, cell::CellCommand::Netinfo, *cell::encode_netinfo_cell({})), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("VPADDING before VERSIONS") {
    resp.on_cell(test::unhex("0000 80 0000"), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("an unknown command") {
    after_versions();
    std::vector<std::uint8_t> c = cell_bytes(4, cell::CellCommand::Padding, {});
    c[4] = 50;  // not a command tor-spec defines
    resp.on_cell(c, kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("fixed PADDING during the handshake (tor closes on it)") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Padding, {}), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("a CREATE2 before NETINFO") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Create2, {}), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("a second VERSIONS") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Versions, test::unhex("0004")), kNow);
    CHECK(resp.failure() == LinkFailure::DuplicateCell);
  }
  SECTION("AUTHENTICATE without CERTS") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Authenticate, test::unhex("0003 0000")), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("AUTH_CHALLENGE sent to a responder") {
    after_versions();
    auto ch = cell::encode_auth_challenge_cell(cell::AuthChallengeCell{{}, {3}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::AuthChallenge, *ch), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("a nonzero circuit ID") {
    after_versions();
    auto c = cell_bytes(4, cell::CellCommand::Netinfo, *cell::encode_netinfo_cell({}));
    c[3] = 1;
    resp.on_cell(c, kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("CERTS that are not certificates") {
    after_versions();
    auto certs = cell::encode_certs_cell(cell::CertsCell{{{4, {1, 2, 3}}, {6, {4, 5, 6}}}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::Certs, *certs), kNow);
    CHECK(resp.failure() == LinkFailure::BadCert);
  }
  SECTION("CERTS missing type 6") {
    after_versions();
    auto certs = cell::encode_certs_cell(cell::CertsCell{{{4, n.other.signing_cert_bytes()}}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::Certs, *certs), kNow);
    CHECK(resp.failure() == LinkFailure::MissingCert);
  }
  SECTION("a type-5 certificate offered as type 6") {
    after_versions();
    auto certs = cell::encode_certs_cell(cell::CertsCell{{{4, n.other.signing_cert_bytes()}, {6, n.other.tls_link_cert_bytes()}}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::Certs, *certs), kNow);
    CHECK(resp.failure() == LinkFailure::BadCert);
  }
  SECTION("initiator: AUTH_CHALLENGE before CERTS, duplicate CERTS") {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.start();
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0005");
    feed(client, in, kNow);
    auto certs = cell::encode_certs_cell(responder_certs(n.relay));
    auto twice = client;
    twice.on_cell(cell_bytes(5, cell::CellCommand::Certs, *certs), kNow);
    CHECK(twice.state() == LinkState::InProgress);
    twice.on_cell(cell_bytes(5, cell::CellCommand::Certs, *certs), kNow);
    CHECK(twice.failure() == LinkFailure::DuplicateCell);

    auto ch = cell::encode_auth_challenge_cell(cell::AuthChallengeCell{{}, {3}});
    client.on_cell(cell_bytes(5, cell::CellCommand::AuthChallenge, *ch), kNow);
    CHECK(client.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("initiator: a cell before start()") {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.on_cell(versions, kNow);
    CHECK(client.failure() == LinkFailure::NotStarted);
  }
  SECTION("nothing happens after the end") {
    resp.on_cell(test::unhex("0000 07 0002 0003"), kNow);
    REQUIRE(resp.failure() == LinkFailure::NoCommonVersion);
    resp.on_cell(versions, kNow);
    CHECK(resp.failure() == LinkFailure::NoCommonVersion);
    CHECK(resp.take_output().empty());
  }
}

TEST_CASE("link handshake: bounded in cells and bytes", "[link]") {
  Net n;
  SECTION("VPADDING flood: the 16th cell is the last accepted") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    feed(resp, in, kNow);
    const auto pad = cell_bytes(4, cell::CellCommand::VPadding, std::vector<std::uint8_t>(8, 0));
    for (int i = 0; i < 15; ++i) resp.on_cell(pad, kNow);  // cells 2..16
    CHECK(resp.state() == LinkState::InProgress);
    resp.on_cell(pad, kNow);
    CHECK(resp.failure() == LinkFailure::TooLarge);
  }
  SECTION("64 KiB of VPADDING") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    feed(resp, in, kNow);
    const auto pad = cell_bytes(4, cell::CellCommand::VPadding, std::vector<std::uint8_t>(30000, 0));
    resp.on_cell(pad, kNow);
    resp.on_cell(pad, kNow);
    CHECK(resp.state() == LinkState::InProgress);
    // The framer would now refuse anything over what is left.
    CHECK(resp.framer_limits().max_var_payload == 64 * 1024 - 7 - 2 * 30007 - 7);
    resp.on_cell(pad, kNow);
    CHECK(resp.failure() == LinkFailure::TooLarge);
  }
  SECTION("custom limits apply to a real handshake") {
    auto client = n.client_to(n.relay, n.relay.identity());
    auto relay = n.responder(n.relay, proto::LinkLimits{1, 64 * 1024});
    run(client, relay);
    CHECK(relay.failure() == LinkFailure::TooLarge);  // VERSIONS + NETINFO = 2 cells
  }
}
