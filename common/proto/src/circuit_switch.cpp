#include "conflux/proto/circuit_switch.hpp"

#include <algorithm>

#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/crypto/create_fast.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/relay_early.hpp"

namespace conflux::proto {
namespace {

constexpr cell::LinkVersion kWireLink = 4;  // v4 and v5 frame fixed cells alike
constexpr std::uint16_t kHtypeNtor = 2;
constexpr std::uint16_t kHtypeNtorV3 = 3;

struct SideKey {
  ChannelId chan;
  std::uint32_t circ;
  friend bool operator==(const SideKey&, const SideKey&) = default;
};
struct SideKeyHash {
  std::size_t operator()(const SideKey& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.chan * 0x9E3779B97F4A7C15ULL ^ k.circ);
  }
};

struct Side {
  ChannelId chan;
  CircId id;
};

struct PendingExtend {
  std::uint64_t request;
  std::uint16_t htype;
  std::vector<std::uint8_t> hdata;
};

struct Circuit {
  Circuit(CircuitHandle h, Side p_side, const crypto::RelayCryptoKeys& keys, RelayCircuitFlow f)
      : handle(h), p(p_side), crypto(keys), flow(std::move(f)) {}
  CircuitHandle handle;
  Side p;                   // toward the client
  std::optional<Side> n;    // toward the exit, once extended
  std::optional<PendingExtend> extending;
  crypto::RelayHopCrypto crypto;
  RelayEarlyGuard early;
  // DATA this hop originates (exit) and DATA from the client recognized
  // here: fixed windows or congestion control, as the handshake agreed.
  RelayCircuitFlow flow;
};

// A finished CREATE2 handshake: the reply for CREATED2, the key material,
// and whether congestion control was agreed (ntor-v3 only).
struct Answered {
  std::vector<std::uint8_t> reply;
  crypto::KeyMaterial material;
  std::optional<CcAgreement> cc;
};

}  // namespace

struct CircuitSwitch::Impl {
  CircuitSwitchKeys keys;
  CircuitSwitchConfig config;
  CircuitSwitchStats& stats;
  std::vector<SwitchAction> actions;
  std::unordered_map<ChannelId, CircIdTable> channels;
  std::unordered_map<CircuitHandle, std::unique_ptr<Circuit>> circuits;
  std::unordered_map<SideKey, CircuitHandle, SideKeyHash> by_side;
  std::unordered_map<std::uint64_t, CircuitHandle> pending;  // OpenChannel request -> circuit
  CircuitHandle next_handle = 1;
  std::uint64_t next_request = 1;
  // tor's process-wide "monotonic clock looks broken" flag: the runtime's
  // (config.clock_health), or this one when it gives none.
  ClockHealth own_clock_health;
  ClockHealth& clock_health;

  Impl(CircuitSwitchKeys k, CircuitSwitchConfig c, CircuitSwitchStats& s)
      : keys(std::move(k)),
        config(std::move(c)),
        stats(s),
        clock_health(config.clock_health != nullptr ? *config.clock_health : own_clock_health) {}

  [[nodiscard]] CcClock::time_point now() const { return config.now ? config.now() : CcClock::time_point{}; }

  Circuit* find(ChannelId chan, CircId id) {
    auto it = by_side.find({chan, id.value()});
    return it == by_side.end() ? nullptr : circuits.at(it->second).get();
  }
  Circuit* find(CircuitHandle h) {
    auto it = circuits.find(h);
    return it == circuits.end() ? nullptr : it->second.get();
  }
  [[nodiscard]] bool blocked_on_p_chan(const Circuit& c) const {
    return config.channel_state && config.channel_state(c.p.chan, c.p.id).blocked;
  }

  void send(const Side& side, cell::CellCommand cmd, bytes::ByteSpan payload) {
    // Encoded in place in the action: a relayed cell is copied once here.
    auto& a = std::get<SendCell>(actions.emplace_back(SendCell{side.chan, side.id, WireCell{}}));
    auto written = cell::write_fixed_cell(a.cell, kWireLink, side.id, cmd, payload);
    if (!written || *written != kWireCellLen) actions.pop_back();
  }
  void destroy(ChannelId chan, CircId id, cell::DestroyReason reason) {
    actions.push_back(SendDestroy{chan, id, reason});
  }

