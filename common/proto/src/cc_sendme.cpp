#include "conflux/proto/cc_sendme.hpp"

namespace conflux::proto {

CcSendmeSender::CcSendmeSender(const CcParams& params, CcPathType path, CcAgreement agreement,
                               ClockHealth& clock, SendmeConfig config) noexcept
    : config_(config), vegas_(params, path, agreement.sendme_inc, clock) {}

bool CcSendmeSender::can_send() const noexcept {
  if (!vegas_.can_send()) return false;
  return !vegas_.next_cell_triggers_sendme() || pending_.size() < kMaxPendingCcSendmes;
}

Result<WindowStatus, FlowError> CcSendmeSender::on_data_sent(CcClock::time_point now,
                                                              const crypto::SendmeDigest& digest) {
  if (!vegas_.can_send()) return Unexpected{FlowError::PackageWindowEmpty};
  if (vegas_.next_cell_triggers_sendme()) {
    if (pending_.size() >= kMaxPendingCcSendmes) return Unexpected{FlowError::SendmeTagQueueFull};
    pending_.push_back(Pending{cc_usec(now), digest});
  }
  vegas_.on_cell_sent();
  return can_send() ? WindowStatus::Open : WindowStatus::Exhausted;
}

Result<WindowStatus, FlowError> CcSendmeSender::on_sendme(CcClock::time_point now, const cell::SendmeMsg& msg,
                                                           CcChannelState chan) {
  // As tor's sendme_is_valid(): the entry is consumed whatever the SENDME's
  // version, and its absence alone is a violation.
  if (pending_.empty()) return Unexpected{FlowError::SendmeNoTagExpected};
  const Pending entry = pending_.front();
  pending_.pop_front();
  if (auto bad = check_sendme_tag(msg, entry.digest, config_)) return Unexpected{*bad};
  vegas_.on_sendme(entry.sent_usec, cc_usec(now), chan);
  return can_send() ? WindowStatus::Open : WindowStatus::Exhausted;
}

}  // namespace conflux::proto
