#pragma once
// The relay's circuit switch, sans-I/O: cells in from channels, actions out.
//
// It answers CREATE2 (ntor and ntor-v3) and CREATE_FAST (a client's first
// hop when it lacks our onion key, e.g. to fetch a bridge's descriptor),
// peels or adds one tor1 layer on RELAY cells and forwards them, extends
// circuits on EXTEND2 (asking the runtime for a channel to the named relay),
// propagates DESTROY with its reason in both directions, enforces the
// RELAY_EARLY rules and per-channel circuit limits, and hands stream
// messages that are addressed to this hop to the exit module. The runtime
// owns channels and sockets; this object owns circuits.
//
// Congestion control (prop 324) is chosen per circuit when CREATE2 ntor-v3
// is answered: a client that asks for it (extension 0x01 in its message)
// gets our cc_sendme_inc back (0x02) unless our cc_alg is 0, and the
// circuit's edge then runs Vegas on the DATA it originates and acknowledges
// the client's DATA every sendme_inc cells (relay_circuit_flow.hpp).
// Otherwise fixed windows, as before. Vegas needs the time of each SENDME:
// the runtime injects its clock as CircuitSwitchConfig::now.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_link_spec.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/ntor.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/proto/circuit_ids.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/circuit_mux.hpp"
#include "conflux/proto/relay_circuit_flow.hpp"

namespace conflux::proto {

using ChannelId = std::uint64_t;
using CircuitHandle = std::uint64_t;

// ---- actions for the runtime ------------------------------------------------

// Queue a fixed cell of circuit `circ` on channel `chan` (through its mux).
struct SendCell {
  ChannelId chan;
  CircId circ;
  WireCell cell;
};
// Queue DESTROY for `circ` on `chan` (channel control path).
struct SendDestroy {
  ChannelId chan;
  CircId circ;
  cell::DestroyReason reason;
};
// Find or open a channel to this relay, then call on_channel_ready/failed.
// The relay is named by its Ed25519 identity, its RSA fingerprint (the
// legacy identity link specifier, all a stock client sends for a relay that
// does not advertise LinkAuth=3), or both: the channel must prove each given.
struct OpenChannel {
  std::uint64_t request;
  std::optional<crypto::Ed25519Public> identity;
  std::optional<crypto::RsaFingerprint> rsa;
  std::vector<cell::LinkSpec> link_specs;
};
// A stream message for the exit module (this hop is the circuit's last).
struct DeliverStreamMessage {
  CircuitHandle circuit;
  StreamId stream;
  cell::RelayMsg msg;
};
// The circuit is gone: the exit module drops its streams.
struct CircuitClosed {
  CircuitHandle circuit;
  cell::DestroyReason reason;
};
// A circuit SENDME reopened the package window of a circuit whose window was
// empty: the exit module may read from its streams again.
struct CircuitWritable {
  CircuitHandle circuit;
};
// A circuit SENDME from the client was accepted on a circuit this hop
// originates DATA on (every one, not only those that reopen the window): a
// Conflux set at the exit acknowledges the leg's cells and times its RTT.
struct CircuitSendme {
  CircuitHandle circuit;
};
using SwitchAction = std::variant<SendCell, SendDestroy, OpenChannel, DeliverStreamMessage, CircuitClosed,
                                  CircuitWritable, CircuitSendme>;

struct CircuitSwitchConfig {
  std::size_t max_circuits_per_channel = 1024;
  std::size_t max_pending_extends = 4096;
  // Our congestion-control parameters (consensus, then torrc); tor's
  // defaults until the relay reads them. cc_alg 0: never agree to CC.
  CcParams cc{};
  // The runtime's monotonic clock, read when a DATA cell is originated and
  // when a circuit SENDME arrives. Unset: time stands still, so every RTT
  // sample is a clock stall that Vegas skips (cwnd stays at cc_cwnd_init).
  std::function<CcClock::time_point()> now{};
  // The process's "monotonic clock looks broken" flag (tor keeps one global),
  // shared with the exit's XON/XOFF; null: the switch keeps its own. Must
  // outlive the switch.
  ClockHealth* clock_health = nullptr;
  // The channel towards the client of a circuit (its previous hop: the
  // channel and that side's circuit ID) when a circuit SENDME arrives:
  // blocked, and the cells queued (tor's circuit_blocked_on_p_chan and
  // p_chan_cells). Unset: never blocked.
  std::function<CcChannelState(ChannelId, CircId)> channel_state{};
};

struct CircuitSwitchKeys {
  crypto::NtorServerKeys ntor;
  crypto::NtorV3ServerKeys ntor_v3;
};

struct CircuitSwitchStats {
  std::uint64_t circuits_created = 0;
  std::uint64_t circuits_cc = 0;  // of those, with congestion control negotiated
  // Circuits whose Vegas left slow start, by SlowStartExit (slot None unused).
  std::array<std::uint64_t, 4> cc_slow_start_exits{};
  std::uint64_t circuits_closed = 0;
  std::uint64_t cells_forwarded = 0;
  std::uint64_t handshake_failures = 0;
  std::uint64_t protocol_violations = 0;
};

// The circuits on which this hop runs Vegas (it answered the client's
// congestion-control request): how many, how many still in slow start, and
// the `largest` of them by cwnd (metrics; bounded by the caller's limit).
struct CcCircuitSample {
  CircuitHandle circuit = 0;
  RelayCircuitFlowInfo info;
};
struct CcCircuitsView {
  std::size_t circuits = 0;
  std::size_t in_slow_start = 0;
  std::vector<CcCircuitSample> largest;  // cwnd descending, at most the limit
};

class CircuitSwitch {
 public:
  CircuitSwitch(CircuitSwitchKeys keys, CircuitSwitchConfig config = {});
  ~CircuitSwitch();
  CircuitSwitch(const CircuitSwitch&) = delete;
  CircuitSwitch& operator=(const CircuitSwitch&) = delete;

