#include "conflux/net/client_circuit.hpp"

#include <algorithm>
#include <array>

#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"

namespace conflux::net {
namespace {

constexpr std::uint16_t kHtypeNtorV3 = 3;
// An empty ntor-v3 extension list (N_EXTENSIONS = 0): we ask for nothing
// (no congestion control yet).
constexpr std::array<std::uint8_t, 1> kNoExtensions{0};

}  // namespace

ClientCircuit::ClientCircuit(CircId id, CellSink sink, std::size_t max_inbox)
    : id_(id), sink_(std::move(sink)), max_inbox_(max_inbox) {}

bool ClientCircuit::create(const HopTarget& first) {
  if (state_ != State::Idle) return false;
  auto start = crypto::NtorV3Client::start(first.identity, first.onion_key, kNoExtensions,
                                           crypto::kNtorV3CircuitVerification);
  if (!start) return false;
  auto body = cell::encode_create2_cell(cell::Create2Cell{kHtypeNtorV3, start->onionskin});
  if (!body || !sink_(id_, cell::CellCommand::Create2, *body)) return false;
  pending_.emplace(std::move(start->state));
  state_ = State::Extending;
  return true;
}

bool ClientCircuit::create_fast() {
  if (state_ != State::Idle) return false;
  auto start = crypto::FastClient::start();
  auto body = cell::encode_create_fast_cell(cell::CreateFastCell{start.x});
  if (!sink_(id_, cell::CellCommand::CreateFast, body)) return false;
  pending_fast_.emplace(std::move(start.state));
  state_ = State::Extending;
  return true;
}

bool ClientCircuit::extend(const HopTarget& next) {
  if (state_ != State::Ready || early_left_ == 0) return false;
  auto start = crypto::NtorV3Client::start(next.identity, next.onion_key, kNoExtensions,
                                           crypto::kNtorV3CircuitVerification);
  if (!start) return false;
  cell::Extend2Msg ext;
  ext.link_specs = next.link_specs;
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{next.identity});
  ext.handshake_type = kHtypeNtorV3;
  ext.handshake_data = start->onionskin;
  if (!send_relay(HopNum{static_cast<std::uint8_t>(hops())}, StreamId{0}, ext, true)) return false;
  pending_.emplace(std::move(start->state));
  state_ = State::Extending;
  return true;
}

bool ClientCircuit::send(HopNum hop, StreamId stream, const cell::RelayMsg& msg) {
  if (state_ != State::Ready) return false;
  return send_relay(hop, stream, msg, false);
}

bool ClientCircuit::send_relay(HopNum hop, StreamId stream, const cell::RelayMsg& msg, bool early) {
  const bool is_data = std::holds_alternative<cell::DataMsg>(msg);
  if (is_data && !package_.can_send()) return false;
  auto payload = cell::encode_relay_msg_payload(stream, msg);
  if (!payload) return false;
  auto digest = crypto_.encrypt_outbound(hop, *payload);
  if (!digest) return false;
  // The crypto state advanced: from here the cell must go out, or the
  // circuit's forward stream is out of step with the relays'.
  if (is_data && !package_.on_data_sent(*digest)) {
    fail("package window accounting failed");
    return false;
  }
  if (early) --early_left_;
  if (!sink_(id_, early ? cell::CellCommand::RelayEarly : cell::CellCommand::Relay, *payload)) {
    fail("could not queue a relay cell");
    return false;
  }
  return true;
}

void ClientCircuit::destroy(cell::DestroyReason reason) {
  if (state_ == State::Closed) return;
  auto body = cell::encode_destroy_cell(cell::DestroyCell{reason});
  (void)sink_(id_, cell::CellCommand::Destroy, body);
  state_ = State::Closed;
  pending_.reset();
  pending_fast_.reset();
}

void ClientCircuit::fail(std::string why) {
  if (!error_) error_ = std::move(why);
  destroy(cell::DestroyReason::Protocol);
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
    case cell::CellCommand::Destroy: {
      auto d = cell::decode_destroy_cell(c.payload);
      destroyed_ = d ? d->reason : cell::DestroyReason::None;
      state_ = State::Closed;
      pending_.reset();
      pending_fast_.reset();
      return;
    }
    default:
      // RELAY_EARLY toward a client, CREATED (TAP)...: tor closes the circuit.
      return fail("unexpected cell on a client circuit");
  }
}

