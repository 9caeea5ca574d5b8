// The relay circuit switch with three relays and a client circuit wired
// together in memory: real CREATE2/EXTEND2 handshakes, tor1 crypto, DESTROY propagation,
// SENDMEs and the RELAY_EARLY and circuit-limit rules.
#include "circuit_switch_test_support.hpp"
#include "conflux/crypto/ntor.hpp"
#include "conflux/crypto/random.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace conflux::test;

TEST_CASE("a 3-hop circuit is built through the switches and carries a stream", "[switch]") {
  Net net(3);
  Client client(net);
  client.build(3);
  CHECK(net.relays[0]->sw->circuit_count() == 1);
  CHECK(net.relays[1]->sw->circuit_count() == 1);
  CHECK(net.relays[2]->sw->circuit_count() == 1);

  client.send(HopNum{3}, StreamId{7}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}, false);
  auto delivered = of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  CHECK(delivered[0].stream == StreamId{7});
  CHECK(std::holds_alternative<cell::BeginMsg>(delivered[0].msg));
  CHECK(of_type<DeliverStreamMessage>(net.relays[1]->exit_inbox).empty());

  // The exit answers; the client sees it come from hop 3.
  REQUIRE(net.relays[2]->sw->send_to_client(delivered[0].circuit, StreamId{7}, cell::ConnectedMsg{}));
  net.pump(2);
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{3});
  CHECK(std::holds_alternative<cell::ConnectedMsg>(msg));
  CHECK(net.relays[1]->sw->stats().cells_forwarded >= 2);
}

TEST_CASE("the exit sends an authenticated circuit SENDME after 100 DATA cells", "[switch][sendme]") {
  Net net(3);
  Client client(net);
  client.build(3);
  std::vector<std::uint8_t> chunk(498, 0x42);
  for (int i = 0; i < 100; ++i) client.send(HopNum{3}, StreamId{1}, cell::DataMsg{chunk}, false);
  CHECK(of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox).size() == 100);
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{3});
  auto* sendme = std::get_if<cell::SendmeMsg>(&msg);
  REQUIRE(sendme != nullptr);
  REQUIRE(sendme->tag.has_value());
  // The tag is the running digest of the 100th DATA cell the client sent.
  auto expected = client.circuit.relay_crypto().last_sent_digest(HopNum{3});
  REQUIRE(expected.has_value());
  CHECK(std::equal(expected->begin(), expected->end(), sendme->tag->bytes.begin()));
}

TEST_CASE("a dead channel destroys the circuit on both sides with CHANNEL_CLOSED", "[switch][destroy]") {
  Net net(3);
  Client client(net);
  client.build(3);
  ChannelId guard_middle = 0;
  for (auto& [id, ends] : net.chans)
    if (ends == std::pair<std::size_t, std::size_t>{0, 1}) guard_middle = id;
  REQUIRE(guard_middle != 0);
  net.close_channel(guard_middle);

  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::ChannelClosed);
  auto closed_at_exit = of_type<CircuitClosed>(net.relays[2]->exit_inbox);
  REQUIRE(closed_at_exit.size() == 1);
  CHECK(closed_at_exit[0].reason == cell::DestroyReason::ChannelClosed);
  for (auto& r : net.relays) CHECK(r->sw->circuit_count() == 0);
}

TEST_CASE("a client DESTROY propagates to the exit with its reason", "[switch][destroy]") {
  Net net(3);
  Client client(net);
  client.build(3);
  net.deliver(0, kClientChan, client.circ, cell::CellCommand::Destroy, cell::encode_destroy_cell({cell::DestroyReason::Finished}));
  auto closed = of_type<CircuitClosed>(net.relays[2]->exit_inbox);
  REQUIRE(closed.size() == 1);
  CHECK(closed[0].reason == cell::DestroyReason::Finished);
  CHECK(net.client_inbox.empty());  // no DESTROY echoed back to the side that sent it
  for (auto& r : net.relays) CHECK(r->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->circuits_on(kClientChan) == 0);
}

