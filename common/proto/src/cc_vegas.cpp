#include "conflux/proto/cc_vegas.hpp"

#include <algorithm>

namespace conflux::proto {

Vegas::Vegas(const CcParams& params, CcPathType path, std::uint8_t sendme_inc, ClockHealth& clock) noexcept
    : vegas_(params.vegas(path)),
      ss_cwnd_max_(params.ss_cwnd_max),
      cwnd_min_(params.cwnd_min),
      cwnd_max_(params.cwnd_max),
      cwnd_inc_(params.cwnd_inc),
      cwnd_inc_pct_ss_(params.cwnd_inc_pct_ss),
      cwnd_inc_rate_(params.cwnd_inc_rate),
      cwnd_full_gap_(params.cwnd_full_gap),
      cwnd_full_minpct_(params.cwnd_full_minpct),
      cwnd_full_per_cwnd_(params.cwnd_full_per_cwnd != 0),
      // A negotiated increment of 0 is refused by the handshake; 1 keeps
      // the modulo arithmetic defined if a caller passes it anyway.
      sendme_inc_(sendme_inc == 0 ? 1 : sendme_inc),
      rtt_(params, clock),
      // tor starts at cc_cwnd_init even above cc_cwnd_max (and then trips a
      // non-fatal assertion at the first SENDME); the clamp keeps cwnd <=
      // cwnd_max true from the start.
      cwnd_(std::min<std::uint64_t>(params.cwnd_init, params.cwnd_max)) {}

std::uint64_t Vegas::update_rate() const noexcept {
  if (in_slow_start_) return 1;
  // Rounded to the nearest whole number of SENDMEs.
  const std::uint64_t per = cwnd_inc_rate_ * sendme_inc_;
  return (cwnd_ + per / 2) / per;
}

std::uint64_t Vegas::sendmes_per_cwnd() const noexcept { return (cwnd_ + sendme_inc_ / 2) / sendme_inc_; }

std::uint64_t Vegas::slow_start_inc() const noexcept {
  if (cwnd_ <= vegas_.ss_cwnd_cap) {
    // At least one sendme_inc per SENDME, so cwnd about doubles per RTT.
    return (cwnd_inc_pct_ss_ * sendme_inc_ + 50) / 100;
  }
  // RFC 3742: K = 2 cwnd / max_ssthresh, cwnd += MSS / K.
  return std::max<std::uint64_t>((std::uint64_t{sendme_inc_} * vegas_.ss_cwnd_cap + cwnd_) / (2 * cwnd_), 1);
}

bool Vegas::update_bdp(std::uint64_t rtt_usec, CcChannelState chan) noexcept {
  if (rtt_.ewma_usec() == 0) {
    // The clock has been stalled for the circuit's whole life: take the
    // cwnd itself, less what a blocked channel is holding.
    std::uint64_t cwnd = cwnd_;
    if (chan.blocked) {
      cwnd = chan.queued_cells >= cwnd ? cwnd_min_ : std::max(cwnd - chan.queued_cells, cwnd_min_);
      blocked_chan_ = true;
    } else {
      blocked_chan_ = false;
    }
    bdp_ = cwnd;
    return chan.blocked;
  }
  // Multiplied first: min RTT and EWMA are close, so dividing first loses
  // most of the precision.
  bdp_ = cwnd_ * rtt_.min_usec() / rtt_.ewma_usec();
  // Blocking and unblocking are each a congestion signal, acted on at once
  // but only once per change.
  if (chan.blocked != blocked_chan_) {
    blocked_chan_ = chan.blocked;
    next_cc_event_ = 0;
  }
  return chan.blocked || rtt_usec != 0;
}

void Vegas::update_cwnd_full() noexcept {
  // A few sendme_incs of slack: edge buffers may not refill before several
  // SENDMEs arrive together.
  const auto gap = static_cast<std::uint64_t>(cwnd_full_gap_ * sendme_inc_);
  if (inflight_ + gap >= cwnd_) {
    cwnd_full_ = true;
  } else if (100 * inflight_ < static_cast<std::uint64_t>(cwnd_full_minpct_) * cwnd_) {
    cwnd_full_ = false;
  }
}

bool Vegas::cwnd_full_reset() const noexcept {
  if (cwnd_full_per_cwnd_) return next_cwnd_event_ == sendmes_per_cwnd();
  return next_cc_event_ == update_rate();
}

void Vegas::exit_slow_start(SlowStartExit why) noexcept {
  // tor may call its exit twice on one SENDME (gamma, then ss_max); the
  // first reason is the one kept.
  if (in_slow_start_) ss_exit_ = why;
  in_slow_start_ = false;
}

void Vegas::slow_start_step(std::uint64_t queue_use) noexcept {
  if (queue_use < vegas_.gamma && !blocked_chan_) {
    // An application-limited circuit (cwnd not full) does not grow.
    if (cwnd_full_) {
      const std::uint64_t inc = slow_start_inc();
      cwnd_ += inc;
      if (inc * sendmes_per_cwnd() <= cwnd_inc_ * cwnd_inc_rate_) exit_slow_start(SlowStartExit::IncFloor);
    }
  } else {
    cwnd_ = bdp_ + vegas_.gamma;
    exit_slow_start(SlowStartExit::Congestion);
  }
  if (cwnd_ >= ss_cwnd_max_) {
    cwnd_ = ss_cwnd_max_;
    exit_slow_start(SlowStartExit::SsMax);
  }
}

void Vegas::steady_state_step(std::uint64_t queue_use) noexcept {
  if (queue_use > vegas_.delta) {
    const std::uint64_t target = bdp_ + vegas_.delta;
    cwnd_ = target > cwnd_inc_ ? target - cwnd_inc_ : 0;
  } else if (queue_use > vegas_.beta || blocked_chan_) {
    cwnd_ = cwnd_ > cwnd_inc_ ? cwnd_ - cwnd_inc_ : 0;
  } else if (cwnd_full_ && queue_use < vegas_.alpha) {
    cwnd_ += cwnd_inc_;
  }
  cwnd_ = std::max(cwnd_, cwnd_min_);
}

void Vegas::on_sendme(std::uint64_t sent_usec, std::uint64_t now_usec, CcChannelState chan) noexcept {
  if (next_cc_event_ != 0) --next_cc_event_;
  if (next_cwnd_event_ != 0) --next_cwnd_event_;

  const CcRttContext ctx{in_slow_start_, cwnd_, cwnd_min_, update_rate()};
  const std::uint64_t rtt = rtt_.on_sendme(sent_usec, now_usec, ctx);
  if (update_bdp(rtt, chan)) {
    const std::uint64_t queue_use = bdp_ > cwnd_ ? 0 : cwnd_ - bdp_;
    update_cwnd_full();
    if (in_slow_start_) {
      slow_start_step(queue_use);
    } else if (next_cc_event_ == 0) {
      steady_state_step(queue_use);
    }
    if (next_cwnd_event_ == 0) next_cwnd_event_ = static_cast<std::uint16_t>(sendmes_per_cwnd());
    if (next_cc_event_ == 0) next_cc_event_ = static_cast<std::uint16_t>(update_rate());
    if (cwnd_full_reset()) cwnd_full_ = false;
  }
  // The caller has checked that a SENDME was due, so inflight >= sendme_inc.
  inflight_ = inflight_ >= sendme_inc_ ? inflight_ - sendme_inc_ : 0;
  cwnd_ = std::min(cwnd_, cwnd_max_);
}

}  // namespace conflux::proto
