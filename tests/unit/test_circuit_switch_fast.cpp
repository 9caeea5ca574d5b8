// CREATE_FAST at the circuit switch (tor-spec 5.1.3): the reply and its KH
// checked against KDF-TOR computed here, relay cells through the fast hop,
// EXTEND2 onward from it, and the circuit-ID and length rules CREATE2 has.
#include <algorithm>

#include "circuit_switch_test_support.hpp"
#include "conflux/crypto/create_fast.hpp"
#include "conflux/crypto/kdf_tor.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace conflux::test;

namespace {

std::vector<std::uint8_t> create_fast_body(const crypto::FastKey& x) {
  return cell::encode_create_fast_cell(cell::CreateFastCell{x});
}

// The client circuit's CREATE_FAST, answered by the guard: one hop built.
void create_fast_first_hop(Client& client) {
  REQUIRE(client.circuit.create_fast());
  client.pump();
  REQUIRE(client.net.client_inbox.size() == 1);
  REQUIRE(client.net.client_inbox.front().cmd == cell::CellCommand::CreatedFast);
  client.feed_one();
  REQUIRE(client.circuit.hops() == 1);
}

cell::DestroyReason only_destroy(Net& net) {
  REQUIRE(net.client_inbox.size() == 1);
  auto c = net.client_inbox.front();
  net.client_inbox.pop_front();
  REQUIRE(c.cmd == cell::CellCommand::Destroy);
  return cell::decode_destroy_cell(c.payload)->reason;
}

}  // namespace

TEST_CASE("CREATE_FAST gets CREATED_FAST = Y | KH with KH from KDF-TOR(X | Y)", "[switch][create_fast]") {
  Net net(1);
  crypto::FastKey x{};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(0xa0 + i);
  net.deliver(0, kClientChan, CircId{0x80000001u}, cell::CellCommand::CreateFast, create_fast_body(x));
  REQUIRE(net.client_inbox.size() == 1);
  const auto reply = net.client_inbox.front();
  CHECK(reply.cmd == cell::CellCommand::CreatedFast);
  CHECK(reply.circ == CircId{0x80000001u});
  CHECK(reply.payload.size() == cell::kCellPayloadLen);
  auto created = cell::decode_created_fast_cell(reply.payload);
  REQUIRE(created.has_value());

  // K = KDF-TOR(X | Y): the first 20 bytes are KH.
  std::vector<std::uint8_t> k0(x.begin(), x.end());
  k0.insert(k0.end(), created->y.begin(), created->y.end());
  const auto k = crypto::kdf_tor(k0, 92);
  CHECK(std::equal(created->kh.begin(), created->kh.end(), k.begin()));
  CHECK(net.relays[0]->sw->circuit_count() == 1);
  CHECK(net.relays[0]->sw->circuits_on(kClientChan) == 1);
  CHECK(net.relays[0]->sw->stats().circuits_created == 1);

  // The hop's keys are K's next 72 bytes: a client holding them is understood.
  crypto::ClientRelayCrypto keys;
  REQUIRE(keys.add_hop(*crypto::RelayCryptoKeys::from_key_material(std::span(k).subspan(20))).has_value());
  net.client_inbox.clear();
  auto payload = std::move(cell::encode_relay_msg_payload(StreamId{4}, cell::BeginDirMsg{})).value();
  REQUIRE(keys.encrypt_outbound(HopNum{1}, payload).has_value());
  net.deliver(0, kClientChan, CircId{0x80000001u}, cell::CellCommand::Relay, {payload.begin(), payload.end()});
  auto delivered = of_type<DeliverStreamMessage>(net.relays[0]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  CHECK(delivered[0].stream == StreamId{4});
  CHECK(std::holds_alternative<cell::BeginDirMsg>(delivered[0].msg));
  CHECK(net.relays[0]->sw->stats().protocol_violations == 0);
}

TEST_CASE("relay cells round-trip through a CREATE_FAST hop", "[switch][create_fast]") {
  Net net(1);
  Client client(net);
  create_fast_first_hop(client);
  client.send(HopNum{1}, StreamId{9}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}, false);
  auto delivered = of_type<DeliverStreamMessage>(net.relays[0]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  REQUIRE(net.relays[0]->sw->send_to_client(delivered[0].circuit, StreamId{9}, cell::ConnectedMsg{}));
  std::vector<std::uint8_t> body(300, 0x17);
  REQUIRE(net.relays[0]->sw->send_to_client(delivered[0].circuit, StreamId{9}, cell::DataMsg{body}));
  net.pump(0);
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{1});
  CHECK(std::holds_alternative<cell::ConnectedMsg>(msg));
  auto [hop2, msg2] = client.receive();
  CHECK(hop2 == HopNum{1});
  auto* data = std::get_if<cell::DataMsg>(&msg2);
  REQUIRE(data != nullptr);
  CHECK(data->data == body);
}

