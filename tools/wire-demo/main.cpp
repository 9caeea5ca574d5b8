// conflux-wire-demo: a three-hop circuit built and used in one process with
// Tor's real wire formats and crypto. It is the main job until conflux-net
// runs a network of real processes. The client is the proxy's own circuit
// machine (proto::ClientCircuit); the relays are demo_relay.hpp.
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <memory>
#include <string>
#include <variant>

#include "conflux/bytes/hex.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
#include "conflux/proto/client_circuit.hpp"
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

// The client end is the proxy's own circuit machine, proto::ClientCircuit:
// this walkthrough carries out its actions, handing each cell to the guard
// and each cell the guard answers back to it.
struct Client {
  // Congestion control with tor's parameters, asked of the exit only.
  proto::ClientCircuit circuit{kClientCirc, proto::ClientCircuitConfig{{}, [] { return proto::CcClock::now(); }, {}}};
  int cells_sent = 0;
  int cells_received = 0;
  std::vector<std::pair<HopNum, cell::RelayMsg>> replies;  // messages from the hops, in order
  std::vector<proto::ClientHopAdded> hops_added;

  // Carries out the circuit's actions until it has none left: its cells go
  // to the guard, the guard's answers come back through on_cell().
  void run(DemoRelay& guard, const demo::RelayDirectory& dir) {
    for (auto actions = circuit.take_actions(); !actions.empty(); actions = circuit.take_actions()) {
      for (auto& action : actions) {
        if (auto* out = std::get_if<proto::ClientSendCell>(&action)) {
          exchange(guard, dir, *out);
        } else if (auto* added = std::get_if<proto::ClientHopAdded>(&action)) {
          hops_added.push_back(std::move(*added));
        } else if (auto* d = std::get_if<proto::ClientDeliver>(&action)) {
          replies.emplace_back(d->hop, std::move(d->msg));
        }
      }
    }
    if (circuit.state() == proto::ClientCircuit::State::Closed)
      throw std::runtime_error("client: circuit closed: " + circuit.error().value_or("by the relays"));
  }

 private:
  void exchange(DemoRelay& guard, const demo::RelayDirectory& dir, const proto::ClientSendCell& out) {
    auto bytes = std::move(cell::encode_cell(kLink, out.circ, out.command, out.body.view())).value();
    trace("client", guard.name(), bytes);
    ++cells_sent;
    for (auto& back : guard.receive(bytes, dir, trace)) {
      trace(guard.name(), "client", back);
      ++cells_received;
      auto framed = cell::frame_cell(back, kLink);
      circuit.on_cell(std::get<cell::Framed>(framed).cell);
    }
  }
};

// The SM's congestion-control answer, as the wire shows it.
std::string sendme_inc_of(const std::vector<std::uint8_t>& server_message) {
  auto sm = crypto::decode_ntor_v3_extensions(server_message);
  const auto* cc = sm ? crypto::find_ntor_v3_extension(*sm, crypto::NtorV3ExtType::CcResponse) : nullptr;
  auto inc = cc != nullptr ? crypto::parse_cc_response(*cc)
                           : crypto::NtorV3ExtResult<std::uint8_t>(Unexpected{crypto::NtorV3ExtError::Truncated});
  return inc ? std::to_string(*inc) : "(none)";
}

// Sends one message to `hop` and returns what came back for it.
std::vector<std::pair<HopNum, cell::RelayMsg>> ask(Client& client, DemoRelay& guard, const demo::RelayDirectory& dir,
                                                   HopNum hop, StreamId stream, const cell::RelayMsg& msg) {
  if (!client.circuit.send(hop, stream, msg)) throw std::runtime_error("client: cannot send to that hop");
  client.replies.clear();
  client.run(guard, dir);
  return std::move(client.replies);
}

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

  std::printf("\n2. CREATE2 to the guard (ntor-v3):\n");
  if (!client.circuit.create(proto::HopTarget{guard.identity(), guard.onion_key(), {}}))
    throw std::runtime_error("client: cannot start the guard handshake");
  client.run(guard, dir);
  if (client.circuit.hops() != 1) throw std::runtime_error("client: guard handshake failed");

  for (std::size_t i = 1; i < relays.size(); ++i) {
    DemoRelay& next = *relays[i];
    std::printf("\n%zu. EXTEND2 to the %s, in a RELAY_EARLY cell encrypted for hop %zu:\n", i + 2,
                next.name().c_str(), i);
    proto::HopTarget target{next.identity(), next.onion_key(), {}};
    target.link_specs.push_back(cell::LinkSpecIpv4{{127, 0, 0, 1}, static_cast<std::uint16_t>(9000 + i)});
    // A client asks only the exit for congestion control (prop 324).
    const proto::HopOptions options{i + 1 == relays.size()};
    if (!client.circuit.extend(target, options)) throw std::runtime_error("client: cannot extend");
    client.run(guard, dir);
    if (client.circuit.hops() != i + 1) throw std::runtime_error("client: handshake failed");
    std::printf("  circuit now has %zu hops; %s answered congestion control with sendme_inc %s\n",
                client.circuit.hops(), next.name().c_str(),
                sendme_inc_of(client.hops_added.back().server_message).c_str());
  }

  const HopNum exit_hop{3};
  const StreamId stream{1};
  std::printf("\n%zu. A stream to the exit: BEGIN, DATA, and the exit's DATA + END back:\n", relays.size() + 2);
  auto connected = ask(client, guard, dir, exit_hop, stream, cell::BeginMsg{"localhost", cell::BeginAddrKind::Hostname, 80, 0});
  if (connected.at(0).first != exit_hop || !std::holds_alternative<cell::ConnectedMsg>(connected.at(0).second))
    throw std::runtime_error("client: expected CONNECTED from hop 3");
  std::string request = "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n";
  auto replies = ask(client, guard, dir, exit_hop, stream, cell::DataMsg{{request.begin(), request.end()}});
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
              client.cells_sent, client.cells_received);
  std::printf("SENDME v1 tag of the last DATA cell sent to the exit (what the exit would echo): %s\n",
              bytes::to_hex(*client.circuit.relay_crypto().last_sent_digest(exit_hop)).c_str());
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
