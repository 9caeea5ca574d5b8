// The relay circuit switch with three relays and a client wired together in
// memory: real CREATE2/EXTEND2 handshakes, tor1 crypto, DESTROY propagation,
// SENDMEs and the RELAY_EARLY and circuit-limit rules.
#include <catch2/catch.hpp>
#include <deque>
#include <map>

#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/proto/circuit_switch.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

constexpr ChannelId kClientChan = 1;
constexpr std::size_t kClient = 99;

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

}  // namespace

TEST_CASE("a 3-hop circuit is built through the switches and carries a stream", "[switch]") {
  Net net(3);
  Client client(net);
  client.build(3);
  CHECK(net.relays[0]->sw->circuit_count() == 1);
  CHECK(net.relays[1]->sw->circuit_count() == 1);
  CHECK(net.relays[2]->sw->circuit_count() == 1);

  client.send(HopNum{3}, StreamId{7}, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}, false);
  auto delivered = of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox);
  REQUIRE(delivered.size() == 1);
  CHECK(delivered[0].stream == StreamId{7});
  CHECK(std::holds_alternative<cell::BeginMsg>(delivered[0].msg));
  CHECK(of_type<DeliverStreamMessage>(net.relays[1]->exit_inbox).empty());

  // The exit answers; the client sees it come from hop 3.
  REQUIRE(net.relays[2]->sw->send_to_client(delivered[0].circuit, StreamId{7}, cell::ConnectedMsg{}));
  net.pump(2);
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{3});
  CHECK(std::holds_alternative<cell::ConnectedMsg>(msg));
  CHECK(net.relays[1]->sw->stats().cells_forwarded >= 2);
}

TEST_CASE("the exit sends an authenticated circuit SENDME after 100 DATA cells", "[switch][sendme]") {
  Net net(3);
  Client client(net);
  client.build(3);
  std::vector<std::uint8_t> chunk(498, 0x42);
  for (int i = 0; i < 100; ++i) client.send(HopNum{3}, StreamId{1}, cell::DataMsg{chunk}, false);
  CHECK(of_type<DeliverStreamMessage>(net.relays[2]->exit_inbox).size() == 100);
  auto [hop, msg] = client.receive();
  CHECK(hop == HopNum{3});
  auto* sendme = std::get_if<cell::SendmeMsg>(&msg);
  REQUIRE(sendme != nullptr);
  REQUIRE(sendme->tag.has_value());
  // The tag is the running digest of the 100th DATA cell the client sent.
  auto expected = client.crypto.last_sent_digest(HopNum{3});
  REQUIRE(expected.has_value());
  CHECK(std::equal(expected->begin(), expected->end(), sendme->tag->bytes.begin()));
}

TEST_CASE("a dead channel destroys the circuit on both sides with CHANNEL_CLOSED", "[switch][destroy]") {
  Net net(3);
  Client client(net);
  client.build(3);
  ChannelId guard_middle = 0;
  for (auto& [id, ends] : net.chans)
    if (ends == std::pair<std::size_t, std::size_t>{0, 1}) guard_middle = id;
  REQUIRE(guard_middle != 0);
  net.close_channel(guard_middle);

  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::ChannelClosed);
  auto closed_at_exit = of_type<CircuitClosed>(net.relays[2]->exit_inbox);
  REQUIRE(closed_at_exit.size() == 1);
  CHECK(closed_at_exit[0].reason == cell::DestroyReason::ChannelClosed);
  for (auto& r : net.relays) CHECK(r->sw->circuit_count() == 0);
}

TEST_CASE("a client DESTROY propagates to the exit with its reason", "[switch][destroy]") {
  Net net(3);
  Client client(net);
  client.build(3);
  net.deliver(0, kClientChan, client.circ, cell::CellCommand::Destroy, cell::encode_destroy_cell({cell::DestroyReason::Finished}));
  auto closed = of_type<CircuitClosed>(net.relays[2]->exit_inbox);
  REQUIRE(closed.size() == 1);
  CHECK(closed[0].reason == cell::DestroyReason::Finished);
  CHECK(net.client_inbox.empty());  // no DESTROY echoed back to the side that sent it
  for (auto& r : net.relays) CHECK(r->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->circuits_on(kClientChan) == 0);
}

