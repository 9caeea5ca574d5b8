#pragma once
// TOR_VEGAS, the congestion-window algorithm of tor 0.4.9
// (congestion_control_vegas.c and the BDP half of congestion_control_common.c),
// for one circuit hop that packages DATA. Integer arithmetic in tor's form,
// so a cwnd sequence computed by hand from the formulas below is what this
// class produces.
//
// On each SENDME (after its tag was checked, cc_sendme.hpp):
//   1. count down next_cc_event and next_cwnd_event;
//   2. update the RTT (cc_rtt.hpp), then BDP = cwnd * min_rtt / ewma_rtt (or
//      cwnd less the blocked channel's queue while no RTT was ever measured);
//      when neither moved, only inflight drops;
//   3. queue_use = cwnd - BDP (floored at 0); cwnd_full is set when
//      inflight + cc_cwnd_full_gap * sendme_inc >= cwnd, cleared when
//      inflight < cc_cwnd_full_minpct % of cwnd;
//   4. slow start: while queue_use < gamma and the channel is not blocked,
//      a full cwnd grows by (pct_ss * sendme_inc + 50) / 100 per SENDME, or
//      by RFC 3742's max(1, (sendme_inc * ss_cap + cwnd) / (2 cwnd)) above
//      ss_cap; slow start ends when that step falls to the steady-state one,
//      on any congestion signal (cwnd = BDP + gamma), or at cc_ss_max;
//   5. steady state, once per update period (CWND_UPDATE_RATE SENDMEs):
//      queue_use > delta: cwnd = BDP + delta - cwnd_inc; > beta or channel
//      blocked: cwnd -= cwnd_inc; full and < alpha: cwnd += cwnd_inc; then
//      at least cwnd_min;
//   6. reload the event counters, reset cwnd_full once per cwnd, inflight -=
//      sendme_inc, and clamp cwnd to cc_cwnd_max.
//
// One deliberate difference: tor's steady-state decrements are unsigned and
// wrap (then get clamped to cc_cwnd_max) when cwnd_inc exceeds cwnd or
// BDP + delta, which only parameters far from the defaults (a large
// cc_cwnd_inc, a tiny delta) can cause; here they stop at 0 and the
// cwnd_min floor applies.
#include <cstdint>

#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"

namespace conflux::proto {

// The local channel towards the peer, at the time of the SENDME: a blocked
// channel is an immediate congestion signal (tor's circuit_blocked_on_*_chan
// and the cells queued on it).
struct CcChannelState {
  bool blocked = false;
  std::uint64_t queued_cells = 0;
};

enum class SlowStartExit : std::uint8_t {
  None,          // still in slow start
  IncFloor,      // the limited slow-start step fell to the steady-state one
  Congestion,    // queue_use reached gamma, or the channel blocked
  SsMax,         // cwnd reached cc_ss_max
};

class Vegas {
 public:
  Vegas(const CcParams& params, CcPathType path, std::uint8_t sendme_inc, ClockHealth& clock) noexcept;

  // A DATA cell was packaged (inflight + 1). The caller checks can_send().
  void on_cell_sent() noexcept { ++inflight_; }
  // A valid SENDME acknowledging the cell stamped at `sent_usec`.
  void on_sendme(std::uint64_t sent_usec, std::uint64_t now_usec, CcChannelState chan = {}) noexcept;

  [[nodiscard]] bool can_send() const noexcept { return inflight_ < cwnd_; }
  // tor's congestion_control_get_package_window(): 0 while inflight exceeds
  // a cwnd that was just reduced.
  [[nodiscard]] std::uint64_t package_window() const noexcept { return inflight_ > cwnd_ ? 0 : cwnd_ - inflight_; }
  // The next packaged cell makes the peer send a SENDME (tor's
  // circuit_sent_cell_for_sendme, called before inflight counts the cell).
  [[nodiscard]] bool next_cell_triggers_sendme() const noexcept { return (inflight_ + 1) % sendme_inc_ == 0; }

  [[nodiscard]] std::uint64_t cwnd() const noexcept { return cwnd_; }
  [[nodiscard]] std::uint64_t inflight() const noexcept { return inflight_; }
  [[nodiscard]] std::uint64_t bdp() const noexcept { return bdp_; }
  [[nodiscard]] std::uint8_t sendme_inc() const noexcept { return sendme_inc_; }
  [[nodiscard]] bool in_slow_start() const noexcept { return in_slow_start_; }
  [[nodiscard]] SlowStartExit slow_start_exit() const noexcept { return ss_exit_; }
  [[nodiscard]] bool cwnd_full() const noexcept { return cwnd_full_; }
  [[nodiscard]] bool blocked_chan() const noexcept { return blocked_chan_; }
  [[nodiscard]] std::uint16_t next_cc_event() const noexcept { return next_cc_event_; }
  [[nodiscard]] const CcRttEstimator& rtt() const noexcept { return rtt_; }
  // CWND_UPDATE_RATE: SENDMEs between steady-state updates (0 = every one).
  [[nodiscard]] std::uint64_t update_rate() const noexcept;
  // SENDME_PER_CWND, rounded.
  [[nodiscard]] std::uint64_t sendmes_per_cwnd() const noexcept;
  // RFC 3742 limited slow-start increment for the current cwnd.
  [[nodiscard]] std::uint64_t slow_start_inc() const noexcept;

 private:
  [[nodiscard]] bool update_bdp(std::uint64_t rtt_usec, CcChannelState chan) noexcept;
  void update_cwnd_full() noexcept;
  void slow_start_step(std::uint64_t queue_use) noexcept;
  void steady_state_step(std::uint64_t queue_use) noexcept;
  void exit_slow_start(SlowStartExit why) noexcept;
  [[nodiscard]] bool cwnd_full_reset() const noexcept;

  // Parameters (tor caches them on the object at creation).
  VegasParams vegas_;
  std::uint64_t ss_cwnd_max_;
  std::uint64_t cwnd_min_;
  std::uint64_t cwnd_max_;
  std::uint64_t cwnd_inc_;
  std::uint64_t cwnd_inc_pct_ss_;
  std::uint64_t cwnd_inc_rate_;
  std::int64_t cwnd_full_gap_;
  std::int64_t cwnd_full_minpct_;
  bool cwnd_full_per_cwnd_;
  std::uint8_t sendme_inc_;

  CcRttEstimator rtt_;
  std::uint64_t cwnd_;
  std::uint64_t inflight_ = 0;
  std::uint64_t bdp_ = 0;
  std::uint16_t next_cc_event_ = 1;  // tor's width
  std::uint16_t next_cwnd_event_ = 0;
  bool in_slow_start_ = true;
  bool cwnd_full_ = false;
  bool blocked_chan_ = false;
  SlowStartExit ss_exit_ = SlowStartExit::None;
};

}  // namespace conflux::proto
