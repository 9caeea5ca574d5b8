#pragma once
// The circuit-level SENDME logic of a client circuit's last hop, both
// directions, in one of two modes chosen when the hop is added:
//
//  - fixed windows (tor-spec 7.3): a 1000-cell package window, a v1 SENDME
//    every 100 cells each way (flow_control_sendme.hpp);
//  - congestion control, once the exit agreed in its ntor-v3 reply
//    (cc_negotiation.hpp): packaging through CcSendmeSender (Vegas; its
//    cwnd, not 1000, bounds what is in flight) and a SENDME back every
//    sendme_inc DATA cells, with the same deliver window of 1000 that tor
//    keeps (sendme_circuit_consider_sending with the cc's sendme_inc).
//
// Congestion control needs the time of each DATA cell sent and each SENDME
// received; the circuit passes in its runtime's `now` (the machine reads no
// clock).
#include <optional>
#include <variant>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"
#include "conflux/proto/cc_sendme.hpp"
#include "conflux/proto/flow_control.hpp"
#include "conflux/proto/flow_control_sendme.hpp"

namespace conflux::proto {

class ClientCircuitFlow {
 public:
  // Fixed windows.
  ClientCircuitFlow() = default;
  // Congestion control with what the exit agreed to. `health` is the
  // process's (see ClockHealth) and outlives the flow.
  ClientCircuitFlow(const CcParams& params, CcAgreement agreement, ClockHealth& health)
      : package_(std::in_place_type<CcSendmeSender>, params, CcPathType::Exit, agreement, health),
        deliver_(SendmeConfig{}, agreement.sendme_inc),
        cc_(agreement) {}

  // Whether a DATA cell may be packaged to the last hop now.
  [[nodiscard]] bool can_send() const noexcept {
    return std::visit([](const auto& p) { return p.can_send(); }, package_);
  }
  // A DATA cell to the last hop was sealed at `now`; `digest` is the relay
  // crypto's running digest after it. False: the accounting broke and the
  // circuit must close.
  [[nodiscard]] bool on_data_sent(CcClock::time_point now, const crypto::SendmeDigest& digest) {
    if (auto* cc = std::get_if<CcSendmeSender>(&package_)) return cc->on_data_sent(now, digest).has_value();
    return std::get<CircuitSendmeSender>(package_).on_data_sent(digest).has_value();
  }
  // A circuit SENDME from the last hop at `now`. False: a protocol violation.
  [[nodiscard]] bool on_sendme(CcClock::time_point now, const cell::SendmeMsg& msg, CcChannelState chan = {}) {
    if (auto* cc = std::get_if<CcSendmeSender>(&package_)) return cc->on_sendme(now, msg, chan).has_value();
    return std::get<CircuitSendmeSender>(package_).on_sendme(msg).has_value();
  }
  // A DATA cell from the last hop; `digest` is the running digest after it.
  // The SENDME to send back now, if one is due; an error is DATA beyond the
  // deliver window.
  [[nodiscard]] Result<std::optional<cell::SendmeMsg>, FlowError> on_data_received(
      const crypto::SendmeDigest& digest) noexcept {
    return deliver_.on_data_received(digest);
  }

  // Set when the last hop runs congestion control.
  [[nodiscard]] const std::optional<CcAgreement>& congestion_control() const noexcept { return cc_; }
  // Vegas's state (cwnd, inflight, RTT) with congestion control, else null.
  [[nodiscard]] const Vegas* vegas() const noexcept {
    const auto* cc = std::get_if<CcSendmeSender>(&package_);
    return cc != nullptr ? &cc->vegas() : nullptr;
  }

 private:
  std::variant<CircuitSendmeSender, CcSendmeSender> package_;  // DATA we send to the last hop
  CircuitSendmeReceiver deliver_;                              // DATA the last hop sends us
  std::optional<CcAgreement> cc_;
};

}  // namespace conflux::proto
