#pragma once
// A one-hop relay made in the test, for driving proto::ClientCircuit with
// what only a broken or hostile relay sends (test_circuit_client*.cpp).
#include <catch2/catch.hpp>
#include <optional>
#include <span>
#include <vector>

#include "circuit_switch_test_support.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/proto/client_circuit.hpp"

namespace conflux::test {

inline const std::vector<std::uint8_t> kChunk(498, 0x42);

inline std::vector<proto::ClientSendCell> cells_of(const std::vector<proto::ClientCircuitAction>& actions) {
  return of_type<proto::ClientSendCell>(actions);
}

// One relay answering CREATE2 itself, with the tor1 crypto of its hop, so a
// test can originate any cell toward the client.
struct LoneRelay {
  crypto::Ed25519Keypair identity = crypto::Ed25519Keypair::generate();
  crypto::X25519Secret onion = crypto::X25519Secret::generate();
  std::optional<crypto::RelayHopCrypto> hop;

  [[nodiscard]] proto::HopTarget target() const { return {identity.public_key(), onion.public_key(), {}}; }

  // Answers the circuit's CREATE2 with `server_message` as SM; returns CREATED2's body.
  std::vector<std::uint8_t> answer(const proto::ClientSendCell& create, std::span<const std::uint8_t> server_message = {}) {
    REQUIRE(create.command == cell::CellCommand::Create2);
    auto c2 = cell::decode_create2_cell(create.body.view());
    REQUIRE(c2.has_value());
    crypto::NtorV3ServerKeys keys{identity.public_key(), onion, std::nullopt};
    auto pending = crypto::ntor_v3_server_receive(keys, c2->hdata, crypto::kNtorV3CircuitVerification);
    REQUIRE(pending.has_value());
    auto done = pending->reply(server_message, crypto::RelayCryptoKeys::kMaterialLen);
    REQUIRE(done.has_value());
    hop.emplace(*crypto::RelayCryptoKeys::from_key_material(done->keys.view()));
    return std::move(cell::encode_created2_cell(cell::Created2Cell{done->reply})).value();
  }

  // A RELAY cell from this hop toward the client.
  std::vector<std::uint8_t> originate(StreamId stream, const cell::RelayMsg& msg) {
    auto payload = std::move(cell::encode_relay_msg_payload(stream, msg)).value();
    hop->originate_backward(payload);
    return {payload.begin(), payload.end()};
  }
};

// A one-hop circuit built against `relay`; the build's actions are consumed.
inline proto::ClientCircuit built_by(LoneRelay& relay, CircId id = CircId{0x80000001u},
                                    proto::ClientCircuitConfig config = {}, proto::HopOptions options = {},
                                    std::span<const std::uint8_t> server_message = {}) {
  proto::ClientCircuit c(id, std::move(config));
  REQUIRE(c.create(relay.target(), options));
  auto created = relay.answer(std::get<proto::ClientSendCell>(c.take_actions().at(0)), server_message);
  c.on_cell(cell::CellView{id, cell::CellCommand::Created2, created});
  REQUIRE(c.state() == proto::ClientCircuit::State::Ready);
  (void)c.take_actions();
  return c;
}

inline void relay_cell(proto::ClientCircuit& c, const std::vector<std::uint8_t>& payload) {
  c.on_cell(cell::CellView{c.id(), cell::CellCommand::Relay, payload});
}

}  // namespace conflux::test
