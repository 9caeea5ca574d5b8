#pragma once
// Circuit-level flow control at the relay hop that is a circuit's edge (the
// exit, or the last hop of any circuit), chosen once per circuit when the
// CREATE2 handshake is answered:
//
//   - fixed windows (no congestion control negotiated): DATA this hop
//     originates is limited by a package window of 1000 refilled by 100 per
//     circuit SENDME (CircuitSendmeSender); DATA the client sends is
//     acknowledged every 100 cells.
//   - congestion control (prop 324; the client asked in its ntor-v3 message
//     and our cc_alg is not 0): DATA this hop originates is limited by
//     Vegas's cwnd (CcSendmeSender, path type Exit: tor's exit attaches the
//     CC object with the exit's parameters whatever the circuit's length);
//     DATA the client sends is acknowledged every sendme_inc cells, the same
//     deliver window of 1000 with the negotiated increment, as tor does.
//
// Both modes check the v1 tag of every circuit SENDME against the FIFO of
// the cells that made it due, so the CircuitSwitch treats them alike: a
// SENDME that fails is a protocol violation either way.
#include <cstdint>
#include <optional>
#include <variant>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"
#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/cc_sendme.hpp"
#include "conflux/proto/flow_control.hpp"
#include "conflux/proto/flow_control_sendme.hpp"

namespace conflux::proto {

// What a circuit's flow control looks like now (tests, metrics).
struct RelayCircuitFlowInfo {
  bool congestion_control = false;
  std::uint8_t sendme_inc = 0;    // DATA cells per circuit SENDME, both directions
  std::uint64_t window = 0;       // fixed: package window; CC: cwnd
  std::uint64_t inflight = 0;     // fixed: 1000 - window; CC: Vegas's inflight
  std::uint64_t ewma_rtt_usec = 0;  // CC only
  std::uint64_t min_rtt_usec = 0;   // CC only
  std::uint64_t bdp = 0;            // CC only: Vegas's last BDP estimate, cells
  bool slow_start = false;          // CC only: still in slow start
  SlowStartExit slow_start_exit = SlowStartExit::None;  // CC only: why it ended
};

class RelayCircuitFlow {
 public:
  // Fixed windows.
  RelayCircuitFlow() = default;
  // Congestion control as agreed in the handshake. `clock` is the
  // process's ClockHealth and must outlive the flow.
  RelayCircuitFlow(const CcParams& params, CcAgreement agreement, ClockHealth& clock);

  [[nodiscard]] bool congestion_control() const noexcept {
    return std::holds_alternative<CcSendmeSender>(package_);
  }
  // Congestion control and Vegas still in slow start.
  [[nodiscard]] bool in_slow_start() const noexcept {
    const auto* cc = std::get_if<CcSendmeSender>(&package_);
    return cc != nullptr && cc->vegas().in_slow_start();
  }
  // Whether a DATA cell may be originated now.
  [[nodiscard]] bool can_send() const noexcept;
  // Whether on_data_sent reads its `now` for the next DATA cell: only the
  // cell whose SENDME will time a round trip (congestion control, one in
  // sendme_inc), as tor timestamps only that cell. Otherwise any time will do.
  [[nodiscard]] bool next_data_needs_time() const noexcept {
    const auto* cc = std::get_if<CcSendmeSender>(&package_);
    return cc != nullptr && cc->next_cell_triggers_sendme();
  }
  // A DATA cell this hop originated was sealed at `now` with this running digest.
  [[nodiscard]] Result<WindowStatus, FlowError> on_data_sent(CcClock::time_point now,
                                                             const crypto::SendmeDigest& digest);
  // A circuit SENDME (stream 0) from the client at `now`; `chan`: the
  // channel towards the client then (congestion control only).
  [[nodiscard]] Result<WindowStatus, FlowError> on_sendme(CcClock::time_point now, const cell::SendmeMsg& msg,
                                                          CcChannelState chan = {});
  // A DATA cell from the client; the SENDME to answer with, if one is due.
  [[nodiscard]] Result<std::optional<cell::SendmeMsg>, FlowError> on_data_received(
      const crypto::SendmeDigest& digest) noexcept {
    return deliver_.on_data_received(digest);
  }

  [[nodiscard]] RelayCircuitFlowInfo info() const noexcept;

 private:
  std::variant<CircuitSendmeSender, CcSendmeSender> package_;
  CircuitSendmeReceiver deliver_;
};

}  // namespace conflux::proto