TEST_CASE("a CREATE2 made for another onion key fails cleanly", "[switch][create]") {
  Net net(1);
  Relay other;
  auto start = crypto::NtorV3Client::start(net.relays[0]->identity.public_key(), other.onion.public_key(),
                                           std::vector<std::uint8_t>{0}, crypto::kNtorV3CircuitVerification);
  auto body = std::move(cell::encode_create2_cell({3, start->onionskin})).value();
  net.deliver(0, kClientChan, CircId{0x80000005u}, cell::CellCommand::Create2, body);
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::Protocol);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->stats().handshake_failures == 1);
  // An ntor (v1) handshake works too.
  crypto::NtorNodeId node_id{};
  std::copy_n(net.relays[0]->identity.public_key().begin(), node_id.size(), node_id.begin());
  auto v1 = crypto::NtorClient::start(node_id, net.relays[0]->onion.public_key());
  net.client_inbox.clear();
  net.deliver(0, kClientChan, CircId{0x80000006u}, cell::CellCommand::Create2,
              std::move(cell::encode_create2_cell({2, {v1.onionskin.begin(), v1.onionskin.end()}})).value());
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(net.client_inbox.front().cmd == cell::CellCommand::Created2);
  auto reply = cell::decode_created2_cell(net.client_inbox.front().payload);
  CHECK(v1.state.finish(reply->hdata, 72).has_value());
}

TEST_CASE("RELAY_EARLY rules: EXTEND2 must be early, at most 8 early cells", "[switch][early]") {
  Net net(3);
  Client client(net);
  client.build(2);  // used 1 RELAY_EARLY
  // EXTEND2 in a plain RELAY cell is dropped: nothing happens.
  cell::Extend2Msg ext;
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{net.relays[2]->identity.public_key()});
  ext.handshake_type = 3;
  ext.handshake_data.assign(200, 1);
  client.send(HopNum{2}, StreamId{0}, ext, false);
  CHECK(net.client_inbox.empty());
  CHECK(net.relays[1]->sw->circuit_count() == 1);
  // Seven more early cells are fine (DROP to hop 2), the ninth overall closes.
  for (int i = 0; i < 7; ++i) client.send(HopNum{2}, StreamId{0}, cell::DropMsg{}, true);
  CHECK(net.relays[0]->sw->circuit_count() == 1);
  client.send(HopNum{2}, StreamId{0}, cell::DropMsg{}, true);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  REQUIRE_FALSE(net.client_inbox.empty());
  CHECK(cell::decode_destroy_cell(net.client_inbox.back().payload)->reason == cell::DestroyReason::Protocol);
}

TEST_CASE("an unrecognized cell at the last hop closes the circuit", "[switch]") {
  Net net(1);
  Client client(net);
  client.build(1);
  std::vector<std::uint8_t> garbage(509, 0x5a);
  net.deliver(0, kClientChan, client.circ, cell::CellCommand::Relay, garbage);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
  CHECK(net.relays[0]->sw->stats().protocol_violations == 1);
}

TEST_CASE("circuits per channel are limited; over the limit gets RESOURCELIMIT", "[switch]") {
  Net net(1, CircuitSwitchConfig{.max_circuits_per_channel = 2, .max_pending_extends = 8});
  for (std::uint32_t i = 0; i < 3; ++i) {
    Client client(net, CircId{0x80000010u + i});
    if (i < 2) {
      client.create_first_hop();
    } else {
      crypto::NtorV3ClientState* state = nullptr;
      std::optional<crypto::NtorV3ClientStart> start;
      auto skin = client.create_payload(*net.relays[0], state, start);
      net.deliver(0, kClientChan, client.circ, cell::CellCommand::Create2,
                  std::move(cell::encode_create2_cell({3, skin})).value());
      REQUIRE(net.client_inbox.size() == 1);
      CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason ==
            cell::DestroyReason::ResourceLimit);
    }
  }
  CHECK(net.relays[0]->sw->circuit_count() == 2);
}

TEST_CASE("EXTEND2 to an unknown relay destroys the circuit with CONNECTFAILED", "[switch]") {
  Net net(2);
  Client client(net);
  client.build(1);
  cell::Extend2Msg ext;
  ext.link_specs.push_back(cell::LinkSpecEd25519Id{crypto::Ed25519Keypair::generate().public_key()});
  ext.handshake_type = 3;
  ext.handshake_data.assign(200, 1);
  client.send(HopNum{1}, StreamId{0}, ext, true);
  REQUIRE(net.client_inbox.size() == 1);
  CHECK(cell::decode_destroy_cell(net.client_inbox.front().payload)->reason == cell::DestroyReason::ConnectFailed);
  CHECK(net.relays[0]->sw->circuit_count() == 0);
}
