// The client's circuit machine (proto::ClientCircuit) in memory: against the
// relays' circuit switches (circuit_switch_test_support.hpp) for what a
// correct relay does, and against a one-hop relay made here for what only a
// broken or hostile one does (TRUNCATED, a bad SENDME, cells nobody sealed).
#include <catch2/catch.hpp>

#include "circuit_switch_test_support.hpp"
#include "client_circuit_test_support.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
#include "conflux/proto/client_circuit.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace conflux::test;


TEST_CASE("client circuit: create sends one CREATE2 (ntor-v3) on its own circuit ID", "[client_circuit]") {
  LoneRelay relay;
  ClientCircuit c(CircId{0x80000007u});
  REQUIRE(c.create(relay.target()));
  CHECK(c.state() == ClientCircuit::State::Extending);
  auto cells = cells_of(c.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cells[0].circ == CircId{0x80000007u});
  CHECK(cells[0].command == cell::CellCommand::Create2);
  auto c2 = cell::decode_create2_cell(cells[0].body.view());
  REQUIRE(c2.has_value());
  CHECK(c2->htype == 3);
  CHECK_FALSE(c.create(relay.target()));  // once
  CHECK_FALSE(c.create_fast());
  CHECK(c.take_actions().empty());
}

TEST_CASE("client circuit: each hop added is reported with its ntor-v3 server message", "[client_circuit]") {
  LoneRelay relay;
  ClientCircuit c(CircId{0x80000001u}, ClientCircuitConfig{{}, [] { return CcClock::time_point{}; }, {}});
  REQUIRE(c.create(relay.target(), HopOptions{true}));
  const std::vector<std::uint8_t> sm{1, 2, 1, 31};  // one CC response entry, sendme_inc 31
  auto created = relay.answer(std::get<ClientSendCell>(c.take_actions().at(0)), sm);
  c.on_cell(cell::CellView{c.id(), cell::CellCommand::Created2, created});
  auto actions = c.take_actions();
  REQUIRE(actions.size() == 1);
  auto* added = std::get_if<ClientHopAdded>(&actions[0]);
  REQUIRE(added != nullptr);
  CHECK(added->hop == HopNum{1});
  CHECK(added->server_message == sm);
  CHECK(c.state() == ClientCircuit::State::Ready);
  REQUIRE(c.congestion_control().has_value());
  CHECK(c.congestion_control()->sendme_inc == 31);
}

TEST_CASE("client circuit: three hops through the switches, EXTEND2 in RELAY_EARLY", "[client_circuit]") {
  Net net(3);
  Client client(net);
  client.create_first_hop();
  REQUIRE(client.circuit.extend(client.target(1)));
  auto cells = cells_of(client.circuit.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cells[0].command == cell::CellCommand::RelayEarly);
  auto body = cells[0].body.view();
  net.deliver(0, kClientChan, client.circ, cells[0].command, {body.begin(), body.end()});
  client.feed_one();
  client.extend_to(2);
  CHECK(client.circuit.hops() == 3);
  CHECK(net.relays[2]->sw->circuit_count() == 1);
  CHECK(client.circuit.state() == ClientCircuit::State::Ready);
}

TEST_CASE("client circuit: 1000 DATA cells fill the window, the exit's SENDME reopens it", "[client_circuit][sendme]") {
  Net net(3);
  Client client(net);
  client.build(3);
  for (int i = 0; i < 1000; ++i) REQUIRE(client.circuit.send(HopNum{3}, StreamId{1}, cell::DataMsg{kChunk}));
  CHECK_FALSE(client.circuit.can_send_data());
  CHECK_FALSE(client.circuit.send(HopNum{3}, StreamId{1}, cell::DataMsg{kChunk}));
  client.pump();
  CHECK(of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox).size() == 1000);
  REQUIRE(net.client_inbox.size() == 10);  // the exit's SENDMEs, one per 100 cells
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{3});
  CHECK(std::holds_alternative<cell::SendmeMsg>(msg));
  CHECK(client.circuit.can_send_data());
}

TEST_CASE("client circuit: the 100th DATA from the exit is answered by a SENDME before it is delivered",
          "[client_circuit][sendme]") {
  Net net(3);
  Client client(net);
  client.build(3);
  client.send(HopNum{3}, StreamId{1}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}, false);
  const auto circ = of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox).at(0).circuit;
  for (int i = 0; i < 100; ++i) REQUIRE(net.relays[2]->sw->send_to_client(circ, StreamId{1}, cell::DataMsg{{7}}));
  net.pump(2);
  REQUIRE(net.client_inbox.size() == 100);
  for (int i = 0; i < 99; ++i) {
    auto c = net.client_inbox.front();
    net.client_inbox.pop_front();
    client.circuit.on_cell(cell::CellView{c.circ, c.cmd, c.payload});
    REQUIRE(cells_of(client.circuit.take_actions()).empty());
  }
  auto c = net.client_inbox.front();
  client.circuit.on_cell(cell::CellView{c.circ, c.cmd, c.payload});
  auto actions = client.circuit.take_actions();
  REQUIRE(actions.size() == 2);
  REQUIRE(std::holds_alternative<ClientSendCell>(actions[0]));
  CHECK(std::get<ClientSendCell>(actions[0]).command == cell::CellCommand::Relay);
  CHECK(std::holds_alternative<ClientDeliver>(actions[1]));
  auto body = std::get<ClientSendCell>(actions[0]).body.view();
  net.relays[2]->exit_inbox.clear();
  net.deliver(0, kClientChan, client.circ, cell::CellCommand::Relay, {body.begin(), body.end()});
  CHECK(of_type<CircuitSendme>(net.relays[2]->exit_inbox).size() == 1);
}

