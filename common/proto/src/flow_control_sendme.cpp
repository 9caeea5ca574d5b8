#include "conflux/proto/flow_control_sendme.hpp"

#include <algorithm>

#include "conflux/crypto/ct.hpp"

namespace conflux::proto {

namespace {

std::uint16_t round_initial(std::uint16_t w) noexcept {
  const std::uint16_t inc = kCircuitWindow.increment;
  w = std::clamp<std::uint16_t>(w, inc, kCircuitWindow.start);
  return static_cast<std::uint16_t>(w - w % inc);
}

}  // namespace

std::optional<FlowError> check_sendme_tag(const cell::SendmeMsg& msg, const crypto::SendmeDigest& expected,
                                          const SendmeConfig& config) noexcept {
  if (!msg.tag) {
    if (config.require_v1) return FlowError::SendmeTagRequired;
    return std::nullopt;
  }
  if (msg.tag->len != expected.size()) return FlowError::SendmeTagBadLength;
  if (!crypto::ct_equal(msg.tag->view(), expected)) return FlowError::SendmeTagMismatch;
  return std::nullopt;
}

CircuitSendmeSender::CircuitSendmeSender(SendmeConfig config, std::uint16_t initial_window) noexcept
    : config_(config), window_(kCircuitWindow, round_initial(initial_window)) {}

Result<WindowStatus, FlowError> CircuitSendmeSender::on_data_sent(const crypto::SendmeDigest& digest) noexcept {
  if (!window_.can_send()) return Unexpected{FlowError::PackageWindowEmpty};
  if (window_.next_cell_triggers_sendme()) {
    if (count_ == tags_.size()) return Unexpected{FlowError::SendmeTagQueueFull};
    tags_[(head_ + count_) % tags_.size()] = digest;
    ++count_;
  }
  return window_.on_data_sent();
}

Result<WindowStatus, FlowError> CircuitSendmeSender::on_sendme(const cell::SendmeMsg& msg) noexcept {
  // As tor's sendme_is_valid(): the expected tag is consumed whatever the
  // SENDME's version, and its absence alone is a violation.
  if (count_ == 0) return Unexpected{FlowError::SendmeNoTagExpected};
  const crypto::SendmeDigest expected = tags_[head_];
  head_ = (head_ + 1) % tags_.size();
  --count_;

  if (auto bad = check_sendme_tag(msg, expected, config_)) return Unexpected{*bad};
  return window_.on_sendme();
}

Result<std::optional<cell::SendmeMsg>, FlowError> CircuitSendmeReceiver::on_data_received(
    const crypto::SendmeDigest& digest) noexcept {
  auto due = window_.on_data_received();
  if (!due) return Unexpected{due.error()};
  if (!*due) return std::optional<cell::SendmeMsg>{};
  window_.take_sendme();
  cell::SendmeMsg msg;
  if (config_.emit_v1) {
    cell::SendmeTag tag;
    std::copy(digest.begin(), digest.end(), tag.bytes.begin());
    tag.len = static_cast<std::uint8_t>(digest.size());
    msg.tag = tag;
  }
  return std::optional<cell::SendmeMsg>{msg};
}

}  // namespace conflux::proto