  // A channel finished its link handshake. `role` is our role on it.
  void on_channel_open(ChannelId chan, ChannelRole role);
  // The channel is gone: every circuit on it is destroyed (the other side
  // gets DESTROY with reason CHANNEL_CLOSED).
  void on_channel_closed(ChannelId chan);
  // A circuit cell (CREATE2, CREATE_FAST, CREATED2, RELAY, RELAY_EARLY, DESTROY, ...).
  void on_cell(ChannelId chan, const cell::CellView& cell);
  // The circuit's queue on `chan` drained to cellq_low (CircuitMux): if we
  // are its edge and that is its channel towards the client, CircuitWritable
  // follows while its window is open.
  void on_circuit_unblocked(ChannelId chan, CircId id);

  // Answers to OpenChannel.
  void on_channel_ready(std::uint64_t request, ChannelId chan);
  void on_channel_failed(std::uint64_t request, cell::DestroyReason reason);

  // New congestion-control parameters (a fresh consensus): circuits created
  // from now on negotiate and run with them; open ones keep what they agreed.
  void set_cc_params(const CcParams& params);

  // The exit module sends a message toward the client on `circuit`.
  // False if the circuit is gone or the message cannot be framed.
  bool send_to_client(CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg);
  // Whether a DATA cell may be originated on `circuit` now (package window,
  // or congestion window with congestion control), and its queue towards
  // the client is not blocked (config.channel_state).
  [[nodiscard]] bool can_send_data(CircuitHandle circuit) const;
  [[nodiscard]] bool blocked_on_channel(CircuitHandle circuit) const;
  // Whether the circuit negotiated congestion control: its streams use
  // XON/XOFF, not stream SENDMEs (prop 324 section 4).
  [[nodiscard]] bool uses_congestion_control(CircuitHandle circuit) const;
  // The circuit's flow-control state (tests, metrics); nullopt if unknown.
  [[nodiscard]] std::optional<RelayCircuitFlowInfo> flow_info(CircuitHandle circuit) const;
  // Every circuit with congestion control at this hop, summed, and the
  // `limit` with the largest cwnd in full. O(circuits); for scrapes.
  [[nodiscard]] CcCircuitsView cc_circuits(std::size_t limit) const;
  // The exit module or the runtime closes a circuit (both directions).
  void close_circuit(CircuitHandle circuit, cell::DestroyReason reason);

  // Actions produced so far, in order; the runtime drains them after each call.
  [[nodiscard]] std::vector<SwitchAction> take_actions();
  // The same, appended to `into`; when `into` is empty the two vectors
  // trade storage, so a runtime that drains after every cell allocates
  // nothing once both have grown.
  void take_actions(std::vector<SwitchAction>& into);

  // The channel toward the client (the previous hop) of a circuit: what a
  // Conflux LINK is attributed to at the exit.
  [[nodiscard]] std::optional<ChannelId> client_channel(CircuitHandle circuit) const;
  // The circuit that uses circuit ID `id` on `chan` (either side), if any:
  // the runtime names circuits by their queues (MaxMemInQueues, DoS).
  [[nodiscard]] std::optional<CircuitHandle> circuit_on(ChannelId chan, CircId id) const;

  [[nodiscard]] std::size_t circuit_count() const noexcept;
  [[nodiscard]] std::size_t circuits_on(ChannelId chan) const;
  [[nodiscard]] const CircuitSwitchStats& stats() const noexcept { return stats_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  CircuitSwitchStats stats_;
};

}  // namespace conflux::proto
