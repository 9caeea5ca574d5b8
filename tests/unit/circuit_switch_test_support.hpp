#pragma once
// Relays' circuit switches and a client circuit wired together in memory
// for the switch tests: channels are pairs of ends, and the relays' actions
// are carried out at once.
#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <memory>

#include "actions_of_type.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/proto/circuit_switch.hpp"
#include "conflux/proto/client_circuit.hpp"

namespace conflux::test {

using namespace conflux::proto;


inline constexpr ChannelId kClientChan = 1;
inline constexpr std::size_t kClient = 99;

struct Relay {
  crypto::Ed25519Keypair identity = crypto::Ed25519Keypair::generate();
  crypto::X25519Secret onion = crypto::X25519Secret::generate();
  std::unique_ptr<CircuitSwitch> sw;
  std::vector<SwitchAction> exit_inbox;  // DeliverStreamMessage / CircuitClosed seen here

  explicit Relay(CircuitSwitchConfig cfg = {}) {
    crypto::NtorNodeId node_id{};
    std::copy_n(identity.public_key().begin(), node_id.size(), node_id.begin());
    sw = std::make_unique<CircuitSwitch>(
        CircuitSwitchKeys{{node_id, onion, std::nullopt}, {identity.public_key(), onion, std::nullopt}}, cfg);
  }
};

struct ClientCell {
  CircId circ;
  cell::CellCommand cmd;
  std::vector<std::uint8_t> payload;
};

struct Net {
  std::vector<std::unique_ptr<Relay>> relays;
  std::map<ChannelId, std::pair<std::size_t, std::size_t>> chans;  // ends: relay index or kClient
  std::deque<ClientCell> client_inbox;
  ChannelId next_chan = 10;

  explicit Net(std::size_t n, CircuitSwitchConfig cfg = {}) {
    for (std::size_t i = 0; i < n; ++i) relays.push_back(std::make_unique<Relay>(cfg));
    chans[kClientChan] = {kClient, 0};
    relays[0]->sw->on_channel_open(kClientChan, ChannelRole::Responder);
  }

  std::size_t other_end(ChannelId chan, std::size_t me) const {
    auto [a, b] = chans.at(chan);
    return a == me ? b : a;
  }

  void deliver(std::size_t to, ChannelId chan, CircId circ, cell::CellCommand cmd, std::vector<std::uint8_t> payload) {
    if (to == kClient) {
      client_inbox.push_back({circ, cmd, std::move(payload)});
      return;
    }
    cell::CellView view{circ, cmd, payload};
    relays[to]->sw->on_cell(chan, view);
    pump(to);
  }

  void pump(std::size_t idx) {
    for (auto& action : relays[idx]->sw->take_actions()) {
      if (auto* s = std::get_if<SendCell>(&action)) {
        auto framed = cell::frame_cell(s->cell, 4);
        auto& v = std::get<cell::Framed>(framed).cell;
        deliver(other_end(s->chan, idx), s->chan, v.circ_id, v.command, {v.payload.begin(), v.payload.end()});
      } else if (auto* d = std::get_if<SendDestroy>(&action)) {
        auto body = cell::encode_destroy_cell({d->reason});
        deliver(other_end(d->chan, idx), d->chan, d->circ, cell::CellCommand::Destroy, body);
      } else if (auto* o = std::get_if<OpenChannel>(&action)) {
        std::size_t target = 0;
        while (target < relays.size() && relays[target]->identity.public_key() != o->identity) ++target;
        if (target == relays.size()) {
          relays[idx]->sw->on_channel_failed(o->request, cell::DestroyReason::ConnectFailed);
        } else {
          ChannelId chan = next_chan++;
          chans[chan] = {idx, target};
          relays[idx]->sw->on_channel_open(chan, ChannelRole::Initiator);
          relays[target]->sw->on_channel_open(chan, ChannelRole::Responder);
          relays[idx]->sw->on_channel_ready(o->request, chan);
        }
        pump(idx);
      } else {
        relays[idx]->exit_inbox.push_back(std::move(action));
      }
    }
  }

