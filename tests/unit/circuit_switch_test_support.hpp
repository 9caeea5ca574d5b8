#pragma once
// Relays' circuit switches and a client wired together in memory for the
// switch tests: channels are pairs of ends, actions are carried out at once,
// and the client keeps real tor1 crypto for every hop it builds.
#include <catch2/catch.hpp>
#include <deque>
#include <map>
#include <memory>

#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/proto/circuit_switch.hpp"

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

struct Client {
  explicit Client(Net& n, CircId c = CircId{0x80000001u}) : net(n), circ(c) {}
  Net& net;
  CircId circ;
  crypto::ClientRelayCrypto crypto;

  std::vector<std::uint8_t> create_payload(const Relay& r, crypto::NtorV3ClientState*& state_out,
                                           std::optional<crypto::NtorV3ClientStart>& start) {
    start.emplace(std::move(crypto::NtorV3Client::start(r.identity.public_key(), r.onion.public_key(),
                                                        std::vector<std::uint8_t>{0},
                                                        crypto::kNtorV3CircuitVerification))
                      .value());
    state_out = &start->state;
    return start->onionskin;
  }

  void add_hop(const crypto::NtorV3ClientState& state, bytes::ByteSpan reply) {
    auto done = state.finish(reply, crypto::RelayCryptoKeys::kMaterialLen);
    REQUIRE(done.has_value());
    REQUIRE(crypto.add_hop(*crypto::RelayCryptoKeys::from_key_material(done->keys.view())).has_value());
  }

  void create_first_hop() {
    crypto::NtorV3ClientState* state = nullptr;
    std::optional<crypto::NtorV3ClientStart> start;
    auto skin = create_payload(*net.relays[0], state, start);
    auto body = std::move(cell::encode_create2_cell({3, skin})).value();
    net.deliver(0, kClientChan, circ, cell::CellCommand::Create2, body);
    REQUIRE(net.client_inbox.size() == 1);
    auto c = net.client_inbox.front();
    net.client_inbox.pop_front();
    REQUIRE(c.cmd == cell::CellCommand::Created2);
    add_hop(*state, cell::decode_created2_cell(c.payload)->hdata);
  }

  void send(HopNum hop, StreamId stream, const cell::RelayMsg& msg, bool early) {
    auto payload = std::move(cell::encode_relay_msg_payload(stream, msg)).value();
    REQUIRE(crypto.encrypt_outbound(hop, payload).has_value());
    net.deliver(0, kClientChan, circ, early ? cell::CellCommand::RelayEarly : cell::CellCommand::Relay,
                {payload.begin(), payload.end()});
  }

  // Decrypts the next cell from the guard: (origin hop, message).
  std::pair<HopNum, cell::RelayMsg> receive() {
    REQUIRE_FALSE(net.client_inbox.empty());
    auto c = net.client_inbox.front();
    net.client_inbox.pop_front();
    REQUIRE(c.cmd == cell::CellCommand::Relay);
    cell::RelayPayload p{};
    std::copy(c.payload.begin(), c.payload.end(), p.begin());
    auto hop = crypto.decrypt_inbound(p);
    REQUIRE(hop.has_value());
    auto view = cell::decode_relay_payload(p);
    REQUIRE(view.has_value());
    auto msg = cell::decode_relay_msg(*view);
    REQUIRE(msg.has_value());
    return {*hop, std::move(msg).value()};
  }

  void extend_to(std::size_t idx) {
    crypto::NtorV3ClientState* state = nullptr;
    std::optional<crypto::NtorV3ClientStart> start;
    auto skin = create_payload(*net.relays[idx], state, start);
    cell::Extend2Msg ext;
    ext.link_specs.push_back(cell::LinkSpecIpv4{{127, 0, 0, 1}, 9001});
    ext.link_specs.push_back(cell::LinkSpecEd25519Id{net.relays[idx]->identity.public_key()});
    ext.handshake_type = 3;
    ext.handshake_data = skin;
    send(HopNum{static_cast<std::uint8_t>(crypto.hop_count())}, StreamId{0}, ext, true);
    auto [hop, msg] = receive();
    CHECK(hop.value() == crypto.hop_count());
    auto* extended = std::get_if<cell::Extended2Msg>(&msg);
    REQUIRE(extended != nullptr);
    add_hop(*state, extended->handshake_data);
  }

  void build(std::size_t hops) {
    create_first_hop();
    for (std::size_t i = 1; i < hops; ++i) extend_to(i);
    REQUIRE(crypto.hop_count() == hops);
  }
};

template <class T>
std::vector<T> of_type(const std::vector<SwitchAction>& actions) {
  std::vector<T> out;
  for (auto& a : actions)
    if (auto* t = std::get_if<T>(&a)) out.push_back(*t);
  return out;
}


}  // namespace conflux::test