TEST_CASE("client circuit: DESTROY from the relays closes it with their reason and sends nothing", "[client_circuit]") {
  Net net(3);
  Client client(net);
  client.build(3);
  for (auto& [id, ends] : net.chans)
    if (ends == std::pair<std::size_t, std::size_t>{0, 1}) net.close_channel(id);
  REQUIRE(net.client_inbox.size() == 1);
  auto c = net.client_inbox.front();
  client.circuit.on_cell(cell::CellView{c.circ, c.cmd, c.payload});
  CHECK(client.circuit.state() == ClientCircuit::State::Closed);
  CHECK(client.circuit.destroyed() == cell::DestroyReason::ChannelClosed);
  CHECK_FALSE(client.circuit.error().has_value());
  CHECK(client.circuit.take_actions().empty());
}

TEST_CASE("client circuit: TRUNCATED closes it and the rest of the circuit with DESTROY NONE", "[client_circuit]") {
  LoneRelay relay;
  auto c = built_by(relay);
  relay_cell(c, relay.originate(StreamId{0}, cell::TruncatedMsg{cell::DestroyReason::Hibernating}));
  CHECK(c.state() == ClientCircuit::State::Closed);
  CHECK(c.destroyed() == cell::DestroyReason::Hibernating);
  auto cells = cells_of(c.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cells[0].command == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(cells[0].body.view())->reason == cell::DestroyReason::None);
}

TEST_CASE("client circuit: a circuit SENDME nobody asked for is a protocol violation", "[client_circuit][sendme]") {
  LoneRelay relay;
  auto c = built_by(relay);
  relay_cell(c, relay.originate(StreamId{0}, cell::SendmeMsg{}));
  CHECK(c.state() == ClientCircuit::State::Closed);
  CHECK(c.error() == "bad circuit SENDME");
  auto cells = cells_of(c.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cell::decode_destroy_cell(cells[0].body.view())->reason == cell::DestroyReason::Protocol);
}

TEST_CASE("client circuit: a relay cell no hop recognizes closes it with DESTROY PROTOCOL", "[client_circuit]") {
  LoneRelay relay;
  auto c = built_by(relay);
  relay_cell(c, std::vector<std::uint8_t>(cell::kCellPayloadLen, 0x5a));
  CHECK(c.state() == ClientCircuit::State::Closed);
  CHECK(c.error() == "a relay cell no hop recognized");
  auto cells = cells_of(c.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cell::decode_destroy_cell(cells[0].body.view())->reason == cell::DestroyReason::Protocol);
}

TEST_CASE("client circuit: RELAY_EARLY toward a client is a protocol violation", "[client_circuit]") {
  LoneRelay relay;
  auto c = built_by(relay);
  c.on_cell(cell::CellView{c.id(), cell::CellCommand::RelayEarly, relay.originate(StreamId{1}, cell::DropMsg{})});
  CHECK(c.state() == ClientCircuit::State::Closed);
  CHECK(c.error() == "unexpected cell on a client circuit");
}

TEST_CASE("client circuit: an unknown relay command is dropped, the circuit stays", "[client_circuit]") {
  LoneRelay relay;
  auto c = built_by(relay);
  // No message type has an unassigned command: frame the cell by hand.
  cell::RelayPayload p{};
  auto framed = cell::encode_relay_payload(cell::RelayCommand{200}, StreamId{1}, std::span<const std::uint8_t>{});
  REQUIRE(framed.has_value());
  std::copy(framed->begin(), framed->end(), p.begin());
  relay.hop->originate_backward(p);
  relay_cell(c, {p.begin(), p.end()});
  CHECK(c.state() == ClientCircuit::State::Ready);
  CHECK(c.take_actions().empty());
}

TEST_CASE("client circuit: cells for another circuit ID are ignored", "[client_circuit]") {
  LoneRelay relay;
  auto c = built_by(relay);
  auto payload = relay.originate(StreamId{1}, cell::DropMsg{});
  c.on_cell(cell::CellView{CircId{0x80000002u}, cell::CellCommand::Relay, payload});
  CHECK(c.take_actions().empty());
  CHECK(c.state() == ClientCircuit::State::Ready);
  relay_cell(c, payload);  // the same cell on the right ID: delivered
  auto actions = c.take_actions();
  REQUIRE(actions.size() == 1);
  CHECK(std::holds_alternative<cell::DropMsg>(std::get<ClientDeliver>(actions[0]).msg));
}

TEST_CASE("client circuit: a relay cell the channel refused closes it with DESTROY PROTOCOL", "[client_circuit]") {
  LoneRelay relay;
  auto c = built_by(relay);
  REQUIRE(c.send(HopNum{1}, StreamId{1}, cell::DataMsg{kChunk}));
  (void)c.take_actions();
  c.on_cell_not_sent(cell::CellCommand::Relay);
  CHECK(c.state() == ClientCircuit::State::Closed);
  CHECK(c.error() == "could not queue a relay cell");
  auto cells = cells_of(c.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cell::decode_destroy_cell(cells[0].body.view())->reason == cell::DestroyReason::Protocol);
}

TEST_CASE("client circuit: a CREATE2 the channel refused closes it with DESTROY NONE", "[client_circuit]") {
  LoneRelay relay;
  ClientCircuit c(CircId{0x80000001u});
  REQUIRE(c.create(relay.target()));
  (void)c.take_actions();
  c.on_cell_not_sent(cell::CellCommand::Create2);
  CHECK(c.state() == ClientCircuit::State::Closed);
  auto cells = cells_of(c.take_actions());
  REQUIRE(cells.size() == 1);
  CHECK(cell::decode_destroy_cell(cells[0].body.view())->reason == cell::DestroyReason::None);
}
