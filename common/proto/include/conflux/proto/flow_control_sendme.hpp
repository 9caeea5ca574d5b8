#pragma once
// Circuit-level flow control with authenticated SENDMEs (prop 289, tor-spec
// 7.3.1), one pair of objects per circuit hop that packages or delivers DATA.
//
// Sender: for every DATA cell whose sending brings the package window to a
// multiple of 100 (the 100th, 200th, ... cell of a full window) it records
// the relay crypto's running digest after that cell in a FIFO. Each circuit
// SENDME pops the oldest entry; a SENDME with nothing to pop, a v0 SENDME
// when v1 is required, or a v1 tag that differs (compared in constant time)
// is a protocol violation. The FIFO holds at most start / increment = 10
// entries, which the window arithmetic guarantees.
//
// Receiver: when a DATA cell makes a SENDME due, it answers with a v1 SENDME
// carrying the running digest after that cell.
//
// Current tor authorities vote sendme_accept_min_version = 1, so requiring
// v1 is the default.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"
#include "conflux/proto/flow_control.hpp"

namespace conflux::proto {

struct SendmeConfig {
  bool require_v1 = true;  // sendme_accept_min_version = 1
  bool emit_v1 = true;     // sendme_emit_min_version = 1 (tor's default)
};

inline constexpr std::size_t kMaxPendingSendmeTags = kCircuitWindow.start / kCircuitWindow.increment;

// tor's sendme_is_valid() once the expected tag has been popped: a v0 SENDME
// passes unless v1 is required; a v1 tag must be the recorded digest
// (compared in constant time). Shared by the fixed-window sender below and
// the congestion-control one (cc_sendme.hpp).
[[nodiscard]] std::optional<FlowError> check_sendme_tag(const cell::SendmeMsg& msg,
                                                        const crypto::SendmeDigest& expected,
                                                        const SendmeConfig& config) noexcept;

class CircuitSendmeSender {
 public:
  // 'initial_window' is the consensus circwindow (100..1000), rounded down
  // to a multiple of 100 so the recorded cells line up with the peer's
  // SENDMEs, whose deliver window always starts at 1000.
  explicit CircuitSendmeSender(SendmeConfig config = {},
                               std::uint16_t initial_window = kCircuitWindow.start) noexcept;

  [[nodiscard]] bool can_send() const noexcept { return window_.can_send(); }
  [[nodiscard]] CellCount window() const noexcept { return window_.remaining(); }
  [[nodiscard]] std::size_t pending_tags() const noexcept { return count_; }

  // After a DATA cell was sealed: 'digest' is what the relay crypto returned
  // for it (ClientRelayCrypto::encrypt_outbound / RelayHopCrypto::originate_backward).
  [[nodiscard]] Result<WindowStatus, FlowError> on_data_sent(const crypto::SendmeDigest& digest) noexcept;
  // A circuit-level SENDME (stream ID 0) from the hop this object serves.
  [[nodiscard]] Result<WindowStatus, FlowError> on_sendme(const cell::SendmeMsg& msg) noexcept;

 private:
  SendmeConfig config_;
  PackageWindow window_;
  std::array<crypto::SendmeDigest, kMaxPendingSendmeTags> tags_{};
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

class CircuitSendmeReceiver {
 public:
  // 'increment' is DATA cells per SENDME: 100 with fixed windows, the
  // negotiated sendme_inc (31) with congestion control, where tor keeps the
  // same deliver window of 1000 and answers every 'increment' cells.
  explicit CircuitSendmeReceiver(SendmeConfig config = {},
                                 std::uint16_t increment = kCircuitWindow.increment) noexcept
      : config_(config), window_(WindowParams{kCircuitWindow.start, increment == 0 ? std::uint16_t{1} : increment}) {}

  [[nodiscard]] CellCount window() const noexcept { return window_.remaining(); }

  // A DATA cell arrived; 'digest' is the running digest after it (the relay
  // crypto's last received digest). Returns the SENDME to send now, if any.
  [[nodiscard]] Result<std::optional<cell::SendmeMsg>, FlowError> on_data_received(
      const crypto::SendmeDigest& digest) noexcept;

 private:
  SendmeConfig config_;
  DeliverWindow window_;
};

}  // namespace conflux::proto