  // Removes a circuit; DESTROY goes to each side except `skip` (a channel
  // that is already gone, or the side the DESTROY came from).
  void close(Circuit& c, cell::DestroyReason reason, std::optional<ChannelId> skip_p, std::optional<ChannelId> skip_n) {
    const CircuitHandle h = c.handle;
    if (!skip_p || *skip_p != c.p.chan) destroy(c.p.chan, c.p.id, reason);
    release(c.p);
    if (c.n) {
      if (!skip_n || *skip_n != c.n->chan) destroy(c.n->chan, c.n->id, reason);
      release(*c.n);
    }
    if (c.extending) pending.erase(c.extending->request);
    actions.push_back(CircuitClosed{h, reason});
    circuits.erase(h);
    ++stats.circuits_closed;
  }
  void close(Circuit& c, cell::DestroyReason reason) { close(c, reason, std::nullopt, std::nullopt); }
  void violation(Circuit& c) {
    ++stats.protocol_violations;
    close(c, cell::DestroyReason::Protocol);
  }

  void release(const Side& s) {
    by_side.erase({s.chan, s.id.value()});
    if (auto it = channels.find(s.chan); it != channels.end()) it->second.release(s.id);
  }

  // Claims the client's circuit ID for a CREATE*; false (with the DESTROY
  // tor would send, if any) when the ID cannot be used.
  bool register_create(ChannelId chan, CircId id);
  void fail_create(ChannelId chan, CircId id);
  void add_circuit(ChannelId chan, CircId id, const crypto::KeyMaterial& material, cell::CellCommand reply_cmd,
                   bytes::ByteSpan reply, std::optional<CcAgreement> cc = std::nullopt);
  std::optional<Answered> answer_ntor_v3(bytes::ByteSpan hdata) const;
  void on_create2(ChannelId chan, CircId id, bytes::ByteSpan payload);
  void on_create_fast(ChannelId chan, CircId id, bytes::ByteSpan payload);
  void on_created2(Circuit& c, bytes::ByteSpan payload);
  void on_relay_from_client(Circuit& c, bytes::ByteSpan payload, bool early);
  void on_relay_from_exit(Circuit& c, bytes::ByteSpan payload, bool early);
  void on_recognized(Circuit& c, const cell::RelayPayload& payload, bool early);
  void on_circuit_sendme(Circuit& c, const cell::SendmeMsg& sendme);
  void on_data(Circuit& c, StreamId stream, cell::RelayMsg msg);
  void on_extend2(Circuit& c, const cell::Extend2Msg& msg);
  bool originate(Circuit& c, StreamId stream, const cell::RelayMsg& msg);
};

bool CircuitSwitch::Impl::register_create(ChannelId chan, CircId id) {
  auto table = channels.find(chan);
  if (table == channels.end()) return false;
  auto registered = table->second.register_peer(id);
  if (registered) return true;
  switch (registered.error()) {
    case CircIdError::InUse:
      return false;  // tor drops a CREATE for a circuit it already has
    case CircIdError::LimitReached:
    case CircIdError::Exhausted:
      destroy(chan, id, cell::DestroyReason::ResourceLimit);
      return false;
    case CircIdError::Zero:
    case CircIdError::WrongHalf:
      ++stats.protocol_violations;
      destroy(chan, id, cell::DestroyReason::Protocol);
      return false;
  }
  return false;
}

void CircuitSwitch::Impl::fail_create(ChannelId chan, CircId id) {
  ++stats.handshake_failures;
  if (auto table = channels.find(chan); table != channels.end()) table->second.release(id);
  destroy(chan, id, cell::DestroyReason::Protocol);
}

void CircuitSwitch::Impl::add_circuit(ChannelId chan, CircId id, const crypto::KeyMaterial& material,
                                      cell::CellCommand reply_cmd, bytes::ByteSpan reply,
                                      std::optional<CcAgreement> cc) {
  auto relay_keys = crypto::RelayCryptoKeys::from_key_material(material.view());
  if (!relay_keys) return fail_create(chan, id);
  const CircuitHandle h = next_handle++;
  RelayCircuitFlow flow = cc ? RelayCircuitFlow(config.cc, *cc, clock_health) : RelayCircuitFlow();
  circuits.emplace(h, std::make_unique<Circuit>(h, Side{chan, id}, *relay_keys, std::move(flow)));
  by_side[{chan, id.value()}] = h;
  ++stats.circuits_created;
  if (cc) ++stats.circuits_cc;
  send(Side{chan, id}, reply_cmd, reply);
}

