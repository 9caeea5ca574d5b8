#include "conflux/proto/relay_circuit_flow.hpp"

namespace conflux::proto {

RelayCircuitFlow::RelayCircuitFlow(const CcParams& params, CcAgreement agreement, ClockHealth& clock)
    : package_(std::in_place_type<CcSendmeSender>, params, CcPathType::Exit, agreement, clock),
      deliver_(SendmeConfig{}, agreement.sendme_inc) {}

bool RelayCircuitFlow::can_send() const noexcept {
  return std::visit([](const auto& p) { return p.can_send(); }, package_);
}

Result<WindowStatus, FlowError> RelayCircuitFlow::on_data_sent(CcClock::time_point now,
                                                               const crypto::SendmeDigest& digest) {
  if (auto* cc = std::get_if<CcSendmeSender>(&package_)) return cc->on_data_sent(now, digest);
  return std::get<CircuitSendmeSender>(package_).on_data_sent(digest);
}

Result<WindowStatus, FlowError> RelayCircuitFlow::on_sendme(CcClock::time_point now, const cell::SendmeMsg& msg,
                                                            CcChannelState chan) {
  // The state of our channel toward the client (blocked, cells queued) is
  // not known to the switch yet; tor's Vegas reads it as a congestion
  // signal, here it always says "not blocked".
  if (auto* cc = std::get_if<CcSendmeSender>(&package_)) return cc->on_sendme(now, msg, chan);
  return std::get<CircuitSendmeSender>(package_).on_sendme(msg);
}

RelayCircuitFlowInfo RelayCircuitFlow::info() const noexcept {
  RelayCircuitFlowInfo i;
  if (const auto* cc = std::get_if<CcSendmeSender>(&package_)) {
    i.congestion_control = true;
    i.sendme_inc = cc->vegas().sendme_inc();
    i.window = cc->vegas().cwnd();
    i.inflight = cc->vegas().inflight();
    i.ewma_rtt_usec = cc->vegas().rtt().ewma_usec();
    i.min_rtt_usec = cc->vegas().rtt().min_usec();
    i.bdp = cc->vegas().bdp();
    i.slow_start = cc->vegas().in_slow_start();
    i.slow_start_exit = cc->vegas().slow_start_exit();
    return i;
  }
  const auto& fixed = std::get<CircuitSendmeSender>(package_);
  i.sendme_inc = static_cast<std::uint8_t>(kCircuitWindow.increment);
  i.window = fixed.window().value();
  i.inflight = kCircuitWindow.start - i.window;
  return i;
}

}  // namespace conflux::proto
