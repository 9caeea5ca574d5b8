#include "conflux/client/circuit.hpp"

#include <algorithm>
#include <utility>
#include <variant>

namespace conflux::client {

Circuit::Circuit(CircuitInfo info, CircId id, net::CircuitCellSink sink, Hooks hooks, const net::Clock& clock)
    : info_(std::move(info)),
      clock_(clock),
      inner_(id, proto::ClientCircuitConfig{info_.congestion_control.value_or(proto::CcParams{}),
                                            [&clock] { return clock.now(); }, nullptr, hooks.channel_state}),
      sink_([this, s = std::move(sink)](CircId cid, cell::CellCommand cmd, bytes::ByteSpan body) {
        bytes_.written += CircuitBytes::kCellPayload;
        return s(cid, cmd, body);
      }),
      hooks_(std::move(hooks)),
      launched_(clock.now()) {}

Circuit::~Circuit() {
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) s->on_circuit_closed("circuit freed");
}

void Circuit::start() {
  if (phase_ != Phase::Building || inner_.state() != proto::ClientCircuit::State::Idle) return;
  const bool sent = info_.one_hop_fast ? inner_.create_fast() : inner_.create(info_.path.front().target);
  run();
  if (!sent || inner_.state() == proto::ClientCircuit::State::Closed) finish("could not send the first handshake");
}

void Circuit::extend_next() {
  const std::size_t have = inner_.hops();
  if (have >= info_.path.size()) {
    phase_ = Phase::Open;
    built_at_ = clock_.now();
    if (hooks_.built) hooks_.built(*this);
    if (leg_owner_ != nullptr && phase_ == Phase::Open) leg_owner_->on_leg_open(info_.serial);
    return;
  }
  if (have > 0 && hooks_.extended) hooks_.extended(*this, have);
  // Only the exit hop is asked for congestion control (prop 324).
  const proto::HopOptions options{info_.congestion_control.has_value() && have + 1 == info_.path.size()};
  const bool sent = inner_.extend(info_.path[have].target, options);
  run();
  if (!sent || inner_.state() == proto::ClientCircuit::State::Closed) finish("could not send EXTEND2");
}

void Circuit::on_cell(const cell::CellView& c) {
  if (phase_ == Phase::Closed) return;
  const std::size_t hops_before = inner_.hops();
  bytes_.read += CircuitBytes::kCellPayload;
  inner_.on_cell(c);
  run();
  if (phase_ == Phase::Building && inner_.hops() > hops_before && inner_.state() == proto::ClientCircuit::State::Ready)
    extend_next();
  after_cell();
}

std::optional<std::size_t> Circuit::unreachable_hop() const noexcept {
  const auto reason = inner_.destroyed();
  if (built_at_ || !reason ||
      (*reason != cell::DestroyReason::ConnectFailed && *reason != cell::DestroyReason::OrIdentity))
    return std::nullopt;
  // Hop k answered; the DESTROY came from it, about the hop after it.
  const std::size_t answered = inner_.hops();
  if (answered == 0 || answered >= info_.path.size()) return std::nullopt;
  return answered;
}

void Circuit::channel_unblocked() {
  if (phase_ != Phase::Open) return;
  // Not an edge of could_send_: the cell that blocked the circuit need not
  // have been DATA (a SENDME, an XON), so a stream may have been told no
  // while could_send_ still said yes. Whoever waits is woken; with the
  // window shut, the SENDME that opens it wakes them (after_cell).
  could_send_ = inner_.can_send_data();
  if (could_send_) wake();
}

void Circuit::wake() {
  if (leg_owner_ != nullptr) return leg_owner_->on_leg_writable(info_.serial);
  // Copy: a stream may detach while being told.
  for (auto* s : wake_order(streams_, wake_turn_))
    if (phase_ != Phase::Closed) s->on_circuit_writable();
}

void Circuit::after_cell() {
  if (phase_ == Phase::Closed) return;
  if (inner_.state() == proto::ClientCircuit::State::Closed) {
    if (auto reason = inner_.destroyed())
      return finish(std::string("destroyed by the relays (reason ") + std::to_string(static_cast<int>(*reason)) + ")");
    return finish(inner_.error().value_or("closed"));
  }
  const bool can = inner_.can_send_data();
  if (can && !could_send_) wake();
  could_send_ = can;
}