// tor answers the client's extension list whenever it is asked: with
// congestion control when the client requested it and our cc_alg is not 0,
// with an empty list otherwise. A list that does not parse refuses the
// handshake (tor's parse failure in the onionskin answer does the same).
// Whichever hop answers may be asked; a client asks only its exit hop.
std::optional<Answered> CircuitSwitch::Impl::answer_ntor_v3(bytes::ByteSpan hdata) const {
  std::optional<CcAgreement> agreed;
  auto policy = [&](std::span<const std::uint8_t> cm) -> std::optional<std::vector<std::uint8_t>> {
    auto answer = cc_exit_answer(cm, config.cc);
    if (!answer) return std::nullopt;
    auto sm = crypto::encode_ntor_v3_extensions(answer->reply);
    if (!sm) return std::nullopt;
    agreed = answer->agreement;
    return std::move(*sm);
  };
  auto done = crypto::ntor_v3_server_handshake(keys.ntor_v3, hdata, crypto::kNtorV3CircuitVerification, policy,
                                               crypto::RelayCryptoKeys::kMaterialLen);
  if (!done) return std::nullopt;
  return Answered{std::move(done->reply), std::move(done->keys), agreed};
}

void CircuitSwitch::Impl::on_create2(ChannelId chan, CircId id, bytes::ByteSpan payload) {
  if (!register_create(chan, id)) return;
  auto create = cell::decode_create2_cell(payload);
  if (!create) return fail_create(chan, id);

  std::optional<Answered> answered;
  if (create->htype == kHtypeNtor) {
    auto done = crypto::ntor_server_handshake(keys.ntor, create->hdata, crypto::RelayCryptoKeys::kMaterialLen);
    if (done) {
      answered.emplace(Answered{{done->reply.begin(), done->reply.end()}, std::move(done->keys), std::nullopt});
    }
  } else if (create->htype == kHtypeNtorV3) {
    answered = answer_ntor_v3(create->hdata);
  }
  if (!answered) return fail_create(chan, id);
  auto created = cell::encode_created2_cell(cell::Created2Cell{answered->reply});
  if (!created) return fail_create(chan, id);
  add_circuit(chan, id, answered->material, cell::CellCommand::Created2, *created, answered->cc);
}

// CREATE_FAST only ever arrives from the previous hop, and the switch never
// sends one onward, so a fast circuit here is always a client's first hop,
// as tor requires. The TLS link authenticated us; X only freshens the keys.
void CircuitSwitch::Impl::on_create_fast(ChannelId chan, CircId id, bytes::ByteSpan payload) {
  if (!register_create(chan, id)) return;
  auto done = crypto::fast_server_handshake(payload, crypto::RelayCryptoKeys::kMaterialLen);
  if (!done) return fail_create(chan, id);
  add_circuit(chan, id, done->keys, cell::CellCommand::CreatedFast, done->reply);
}

void CircuitSwitch::Impl::on_created2(Circuit& c, bytes::ByteSpan payload) {
  if (!c.extending || !c.n) return violation(c);
  auto created = cell::decode_created2_cell(payload);
  if (!created) return violation(c);
  c.extending.reset();
  originate(c, StreamId{0}, cell::Extended2Msg{created->hdata});
}

void CircuitSwitch::Impl::on_relay_from_client(Circuit& c, bytes::ByteSpan payload, bool early) {
  if (auto v = c.early.on_cell(CellDirection::Outbound, early); v && closes_circuit(*v)) return violation(c);
  cell::RelayPayload p{};
  std::copy(payload.begin(), payload.end(), p.begin());
  if (c.crypto.decrypt_forward(p) == crypto::ForwardVerdict::Recognized) return on_recognized(c, p, early);
  // Not for us: it must go further, so there must be a next hop.
  if (!c.n || c.extending) return violation(c);
  ++stats.cells_forwarded;
  send(*c.n, early ? cell::CellCommand::RelayEarly : cell::CellCommand::Relay, p);
}

void CircuitSwitch::Impl::on_relay_from_exit(Circuit& c, bytes::ByteSpan payload, bool early) {
  if (auto v = c.early.on_cell(CellDirection::Inbound, early); v && closes_circuit(*v)) return violation(c);
  cell::RelayPayload p{};
  std::copy(payload.begin(), payload.end(), p.begin());
  c.crypto.relay_backward(p);
  ++stats.cells_forwarded;
  send(c.p, cell::CellCommand::Relay, p);
}

