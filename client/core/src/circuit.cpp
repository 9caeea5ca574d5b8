#include "conflux/client/circuit.hpp"

#include <algorithm>
#include <utility>

namespace conflux::client {

Circuit::Circuit(CircuitInfo info, CircId id, net::ClientCircuit::CellSink sink, Hooks hooks, const net::Clock& clock)
    : info_(std::move(info)), clock_(clock), inner_(id, std::move(sink)), hooks_(std::move(hooks)), launched_(clock.now()) {}

Circuit::~Circuit() {
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) s->on_circuit_closed("circuit freed");
}

void Circuit::start() {
  if (phase_ != Phase::Building || inner_.state() != net::ClientCircuit::State::Idle) return;
  const bool sent = info_.one_hop_fast ? inner_.create_fast() : inner_.create(info_.path.front().target);
  if (!sent) finish("could not send the first handshake");
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
  if (!inner_.extend(info_.path[have].target)) finish("could not send EXTEND2");
}

void Circuit::on_cell(const cell::CellView& c) {
  if (phase_ == Phase::Closed) return;
  const std::size_t hops_before = inner_.hops();
  inner_.on_cell(c);
  if (phase_ == Phase::Building && inner_.hops() > hops_before && inner_.state() == net::ClientCircuit::State::Ready)
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

void Circuit::after_cell() {
  if (phase_ == Phase::Closed) return;
  deliver_inbox();
  if (inner_.state() == net::ClientCircuit::State::Closed) {
    if (auto reason = inner_.destroyed())
      return finish(std::string("destroyed by the relays (reason ") + std::to_string(static_cast<int>(*reason)) + ")");
    return finish(inner_.error().value_or("closed"));
  }
  const bool can = inner_.can_send_data();
  if (can && !could_send_ && leg_owner_ != nullptr) {
    leg_owner_->on_leg_writable(info_.serial);
  } else if (can && !could_send_) {
    // Copy: a stream may detach while being told.
    for (auto* s : wake_order(streams_, wake_turn_))
      if (phase_ != Phase::Closed) s->on_circuit_writable();
  }
  could_send_ = can;
}

void Circuit::deliver_inbox() {
  auto& inbox = inner_.inbox();
  while (!inbox.empty() && phase_ != Phase::Closed) {
    net::ReceivedMsg m = std::move(inbox.front());
    inbox.pop_front();
    if (leg_owner_ != nullptr) {
      // The set checks the hop itself (only the join point may speak for it).
      leg_owner_->on_leg_msg(info_.serial, m.hop, m.stream, m.msg);
      continue;
    }
    // Only the exit speaks for streams; anything from another hop, or for a
    // stream we do not have, is dropped (tor drops cells for unknown streams).
    if (m.hop != last_hop()) continue;
    auto it = streams_.find(m.stream.value());
    if (it == streams_.end()) continue;
    it->second->on_stream_msg(m.msg);
  }
}

void Circuit::link_closed(std::string_view why) {
  if (phase_ == Phase::Closed) return;
  finish(std::string("channel closed: ") + std::string(why));
}

void Circuit::close(cell::DestroyReason reason, std::string_view why) {
  if (phase_ == Phase::Closed) return;
  inner_.destroy(reason);
  finish(std::string(why));
}

void Circuit::finish(std::string why) {
  if (phase_ == Phase::Closed || finishing_) return;
  finishing_ = true;
  if (inner_.state() != net::ClientCircuit::State::Closed) inner_.destroy(cell::DestroyReason::None);
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
  const bool ok = inner_.send(last_hop(), id, msg);
  if (!ok && inner_.state() == net::ClientCircuit::State::Closed) {
    // The cell could not go out and the circuit gave up (queue full...):
    // tell everyone after this call returns to the caller's own logic.
    finish(inner_.error().value_or("send failed"));
  }
  if (std::holds_alternative<cell::DataMsg>(msg)) could_send_ = inner_.can_send_data();
  return ok;
}

}  // namespace conflux::client
