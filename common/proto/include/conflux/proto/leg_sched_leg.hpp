#pragma once
// What a Conflux leg scheduler reads about one leg: its RTT estimate, its
// window (classic package window or congestion-control cwnd), the DATA cells
// in flight, and whether the local channel is blocked. The set that owns the
// legs feeds it; schedulers only read it.
//
// Under classic fixed windows cwnd is 1000 and a SENDME acknowledges 100
// cells, and the RTT and delivery rate come from our own SENDME timing.
// Under congestion control the leg is built with the negotiated sendme_inc
// (31) and the caller hands it the circuit's congestion-control state after
// every circuit SENDME (on_cc: cwnd and N-EWMA RTT, as tor's scheduler
// reads them from the leg's cc object). Inflight is the leg's own count of
// the same DATA cells Vegas counts, less sendme_inc per SENDME: Vegas's own
// figure cannot be copied, because the runtime may report a batch of
// SENDMEs after Vegas handled all of them (it is then ahead of the set).
// A CC leg's rate is cwnd / RTT: what Vegas lets it carry, which is known
// before the leg ever carried a full window (a rate measured from SENDME
// spacing reads only what the leg was given).
#include <cstdint>
#include <optional>

#include "conflux/proto/leg_sched_rtt.hpp"

namespace conflux::proto {

struct LegWindowParams {
  std::uint32_t cwnd = 1000;        // cells that may be in flight
  std::uint32_t sendme_inc = 100;   // cells one circuit SENDME acknowledges
  std::uint32_t rtt_ewma_n = 4;     // see RttParams
};

// The leg's circuit's congestion control, as the runtime reads it from the
// circuit's flow state (Vegas at the exit's switch or the client's circuit).
struct LegCcView {
  std::uint32_t cwnd = 0;
  RttDuration ewma_rtt{0};  // 0 while Vegas has no RTT yet
  friend bool operator==(const LegCcView&, const LegCcView&) = default;
};

enum class LegSendmeResult : std::uint8_t {
  Ok,          // inflight reduced, an RTT sample taken if one was due
  Unexpected,  // fewer than sendme_inc cells were in flight: the peer's fault
};

class LegState {
 public:
  explicit LegState(LegWindowParams params = {}) noexcept;

  void on_link_rtt(RttDuration rtt) noexcept { rtt_.on_link_rtt(rtt); }
  // A DATA cell went out on this leg. False (and nothing changes) when the
  // window was already full: the caller should not have sent.
  bool on_data_sent(RttClock::time_point now) noexcept;
  LegSendmeResult on_sendme(RttClock::time_point now) noexcept;

  void set_blocked(bool blocked) noexcept { blocked_ = blocked; }
  void set_cwnd(std::uint32_t cwnd) noexcept { cwnd_ = cwnd; }
  // The circuit's congestion control state now (after it handled a SENDME):
  // the leg follows its cwnd and RTT from here on.
  void on_cc(const LegCcView& cc) noexcept;
  [[nodiscard]] bool congestion_controlled() const noexcept { return cc_; }
  // Cells per second the leg carries: cwnd / srtt under congestion control,
  // else the delivery rate measured from SENDME spacing; 0 while unknown.
  [[nodiscard]] std::uint64_t rate() const noexcept;

  // "Can send": room in the window and the local channel not blocked
  // (tor's circuit_ready_to_send).
  [[nodiscard]] bool can_send() const noexcept { return !blocked_ && inflight_ < cwnd_; }
  [[nodiscard]] std::uint32_t cwnd() const noexcept { return cwnd_; }
  [[nodiscard]] std::uint32_t inflight() const noexcept { return inflight_; }
  [[nodiscard]] std::uint32_t sendme_inc() const noexcept { return sendme_inc_; }
  [[nodiscard]] std::uint32_t package_window() const noexcept {
    return inflight_ < cwnd_ ? cwnd_ - inflight_ : 0;
  }
  [[nodiscard]] bool blocked() const noexcept { return blocked_; }
  [[nodiscard]] const RttEstimator& rtt() const noexcept { return rtt_; }
  [[nodiscard]] std::uint64_t cells_sent() const noexcept { return cells_sent_; }
  // How long a cell sent now would wait behind the cells this leg already
  // has in its bottleneck queue (the "linger time" of Linux MPTCP's default
  // scheduler), including its own transmission at the delivery rate. Each
  // cell sent advances a virtual departure clock by 1 / rate; nothing while
  // the rate is unknown.
  [[nodiscard]] std::optional<RttDuration> queue_delay(RttClock::time_point now) const noexcept;

 private:
  RttEstimator rtt_;
  std::uint32_t cwnd_;
  std::uint32_t sendme_inc_;
  std::uint32_t inflight_ = 0;
  bool blocked_ = false;
  bool cc_ = false;
  std::uint64_t cells_sent_ = 0;
  RttClock::time_point busy_until_{};
};

}  // namespace conflux::proto
