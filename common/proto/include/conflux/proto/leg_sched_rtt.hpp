#pragma once
// Per-leg RTT estimate for Conflux leg scheduling (docs/CONFLUX-SCHEDULERS.md).
//
// The first sample is the LINK -> LINKED time (the exit: LINKED -> LINKED_ACK).
// Afterwards, as in the Conflux thesis, the sender stamps every
// `sample_every`-th DATA cell (100 under classic windows, 31 under
// congestion control) and the circuit SENDME that the cell triggers gives
// one sample: SENDMEs come back in order, so stamps are a FIFO.
//
// Smoothing is tor's N-EWMA in integer microseconds,
//   srtt = (2 * sample + (N - 1) * srtt) / (N + 1),
// and min RTT is the smallest sample. Like tor, a zero sample (the clock
// did not move) and a sample more than 5000 times the current srtt (a clock
// jump) are dropped. Time is injected: callers pass steady_clock values.
//
// Each SENDME also gives a delivery-rate sample, sample_every cells over the
// time since the previous SENDME, or since the first cell of the batch could
// have been acknowledged (batch start + min RTT) if that is later, so an idle
// gap does not count (the idea of BBR's ack_elapsed). A leg whose cells were
// trickled out reads slower than it is, so the estimate is a max filter that
// decays by 1/8 per SENDME.
//
// On a leg whose circuit runs congestion control the scheduling RTT is the
// circuit's own N-EWMA RTT (tor's conflux_update_rtt(leg, cc->ewma_rtt_usec)
// on every SENDME): on_cc_rtt() sets srtt to it, and from then on the
// SENDME timing here only feeds the delivery rate and min RTT, not srtt.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace conflux::proto {

using RttClock = std::chrono::steady_clock;
using RttDuration = std::chrono::microseconds;

struct RttParams {
  std::uint32_t sample_every = 100;  // DATA cells per circuit SENDME
  std::uint32_t ewma_n = 4;          // N of the N-EWMA; tor uses 2..10
};

class RttEstimator {
 public:
  // Stamps outstanding at once: a classic 1000-cell window holds 10; a
  // congestion-control cwnd of 2000 cells at 31 per SENDME holds 65.
  static constexpr std::size_t kMaxOutstanding = 128;

  explicit RttEstimator(RttParams params = {}) noexcept;

  // The LINK -> LINKED (or LINKED -> LINKED_ACK) round trip.
  void on_link_rtt(RttDuration rtt) noexcept;
  // A DATA cell was sent; returns true if it was stamped (it will be echoed
  // by a SENDME). A stamp that does not fit is not kept and the caller's
  // window has been overrun: counted in dropped_stamps().
  bool on_data_sent(RttClock::time_point now) noexcept;
  // A circuit SENDME arrived. Returns the sample taken, or nothing when no
  // stamp was outstanding or the sample was dropped (see above).
  std::optional<RttDuration> on_sendme(RttClock::time_point now) noexcept;
  // The leg's circuit's congestion control RTT (its N-EWMA), non-zero: it
  // becomes srtt (and min RTT when lower), and own samples stop moving srtt.
  void on_cc_rtt(RttDuration ewma) noexcept;
  [[nodiscard]] bool cc_rtt() const noexcept { return cc_rtt_; }

  [[nodiscard]] bool measured() const noexcept { return srtt_.count() > 0; }
  // Zero while unmeasured: schedulers treat that as an infinite RTT.
  [[nodiscard]] RttDuration srtt() const noexcept { return srtt_; }
  [[nodiscard]] RttDuration min_rtt() const noexcept { return min_rtt_; }
  [[nodiscard]] RttDuration last_sample() const noexcept { return last_; }
  // Cells per second the leg delivers (see above); 0 while unknown.
  [[nodiscard]] std::uint64_t delivery_rate() const noexcept { return rate_; }
  [[nodiscard]] std::uint64_t samples() const noexcept { return samples_; }
  [[nodiscard]] std::uint64_t dropped_samples() const noexcept { return dropped_samples_; }
  [[nodiscard]] std::uint64_t dropped_stamps() const noexcept { return dropped_stamps_; }
  [[nodiscard]] std::size_t outstanding() const noexcept { return count_; }
  // When the oldest stamped cell was sent, if one is outstanding: its
  // SENDME is the next one due, about one srtt later.
  [[nodiscard]] std::optional<RttClock::time_point> oldest_stamp() const noexcept;

 private:
  bool add_sample(RttDuration sample) noexcept;

  RttParams params_;
  struct Stamp {
    RttClock::time_point batch_start;  // first cell the SENDME acknowledges
    RttClock::time_point sent;         // the stamped (last) cell
  };
  std::array<Stamp, kMaxOutstanding> stamps_{};
  RttClock::time_point batch_start_{};
  std::optional<RttClock::time_point> last_sendme_;
  std::uint64_t rate_ = 0;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::uint64_t cells_sent_ = 0;
  RttDuration srtt_{0};
  RttDuration min_rtt_{0};
  RttDuration last_{0};
  std::uint64_t samples_ = 0;
  std::uint64_t dropped_samples_ = 0;
  std::uint64_t dropped_stamps_ = 0;
  bool cc_rtt_ = false;
};

}  // namespace conflux::proto
