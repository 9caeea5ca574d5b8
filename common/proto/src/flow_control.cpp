#include "conflux/proto/flow_control.hpp"

namespace conflux::proto {

const char* to_string(FlowError e) noexcept {
  switch (e) {
    case FlowError::PackageWindowEmpty: return "DATA sent with an empty package window";
    case FlowError::DeliverWindowUnderflow: return "DATA beyond the deliver window";
    case FlowError::UnexpectedSendme: return "SENDME would overflow the package window";
    case FlowError::SendmeNoTagExpected: return "SENDME with no outstanding SENDME-triggering cell";
    case FlowError::SendmeTagRequired: return "SENDME v0 where v1 is required";
    case FlowError::SendmeTagBadLength: return "SENDME v1 tag of the wrong length";
    case FlowError::SendmeTagMismatch: return "SENDME v1 tag does not match";
    case FlowError::SendmeTagQueueFull: return "too many outstanding SENDME tags";
  }
  return "unknown flow-control error";
}

Result<WindowStatus, FlowError> PackageWindow::on_data_sent() noexcept {
  if (window_ == 0) return Unexpected{FlowError::PackageWindowEmpty};
  --window_;
  return window_ == 0 ? WindowStatus::Exhausted : WindowStatus::Open;
}

Result<WindowStatus, FlowError> PackageWindow::on_sendme() noexcept {
  if (window_ + params_.increment > params_.start) return Unexpected{FlowError::UnexpectedSendme};
  window_ += params_.increment;
  return WindowStatus::Open;
}

Result<bool, FlowError> DeliverWindow::on_data_received() noexcept {
  if (window_ == 0) return Unexpected{FlowError::DeliverWindowUnderflow};
  --window_;
  return sendme_due();
}

bool DeliverWindow::take_sendme() noexcept {
  if (!sendme_due()) return false;
  window_ += params_.increment;
  return true;
}

}  // namespace conflux::proto