TEST_CASE("a CREATE2 made for another onion key fails cleanly", "[switch][create]") {
  Net net(1);
  Relay other;
  auto start = crypto::NtorV3Client::start(net.relays[0]->identity.public_key(), other.onion.public_key(),
                                           std::vector<std::uint8_t>{0}, crypto::kNtorV3CircuitVerification);
  auto body = std::move(cell::encode_create2_cell({3, start->onionskin})).value();
  net.deliver(0, kClientChan, CircId{0x80000005u}, cell::CellCommand::Create2, body);
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->stats().handshake_failures == 1);
  // An ntor (v1) handshake works too.
  crypto::NtorNodeId node_id{};
  std::copy_n(net.relays[0]->identity.public_key().begin(), node_id.size(), node_id.begin());
  auto v1 = crypto::NtorClient::start(node_id, net.relays[0]->onion.public_key());
  net.client_inbox.clear();
  net.deliver(0, kClientChan, CircId{0x80000006u}, cell::CellCommand::Create2,
              std::move(cell::encode_create2_cell({2, {v1.onionskin.begin(), v1.onionskin.end()}})).value());
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Created2);
  auto reply = cell::decode_created2_cell(net.client_inbox.front().payload);
  CHECK(v1.state.finish(reply->hdata, 72).has_value());
}

TEST_CASE("RELAY_EARLY rules: EXTEND2 must be early, at most 8 early cells", "[switch][early]") {
  Net net(3);
  Client client(net);
  client.build(2);  // used 1 RELAY_EARLY
  // EXTEND2 in a plain RELAY cell is dropped: nothing happens.
  cell::Extend2Msg ext;
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{net.relays[2]->identity.public_key()});
  ext.handshake_type = 3;
  ext.handshake_data.assign(200, 1);
  client.send(HopNum{2}, StreamId{0}, ext, false);
  CHECK(net.client_inbox.empty());
  CHECK(net.relays[1]->sw->circuit_count() == 1);
  // Seven more early cells are fine (DROP to hop 2), the ninth overall closes.
  for (int i = 0; i < 7; ++i) client.send(HopNum{2}, StreamId{0}, cell::DropMsg{}, true);
  CHECK(net.relays[0]->sw->circuit_count() == 1);
  client.send(HopNum{2}, StreamId{0}, cell::DropMsg{}, true);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  REQUIRE_FALSE(net.client_inbox.empty());
  CHECK(cell::decode_destroy_cell(net.client_inbox.back().payload)->reason == cell::DestroyReason::Protocol);
}

TEST_CASE("an unrecognized cell at the last hop closes the circuit", "[switch]") {
  Net net(1);
  Client client(net);
  client.build(1);
  std::vector<std::uint8_t> garbage(509, 0x5a);
  net.deliver(0, kClientChan, client.circ, cell::CellCommand::Relay, garbage);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->stats().protocol_violations == 1);
}

TEST_CASE("circuits per channel are limited, over the limit gets RESOURCELIMIT", "[switch]") {
  Net net(1, CircuitSwitchConfig{.max_circuits_per_channel = 2, .max_pending_extends = 8});
  for (std::uint32_t i = 0; i < 3; ++i) {
    Client client(net, CircId{0x80000010u + i});
    if (i < 2) {
      client.create_first_hop();
    } else {
      REQUIRE(client.circuit.create(client.target(0)));
      client.pump();
      REQUIRE(net.client_inbox.size() == 1);
      CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason ==
            cell::DestroyReason::ResourceLimit);
    }
  }
  CHECK(net.relays[0]->sw->circuit_count() == 2);
}

TEST_CASE("EXTEND2 to an unknown relay destroys the circuit with CONNECTFAILED", "[switch]") {
  Net net(2);
  Client client(net);
  client.build(1);
  cell::Extend2Msg ext;
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{crypto::Ed25519Keypair::generate().public_key()});
  ext.handshake_type = 3;
  ext.handshake_data.assign(200, 1);
  client.send(HopNum{1}, StreamId{0}, ext, true);
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::ConnectFailed);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
}