void CircuitSwitch::Impl::on_recognized(Circuit& c, const cell::RelayPayload& payload, bool early) {
  auto view = cell::decode_relay_payload(payload);
  if (!view) return violation(c);
  auto msg = cell::decode_relay_msg(*view);
  if (!msg) {
    // tor drops relay commands it does not know and keeps the circuit.
    if (msg.error() == cell::DecodeError::UnknownCommand) return;
    return violation(c);
  }
  if (auto v = RelayEarlyGuard::check_recognized(view->command, early)) {
    if (closes_circuit(*v)) return violation(c);
    return;  // an EXTEND2 in a plain RELAY cell is dropped, as tor does
  }
  if (auto* extend = std::get_if<cell::Extend2Msg>(&*msg)) return on_extend2(c, *extend);
  if (auto* sendme = std::get_if<cell::SendmeMsg>(&*msg); sendme && view->stream == StreamId{0}) {
    return on_circuit_sendme(c, *sendme);
  }
  if (std::holds_alternative<cell::DropMsg>(*msg)) return;
  if (std::holds_alternative<cell::TruncateMsg>(*msg)) {
    if (c.n) {
      destroy(c.n->chan, c.n->id, cell::DestroyReason::Requested);
      release(*c.n);
      c.n.reset();
    }
    if (c.extending) {
      pending.erase(c.extending->request);
      c.extending.reset();
    }
    originate(c, StreamId{0}, cell::TruncatedMsg{cell::DestroyReason::Requested});
    return;
  }
  // Everything else is for the edge: only the last hop may see it.
  if (c.n || c.extending) return violation(c);
  // With congestion control XON/XOFF replace stream SENDMEs; tor closes a
  // circuit whose client sends one anyway (sendme_process_stream_level).
  if (std::holds_alternative<cell::SendmeMsg>(*msg) && c.flow.congestion_control()) return violation(c);
  if (std::holds_alternative<cell::DataMsg>(*msg)) return on_data(c, view->stream, std::move(*msg));
  actions.push_back(DeliverStreamMessage{c.handle, view->stream, std::move(*msg)});
}

// Both modes report every accepted SENDME (a Conflux set at the exit counts
// its leg's acknowledged cells from it) and a reopened window. With
// congestion control a SENDME may leave the window shut (cwnd shrank), so
// the window is checked after it rather than assumed open.
void CircuitSwitch::Impl::on_circuit_sendme(Circuit& c, const cell::SendmeMsg& sendme) {
  const bool was_blocked = !c.flow.can_send();
  const bool was_slow_start = c.flow.in_slow_start();
  const CcChannelState chan = config.channel_state ? config.channel_state(c.p.chan, c.p.id) : CcChannelState{};
  if (!c.flow.on_sendme(now(), sendme, chan)) return violation(c);
  if (was_slow_start && !c.flow.in_slow_start()) {
    ++stats.cc_slow_start_exits.at(static_cast<std::size_t>(c.flow.info().slow_start_exit));
  }
  // Built in place: GCC 12 at -O2 warns (maybe-uninitialized, a false
  // positive) when a temporary variant is moved into the vector.
  actions.emplace_back(CircuitSendme{c.handle});
  if (was_blocked && c.flow.can_send()) actions.emplace_back(CircuitWritable{c.handle});
}

void CircuitSwitch::Impl::on_data(Circuit& c, StreamId stream, cell::RelayMsg msg) {
  auto digest = c.crypto.last_received_digest();
  if (!digest) return violation(c);
  auto due = c.flow.on_data_received(*digest);
  if (!due) return violation(c);
  actions.push_back(DeliverStreamMessage{c.handle, stream, std::move(msg)});
  // The exit may have closed the circuit in between only through us, so c
  // is still valid here.
  if (*due) (void)originate(c, StreamId{0}, **due);
}

void CircuitSwitch::Impl::on_extend2(Circuit& c, const cell::Extend2Msg& msg) {
  if (c.n || c.extending) return violation(c);
  std::optional<crypto::Ed25519Public> ed;
  std::optional<crypto::RsaFingerprint> rsa;
  for (const auto& ls : msg.link_specs) {
    if (auto* p = std::get_if<cell::LinkSpecEd25519Id>(&ls)) ed = p->id;
    if (auto* p = std::get_if<cell::LinkSpecLegacyId>(&ls)) rsa = p->id;
  }
  // Without an identity the next hop could not be authenticated.
  if (!ed && !rsa) return violation(c);
  if (msg.handshake_type != kHtypeNtor && msg.handshake_type != kHtypeNtorV3) return violation(c);
  if (pending.size() >= config.max_pending_extends) return close(c, cell::DestroyReason::ResourceLimit);
  const std::uint64_t request = next_request++;
  c.extending = PendingExtend{request, msg.handshake_type, msg.handshake_data};
  pending[request] = c.handle;
  actions.push_back(OpenChannel{request, ed, rsa, msg.link_specs});
}

