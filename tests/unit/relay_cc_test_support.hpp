#pragma once
// A bare client for the relay's congestion-control tests: one hop (relay 0
// of a circuit_switch_test_support Net is the circuit's edge), built by
// hand from the ntor-v3 and tor1 primitives so that the test chooses the
// client's extension list, sees the server's answer as bytes, and sends
// exactly the SENDMEs it wants (right tag, wrong tag, stream SENDMEs),
// independently of the proxy's own circuit machine.
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "circuit_switch_test_support.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "sendme_test_support.hpp"

namespace conflux::test {

inline constexpr std::array<std::uint8_t, 3> kAskCc{0x01, 0x01, 0x00};  // one entry: type 1, empty
inline constexpr std::array<std::uint8_t, 1> kAskNothing{0x00};

struct CcTestClient {
  explicit CcTestClient(Net& n) : net(n) {}

  Net& net;
  CircId circ{0x80000001u};
  crypto::ClientRelayCrypto crypto;
  std::vector<std::uint8_t> server_message;  // the relay's ntor-v3 answer (SM)
  std::optional<cell::DestroyReason> destroyed;
  std::uint8_t sendme_inc = 100;             // what the relay acknowledges DATA with, both ways
  std::uint64_t data_received = 0;
  std::deque<crypto::SendmeDigest> tags_due;  // the SENDMEs we owe the relay, oldest first
  std::vector<cell::SendmeMsg> sendmes;       // circuit SENDMEs the relay sent us
  std::vector<std::pair<StreamId, cell::RelayMsg>> other;  // everything else, in order

  // CREATE2 ntor-v3 with this client message; false if the relay refused.
  bool create(std::span<const std::uint8_t> cm) {
    auto& relay = *net.relays[0];
    auto start = crypto::NtorV3Client::start(relay.identity.public_key(), relay.onion.public_key(), cm,
                                             crypto::kNtorV3CircuitVerification);
    REQUIRE(start);
    auto body = cell::encode_create2_cell(cell::Create2Cell{3, start->onionskin});
    REQUIRE(body);
    net.deliver(0, kClientChan, circ, cell::CellCommand::Create2, *body);
    REQUIRE(net.client_inbox.size() == 1);
    auto reply = net.client_inbox.front();
    net.client_inbox.pop_front();
    if (reply.cmd == cell::CellCommand::Destroy) {
      destroyed = cell::decode_destroy_cell(reply.payload)->reason;
      return false;
    }
    REQUIRE(reply.cmd == cell::CellCommand::Created2);
    auto created = cell::decode_created2_cell(reply.payload);
    REQUIRE(created);
    auto done = start->state.finish(created->hdata, crypto::RelayCryptoKeys::kMaterialLen);
    REQUIRE(done);
    server_message = done->server_message;
    auto keys = crypto::RelayCryptoKeys::from_key_material(done->keys.view());
    REQUIRE(keys);
    REQUIRE(crypto.add_hop(*keys));
    if (server_message.size() == 4 && server_message[1] == 0x02) sendme_inc = server_message[3];
    return true;
  }

  // A relay message to the edge; returns the running digest after it.
  crypto::SendmeDigest send(StreamId stream, const cell::RelayMsg& msg) {
    auto payload = cell::encode_relay_msg_payload(stream, msg);
    REQUIRE(payload);
    auto digest = crypto.encrypt_outbound(HopNum{1}, *payload);
    REQUIRE(digest);
    net.deliver(0, kClientChan, circ, cell::CellCommand::Relay, {payload->begin(), payload->end()});
    return *digest;
  }
  crypto::SendmeDigest send_data(StreamId stream = StreamId{1}) {
    return send(stream, cell::DataMsg{std::vector<std::uint8_t>(498, 0x42)});
  }
  // The circuit SENDME for the oldest cell we owe one for (nullopt: a wrong tag).
  void send_sendme(bool right_tag = true) {
    REQUIRE_FALSE(tags_due.empty());
    auto tag = tags_due.front();
    tags_due.pop_front();
    if (!right_tag) tag[0] ^= 0xff;
    send(StreamId{0}, v1(tag));
  }

  // Reads every cell the relay sent us.
  void drain() {
    while (!net.client_inbox.empty()) {
      auto c = net.client_inbox.front();
      net.client_inbox.pop_front();
      if (c.cmd == cell::CellCommand::Destroy) {
        destroyed = cell::decode_destroy_cell(c.payload)->reason;
        continue;
      }
      REQUIRE(c.cmd == cell::CellCommand::Relay);
      on_relay(c.payload);
    }
  }

 private:
  void on_relay(std::vector<std::uint8_t>& payload) {
    REQUIRE(payload.size() == crypto::kRelayPayloadLen);
    auto hop = crypto.decrypt_inbound(crypto::RelayPayload(payload.data(), crypto::kRelayPayloadLen));
    REQUIRE(hop);
    auto view = cell::decode_relay_payload(payload);
    REQUIRE(view);
    auto msg = cell::decode_relay_msg(*view);
    REQUIRE(msg);
    if (std::holds_alternative<cell::DataMsg>(*msg)) {
      // tor's receiver: every sendme_inc-th DATA cell makes a SENDME due,
      // tagged with the running digest after that cell.
      if (++data_received % sendme_inc == 0) tags_due.push_back(*crypto.last_received_digest(HopNum{1}));
      return;
    }
    if (auto* s = std::get_if<cell::SendmeMsg>(&*msg); s && view->stream == StreamId{0}) {
      sendmes.push_back(*s);
      return;
    }
    other.emplace_back(view->stream, std::move(*msg));
  }
};

// The edge's side of the circuit: its handle, and DATA it originates.
inline CircuitHandle edge_circuit(Net& net) {
  auto closed = of_type<CircuitClosed>(net.relays[0]->exit_inbox);
  REQUIRE(closed.empty());
  REQUIRE(net.relays[0]->sw->circuit_count() == 1);
  return 1;  // the switch numbers circuits from 1
}

// The edge sends DATA until the circuit's window is full; returns how many.
inline std::size_t fill_window(Net& net, CircuitHandle h) {
  std::size_t sent = 0;
  auto& sw = *net.relays[0]->sw;
  while (sw.can_send_data(h)) {
    REQUIRE(sw.send_to_client(h, StreamId{1}, cell::DataMsg{std::vector<std::uint8_t>(498, 0x17)}));
    ++sent;
    REQUIRE(sent <= 100000);
  }
  net.pump(0);
  return sent;
}

}  // namespace conflux::test
