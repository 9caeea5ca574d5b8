// conflux-wire-demo: a three-hop circuit built and used in one process with
// Tor's real wire formats and crypto. It is the main job until conflux-net
// runs a network of real processes.
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <variant>

#include "conflux/bytes/hex.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
#include "demo_relay.hpp"

using namespace conflux;
using demo::CellBytes;
using demo::DemoRelay;

namespace {

constexpr cell::LinkVersion kLink = 5;
constexpr CircId kClientCirc{0x80000001u};  // the initiator sets the high bit (tor-spec 4.1)

std::string describe(const CellBytes& bytes) {
  auto framed = cell::frame_cell(bytes, kLink);
  auto& c = std::get<cell::Framed>(framed).cell;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%-11s circ 0x%08x  %zu bytes",
                std::string(cell::to_string(c.command)).c_str(), c.circ_id.value(), bytes.size());
  return buf;
}

void trace(const std::string& from, const std::string& to, const CellBytes& cell) {
  std::printf("  %-7s -> %-7s %s\n", from.c_str(), to.c_str(), describe(cell).c_str());
}

struct Client {
  crypto::ClientRelayCrypto crypto;
  int cells_sent = 0;
  int cells_received = 0;

  std::vector<std::uint8_t> cc_request() {
    std::vector<crypto::NtorV3Extension> exts{crypto::make_cc_request()};
    return std::move(crypto::encode_ntor_v3_extensions(exts)).value();
  }

  // Sends one relay message to hop `target` through the first relay and
  // returns the messages that come back, each with the hop that sent it.
  std::vector<std::pair<HopNum, cell::RelayMsg>> send(DemoRelay& guard, const demo::RelayDirectory& dir,
                                                      HopNum target, StreamId stream, const cell::RelayMsg& msg,
                                                      bool early) {
    auto payload = cell::encode_relay_msg_payload(stream, msg);
    if (!payload) throw std::runtime_error("client: message too long");
    if (!crypto.encrypt_outbound(target, *payload)) throw std::runtime_error("client: no such hop");
    auto out = std::move(cell::encode_cell(kLink, kClientCirc,
                                           early ? cell::CellCommand::RelayEarly : cell::CellCommand::Relay,
                                           *payload))
                   .value();
    trace("client", guard.name(), out);
    ++cells_sent;
    std::vector<std::pair<HopNum, cell::RelayMsg>> replies;
    for (auto& back : guard.receive(out, dir, trace)) {
      trace(guard.name(), "client", back);
      ++cells_received;
      auto framed = cell::frame_cell(back, kLink);
      cell::RelayPayload p{};
      auto& view = std::get<cell::Framed>(framed).cell;
      std::copy(view.payload.begin(), view.payload.end(), p.begin());
      auto from = crypto.decrypt_inbound(p);
      if (!from) throw std::runtime_error("client: a cell no hop recognized");
      auto header = cell::decode_relay_payload(p);
      auto decoded = header ? cell::decode_relay_msg(*header) : cell::Decoded<cell::RelayMsg>(cell::fail(header.error()));
      if (!decoded) throw std::runtime_error("client: undecodable relay message");
      replies.emplace_back(*from, std::move(decoded).value());
    }
    return replies;
  }
};

