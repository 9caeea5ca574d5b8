// Building and closing a client circuit; relay cells are client_circuit_relay.cpp.
#include "conflux/proto/client_circuit.hpp"

#include <algorithm>
#include <utility>

#include "conflux/cell/create_cells.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"

namespace conflux::proto {
namespace {

constexpr std::uint16_t kHtypeNtorV3 = 3;

// An empty ntor-v3 extension list (N_EXTENSIONS = 0): the client message of
// a hop we ask nothing of.
constexpr std::array<std::uint8_t, 1> kNoExtensions{0};

}  // namespace

ClientCircuit::ClientCircuit(CircId id, ClientCircuitConfig config) : id_(id), config_(std::move(config)) {
  if (config_.clock_health == nullptr) config_.clock_health = &process_clock_health();
}

std::optional<std::vector<std::uint8_t>> ClientCircuit::client_message(HopOptions options) const {
  if (!options.congestion_control) return std::vector<std::uint8_t>(kNoExtensions.begin(), kNoExtensions.end());
  if (config_.cc.alg == CcAlg::FixedWindow || !config_.now) return std::nullopt;
  auto cm = crypto::encode_ntor_v3_extensions(cc_client_request(config_.cc));
  if (!cm) return std::nullopt;
  return std::move(*cm);
}

// The hop just added answered in `server_message`: with congestion control
// (when we asked and it agreed) or fixed windows. An answer outside tor's
// rules fails the circuit, as tor's client closes it.
bool ClientCircuit::accept_server_message(std::span<const std::uint8_t> server_message) {
  const bool asked = std::exchange(cc_asked_, false);
  if (server_message.empty()) {  // CREATE_FAST, or a relay that answered nothing: no extensions
    flow_ = ClientCircuitFlow{};
    return true;
  }
  auto agreed = cc_client_accept(server_message, asked, config_.cc.sendme_inc);
  if (!agreed) {
    fail(std::string("congestion control negotiation: ") + std::string(to_string(agreed.error())));
    return false;
  }
  flow_ = *agreed ? ClientCircuitFlow(config_.cc, **agreed, *config_.clock_health) : ClientCircuitFlow{};
  return true;
}

void ClientCircuit::emit_cell(cell::CellCommand command, std::span<const std::uint8_t> body) {
  ClientSendCell out{id_, command, {}};
  out.body.size = std::min(body.size(), out.body.bytes.size());
  std::copy_n(body.begin(), out.body.size, out.body.bytes.begin());
  actions_.emplace_back(std::move(out));
}

bool ClientCircuit::create(const HopTarget& first, HopOptions options) {
  if (state_ != State::Idle) return false;
  auto cm = client_message(options);
  if (!cm) return false;
  auto start = crypto::NtorV3Client::start(first.identity, first.onion_key, *cm, crypto::kNtorV3CircuitVerification);
  if (!start) return false;
  auto body = cell::encode_create2_cell(cell::Create2Cell{kHtypeNtorV3, start->onionskin});
  if (!body) return false;
  emit_cell(cell::CellCommand::Create2, *body);
  pending_.emplace(std::move(start->state));
  cc_asked_ = options.congestion_control;
  state_ = State::Extending;
  return true;
}

bool ClientCircuit::create_fast() {
  if (state_ != State::Idle) return false;
  auto start = crypto::FastClient::start();
  emit_cell(cell::CellCommand::CreateFast, cell::encode_create_fast_cell(cell::CreateFastCell{start.x}));
  pending_fast_.emplace(std::move(start.state));
  state_ = State::Extending;
  return true;
}

bool ClientCircuit::extend(const HopTarget& next, HopOptions options) {
  if (state_ != State::Ready || early_left_ == 0 || flow_.congestion_control()) return false;
  auto cm = client_message(options);
  if (!cm) return false;
  auto start = crypto::NtorV3Client::start(next.identity, next.onion_key, *cm, crypto::kNtorV3CircuitVerification);
  if (!start) return false;
  cell::Extend2Msg ext;
  ext.link_specs = next.link_specs;
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{next.identity});
  ext.handshake_type = kHtypeNtorV3;
  ext.handshake_data = start->onionskin;
  if (!send_relay(HopNum{static_cast<std::uint8_t>(hops())}, StreamId{0}, ext, true)) return false;
  pending_.emplace(std::move(start->state));
  cc_asked_ = options.congestion_control;
  state_ = State::Extending;
  return true;
}

