#pragma once
// The circuit-level SENDME logic of a client circuit's last hop, both
// directions, behind the few calls the circuit makes: the seam where
// congestion control plugs in.
//
// Today every client circuit uses fixed windows (tor-spec 7.3: 1000 cells,
// a v1 SENDME every 100, flow_control_sendme.hpp). A circuit whose exit
// agreed to congestion control in its ntor-v3 reply (cc_negotiation.hpp,
// read from ClientHopAdded's server message) will package through
// CcSendmeSender (cc_sendme.hpp) instead, and answer every sendme_inc DATA
// cells (CircuitSendmeReceiver's `increment`). That sender needs the time of
// each DATA cell and SENDME, so when it is wired in these calls gain a `now`
// passed in by the runtime, as the machine reads no clock.
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"
#include "conflux/proto/flow_control.hpp"
#include "conflux/proto/flow_control_sendme.hpp"

namespace conflux::proto {

class ClientCircuitFlow {
 public:
  // Whether a DATA cell may be packaged to the last hop now.
  [[nodiscard]] bool can_send() const noexcept { return package_.can_send(); }
  // A DATA cell to the last hop was sealed; `digest` is the relay crypto's
  // running digest after it. False: the accounting broke and the circuit
  // must close.
  [[nodiscard]] bool on_data_sent(const crypto::SendmeDigest& digest) noexcept {
    return package_.on_data_sent(digest).has_value();
  }
  // A circuit SENDME from the last hop. False: a protocol violation.
  [[nodiscard]] bool on_sendme(const cell::SendmeMsg& msg) noexcept { return package_.on_sendme(msg).has_value(); }
  // A DATA cell from the last hop; `digest` is the running digest after it.
  // The SENDME to send back now, if one is due; an error is DATA beyond the
  // window.
  [[nodiscard]] Result<std::optional<cell::SendmeMsg>, FlowError> on_data_received(
      const crypto::SendmeDigest& digest) noexcept {
    return deliver_.on_data_received(digest);
  }

 private:
  CircuitSendmeSender package_;    // DATA we send to the last hop
  CircuitSendmeReceiver deliver_;  // DATA the last hop sends us
};

}  // namespace conflux::proto
