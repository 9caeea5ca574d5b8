#pragma once
// The client's end of one circuit, sans-I/O: calls and cells in, actions out
// (client_circuit_actions.hpp), like the relay's CircuitSwitch. The runtime
// owns the channel and carries the actions out in order after each call;
// nothing here touches a socket or reads a clock.
//
// It builds the circuit hop by hop with ntor-v3 (CREATE2 to the first relay,
// or CREATE_FAST when its onion key is not known yet, then EXTEND2 in
// RELAY_EARLY cells), keeps the tor1 crypto of every hop, originates and
// receives relay messages per hop, and runs the last hop's circuit-level
// SENDMEs or, when the exit agreed to it in the ntor-v3 handshake, its
// congestion control (client_circuit_flow.hpp). Stream-level flow control
// is the caller's. DESTROY from the relays, or TRUNCATED (answered with our own
// DESTROY, as we never re-extend), closes it; so does any protocol violation
// we see (DESTROY PROTOCOL, with error() saying why).
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/create_fast.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/client_circuit_actions.hpp"
#include "conflux/proto/client_circuit_flow.hpp"

namespace conflux::proto {

struct ClientCircuitConfig {
  // What a hop asked for congestion control must agree to, and what then
  // runs (tor's cc_* consensus parameters). alg FixedWindow: never ask.
  CcParams cc{};
  // The runtime's clock (steady time); required to ask for congestion
  // control, whose RTT samples need the time of cells and SENDMEs.
  std::function<CcClock::time_point()> now;
  // The clock-stall flag (tor's is one per process); process_clock_health()
  // when null.
  ClockHealth* clock_health = nullptr;
  // The circuit's channel (to its first hop) when a circuit SENDME arrives:
  // blocked, and the cells queued (tor's circuit_blocked_on_n_chan and
  // n_chan_cells). Unset: never blocked.
  std::function<CcChannelState()> channel_state{};
};

// What we ask of one hop in its ntor-v3 handshake.
struct HopOptions {
  // prop 324: ask for congestion control. A client asks only the exit hop
  // (the last); once a hop agrees, the circuit is not extended further.
  bool congestion_control = false;
};

class ClientCircuit {
 public:
  enum class State : std::uint8_t { Idle, Extending, Ready, Closed };

  explicit ClientCircuit(CircId id, ClientCircuitConfig config = {});

  // CREATE2 (ntor-v3) to the first hop. False if not Idle, the handshake
  // cannot start, or congestion control is asked for without a clock or
  // with cc alg 0.
  bool create(const HopTarget& first, HopOptions options = {});
  // CREATE_FAST to the first hop (tor-spec 5.1.3): no onion key needed; the
  // link's TLS handshake is what authenticated the relay. Used for a one-hop
  // circuit to a bridge to fetch its descriptor (BEGIN_DIR). False if not Idle.
  bool create_fast();
  // EXTEND2 to the last hop, asking it to extend to `next`. Only when Ready,
  // a RELAY_EARLY cell is left (tor-spec 5.6: 8 per circuit) and the last
  // hop does not run congestion control.
  bool extend(const HopTarget& next, HopOptions options = {});
  // A relay message to `hop` (RELAY cell). DATA needs an open package window.
  // False if it cannot be framed or sealed, or the circuit is not Ready.
  bool send(HopNum hop, StreamId stream, const cell::RelayMsg& msg);
  // Tears the circuit down with DESTROY.
  void destroy(cell::DestroyReason reason);
  // We give up on the circuit (a peer misbehaved above this layer, the
  // runtime cannot hold what arrives): DESTROY PROTOCOL, error() = why.
  void abort(std::string why);

  // A cell the channel received for this circuit.
  void on_cell(const cell::CellView& c);
  // The channel refused a ClientSendCell of ours (not open, queue full). A
  // relay cell's crypto state has advanced without it, so the circuit is
  // out of step with the relays and closes; a handshake that never left
  // closes too; a DESTROY that could not go out changes nothing.
  void on_cell_not_sent(cell::CellCommand command);

  // Actions produced so far, in order; the runtime drains them after each call.
  [[nodiscard]] std::vector<ClientCircuitAction> take_actions() { return std::exchange(actions_, {}); }

  [[nodiscard]] CircId id() const noexcept { return id_; }
  [[nodiscard]] State state() const noexcept { return state_; }
  [[nodiscard]] std::size_t hops() const noexcept { return crypto_.hop_count(); }
  // Set when the relay side destroyed the circuit (DESTROY or TRUNCATED).
  [[nodiscard]] std::optional<cell::DestroyReason> destroyed() const noexcept { return destroyed_; }
  // Set when we gave up on the circuit ourselves.
  [[nodiscard]] const std::optional<std::string>& error() const noexcept { return error_; }
  // The window is open and the circuit's queue on its channel is not
  // blocked (tor's circuit_blocked_on_n_chan stops the edge's reads). send()
  // checks only the window: a Conflux set may finish a choice it made.
  [[nodiscard]] bool can_send_data() const { return flow_.can_send() && !blocked_on_channel(); }
  [[nodiscard]] bool blocked_on_channel() const {
    return config_.channel_state && config_.channel_state().blocked;
  }
  // Set once the last hop agreed to congestion control: its streams then
  // use XON/XOFF, not stream SENDMEs.
  [[nodiscard]] const std::optional<CcAgreement>& congestion_control() const noexcept {
    return flow_.congestion_control();
  }
  // cwnd, inflight and RTT of the last hop's congestion control, else null.
  [[nodiscard]] const Vegas* vegas() const noexcept { return flow_.vegas(); }
  // Read-only: the SENDME tags of the cells sent to and received from a hop.
  [[nodiscard]] const crypto::ClientRelayCrypto& relay_crypto() const noexcept { return crypto_; }

 private:
  bool send_relay(HopNum hop, StreamId stream, const cell::RelayMsg& msg, bool early);
  // The ntor-v3 client message for a hop, and whether it asks for CC.
  [[nodiscard]] std::optional<std::vector<std::uint8_t>> client_message(HopOptions options) const;
  [[nodiscard]] bool accept_server_message(std::span<const std::uint8_t> server_message);
  [[nodiscard]] CcClock::time_point now() const { return config_.now ? config_.now() : CcClock::time_point{}; }
  void emit_cell(cell::CellCommand command, std::span<const std::uint8_t> body);
  void close();
  void fail(std::string why);
  bool add_hop(std::span<const std::uint8_t> reply);
  bool add_hop(const crypto::KeyMaterial& material, std::vector<std::uint8_t> server_message);
  void on_created2(std::span<const std::uint8_t> payload);
  void on_created_fast(std::span<const std::uint8_t> payload);
  void on_destroy(std::span<const std::uint8_t> payload);
  void on_relay(std::span<const std::uint8_t> payload);
  void on_data(HopNum hop, StreamId stream, cell::RelayMsg msg);

  CircId id_;
  ClientCircuitConfig config_;
  State state_ = State::Idle;
  bool cc_asked_ = false;  // the pending handshake asked for congestion control
  crypto::ClientRelayCrypto crypto_;
  std::optional<crypto::NtorV3ClientState> pending_;
  std::optional<crypto::FastClientState> pending_fast_;  // between CREATE_FAST and CREATED_FAST
  unsigned early_left_ = 8;                              // RELAY_EARLY budget (tor-spec 5.6)
  ClientCircuitFlow flow_;                               // the last hop's circuit SENDMEs
  std::vector<ClientCircuitAction> actions_;
  std::optional<cell::DestroyReason> destroyed_;
  std::optional<std::string> error_;
};

}  // namespace conflux::proto
