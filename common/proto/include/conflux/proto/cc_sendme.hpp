#pragma once
// The packaging side of a circuit hop with congestion control: Vegas's
// window (cc_vegas.hpp) plus the queue of cells a SENDME will acknowledge.
//
// Cadence (tor-spec 7.3.1, prop 324 section 3): the peer answers every
// sendme_inc-th DATA cell with a circuit SENDME, using the same deliver
// window as fixed windows with sendme_inc as its increment (see
// CircuitSendmeReceiver's 'increment'). The sender therefore records, for
// each cell that brings (inflight + 1) to a multiple of sendme_inc, both the
// relay crypto's running digest after it (the v1 tag the SENDME must echo)
// and the time it was sent (the RTT sample), in one FIFO. Each SENDME pops
// the oldest entry: no entry, a v0 SENDME where v1 is required, or a wrong
// tag is a protocol violation, exactly as for fixed windows
// (check_sendme_tag); a valid one drives Vegas with the entry's time.
//
// The FIFO is bounded at kMaxPendingCcSendmes entries, which caps a
// circuit's cwnd in effect at that many SENDMEs' worth of cells (63,488 at
// sendme_inc 31, about 31 MiB in flight); tor's list is unbounded but cwnd
// rarely leaves the low thousands. While it is full, can_send() is false.
#include <cstddef>
#include <cstdint>
#include <deque>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"
#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/cc_vegas.hpp"
#include "conflux/proto/flow_control.hpp"
#include "conflux/proto/flow_control_sendme.hpp"

namespace conflux::proto {

inline constexpr std::size_t kMaxPendingCcSendmes = 2048;

class CcSendmeSender {
 public:
  CcSendmeSender(const CcParams& params, CcPathType path, CcAgreement agreement, ClockHealth& clock,
                 SendmeConfig config = {}) noexcept;

  // inflight < cwnd, and room to record the next cell if it needs it.
  [[nodiscard]] bool can_send() const noexcept;
  [[nodiscard]] std::uint64_t package_window() const noexcept { return can_send() ? vegas_.package_window() : 0; }
  [[nodiscard]] bool next_cell_triggers_sendme() const noexcept { return vegas_.next_cell_triggers_sendme(); }
  [[nodiscard]] std::size_t pending_sendmes() const noexcept { return pending_.size(); }
  [[nodiscard]] const Vegas& vegas() const noexcept { return vegas_; }

  // After a DATA cell was sealed at `now`; 'digest' is the running digest
  // the relay crypto returned for it. Exhausted: stop packaging until a
  // SENDME arrives.
  [[nodiscard]] Result<WindowStatus, FlowError> on_data_sent(CcClock::time_point now,
                                                             const crypto::SendmeDigest& digest);
  // A circuit-level SENDME from the hop this object serves, at `now`, with
  // the state of the local channel towards that hop.
  [[nodiscard]] Result<WindowStatus, FlowError> on_sendme(CcClock::time_point now, const cell::SendmeMsg& msg,
                                                          CcChannelState chan = {});

 private:
  struct Pending {
    std::uint64_t sent_usec = 0;
    crypto::SendmeDigest digest{};
  };

  SendmeConfig config_;
  Vegas vegas_;
  std::deque<Pending> pending_;
};

}  // namespace conflux::proto
