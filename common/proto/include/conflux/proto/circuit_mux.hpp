#pragma once
// A channel's outgoing cells, queued per circuit. Cells never go to a socket
// from where they are produced: producers push here, and the scheduler pops
// when the kernel can take more (and the bandwidth bucket allows). Round
// robin across circuits for now; the EWMA policy (issue 6) replaces pick().
//
// Every queue is bounded: a circuit whose queue is full is the caller's
// signal to close that circuit (tor's circ_max_cell_queue_size), and channel
// control cells have a bound of their own.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/strong_int.hpp"

namespace conflux::proto {

// One encoded fixed-size cell as it goes on the wire (link v4+: 514 bytes).
inline constexpr std::size_t kWireCellLen = 514;
using WireCell = std::array<std::uint8_t, kWireCellLen>;

struct CircuitMuxLimits {
  std::size_t max_cells_per_circuit = 2500;  // tor's circ_max_cell_queue_size default
  std::size_t max_control_bytes = 256 * 1024;
};

enum class MuxPush : std::uint8_t { Queued, CircuitQueueFull, ControlQueueFull };

class CircuitMux {
 public:
  explicit CircuitMux(CircuitMuxLimits limits = {}) : limits_(limits) {}

  // A cell of circuit `circ` (already encoded, circuit ID set).
  [[nodiscard]] MuxPush push(CircId circ, const WireCell& cell);
  // Channel-level bytes (handshake, NETINFO, DESTROY): sent before any circuit cell.
  [[nodiscard]] MuxPush push_control(bytes::ByteSpan encoded);

  // Drops everything queued for a circuit (it closed); returns the cells dropped.
  std::size_t detach(CircId circ);

  [[nodiscard]] bool empty() const noexcept { return control_.empty() && active_.empty(); }
  [[nodiscard]] std::size_t queued_cells() const noexcept { return queued_cells_; }
  [[nodiscard]] std::size_t queued_cells(CircId circ) const;
  [[nodiscard]] std::size_t control_bytes() const noexcept { return control_.size(); }

  // Appends the next unit of output to `out`: all queued control bytes if
  // any, else one cell from the next circuit in round-robin order. Returns
  // the bytes appended (0 when empty).
  std::size_t pop_into(std::vector<std::uint8_t>& out);

 private:
  struct Queue {
    std::deque<WireCell> cells;
    std::list<CircId>::iterator active_pos;
    bool active = false;
  };

  CircuitMuxLimits limits_;
  std::vector<std::uint8_t> control_;
  std::unordered_map<CircId, Queue> queues_;
  std::list<CircId> active_;  // circuits with cells, in service order
  std::size_t queued_cells_ = 0;
};

}  // namespace conflux::proto