TEST_CASE("a CREATE_FAST circuit extends with EXTEND2 like any other", "[switch][create_fast]") {
  Net net(3);
  Client client(net);
  create_fast_first_hop(client);
  client.extend_to(1);
  client.extend_to(2);
  REQUIRE(client.circuit.hops() == 3);
  client.send(HopNum{3}, StreamId{2}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 443, 0}, false);
  auto delivered = of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  CHECK(delivered[0].stream == StreamId{2});
  REQUIRE(net.relays[2]->sw->send_to_client(delivered[0].circuit, StreamId{2}, cell::ConnectedMsg{}));
  net.pump(2);
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{3});
  CHECK(std::holds_alternative<cell::ConnectedMsg>(msg));
}

TEST_CASE("a short CREATE_FAST is refused with DESTROY PROTOCOL and frees its ID", "[switch][create_fast]") {
  Net net(1);
  const CircId id{0x80000002u};
  std::vector<std::uint8_t> short_body(19, 0x33);
  net.deliver(0, kClientChan, id, cell::CellCommand::CreateFast, short_body);
  CHECK(only_destroy(net) == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->circuits_on(kClientChan) == 0);
  CHECK(net.relays[0]->sw->stats().handshake_failures == 1);
  // The ID is free again.
  Client client(net, id);
  create_fast_first_hop(client);
  CHECK(net.relays[0]->sw->circuit_count() == 1);
}

TEST_CASE("CREATE_FAST follows CREATE2's circuit-ID rules", "[switch][create_fast]") {
  Net net(1, CircuitSwitchConfig{.max_circuits_per_channel = 2, .max_pending_extends = 8});
  const auto x = crypto::FastClient::start().x;

  // The initiator's half of the ID space only (high bit set on link v4+).
  net.deliver(0, kClientChan, CircId{0x00000005u}, cell::CellCommand::CreateFast, create_fast_body(x));
  CHECK(only_destroy(net) == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->stats().protocol_violations == 1);
  net.deliver(0, kClientChan, CircId{0}, cell::CellCommand::CreateFast, create_fast_body(x));
  CHECK(only_destroy(net) == cell::DestroyReason::Protocol);

  // An ID already in use: dropped, the existing circuit is untouched.
  Client first(net, CircId{0x80000010u});
  create_fast_first_hop(first);
  net.deliver(0, kClientChan, first.circ, cell::CellCommand::CreateFast, create_fast_body(x));
  CHECK(net.client_inbox.empty());
  CHECK(net.relays[0]->sw->circuit_count() == 1);

  // The per-channel limit counts fast circuits too.
  Client second(net, CircId{0x80000011u});
  create_fast_first_hop(second);
  net.deliver(0, kClientChan, CircId{0x80000012u}, cell::CellCommand::CreateFast, create_fast_body(x));
  CHECK(only_destroy(net) == cell::DestroyReason::ResourceLimit);
  CHECK(net.relays[0]->sw->circuit_count() == 2);
}

TEST_CASE("CREATED_FAST toward a relay is a protocol violation", "[switch][create_fast]") {
  Net net(1);
  Client client(net);
  create_fast_first_hop(client);
  net.deliver(0, kClientChan, client.circ, cell::CellCommand::CreatedFast, std::vector<std::uint8_t>(509, 0));
  CHECK(only_destroy(net) == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
}
