#pragma once
// One circuit's queued cells in a CircuitMux, oldest first, each with the
// time it was queued: a ring that grows by doubling and keeps its storage
// when it empties.
//
// Why not std::deque<WireCell>: a 514-byte cell is larger than libstdc++'s
// 512-byte deque node, so the deque made one heap allocation per cell pushed
// and one free per cell popped, on the path every relayed cell takes. The
// ring allocates only when it grows, and the mux hands an emptied ring to the
// next circuit that needs one (CircuitMux::spare_).
#include <cstddef>
#include <utility>
#include <vector>

#include "conflux/proto/circuit_priority.hpp"
#include "conflux/proto/wire_cell.hpp"

namespace conflux::proto {

struct QueuedCell {
  WireCell cell;
  MuxTime at;
};

class CellRing {
 public:
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
  [[nodiscard]] const QueuedCell& front() const noexcept { return slots_[head_]; }

  void push_back(const WireCell& cell, MuxTime at) {
    if (size_ == slots_.size()) grow();
    QueuedCell& slot = slots_[(head_ + size_) & (slots_.size() - 1)];
    slot.cell = cell;
    slot.at = at;
    ++size_;
  }
  void pop_front() noexcept {
    head_ = (head_ + 1) & (slots_.size() - 1);
    if (--size_ == 0) head_ = 0;
  }

 private:
  static constexpr std::size_t kFirstCapacity = 16;

  // Capacity stays a power of two, so an index wraps with a mask.
  void grow() {
    std::vector<QueuedCell> bigger(slots_.empty() ? kFirstCapacity : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<QueuedCell> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace conflux::proto