void Circuit::run() {
  net::run_client_circuit(inner_, sink_, [this](proto::ClientCircuitAction& a) { on_event(a); });
}

void Circuit::on_event(proto::ClientCircuitAction& action) {
  if (phase_ == Phase::Closed) return;
  if (auto* d = std::get_if<proto::ClientDeliver>(&action)) return deliver(d->hop, d->stream, d->msg);
  // A Conflux leg's owner times its RTT and window on every circuit SENDME.
  if (auto* s = std::get_if<proto::ClientSendmeAccepted>(&action))
    return deliver(s->hop, StreamId{0}, cell::RelayMsg{s->sendme});
}

void Circuit::deliver(HopNum hop, StreamId stream, const cell::RelayMsg& msg) {
  if (const auto* d = std::get_if<cell::DataMsg>(&msg)) bytes_.delivered_read += d->data.size();
  if (leg_owner_ != nullptr) {
    // The set checks the hop itself (only the join point may speak for it).
    return leg_owner_->on_leg_msg(info_.serial, hop, stream, msg);
  }
  // Only the exit speaks for streams; anything from another hop, or for a
  // stream we do not have, is dropped (tor drops cells for unknown streams).
  if (hop != last_hop()) return;
  auto it = streams_.find(stream.value());
  if (it == streams_.end()) return;
  it->second->on_stream_msg(msg);
}

void Circuit::link_closed(std::string_view why) {
  if (phase_ == Phase::Closed) return;
  finish(std::string("channel closed: ") + std::string(why));
}

void Circuit::close(cell::DestroyReason reason, std::string_view why) {
  if (phase_ == Phase::Closed) return;
  inner_.destroy(reason);
  run();
  finish(std::string(why));
}

void Circuit::finish(std::string why) {
  if (phase_ == Phase::Closed || finishing_) return;
  finishing_ = true;
  if (inner_.state() != proto::ClientCircuit::State::Closed) {
    inner_.destroy(cell::DestroyReason::None);
    run();
  }
  phase_ = Phase::Closed;
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) s->on_circuit_closed(why);
  if (auto* owner = std::exchange(leg_owner_, nullptr)) {
    was_leg_ = true;
    owner->on_leg_closed(info_.serial, why);
  }
  if (hooks_.closed) hooks_.closed(*this, why);
}

void Circuit::set_leg_owner(LegOwner* owner) {
  if (owner == nullptr && leg_owner_ != nullptr) was_leg_ = true;
  leg_owner_ = owner;
}

RelayIdentity Circuit::exit_identity() const {
  RelayIdentity id{};
  const auto& e = exit_hop().target.identity;
  std::copy(e.begin(), e.end(), id.begin());
  return id;
}

std::optional<StreamId> Circuit::attach(StreamEvents& events) {
  if (phase_ != Phase::Open || is_leg()) return std::nullopt;
  auto id = add_stream(streams_, next_stream_, events);
  if (!id) return std::nullopt;
  ++streams_attached_;
  if (!dirty_since_) dirty_since_ = clock_.now();
  return id;
}

void Circuit::detach(StreamId id) { streams_.erase(id.value()); }

bool Circuit::send(StreamId id, const cell::RelayMsg& msg) {
  if (phase_ != Phase::Open) return false;
  if (const auto* d = std::get_if<cell::DataMsg>(&msg)) bytes_.delivered_written += d->data.size();
  bool ok = inner_.send(last_hop(), id, msg);
  run();
  ok = ok && inner_.state() != proto::ClientCircuit::State::Closed;
  if (!ok && inner_.state() == proto::ClientCircuit::State::Closed) {
    // The cell could not go out and the circuit gave up (queue full...):
    // tell everyone after this call returns to the caller's own logic.
    finish(inner_.error().value_or("send failed"));
  }
  if (std::holds_alternative<cell::DataMsg>(msg)) could_send_ = inner_.can_send_data();
  return ok;
}

std::string Circuit::describe_flow() const {
  std::string out = name() + " can_send_data=" + std::to_string(can_send_data()) +
                    " blocked_on_channel=" + std::to_string(blocked_on_channel()) +
                    " could_send=" + std::to_string(could_send_);
  if (const proto::Vegas* v = inner_.vegas())
    out += " cwnd=" + std::to_string(v->cwnd()) + " inflight=" + std::to_string(v->inflight());
  return out;
}

}  // namespace conflux::client
