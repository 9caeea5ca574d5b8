#include "conflux/proto/circuit_mux.hpp"

namespace conflux::proto {

MuxPush CircuitMux::push(CircId circ, const WireCell& cell) {
  Queue& q = queues_[circ];
  if (q.cells.size() >= limits_.max_cells_per_circuit) return MuxPush::CircuitQueueFull;
  q.cells.push_back(cell);
  ++queued_cells_;
  if (!q.active) {
    q.active_pos = active_.insert(active_.end(), circ);
    q.active = true;
  }
  return MuxPush::Queued;
}

MuxPush CircuitMux::push_control(bytes::ByteSpan encoded) {
  if (control_.size() + encoded.size() > limits_.max_control_bytes) return MuxPush::ControlQueueFull;
  control_.insert(control_.end(), encoded.begin(), encoded.end());
  return MuxPush::Queued;
}

std::size_t CircuitMux::detach(CircId circ) {
  auto it = queues_.find(circ);
  if (it == queues_.end()) return 0;
  std::size_t dropped = it->second.cells.size();
  queued_cells_ -= dropped;
  if (it->second.active) active_.erase(it->second.active_pos);
  queues_.erase(it);
  return dropped;
}

std::size_t CircuitMux::queued_cells(CircId circ) const {
  auto it = queues_.find(circ);
  return it == queues_.end() ? 0 : it->second.cells.size();
}

std::size_t CircuitMux::pop_into(std::vector<std::uint8_t>& out) {
  if (!control_.empty()) {
    std::size_t n = control_.size();
    out.insert(out.end(), control_.begin(), control_.end());
    control_.clear();
    return n;
  }
  if (active_.empty()) return 0;
  CircId circ = active_.front();
  active_.pop_front();
  Queue& q = queues_.at(circ);
  out.insert(out.end(), q.cells.front().begin(), q.cells.front().end());
  q.cells.pop_front();
  --queued_cells_;
  if (q.cells.empty()) {
    // Keep no per-circuit state for idle circuits: the map stays as small as
    // the set of circuits with traffic in flight.
    queues_.erase(circ);
  } else {
    q.active_pos = active_.insert(active_.end(), circ);
  }
  return kWireCellLen;
}

}  // namespace conflux::proto
