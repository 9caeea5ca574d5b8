#include "conflux/proto/circuit_mux.hpp"

namespace conflux::proto {
namespace {

// Emptied rings kept for reuse: enough for the circuits a channel serves in
// turn, and none larger than a blocked queue (cellq_high's default), so a
// circuit that once queued thousands of cells does not keep that memory.
constexpr std::size_t kSpareRings = 8;
constexpr std::size_t kSpareRingMaxCells = 256;

}  // namespace

CircuitMux::~CircuitMux() { gauge_sub(queued_cells_ * kQueuedCellCost + control_.size()); }

MuxPush CircuitMux::push(CircId circ, const WireCell& cell, MuxTime now) {
  auto [at, made] = queues_.try_emplace(circ);
  Queue& q = at->second;
  if (made && !spare_.empty()) {
    q.cells = std::move(spare_.back());
    spare_.pop_back();
  }
  if (q.cells.size() >= limits_.max_cells_per_circuit) return MuxPush::CircuitQueueFull;
  q.cells.push_back(cell, now);
  ++q.pushed;
  ++queued_cells_;
  gauge_add(kQueuedCellCost);
  if (q.cells.size() >= block_high_) q.blocked = true;
  if (q.cells.size() == 1) active_->activate(circ);
  if (sample_every_ == 0) return MuxPush::Queued;
  if (sample_countdown_ == 0) {
    q.samples.emplace_back(q.pushed - 1, CellSample{next_sample_seq_++, circ, now});  // at most one per queued cell
    sample_countdown_ = sample_every_;
  }
  --sample_countdown_;
  return MuxPush::Queued;
}

std::vector<QueuedCircuit> CircuitMux::queued_circuits(std::uint64_t channel) const {
  std::vector<QueuedCircuit> out;
  out.reserve(queues_.size());
  for (const auto& [circ, q] : queues_)
    if (!q.cells.empty()) out.push_back({channel, circ, q.cells.size(), q.cells.front().at, 0, 0});
  return out;
}

MuxPush CircuitMux::push_control(bytes::ByteSpan encoded) {
  if (control_.size() + encoded.size() > limits_.max_control_bytes) return MuxPush::ControlQueueFull;
  control_.insert(control_.end(), encoded.begin(), encoded.end());
  gauge_add(encoded.size());
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
  gauge_sub(dropped * kQueuedCellCost);
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
    gauge_sub(n);
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
  const WireCell& cell = q.cells.front().cell;
  out.insert(out.end(), cell.begin(), cell.end());
  q.cells.pop_front();
  gauge_sub(kQueuedCellCost);
  if (!q.samples.empty() && q.samples.front().first == q.popped) {
    last_sample_ = q.samples.front().second;
    q.samples.erase(q.samples.begin());
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
  if (!more) {
    if (spare_.size() < kSpareRings && q.cells.capacity() <= kSpareRingMaxCells) spare_.push_back(std::move(q.cells));
    queues_.erase(it);
  }
  active_->sent(circ, now, more);
  return kWireCellLen;
}

}  // namespace conflux::proto