bool CircuitSwitch::Impl::originate(Circuit& c, StreamId stream, const cell::RelayMsg& msg) {
  const bool is_data = std::holds_alternative<cell::DataMsg>(msg);
  if (is_data && !c.flow.can_send()) return false;
  auto payload = cell::encode_relay_msg_payload(stream, msg);
  if (!payload) return false;
  auto digest = c.crypto.originate_backward(*payload);
  // The clock is read for the one cell in sendme_inc that times a round trip.
  if (is_data && !c.flow.on_data_sent(c.flow.next_data_needs_time() ? now() : CcClock::time_point{}, digest))
    return false;
  send(c.p, cell::CellCommand::Relay, *payload);
  return true;
}

CircuitSwitch::CircuitSwitch(CircuitSwitchKeys keys, CircuitSwitchConfig config)
    : impl_(std::make_unique<Impl>(std::move(keys), config, stats_)) {}
CircuitSwitch::~CircuitSwitch() = default;

void CircuitSwitch::on_channel_open(ChannelId chan, ChannelRole role) {
  impl_->channels.try_emplace(chan, role, impl_->config.max_circuits_per_channel);
}

void CircuitSwitch::on_channel_closed(ChannelId chan) {
  std::vector<CircuitHandle> affected;
  for (auto& [h, c] : impl_->circuits)
    if (c->p.chan == chan || (c->n && c->n->chan == chan)) affected.push_back(h);
  for (CircuitHandle h : affected)
    if (Circuit* c = impl_->find(h)) impl_->close(*c, cell::DestroyReason::ChannelClosed, chan, chan);
  impl_->channels.erase(chan);
}

void CircuitSwitch::on_cell(ChannelId chan, const cell::CellView& cell) {
  using cell::CellCommand;
  if (cell.command == CellCommand::Create2) return impl_->on_create2(chan, cell.circ_id, cell.payload);
  if (cell.command == CellCommand::CreateFast) return impl_->on_create_fast(chan, cell.circ_id, cell.payload);
  Circuit* c = impl_->find(chan, cell.circ_id);
  if (c == nullptr) return;  // a cell racing a DESTROY: tor drops it too
  const bool from_client = c->p.chan == chan && c->p.id == cell.circ_id;
  switch (cell.command) {
    case CellCommand::Relay:
    case CellCommand::RelayEarly: {
      const bool early = cell.command == CellCommand::RelayEarly;
      return from_client ? impl_->on_relay_from_client(*c, cell.payload, early)
                         : impl_->on_relay_from_exit(*c, cell.payload, early);
    }
    case CellCommand::Created2:
      if (from_client) return impl_->violation(*c);
      return impl_->on_created2(*c, cell.payload);
    case CellCommand::Destroy: {
      auto d = cell::decode_destroy_cell(cell.payload);
      auto reason = d ? d->reason : cell::DestroyReason::None;
      // The side that sent DESTROY has already forgotten the circuit.
      return from_client ? impl_->close(*c, reason, chan, std::nullopt) : impl_->close(*c, reason, std::nullopt, chan);
    }
    default:
      // CREATE (no TAP here), CREATED_FAST (we never send CREATE_FAST
      // onward), CREATED on the wrong side, or a channel-level command on a
      // circuit.
      return impl_->violation(*c);
  }
}

void CircuitSwitch::on_channel_ready(std::uint64_t request, ChannelId chan) {
  auto it = impl_->pending.find(request);
  if (it == impl_->pending.end()) return;
  Circuit* c = impl_->find(it->second);
  impl_->pending.erase(it);
  if (c == nullptr || !c->extending) return;
  auto table = impl_->channels.find(chan);
  if (table == impl_->channels.end()) return impl_->close(*c, cell::DestroyReason::ConnectFailed);
  auto id = table->second.allocate();
  if (!id) return impl_->close(*c, cell::DestroyReason::ResourceLimit);
  c->n = Side{chan, *id};
  impl_->by_side[{chan, id->value()}] = c->handle;
  auto create = cell::encode_create2_cell(cell::Create2Cell{c->extending->htype, c->extending->hdata});
  if (!create) return impl_->violation(*c);
  impl_->send(*c->n, cell::CellCommand::Create2, *create);
}