bool ClientCircuit::add_hop(bytes::ByteSpan reply) {
  auto done = pending_->finish(reply, crypto::RelayCryptoKeys::kMaterialLen);
  pending_.reset();
  return done && add_hop(done->keys);
}

bool ClientCircuit::add_hop(const crypto::KeyMaterial& material) {
  auto keys = crypto::RelayCryptoKeys::from_key_material(material.view());
  if (!keys || !crypto_.add_hop(*keys)) return false;
  // Flow-control windows belong to the last hop, which just changed.
  package_ = proto::CircuitSendmeSender{};
  deliver_ = proto::CircuitSendmeReceiver{};
  state_ = State::Ready;
  return true;
}

void ClientCircuit::on_created2(bytes::ByteSpan payload) {
  if (!pending_ || hops() != 0) return fail("unexpected CREATED2");
  auto created = cell::decode_created2_cell(payload);
  if (!created || !add_hop(created->hdata)) return fail("first hop handshake failed");
}

void ClientCircuit::on_created_fast(bytes::ByteSpan payload) {
  if (!pending_fast_ || hops() != 0) return fail("unexpected CREATED_FAST");
  // finish() checks KH in constant time; a mismatch means the relay did not
  // see our X (or someone tampered with the reply): DESTROY PROTOCOL.
  auto done = pending_fast_->finish(payload, crypto::RelayCryptoKeys::kMaterialLen);
  pending_fast_.reset();
  if (!done || !add_hop(*done)) return fail("first hop CREATE_FAST handshake failed");
}

void ClientCircuit::on_relay(bytes::ByteSpan payload) {
  cell::RelayPayload p{};
  if (payload.size() != p.size()) return fail("relay cell of the wrong size");
  std::copy(payload.begin(), payload.end(), p.begin());
  auto hop = crypto_.decrypt_inbound(p);
  if (!hop) return fail("a relay cell no hop recognized");
  auto view = cell::decode_relay_payload(p);
  if (!view) return fail("malformed relay cell");
  auto msg = cell::decode_relay_msg(*view);
  if (!msg) {
    if (msg.error() == cell::DecodeError::UnknownCommand) return;  // dropped, as tor does
    return fail("malformed relay message");
  }
  const bool last_hop = hop->value() == hops();
  if (auto* extended = std::get_if<cell::Extended2Msg>(&*msg)) {
    if (!pending_ || state_ != State::Extending || !last_hop) return fail("unexpected EXTENDED2");
    if (!add_hop(extended->handshake_data)) return fail("extend handshake failed");
    return;
  }
  if (auto* truncated = std::get_if<cell::TruncatedMsg>(&*msg)) {
    destroyed_ = truncated->reason;
    return destroy(cell::DestroyReason::None);
  }
  if (auto* sendme = std::get_if<cell::SendmeMsg>(&*msg); sendme && view->stream == StreamId{0}) {
    if (!last_hop || !package_.on_sendme(*sendme)) return fail("bad circuit SENDME");
    // Also reported: a Conflux leg's owner times its RTT and window on it.
    if (inbox_.size() >= max_inbox_) return fail("inbox full");
    inbox_.push_back(ReceivedMsg{*hop, StreamId{0}, *sendme});
    return;
  }
  if (std::holds_alternative<cell::DataMsg>(*msg) && last_hop) {
    auto digest = crypto_.last_received_digest(*hop);
    if (!digest) return fail("no digest for a recognized cell");
    auto due = deliver_.on_data_received(*digest);
    if (!due) return fail("DATA beyond the circuit window");
    if (*due && !send_relay(*hop, StreamId{0}, **due, false)) return;
  }
  if (inbox_.size() >= max_inbox_) return fail("inbox full");
  inbox_.push_back(ReceivedMsg{*hop, view->stream, std::move(*msg)});
}

}  // namespace conflux::net