void ClientCircuit::destroy(cell::DestroyReason reason) {
  if (state_ == State::Closed) return;
  emit_cell(cell::CellCommand::Destroy, cell::encode_destroy_cell(cell::DestroyCell{reason}));
  close();
}

void ClientCircuit::close() {
  state_ = State::Closed;
  pending_.reset();
  pending_fast_.reset();
}

void ClientCircuit::fail(std::string why) {
  if (!error_) error_ = std::move(why);
  destroy(cell::DestroyReason::Protocol);
}

void ClientCircuit::abort(std::string why) {
  if (state_ == State::Closed) return;
  fail(std::move(why));
}

void ClientCircuit::on_cell_not_sent(cell::CellCommand command) {
  switch (command) {
    case cell::CellCommand::Relay:
    case cell::CellCommand::RelayEarly:
      return fail("could not queue a relay cell");
    case cell::CellCommand::Create2:
    case cell::CellCommand::CreateFast:
      if (!error_) error_ = "could not send the first handshake";
      return destroy(cell::DestroyReason::None);
    default:
      return;  // a DESTROY: the channel is going anyway
  }
}

void ClientCircuit::on_cell(const cell::CellView& c) {
  if (state_ == State::Closed || c.circ_id != id_) return;
  switch (c.command) {
    case cell::CellCommand::Created2:
      return on_created2(c.payload);
    case cell::CellCommand::CreatedFast:
      return on_created_fast(c.payload);
    case cell::CellCommand::Relay:
      return on_relay(c.payload);
    case cell::CellCommand::Destroy:
      return on_destroy(c.payload);
    default:
      // RELAY_EARLY toward a client, CREATED (TAP)...: tor closes the circuit.
      return fail("unexpected cell on a client circuit");
  }
}

void ClientCircuit::on_destroy(std::span<const std::uint8_t> payload) {
  auto d = cell::decode_destroy_cell(payload);
  destroyed_ = d ? d->reason : cell::DestroyReason::None;
  close();
}

bool ClientCircuit::add_hop(std::span<const std::uint8_t> reply) {
  auto done = pending_->finish(reply, crypto::RelayCryptoKeys::kMaterialLen);
  pending_.reset();
  return done && add_hop(done->keys, std::move(done->server_message));
}

bool ClientCircuit::add_hop(const crypto::KeyMaterial& material, std::vector<std::uint8_t> server_message) {
  auto keys = crypto::RelayCryptoKeys::from_key_material(material.view());
  if (!keys) return false;
  auto hop = crypto_.add_hop(*keys);
  if (!hop) return false;
  // Flow control belongs to the last hop, which just changed.
  if (!accept_server_message(server_message)) return true;  // failed the circuit with its own reason
  state_ = State::Ready;
  actions_.emplace_back(ClientHopAdded{*hop, std::move(server_message)});
  return true;
}

void ClientCircuit::on_created2(std::span<const std::uint8_t> payload) {
  if (!pending_ || hops() != 0) return fail("unexpected CREATED2");
  auto created = cell::decode_created2_cell(payload);
  if (!created || !add_hop(created->hdata)) return fail("first hop handshake failed");
}

void ClientCircuit::on_created_fast(std::span<const std::uint8_t> payload) {
  if (!pending_fast_ || hops() != 0) return fail("unexpected CREATED_FAST");
  // finish() checks KH in constant time; a mismatch means the relay did not
  // see our X (or someone tampered with the reply): DESTROY PROTOCOL.
  auto done = pending_fast_->finish(payload, crypto::RelayCryptoKeys::kMaterialLen);
  pending_fast_.reset();
  if (!done || !add_hop(*done, {})) return fail("first hop CREATE_FAST handshake failed");
}

}  // namespace conflux::proto
