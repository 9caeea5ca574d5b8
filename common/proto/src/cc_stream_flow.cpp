#include "conflux/proto/cc_stream_flow.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace conflux::proto {

namespace {

constexpr std::uint32_t kInt32Max = 0x7fffffff;
constexpr std::uint32_t kUint32Max = std::numeric_limits<std::uint32_t>::max();
// tor's XON_COUNT_SCALE_AT, XOFF_COUNT_SCALE_AT and TOTAL_XMIT_SCALE_AT:
// halving early bounds how many spurious XON/XOFF an adversary can inject
// after a long quiet transfer before the byte check catches them.
constexpr std::uint8_t kCountScaleAt = 200;
constexpr std::uint32_t kTotalXmitScaleAt = 10u << 20;

std::uint32_t deliver_limit(const CcParams& p, StreamEdge edge) noexcept {
  // Clients and onion services write to local applications, which drain
  // differently from an exit's remote TCP peers.
  return edge == StreamEdge::Exit ? p.xoff_exit_bytes : p.xoff_client_bytes;
}

}  // namespace

// ---- StreamDeliverFlow ------------------------------------------------------

StreamDeliverFlow::StreamDeliverFlow(const CcParams& params, StreamEdge edge, const ClockHealth& clock) noexcept
    : xoff_limit_(deliver_limit(params, edge)),
      xon_rate_bytes_(params.xon_rate_bytes),
      xon_change_pct_(params.xon_change_pct),
      xon_ewma_cnt_(params.xon_ewma_cnt),
      clock_(&clock) {}

std::optional<StreamFlowMsg> StreamDeliverFlow::on_data_buffered(CcClock::time_point now_tp,
                                                                 std::uint64_t buffered) {
  const std::uint64_t now = cc_usec(now_tp);
  std::optional<StreamFlowMsg> out;
  if (buffered > xoff_limit_) {
    if (!xoff_sent_) {
      if (!grace_start_) {
        grace_start_ = now;
      } else if (now > *grace_start_ + kXoffGracePeriodUsec) {
        xoff_sent_ = true;
        ++xoffs_sent_;
        ewma_drain_rate_ = 0;
        grace_start_.reset();
        out = cell::XoffMsg{};
      }
    }
  } else {
    grace_start_.reset();
  }
  // Sockets are written only when they become writable, so a buffer that
  // holds more than one burst of cells is not draining: look at the rate
  // now rather than wait for a write.
  if (buffered > std::uint64_t{kMaxExpectedCellBurst} * kRelayPayloadSizeMin) {
    auto xon = decide_xon(now, 0, buffered);
    if (!out) out = xon;
  }
  return out;
}

std::optional<StreamFlowMsg> StreamDeliverFlow::on_drained(CcClock::time_point now, std::uint64_t written,
                                                           std::uint64_t buffered) {
  return decide_xon(cc_usec(now), written, buffered);
}

std::uint32_t StreamDeliverFlow::compute_drain_rate(std::uint64_t now) const noexcept {
  if (clock_->broken || !drain_start_) return 0;
  const std::uint64_t delta = now > *drain_start_ ? now - *drain_start_ : 0;
  if (delta == 0) return 0;
  if (prev_drained_bytes_ > kInt32Max / 1000 || prev_drained_bytes_ / delta > kInt32Max / 1000) return kInt32Max;
  // bytes/usec * 1000 = 1000 bytes/s.
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (prev_drained_bytes_ * 1000u) / delta));
}

void StreamDeliverFlow::update_drain_rate(std::uint64_t now, std::uint64_t buffered) {
  if (clock_->broken) {
    // Without a trustworthy clock, keep no short-term rate at all.
    drain_start_.reset();
    drained_bytes_ = 0;
  } else if (!drain_start_ && buffered > 0) {
    drain_start_ = now;
    drained_bytes_ = 0;
  }
  if (!drain_start_ || drained_bytes_ <= xon_rate_bytes_) return;
  // tor divides the previous batch's bytes by this batch's time, taking
  // this batch as its own baseline the first time.
  if (prev_drained_bytes_ == 0) prev_drained_bytes_ = drained_bytes_;
  const std::uint32_t rate = compute_drain_rate(now);
  prev_drained_bytes_ = drained_bytes_;
  if (rate != 0) {
    ewma_drain_rate_ = static_cast<std::uint32_t>(cc_n_count_ewma(rate, ewma_drain_rate_, xon_ewma_cnt_));
    // A new batch: advisory XONs go at most once per cc_xon_rate bytes.
    drained_bytes_ = 0;
    drain_start_.reset();
  }
}

bool StreamDeliverFlow::drain_rate_changed() const noexcept {
  if (clock_->broken || ewma_rate_last_sent_ == 0) return false;
  const std::uint64_t last = ewma_rate_last_sent_;
  return ewma_drain_rate_ > (100 + std::uint64_t{xon_change_pct_}) * last / 100 ||
         ewma_drain_rate_ < (100 - std::uint64_t{xon_change_pct_}) * last / 100;
}