void CircuitSwitch::on_channel_failed(std::uint64_t request, cell::DestroyReason reason) {
  auto it = impl_->pending.find(request);
  if (it == impl_->pending.end()) return;
  Circuit* c = impl_->find(it->second);
  impl_->pending.erase(it);
  if (c != nullptr) {
    c->extending.reset();
    impl_->close(*c, reason);
  }
}

bool CircuitSwitch::send_to_client(CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg) {
  Circuit* c = impl_->find(circuit);
  return c != nullptr && impl_->originate(*c, stream, msg);
}

bool CircuitSwitch::can_send_data(CircuitHandle circuit) const {
  auto it = impl_->circuits.find(circuit);
  return it != impl_->circuits.end() && it->second->flow.can_send() && !impl_->blocked_on_p_chan(*it->second);
}

bool CircuitSwitch::blocked_on_channel(CircuitHandle circuit) const {
  auto it = impl_->circuits.find(circuit);
  return it != impl_->circuits.end() && impl_->blocked_on_p_chan(*it->second);
}

void CircuitSwitch::on_circuit_unblocked(ChannelId chan, CircId id) {
  Circuit* c = impl_->find(chan, id);
  // Only an edge's streams wait for this; a middle's queue is the
  // scheduler's alone.
  if (c == nullptr || c->p.chan != chan || c->p.id != id || c->n || c->extending) return;
  if (c->flow.can_send()) impl_->actions.emplace_back(CircuitWritable{c->handle});
}

void CircuitSwitch::set_cc_params(const CcParams& params) { impl_->config.cc = params; }

bool CircuitSwitch::uses_congestion_control(CircuitHandle circuit) const {
  auto it = impl_->circuits.find(circuit);
  return it != impl_->circuits.end() && it->second->flow.congestion_control();
}

std::optional<RelayCircuitFlowInfo> CircuitSwitch::flow_info(CircuitHandle circuit) const {
  auto it = impl_->circuits.find(circuit);
  if (it == impl_->circuits.end()) return std::nullopt;
  return it->second->flow.info();
}

CcCircuitsView CircuitSwitch::cc_circuits(std::size_t limit) const {
  CcCircuitsView view;
  const auto larger = [](const CcCircuitSample& a, const CcCircuitSample& b) { return a.info.window > b.info.window; };
  for (const auto& [handle, c] : impl_->circuits) {
    if (!c->flow.congestion_control()) continue;
    const RelayCircuitFlowInfo info = c->flow.info();
    ++view.circuits;
    if (info.slow_start) ++view.in_slow_start;
    if (limit == 0) continue;
    // A min-heap of the `limit` largest so far: its front is the smallest.
    if (view.largest.size() < limit) {
      view.largest.push_back({handle, info});
      std::push_heap(view.largest.begin(), view.largest.end(), larger);
    } else if (info.window > view.largest.front().info.window) {
      std::pop_heap(view.largest.begin(), view.largest.end(), larger);
      view.largest.back() = {handle, info};
      std::push_heap(view.largest.begin(), view.largest.end(), larger);
    }
  }
  std::sort_heap(view.largest.begin(), view.largest.end(), larger);
  return view;
}

void CircuitSwitch::close_circuit(CircuitHandle circuit, cell::DestroyReason reason) {
  if (Circuit* c = impl_->find(circuit)) impl_->close(*c, reason);
}

std::vector<SwitchAction> CircuitSwitch::take_actions() { return std::exchange(impl_->actions, {}); }

void CircuitSwitch::take_actions(std::vector<SwitchAction>& into) {
  auto& mine = impl_->actions;
  if (into.empty()) {
    into.swap(mine);
    return;
  }
  into.insert(into.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
  mine.clear();
}

std::optional<ChannelId> CircuitSwitch::client_channel(CircuitHandle circuit) const {
  auto it = impl_->circuits.find(circuit);
  if (it == impl_->circuits.end()) return std::nullopt;
  return it->second->p.chan;
}

std::optional<CircuitHandle> CircuitSwitch::circuit_on(ChannelId chan, CircId id) const {
  auto it = impl_->by_side.find({chan, id.value()});
  if (it == impl_->by_side.end()) return std::nullopt;
  return it->second;
}

std::size_t CircuitSwitch::circuit_count() const noexcept { return impl_->circuits.size(); }

std::size_t CircuitSwitch::circuits_on(ChannelId chan) const {
  auto it = impl_->channels.find(chan);
  return it == impl_->channels.end() ? 0 : it->second.size();
}

}  // namespace conflux::proto
