#include "conflux/proto/circuit_mux.hpp"

namespace conflux::proto {

MuxPush CircuitMux::push(CircId circ, const WireCell& cell) {
  Queue& q = queues_[circ];
  if (q.cells.size() >= limits_.max_cells_per_circuit) return MuxPush::CircuitQueueFull;
  q.cells.push_back(cell);
  ++q.pushed;
  ++queued_cells_;
  if (q.cells.size() >= block_high_) q.blocked = true;
  if (q.cells.size() == 1) active_->activate(circ);
  return MuxPush::Queued;
}

MuxPush CircuitMux::push(CircId circ, const WireCell& cell, MuxTime now) {
  MuxPush r = push(circ, cell);
  if (r != MuxPush::Queued || sample_every_ == 0) return r;
  if (sample_countdown_ == 0) {
    Queue& q = queues_[circ];
    q.samples.emplace_back(q.pushed - 1, CellSample{next_sample_seq_++, circ, now});  // at most one per queued cell
    sample_countdown_ = sample_every_;
  }
  --sample_countdown_;
  return r;
}

MuxPush CircuitMux::push_control(bytes::ByteSpan encoded) {
  if (control_.size() + encoded.size() > limits_.max_control_bytes) return MuxPush::ControlQueueFull;
  control_.insert(control_.end(), encoded.begin(), encoded.end());
  return MuxPush::Queued;
}

void CircuitMux::set_priority(CircuitPriority priority) {
  auto next = make_active_circuits(priority);
  for (const auto& [circ, q] : queues_)
    if (!q.cells.empty()) next->activate(circ);
  for (const auto& [circ, w] : weights_) next->set_weight(circ, w);
  active_ = std::move(next);
}

void CircuitMux::set_circuit_weight(CircId circ, double factor) {
  if (factor == 1.0) {
    weights_.erase(circ);
  } else {
    weights_[circ] = factor;
  }
  active_->set_weight(circ, factor);
}

std::size_t CircuitMux::detach(CircId circ) {
  active_->remove(circ);
  weights_.erase(circ);
  auto it = queues_.find(circ);
  if (it == queues_.end()) return 0;
  std::size_t dropped = it->second.cells.size();
  queued_cells_ -= dropped;
  queues_.erase(it);
  return dropped;
}

std::size_t CircuitMux::queued_cells(CircId circ) const {
  auto it = queues_.find(circ);
  return it == queues_.end() ? 0 : it->second.cells.size();
}

bool CircuitMux::circuit_blocked(CircId circ) const {
  auto it = queues_.find(circ);
  return it != queues_.end() && it->second.blocked;
}

std::optional<double> CircuitMux::next_priority(MuxTime now) const {
  if (!control_.empty()) return -1.0;
  if (active_->empty()) return std::nullopt;
  return active_->head_priority(now);
}

std::size_t CircuitMux::pop_into(std::vector<std::uint8_t>& out, MuxTime now) {
  last_sample_.reset();
  last_unblocked_.reset();
  if (!control_.empty()) {
    std::size_t n = control_.size();
    out.insert(out.end(), control_.begin(), control_.end());
    control_.clear();
    return n;
  }
  CircId circ{};
  auto it = queues_.end();
  while (true) {
    if (active_->empty()) return 0;
    circ = active_->head();
    it = queues_.find(circ);
    if (it != queues_.end() && !it->second.cells.empty()) break;
    // Cannot happen (the policy holds exactly the circuits with cells);
    // drop the stray entry rather than serve nothing or spin.
    active_->remove(circ);
  }
  Queue& q = it->second;
  out.insert(out.end(), q.cells.front().begin(), q.cells.front().end());
  q.cells.pop_front();
  if (!q.samples.empty() && q.samples.front().first == q.popped) {
    last_sample_ = q.samples.front().second;
    q.samples.pop_front();
  }
  ++q.popped;
  --queued_cells_;
  if (q.blocked && q.cells.size() <= block_low_) {
    q.blocked = false;
    last_unblocked_ = circ;
  }
  bool more = !q.cells.empty();
  // Keep no queue for idle circuits: the map stays as small as the set of
  // circuits with traffic in flight (the policy keeps their EWMA history).
  if (!more) queues_.erase(it);
  active_->sent(circ, now, more);
  return kWireCellLen;
}

}  // namespace conflux::proto