cell::XonMsg StreamDeliverFlow::make_xon() {
  ewma_rate_last_sent_ = ewma_drain_rate_;
  xoff_sent_ = false;
  ++xons_sent_;
  return cell::XonMsg{ewma_drain_rate_};
}

std::optional<StreamFlowMsg> StreamDeliverFlow::decide_xon(std::uint64_t now, std::uint64_t written,
                                                           std::uint64_t buffered) {
  const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(written, kUint32Max));
  if (drained_bytes_ >= kUint32Max - n) {
    // Halve the count and move the batch start halfway to now: same rate,
    // room to keep counting.
    drained_bytes_ /= 2;
    if (drain_start_ && now > *drain_start_) drain_start_ = now - (now - *drain_start_) / 2;
  }
  drained_bytes_ += n;
  update_drain_rate(now, buffered);

  std::optional<StreamFlowMsg> out;
  if (!xoff_sent_) {
    if (drain_rate_changed()) out = make_xon();
  } else if (buffered == 0) {
    out = make_xon();
  }
  if (buffered == 0) {
    drain_start_.reset();
    // The socket keeps up with everything we give it: offer more.
    if (drained_bytes_ >= xon_rate_bytes_ && ewma_rate_last_sent_ != 0) {
      ewma_drain_rate_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(kInt32Max, 2ull * ewma_drain_rate_));
      prev_drained_bytes_ = drained_bytes_;
      drained_bytes_ = 0;
    }
  }
  return out;
}

// ---- StreamPackageFlow ------------------------------------------------------

StreamPackageFlow::StreamPackageFlow(const CcParams& params, StreamEdge edge) noexcept
    : check_dropmark_(edge != StreamEdge::Exit),
      // A client's peer is an exit; an onion service's peer is a client.
      xoff_limit_(edge == StreamEdge::OnionService ? params.xoff_client_bytes : params.xoff_exit_bytes),
      xon_limit_(std::min(xoff_limit_, params.xon_rate_bytes)) {}

void StreamPackageFlow::scale_down() noexcept {
  total_bytes_xmit_ /= 2;
  num_xoff_recv_ = static_cast<std::uint8_t>(num_xoff_recv_ / 2);
  num_xon_recv_ = static_cast<std::uint8_t>(num_xon_recv_ / 2);
}

void StreamPackageFlow::on_data_packaged(std::uint32_t len) noexcept {
  if (len >= kTotalXmitScaleAt || total_bytes_xmit_ >= kTotalXmitScaleAt - len) scale_down();
  total_bytes_xmit_ += len;
  if (bucket_) bucket_->consume(len);
}

std::uint64_t StreamPackageFlow::read_allowance(CcClock::time_point now, std::uint64_t wanted) noexcept {
  if (!bucket_) return wanted;
  bucket_->refill(now);
  return bucket_->allowance(wanted);
}

CcClock::duration StreamPackageFlow::read_wait(std::uint64_t n) const noexcept {
  return bucket_ ? bucket_->wait_for(n) : CcClock::duration::zero();
}

FlowCellVerdict StreamPackageFlow::on_xoff() noexcept {
  if (xoff_received_) return FlowCellVerdict::Suspicious;
  if (num_xoff_recv_ == kCountScaleAt) scale_down();
  ++num_xoff_recv_;
  FlowCellVerdict v = FlowCellVerdict::Valid;
  // The peer sends an XOFF only after buffering xoff_limit bytes of ours.
  if (check_dropmark_ && total_bytes_xmit_ < std::uint64_t{xoff_limit_} * num_xoff_recv_) {
    v = FlowCellVerdict::Suspicious;
  }
  xoff_received_ = true;
  return v;
}

FlowCellVerdict StreamPackageFlow::on_xon(const cell::XonMsg& msg, CcClock::time_point now) noexcept {
  if (num_xon_recv_ == kCountScaleAt) scale_down();
  ++num_xon_recv_;
  FlowCellVerdict v = FlowCellVerdict::Valid;
  if (check_dropmark_ && total_bytes_xmit_ < std::uint64_t{xon_limit_} * num_xon_recv_) {
    v = FlowCellVerdict::Suspicious;
  }
  const std::uint64_t rate = std::uint64_t{msg.kbps_ewma} * 1000;
  rate_ = (rate == 0 || rate > kInt32Max) ? kInt32Max : static_cast<std::uint32_t>(rate);
  // tor adjusts a bucket that starts full at INT32_MAX: the first rate
  // gives a full second's worth, later ones keep what is left (capped).
  if (rate_ == kInt32Max) {
    bucket_.reset();
  } else if (bucket_) {
    bucket_->adjust(rate_, rate_, now);
  } else {
    bucket_.emplace(rate_, rate_, now);
  }
  xoff_received_ = false;
  return v;
}

}  // namespace conflux::proto