  void close_channel(ChannelId chan) {
    auto [a, b] = chans.at(chan);
    for (std::size_t end : {a, b}) {
      if (end == kClient) continue;
      relays[end]->sw->on_channel_closed(chan);
      pump(end);
    }
  }
};

// The client end: proto::ClientCircuit, the proxy's own machine, whose cells
// travel to the guard on kClientChan. Cells from the guard wait in
// net.client_inbox until receive() or a handshake feeds them to it.
struct Client {
  explicit Client(Net& n, CircId c = CircId{0x80000001u}) : net(n), circ(c), circuit(c) {}
  Net& net;
  CircId circ;
  ClientCircuit circuit;
  std::deque<std::pair<HopNum, cell::RelayMsg>> received;  // deliveries and accepted circuit SENDMEs

  [[nodiscard]] HopTarget target(std::size_t idx) const {
    HopTarget t{net.relays[idx]->identity.public_key(), net.relays[idx]->onion.public_key(), {}};
    t.link_specs.push_back(cell::LinkSpecIpv4{{127, 0, 0, 1}, 9001});
    return t;
  }

  // Carries out the circuit's actions. `as_early` sends its RELAY cells as
  // RELAY_EARLY: a client breaking the rules, for the relays' checks.
  void pump(bool as_early = false) {
    for (auto& action : circuit.take_actions()) {
      if (auto* out = std::get_if<ClientSendCell>(&action)) {
        auto cmd = as_early && out->command == cell::CellCommand::Relay ? cell::CellCommand::RelayEarly : out->command;
        auto body = out->body.view();
        net.deliver(0, kClientChan, out->circ, cmd, {body.begin(), body.end()});
      } else if (auto* d = std::get_if<ClientDeliver>(&action)) {
        received.emplace_back(d->hop, std::move(d->msg));
      } else if (auto* s = std::get_if<ClientSendmeAccepted>(&action)) {
        received.emplace_back(s->hop, s->sendme);
      }
    }
  }

  // Feeds the guard's next cell to the circuit.
  void feed_one() {
    REQUIRE_FALSE(net.client_inbox.empty());
    auto c = net.client_inbox.front();
    net.client_inbox.pop_front();
    circuit.on_cell(cell::CellView{c.circ, c.cmd, c.payload});
    pump();
    INFO(circuit.error().value_or(""));
    REQUIRE(circuit.state() != ClientCircuit::State::Closed);
  }

  void create_first_hop() {
    REQUIRE(circuit.create(target(0)));
    pump();
    REQUIRE(net.client_inbox.size() == 1);
    REQUIRE(net.client_inbox.front().cmd == cell::CellCommand::Created2);
    feed_one();
    REQUIRE(circuit.hops() == 1);
  }

  void send(HopNum hop, StreamId stream, const cell::RelayMsg& msg, bool early) {
    REQUIRE(circuit.send(hop, stream, msg));
    pump(early);
  }

  // The next message from the circuit's hops: (origin hop, message).
  std::pair<HopNum, cell::RelayMsg> receive() {
    while (received.empty()) {
      REQUIRE_FALSE(net.client_inbox.empty());
      REQUIRE(net.client_inbox.front().cmd == cell::CellCommand::Relay);
      feed_one();
    }
    auto m = std::move(received.front());
    received.pop_front();
    return m;
  }

  void extend_to(std::size_t idx) {
    const std::size_t before = circuit.hops();
    REQUIRE(circuit.extend(target(idx)));
    pump();
    feed_one();
    REQUIRE(circuit.hops() == before + 1);
  }

  void build(std::size_t hops) {
    create_first_hop();
    for (std::size_t i = 1; i < hops; ++i) extend_to(i);
    REQUIRE(circuit.hops() == hops);
  }
};


}  // namespace conflux::test
