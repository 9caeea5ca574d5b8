#pragma once
// One direction of an emulated link, apart from its devices and its clock:
// packets go in with the time they arrived and come out after the link's
// latency, give or take its jitter, unless the loss draw or a full queue
// drops them (docs/CONFLUX-NET.md, "Link emulation"). The delay-line process
// (app/delay_line.cpp) owns one per direction and executes its answers; unit
// tests drive it with made-up times.
//
// Packets leave in the order they arrived. A jitter draw that would make a
// packet overtake the one before it holds it back until that one leaves
// instead: real paths rarely reorder, and reordering makes TCP retransmit for
// nothing, which would measure the emulator rather than the protocol.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <vector>

namespace conflux::netspec {

// Time since an epoch the caller chooses (the process: steady_clock's).
using EmuTime = std::chrono::nanoseconds;

struct LinkParams {
  std::chrono::microseconds latency{0};  // one way
  std::chrono::microseconds jitter{0};   // each packet's delay is latency + U[-jitter, +jitter], at least 0
  double loss = 0.0;                     // probability in [0, 1] that a packet is dropped on entry
  // Bytes per second the link sends at, 0 = unlimited: a packet starts after the one before it has
  // been sent and takes size / rate to send, then travels `latency`. The queue bounds below are then
  // the link's buffer (drop-tail), so TCP meets a real bottleneck queue in both directions.
  std::uint64_t rate = 0;
  std::size_t queue_packets = 4096;      // packets in flight at most (drop-tail beyond)
  std::size_t queue_bytes = 8u << 20;    // bytes in flight at most (drop-tail beyond)
};

struct DelayLineCounters {
  std::uint64_t received = 0;   // packets pushed
  std::uint64_t lost = 0;       // dropped by the loss draw
  std::uint64_t overflow = 0;   // dropped because the queue was full
  std::uint64_t delivered = 0;  // packets popped
  std::uint64_t delivered_bytes = 0;
};

enum class PushResult : std::uint8_t { Queued, Lost, Overflow };

class DelayLine {
 public:
  // `seed` makes the loss and jitter draws reproducible.
  DelayLine(const LinkParams& params, std::uint64_t seed);

  PushResult push(EmuTime now, std::vector<std::uint8_t> packet);
  // When the first packet in the queue is due; nullopt when the queue is empty.
  [[nodiscard]] std::optional<EmuTime> next_release() const;
  // The first packet if it is due at `now`; call until nullopt.
  std::optional<std::vector<std::uint8_t>> pop_due(EmuTime now);

  [[nodiscard]] const DelayLineCounters& counters() const noexcept { return counters_; }
  [[nodiscard]] std::size_t queued_packets() const noexcept { return queue_.size(); }
  [[nodiscard]] std::size_t queued_bytes() const noexcept { return queued_bytes_; }

 private:
  struct Held {
    EmuTime release;
    std::vector<std::uint8_t> packet;
  };
  double uniform01();  // [0, 1), 53 bits
  EmuTime delay_for_next();

  LinkParams params_;
  std::mt19937_64 rng_;
  std::deque<Held> queue_;
  std::size_t queued_bytes_ = 0;
  EmuTime last_release_{0};
  EmuTime sent_until_{0};  // when the rate-limited sender is free (the previous packet has been sent)
  DelayLineCounters counters_;
};

}  // namespace conflux::netspec
