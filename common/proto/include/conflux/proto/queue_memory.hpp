#pragma once
// MaxMemInQueues (tor's cell_queues_check_size and circuits_handle_oom),
// sans-I/O: the global count of bytes in the relay's cell queues, the limit
// with tor's default, and the order in which circuits are closed when the
// limit is reached.
//
//   - Every channel's CircuitMux adds and removes its cells (and its
//     channel-level bytes) in one QueueGauge shared by all of them; each
//     channel adds its input and output buffers there too.
//   - The exit module adds the bytes it holds for servers and the Conflux
//     sets' reorder queues (tor's conflux_get_total_bytes_allocation).
//   - When the total reaches the limit, the runtime closes the circuits
//     whose OLDEST queued cell is oldest first, until the total is at most
//     90% of the limit (tor's FRACTION_OF_DATA_TO_RETAIN_ON_OOM): a circuit
//     whose cells have waited longest is the one its reader abandoned.
//   - Above 3/4 of the limit the relay counts as under memory pressure
//     (tor's MaxMemInQueues_low_threshold).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "conflux/bytes/strong_int.hpp"

namespace conflux::proto {

// What one queued cell costs: the 514 wire bytes and the time it was queued.
inline constexpr std::size_t kQueuedCellCost = 514 + sizeof(std::chrono::steady_clock::time_point);

// Bytes queued in all the relay's channel muxes together, and in their
// channels' own input and output buffers (the runtime's TLS read buffer, the
// batch being written and the one staged behind it): tor counts both, its
// cell queues and buf_get_total_allocation, against MaxMemInQueues.
struct QueueGauge {
  std::size_t bytes = 0;
  std::size_t channel_buffer_bytes = 0;
};

inline constexpr std::uint64_t kOneMegabyte = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kOneGigabyte = std::uint64_t{1} << 30;
// tor refuses less than this on a relay (MIN_SERVER_MB)...
inline constexpr std::uint64_t kMinServerMaxMem = 64 * kOneMegabyte;
// ... and warns below this (MIN_UNWARNED_SERVER_MB).
inline constexpr std::uint64_t kUnwarnedServerMaxMem = 256 * kOneMegabyte;

// tor's compute_real_max_mem_in_queues() for MaxMemInQueues 0 (unset) on a
// 64-bit host: 3/4 of the RAM (2/5 with 8 GB or more), between 256 MB and
// 8 GB; 8 GB when the RAM is unknown.
[[nodiscard]] std::uint64_t default_max_mem_in_queues(std::optional<std::uint64_t> total_ram);

struct MaxMemChoice {
  std::uint64_t bytes = 0;
  bool raised = false;  // below the relay minimum: raised to it
  bool low = false;     // below 256 MB: accepted, with tor's warning
};
// The limit in force for a configured value (0 = default). A relay may not
// go below 64 MB, as tor; `testing` (TestingTorNetwork) lets a test network
// use a smaller one (ours: flood tests must fill it in seconds).
[[nodiscard]] MaxMemChoice choose_max_mem_in_queues(std::uint64_t configured, std::optional<std::uint64_t> total_ram,
                                                    bool testing);

// One circuit's queue on one channel, or (channel 0, `handle` set) the
// bytes an exit holds for one circuit's servers, as the OOM handler sees it.
struct QueuedCircuit {
  std::uint64_t channel = 0;
  CircId circ{};
  std::size_t cells = 0;
  std::chrono::steady_clock::time_point oldest{};  // when its oldest queued cell (or byte) was queued
  std::uint64_t handle = 0;  // the circuit switch's handle, for an exit's buffers
  std::size_t bytes = 0;     // an exit's buffered bytes
};

struct OomPlan {
  std::size_t target = 0;                // close until the total is at most this
  std::vector<QueuedCircuit> victims;    // in the order to close them, oldest first
};

class QueueLimit {
 public:
  explicit QueueLimit(std::uint64_t max_bytes) noexcept : max_(max_bytes) {}
  void set_max(std::uint64_t max_bytes) noexcept { max_ = max_bytes; }
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  [[nodiscard]] bool over(std::size_t total) const noexcept { return total >= max_; }
  [[nodiscard]] bool under_pressure(std::size_t total) const noexcept { return total >= max_ / 4 * 3; }
  [[nodiscard]] std::size_t target() const noexcept { return static_cast<std::size_t>(max_ / 10 * 9); }
  // Which queues to close, oldest first, so that `total` falls to the
  // target (the runtime stops early once the gauge says it did: closing a
  // circuit frees its queues on both its channels).
  [[nodiscard]] OomPlan plan(std::size_t total, std::vector<QueuedCircuit> queues) const;

 private:
  std::uint64_t max_;
};

}  // namespace conflux::proto
