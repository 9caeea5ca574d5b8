#include "demo_relay.hpp"

#include <stdexcept>
#include <string_view>
#include <variant>

#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"

namespace conflux::demo {
namespace {

constexpr cell::LinkVersion kLink = 5;
constexpr std::uint8_t kSendmeInc = 31;  // what a Tor exit answers to a congestion-control request

CellBytes make_cell(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload) {
  auto encoded = cell::encode_cell(kLink, circ, cmd, payload);
  if (!encoded) throw std::runtime_error("demo: cell encoding failed");
  return std::move(encoded).value();
}

cell::Ed25519Cert make_signing_cert(const crypto::Ed25519Keypair& identity, const crypto::Ed25519Keypair& signing,
                                    std::uint64_t now) {
  cell::Ed25519CertBody body;
  body.cert_type = cell::CertType::IdentityVSigning;
  body.expiration_hours = cell::cert_expiration_hours(now + 30 * 24 * 3600);
  body.key_type = cell::CertKeyType::Ed25519;
  body.certified_key = signing.public_key();
  auto cert = cell::sign_ed25519_cert(body, identity, cell::IncludeSigningKey::Yes);
  if (!cert) throw std::runtime_error("demo: signing the certificate failed");
  return std::move(cert).value();
}

// The exit's ntor-v3 policy: answer a congestion-control request with our
// sendme_inc, ignore other extensions, refuse a malformed list.
std::optional<std::vector<std::uint8_t>> answer_client_message(std::span<const std::uint8_t> cm) {
  auto exts = crypto::decode_ntor_v3_extensions(cm);
  if (!exts) return std::nullopt;
  std::vector<crypto::NtorV3Extension> reply;
  if (crypto::find_ntor_v3_extension(*exts, crypto::NtorV3ExtType::CcRequest) != nullptr)
    reply.push_back(crypto::make_cc_response(kSendmeInc));
  auto sm = crypto::encode_ntor_v3_extensions(reply);
  if (!sm) return std::nullopt;
  return std::move(sm).value();
}

}  // namespace

DemoRelay::DemoRelay(std::string name, bool is_exit, std::uint64_t now)
    : name_(std::move(name)),
      is_exit_(is_exit),
      identity_(crypto::Ed25519Keypair::generate()),
      signing_(crypto::Ed25519Keypair::generate()),
      ntor_{identity_.public_key(), crypto::X25519Secret::generate(), std::nullopt} {
  auto encoded = cell::encode_ed25519_cert(make_signing_cert(identity_, signing_, now));
  if (!encoded) throw std::runtime_error("demo: certificate encoding failed");
  signing_cert_ = std::move(encoded).value();
}

std::vector<CellBytes> DemoRelay::receive(const CellBytes& bytes, const RelayDirectory& dir,
                                          const CellTrace& trace) {
  auto framed = cell::frame_cell(bytes, kLink);
  auto* ok = std::get_if<cell::Framed>(&framed);
  if (ok == nullptr) throw std::runtime_error(name_ + ": could not frame a cell");
  switch (ok->cell.command) {
    case cell::CellCommand::Create2:
      return on_create2(ok->cell.circ_id, ok->cell.payload);
    case cell::CellCommand::Relay:
    case cell::CellCommand::RelayEarly:
      return on_relay(ok->cell.circ_id, ok->cell.payload, dir, trace);
    default:
      throw std::runtime_error(name_ + ": unexpected cell command");
  }
}

std::vector<CellBytes> DemoRelay::on_create2(CircId circ, bytes::ByteSpan payload) {
  auto create = cell::decode_create2_cell(payload);
  if (!create || create->htype != 3) throw std::runtime_error(name_ + ": bad CREATE2");
  auto done = crypto::ntor_v3_server_handshake(ntor_, create->hdata, crypto::kNtorV3CircuitVerification,
                                               answer_client_message, crypto::RelayCryptoKeys::kMaterialLen);
  if (!done) throw std::runtime_error(name_ + ": ntor-v3 failed: " + std::string(to_string(done.error())));
  auto keys = crypto::RelayCryptoKeys::from_key_material(done->keys.view());
  if (!keys) throw std::runtime_error(name_ + ": bad key material");
  hop_.emplace(*keys);
  prev_circ_ = circ;
  auto created = cell::encode_created2_cell(cell::Created2Cell{done->reply});
  if (!created) throw std::runtime_error(name_ + ": CREATED2 encoding failed");
  return {make_cell(circ, cell::CellCommand::Created2, *created)};
}

std::vector<CellBytes> DemoRelay::on_relay(CircId circ, bytes::ByteSpan payload, const RelayDirectory& dir,
                                           const CellTrace& trace) {
  if (!hop_ || circ != prev_circ_) throw std::runtime_error(name_ + ": RELAY on an unknown circuit");
  cell::RelayPayload cell_payload{};
  std::copy(payload.begin(), payload.end(), cell_payload.begin());
  if (hop_->decrypt_forward(cell_payload) == crypto::ForwardVerdict::Recognized)
    return on_recognized(cell_payload, dir, trace);

  // Not ours: one layer off, pass it on, and add our layer to what comes back.
  if (next_ == nullptr) throw std::runtime_error(name_ + ": unrecognized cell at the last hop");
  auto forwarded = make_cell(next_circ_, cell::CellCommand::Relay, cell_payload);
  trace(name_, next_->name(), forwarded);
  std::vector<CellBytes> back;
  for (auto& reply : next_->receive(forwarded, dir, trace)) {
    trace(next_->name(), name_, reply);
    auto framed = cell::frame_cell(reply, kLink);
    auto& cell_view = std::get<cell::Framed>(framed).cell;
    cell::RelayPayload p{};
    std::copy(cell_view.payload.begin(), cell_view.payload.end(), p.begin());
    hop_->relay_backward(p);
    back.push_back(make_cell(prev_circ_, cell::CellCommand::Relay, p));
  }
  return back;
}

CellBytes DemoRelay::originate(StreamId stream, const cell::RelayMsg& msg) {
  auto payload = cell::encode_relay_msg_payload(stream, msg);
  if (!payload) throw std::runtime_error(name_ + ": relay message too long");
  hop_->originate_backward(*payload);
  return make_cell(prev_circ_, cell::CellCommand::Relay, *payload);
}

std::vector<CellBytes> DemoRelay::on_recognized(const cell::RelayPayload& payload, const RelayDirectory& dir,
                                                const CellTrace& trace) {
  auto view = cell::decode_relay_payload(payload);
  if (!view) throw std::runtime_error(name_ + ": bad relay header");
  auto msg = cell::decode_relay_msg(*view);
  if (!msg) throw std::runtime_error(name_ + ": bad relay message");

  if (auto* extend = std::get_if<cell::Extend2Msg>(&*msg)) {
    DemoRelay* target = nullptr;
    for (const auto& ls : extend->link_specs)
      if (auto* id = std::get_if<cell::LinkSpecEd25519Id>(&ls)) target = dir(id->id);
    if (target == nullptr) throw std::runtime_error(name_ + ": EXTEND2 names no known relay");
    next_ = target;
    next_circ_ = CircId{0x80000000u | (prev_circ_.value() + 1)};
    auto create = cell::encode_create2_cell(cell::Create2Cell{extend->handshake_type, extend->handshake_data});
    if (!create) throw std::runtime_error(name_ + ": CREATE2 encoding failed");
    auto create_cell = make_cell(next_circ_, cell::CellCommand::Create2, *create);
    trace(name_, next_->name(), create_cell);
    auto replies = next_->receive(create_cell, dir, trace);
    trace(next_->name(), name_, replies.at(0));
    auto framed = cell::frame_cell(replies.at(0), kLink);
    auto created = cell::decode_created2_cell(std::get<cell::Framed>(framed).cell.payload);
    if (!created) throw std::runtime_error(name_ + ": bad CREATED2");
    return {originate(StreamId{0}, cell::Extended2Msg{created->hdata})};
  }
  if (!is_exit_) throw std::runtime_error(name_ + ": stream command at a non-exit hop");
  if (std::holds_alternative<cell::BeginMsg>(*msg)) {
    // A real exit would resolve and connect here (issue 3); the demo answers
    // as if it had, with a CONNECTED carrying no address.
    return {originate(view->stream, cell::ConnectedMsg{})};
  }
  if (auto* data = std::get_if<cell::DataMsg>(&*msg)) {
    std::string_view request(reinterpret_cast<const char*>(data->data.data()), data->data.size());
    std::string body = "Hello from " + name_ + ", you sent " + std::to_string(request.size()) + " bytes\n";
    std::string response = "HTTP/1.0 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return {originate(view->stream, cell::DataMsg{{response.begin(), response.end()}}),
            originate(view->stream, cell::EndMsg{cell::EndReason::Done, std::nullopt})};
  }
  throw std::runtime_error(name_ + ": unexpected relay command");
}

}  // namespace conflux::demo
