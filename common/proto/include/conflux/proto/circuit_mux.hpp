#pragma once
// A channel's outgoing cells, queued per circuit. Cells never go to a socket
// from where they are produced: producers push here, and the scheduler pops
// when the kernel can take more (and the bandwidth bucket allows). Which
// circuit goes next is the policy's choice (circuit_priority.hpp): round
// robin, or EWMA (the circuit that sent least recently).
//
// Every queue is bounded: a circuit whose queue is full is the caller's
// signal to close that circuit (tor's circ_max_cell_queue_size), and channel
// control cells have a bound of their own.
//
// A circuit is "blocked on the channel" from when its queue reaches the high
// watermark until it drains to the low one (tor's circuit_blocked_on_*_chan,
// with the consensus's cellq_high / cellq_low): congestion control reads it
// as an immediate congestion signal at each SENDME, and the circuit's edge
// stops packaging new DATA on it (tor's set_streams_blocked_on_circ, and
// conflux's circuit_ready_to_send for a leg) until the pop that unblocks it
// says so (last_popped_unblocked()).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/proto/cell_ring.hpp"
#include "conflux/proto/circuit_priority.hpp"
#include "conflux/proto/queue_memory.hpp"
#include "conflux/proto/wire_cell.hpp"

namespace conflux::proto {

struct CircuitMuxLimits {
  std::size_t max_cells_per_circuit = 2500;  // tor's circ_max_cell_queue_size default
  std::size_t max_control_bytes = 256 * 1024;
  // The relay's global count of queued bytes (MaxMemInQueues), shared by
  // every channel's mux; null: counted nowhere. A mux gives its bytes back
  // when it is destroyed.
  std::shared_ptr<QueueGauge> gauge;
};

enum class MuxPush : std::uint8_t { Queued, CircuitQueueFull, ControlQueueFull };

class CircuitMux {
 public:
  explicit CircuitMux(CircuitMuxLimits limits = {}, CircuitPriority priority = {})
      : limits_(std::move(limits)), active_(make_active_circuits(priority)) {}
  ~CircuitMux();
  CircuitMux(const CircuitMux&) = delete;
  CircuitMux& operator=(const CircuitMux&) = delete;

  // A cell of circuit `circ` (already encoded, circuit ID set), queued at
  // `now` (the OOM handler's age; tests may leave it at the epoch). With
  // sampling on, one cell in N keeps `now`, and pop_into() hands it back
  // (last_popped_sample()) so the caller can measure how long it waited.
  [[nodiscard]] MuxPush push(CircId circ, const WireCell& cell, MuxTime now = {});
  // Timestamp one cell in `every` pushed with a time (0: none).
  void set_sampling(std::uint32_t every) noexcept { sample_every_ = every; }
  // Channel-level bytes (handshake, NETINFO, DESTROY): sent before any circuit cell.
  [[nodiscard]] MuxPush push_control(bytes::ByteSpan encoded);

  // Changes the policy at run time (CircuitPriorityHalflife on SIGHUP).
  // Queued cells stay; EWMA history starts afresh, as tor's does.
  void set_priority(CircuitPriority priority);

  // Marks a circuit worse-class: each of its cells counts `factor` under
  // EWMA (the experimental priority factor F; 1 = a normal circuit). A
  // circuit keeps its mark until it is detached.
  void set_circuit_weight(CircId circ, double factor);

  // Drops everything queued for a circuit (it closed); returns the cells dropped.
  std::size_t detach(CircId circ);

  [[nodiscard]] bool empty() const noexcept { return control_.empty() && active_->empty(); }
  [[nodiscard]] std::size_t queued_cells() const noexcept { return queued_cells_; }
  [[nodiscard]] std::size_t queued_cells(CircId circ) const;
  [[nodiscard]] bool circuit_blocked(CircId circ) const;
  // Every circuit with cells queued here, with its oldest cell's time
  // (MaxMemInQueues' victims are chosen by it).
  [[nodiscard]] std::vector<QueuedCircuit> queued_circuits(std::uint64_t channel) const;
  // cellq_high / cellq_low (tor's defaults 256 and 10 until set). A queue
  // already past the new high mark is blocked at its next push.
  void set_block_watermarks(std::size_t high, std::size_t low) noexcept {
    block_high_ = high;
    block_low_ = low;
  }
  [[nodiscard]] std::size_t control_bytes() const noexcept { return control_.size(); }

  // Appends the next unit of output to `out`: all queued control bytes if
  // any, else one cell from the circuit the policy serves next. `now` is
  // when the cell leaves (read once per scheduling run by the caller).
  // Returns the bytes appended (0 when empty).
  std::size_t pop_into(std::vector<std::uint8_t>& out, MuxTime now);

  // The cell the last pop_into() returned, if it was sampled.
  [[nodiscard]] const std::optional<CellSample>& last_popped_sample() const noexcept { return last_sample_; }
  // The last pop_into() drained its circuit to the low watermark: the
  // circuit, which is no longer blocked.
  [[nodiscard]] std::optional<CircId> last_popped_unblocked() const noexcept { return last_unblocked_; }

  // How urgent this channel's next cell is, for schedulers that choose
  // across channels (KIST): the decayed EWMA count of the circuit that
  // would go next; lower is more urgent. Control bytes go first (-1).
  // nullopt when empty.
  [[nodiscard]] std::optional<double> next_priority(MuxTime now) const;
  // A circuit's decayed EWMA count (tests, metrics); 0 under round robin.
  [[nodiscard]] double circuit_count(CircId circ, MuxTime now) const { return active_->count(circ, now); }

 private:
  struct Queue {
    CellRing cells;
    // Sampled cells, with their index among the cells pushed to this queue,
    // oldest first (a vector: at most one in SchedulerSampleCells cells, and
    // an empty one allocates nothing, where a deque allocates when made).
    std::vector<std::pair<std::uint64_t, CellSample>> samples;
    std::uint64_t pushed = 0;
    std::uint64_t popped = 0;
    bool blocked = false;
  };

  CircuitMuxLimits limits_;
  std::vector<std::uint8_t> control_;
  std::unordered_map<CircId, Queue> queues_;
  // Rings of circuits that drained, for the next circuits that queue cells:
  // a bulk circuit drains at almost every scheduler run.
  std::vector<CellRing> spare_;
  std::unique_ptr<ActiveCircuits> active_;  // circuits with cells, and the service policy
  std::unordered_map<CircId, double> weights_;  // worse-class circuits (set_circuit_weight)
  std::size_t queued_cells_ = 0;
  void gauge_add(std::size_t bytes) noexcept {
    if (limits_.gauge) limits_.gauge->bytes += bytes;
  }
  void gauge_sub(std::size_t bytes) noexcept {
    if (limits_.gauge) limits_.gauge->bytes -= std::min(bytes, limits_.gauge->bytes);
  }
  std::size_t block_high_ = 256;
  std::size_t block_low_ = 10;
  std::uint32_t sample_every_ = 0;
  std::uint64_t sample_countdown_ = 0;
  std::uint64_t next_sample_seq_ = 0;
  std::optional<CellSample> last_sample_;
  std::optional<CircId> last_unblocked_;
};

}  // namespace conflux::proto