int run() {
  const auto now = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());

  std::printf("Conflux wire demonstration: one client, three relays, Tor's cell formats and crypto.\n\n");
  std::vector<std::unique_ptr<DemoRelay>> relays;
  relays.push_back(std::make_unique<DemoRelay>("guard", false, now));
  relays.push_back(std::make_unique<DemoRelay>("middle", false, now));
  relays.push_back(std::make_unique<DemoRelay>("exit", true, now));
  demo::RelayDirectory dir = [&](const crypto::Ed25519Public& id) -> DemoRelay* {
    for (auto& r : relays)
      if (r->identity() == id) return r.get();
    return nullptr;
  };

  std::printf("1. Relay identities, checked through their identity->signing certificates (cert type 4):\n");
  for (auto& r : relays) {
    auto cert = cell::decode_ed25519_cert(r->signing_cert());
    if (!cert) throw std::runtime_error("certificate does not decode");
    auto signer = cell::verify_ed25519_cert(*cert, std::nullopt, now);
    if (!signer || *signer != r->identity()) throw std::runtime_error("certificate does not verify");
    std::printf("  %-7s ed25519 %s...  cert %zu bytes, valid until hour %u\n", r->name().c_str(),
                bytes::to_hex(std::span(r->identity()).first(8)).c_str(), r->signing_cert().size(),
                cert->body.expiration_hours);
  }

  Client client;
  DemoRelay& guard = *relays[0];

  std::printf("\n2. CREATE2 to the guard (ntor-v3, congestion-control request in the client message):\n");
  {
    auto start = crypto::NtorV3Client::start(guard.identity(), guard.onion_key(), client.cc_request(),
                                             crypto::kNtorV3CircuitVerification);
    auto create = std::move(cell::encode_create2_cell(cell::Create2Cell{3, start->onionskin})).value();
    auto out = std::move(cell::encode_cell(kLink, kClientCirc, cell::CellCommand::Create2, create)).value();
    trace("client", guard.name(), out);
    auto back = guard.receive(out, dir, trace).at(0);
    trace(guard.name(), "client", back);
    auto framed = cell::frame_cell(back, kLink);
    auto created = cell::decode_created2_cell(std::get<cell::Framed>(framed).cell.payload);
    auto done = start->state.finish(created->hdata, crypto::RelayCryptoKeys::kMaterialLen);
    if (!done) throw std::runtime_error("client: guard handshake failed");
    (void)client.crypto.add_hop(*crypto::RelayCryptoKeys::from_key_material(done->keys.view()));
  }

  for (std::size_t i = 1; i < relays.size(); ++i) {
    DemoRelay& next = *relays[i];
    std::printf("\n%zu. EXTEND2 to the %s, in a RELAY_EARLY cell encrypted for hop %zu:\n", i + 2,
                next.name().c_str(), i);
    auto start = crypto::NtorV3Client::start(next.identity(), next.onion_key(), client.cc_request(),
                                             crypto::kNtorV3CircuitVerification);
    cell::Extend2Msg extend;
    extend.link_specs.push_back(cell::LinkSpecIpv4{{127, 0, 0, 1}, static_cast<std::uint16_t>(9000 + i)});
    extend.link_specs.push_back(cell::LinkSpecEd25519Id{next.identity()});
    extend.handshake_type = 3;
    extend.handshake_data = start->onionskin;
    auto replies = client.send(guard, dir, HopNum{static_cast<std::uint8_t>(i)}, StreamId{0}, extend, true);
    auto* extended = std::get_if<cell::Extended2Msg>(&replies.at(0).second);
    if (extended == nullptr) throw std::runtime_error("client: expected EXTENDED2");
    auto done = start->state.finish(extended->handshake_data, crypto::RelayCryptoKeys::kMaterialLen);
    if (!done) throw std::runtime_error("client: handshake failed");
    auto sm = crypto::decode_ntor_v3_extensions(done->server_message);
    const auto* cc = sm ? crypto::find_ntor_v3_extension(*sm, crypto::NtorV3ExtType::CcResponse) : nullptr;
    auto inc = cc != nullptr ? crypto::parse_cc_response(*cc) : crypto::NtorV3ExtResult<std::uint8_t>(
                                                                   Unexpected{crypto::NtorV3ExtError::Truncated});
    (void)client.crypto.add_hop(*crypto::RelayCryptoKeys::from_key_material(done->keys.view()));
    std::printf("  circuit now has %zu hops; %s answered congestion control with sendme_inc %s\n",
                client.crypto.hop_count(), next.name().c_str(), inc ? std::to_string(*inc).c_str() : "(none)");
  }

  const HopNum exit_hop{3};
  const StreamId stream{1};
  std::printf("\n%zu. A stream to the exit: BEGIN, DATA, and the exit's DATA + END back:\n", relays.size() + 2);
  auto connected = client.send(guard, dir, exit_hop, stream, cell::BeginMsg{"localhost", cell::BeginAddrKind::Hostname, 80, 0}, false);
  if (connected.at(0).first != exit_hop || !std::holds_alternative<cell::ConnectedMsg>(connected.at(0).second))
    throw std::runtime_error("client: expected CONNECTED from hop 3");
  std::string request = "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n";
  auto replies = client.send(guard, dir, exit_hop, stream, cell::DataMsg{{request.begin(), request.end()}}, false);
  std::string response;
  bool ended = false;
  for (auto& [hop, msg] : replies) {
    if (hop != exit_hop) throw std::runtime_error("client: stream reply from the wrong hop");
    if (auto* d = std::get_if<cell::DataMsg>(&msg)) response.append(d->data.begin(), d->data.end());
    if (auto* e = std::get_if<cell::EndMsg>(&msg)) ended = e->reason == cell::EndReason::Done;
  }
  if (!ended) throw std::runtime_error("client: expected END DONE");

  std::printf("\nThe exit's answer, decrypted through three layers at the client:\n%s\n", response.c_str());
  std::printf("Done: %d cells sent and %d received by the client; every reply was recognized at the hop that sent it.\n",
              client.cells_sent + 1, client.cells_received + 1);
  std::printf("SENDME v1 tag of the last DATA cell sent to the exit (what the exit would echo): %s\n",
              bytes::to_hex(*client.crypto.last_sent_digest(exit_hop)).c_str());
  return 0;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "conflux-wire-demo: %s\n", e.what());
    return 1;
  }
}