TEST_CASE("EXTEND2 may name the next relay by RSA fingerprint alone, not by nothing", "[switch]") {
  // A stock client sends only the legacy identity (and addresses) for a
  // relay that does not advertise Ed25519 link authentication.
  Net net(2);
  Client client(net);
  client.build(1);
  cell::Extend2Msg ext;
  ext.handshake_type = 3;
  ext.handshake_data.assign(200, 1);
  SECTION("legacy identity only: the switch asks for a channel (none here: CONNECTFAILED)") {
    ext.link_specs.push_back(cell::LinkSpecLegacyId{crypto::random_array<20>()});
    client.send(HopNum{1}, StreamId{0}, ext, true);
    REQUIRE(net.client_inbox.size() == 1);
    CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::ConnectFailed);
    CHECK(net.relays[0]->sw->stats().protocol_violations == 0);
  }
  SECTION("no identity at all is a protocol violation") {
    client.send(HopNum{1}, StreamId{0}, ext, true);
    REQUIRE(net.client_inbox.size() == 1);
    CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::Protocol);
    CHECK(net.relays[0]->sw->stats().protocol_violations == 1);
  }
}

TEST_CASE("a stock client's circuit: ntor v1 CREATE2, then EXTEND2 by IPv4, RSA and Ed25519 identity",
          "[switch][stocktor]") {
  // What tor 0.4.9 sends to a guard: ntor (v1) with NODEID = the RSA
  // fingerprint (here the relay's node_id), then a RELAY_EARLY EXTEND2 with
  // link specifiers IPv4, legacy identity and Ed25519 identity, htype 2.
  Net net(2);
  crypto::NtorNodeId node_id{};
  std::copy_n(net.relays[0]->identity.public_key().begin(), node_id.size(), node_id.begin());
  auto v1 = crypto::NtorClient::start(node_id, net.relays[0]->onion.public_key());
  const CircId circ{0x80000007u};
  net.deliver(0, kClientChan, circ, cell::CellCommand::Create2,
              std::move(cell::encode_create2_cell({2, {v1.onionskin.begin(), v1.onionskin.end()}})).value());
  REQUIRE(net.client_inbox.size() == 1);
  auto reply = cell::decode_created2_cell(net.client_inbox.front().payload);
  REQUIRE(reply);
  auto material = v1.state.finish(reply->hdata, crypto::RelayCryptoKeys::kMaterialLen);
  REQUIRE(material);
  auto keys = crypto::RelayCryptoKeys::from_key_material(material->view());
  REQUIRE(keys);
  crypto::ClientRelayCrypto crypto;
  REQUIRE(crypto.add_hop(*keys));
  net.client_inbox.clear();

  crypto::NtorNodeId next_id{};
  std::copy_n(net.relays[1]->identity.public_key().begin(), next_id.size(), next_id.begin());
  auto next = crypto::NtorClient::start(next_id, net.relays[1]->onion.public_key());
  cell::Extend2Msg ext;
  ext.link_specs.push_back(cell::LinkSpecIpv4{{127, 0, 0, 1}, 9001});
  ext.link_specs.push_back(cell::LinkSpecLegacyId{crypto::random_array<20>()});
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{net.relays[1]->identity.public_key()});
  ext.handshake_type = 2;
  ext.handshake_data.assign(next.onionskin.begin(), next.onionskin.end());
  auto payload = cell::encode_relay_msg_payload(StreamId{0}, ext);
  REQUIRE(payload);
  REQUIRE(crypto.encrypt_outbound(HopNum{1}, *payload));
  net.deliver(0, kClientChan, circ, cell::CellCommand::RelayEarly, {payload->begin(), payload->end()});
  CHECK(net.relays[0]->sw->stats().protocol_violations == 0);
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Relay);
}
