#pragma once
// One client circuit as the proxy sees it: the runtime of a
// proto::ClientCircuit, which it drives hop by hop along a chosen path, then
// the carrier of the streams attached to it. It carries out the machine's
// actions as they come: cells to the link, messages straight to their stream
// or Conflux leg owner. Owned by the LinkPool; streams register and are told when the
// circuit can send again or is gone, so nobody holds a dangling pointer.
// With a LegOwner it is a Conflux leg instead: no streams, everything that
// arrives goes to the owner (leg_circuit.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/client/leg_circuit.hpp"
#include "conflux/client/stream_carrier.hpp"
#include "conflux/net/client_circuit_runner.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/proto/client_circuit.hpp"

namespace conflux::client {

// One relay of a path, with what building through it needs.
struct PathHop {
  proto::HopTarget target;
  std::string nickname;
  std::string exit_policy;  // the consensus' summary ("accept 80,443"), exits only
};

struct CircuitInfo {
  std::uint64_t serial = 0;     // the pool's name for it (logs, metrics)
  std::vector<PathHop> path;    // guard (or bridge), middle, exit; or one hop for a directory circuit
  bool one_hop_fast = false;    // CREATE_FAST to a first hop whose onion key is unknown (bridges)
  // Ask the exit hop for congestion control (prop 324), run with these
  // parameters (the consensus's cc_*) if it agrees.
  std::optional<proto::CcParams> congestion_control;
  std::string isolation;        // set when the first stream attaches
  // PerClientGuards: the client whose guards chose the first hop; it serves
  // only that client's streams. Empty: the process's guards.
  std::string guard_client;
  bool retired = false;         // takes no new streams
};

// Bytes on a circuit as tor's CIRC_BW counts them (control-spec 4.1.26):
// READ/WRITTEN a cell's payload (509 bytes) per cell in or out, DELIVERED_*
// the DATA bytes carried.
struct CircuitBytes {
  static constexpr std::uint64_t kCellPayload = 509;   // tor's CELL_PAYLOAD_SIZE
  static constexpr std::uint64_t kRelayPayload = 498;  // tor's RELAY_PAYLOAD_SIZE
  std::uint64_t read = 0;
  std::uint64_t written = 0;
  std::uint64_t delivered_read = 0;
  std::uint64_t delivered_written = 0;
};

class Circuit final : public StreamCarrier, public LegCircuit {
 public:
  enum class Phase : std::uint8_t { Building, Open, Closed };
  using Clock = std::chrono::steady_clock;
  struct Hooks {
    std::function<void(Circuit&)> built;                     // every hop added
    std::function<void(Circuit&, std::size_t hops)> extended;  // `hops` hops built, more to come
    std::function<void(Circuit&, std::string_view)> closed;  // once, whatever the phase
    // The circuit's queue on its link when a circuit SENDME arrives (tor's
    // circuit_blocked_on_n_chan), for congestion control; unset: never blocked.
    std::function<proto::CcChannelState()> channel_state{};
  };

  // `clock` must outlive the circuit.
  Circuit(CircuitInfo info, CircId id, net::CircuitCellSink sink, Hooks hooks, const net::Clock& clock);
  // Streams still attached are told the circuit is gone.
  ~Circuit() override;
  Circuit(const Circuit&) = delete;
  Circuit& operator=(const Circuit&) = delete;

  // The link to the first hop is open: send the first handshake.
  void start();
  // A cell for this circuit from the link.
  void on_cell(const cell::CellView& c);
  // The link died under the circuit.
  void link_closed(std::string_view why);
  // Its queue on the link drained below cellq_low: DATA may go again.
  void channel_unblocked();
  [[nodiscard]] bool blocked_on_channel() const override { return inner_.blocked_on_channel(); }
  // Closes with DESTROY (tor's reason for a client's own close: FINISHED or NONE).
  void close(cell::DestroyReason reason, std::string_view why) override;

  // Streams (StreamCarrier). attach() picks a free stream ID and remembers
  // the sink; a leg takes none.
  [[nodiscard]] std::optional<StreamId> attach(StreamEvents& events) override;
  void detach(StreamId id) override;
  // To the last hop (streams and legs alike).
  bool send(StreamId id, const cell::RelayMsg& msg) override;
  [[nodiscard]] bool can_send_data() const override { return phase_ == Phase::Open && inner_.can_send_data(); }
  [[nodiscard]] const proto::CcParams* congestion_control() const override {
    return inner_.congestion_control() && info_.congestion_control ? &*info_.congestion_control : nullptr;
  }
  // The exit hop's congestion control (cwnd, inflight, RTT), else null.
  [[nodiscard]] const proto::Vegas* vegas() const noexcept { return inner_.vegas(); }
  [[nodiscard]] std::optional<proto::CcAgreement> leg_cc_agreement() const override {
    return inner_.congestion_control();
  }
  [[nodiscard]] const proto::Vegas* leg_vegas() const override { return inner_.vegas(); }
  [[nodiscard]] std::uint64_t serial() const override { return info_.serial; }
  [[nodiscard]] std::string name() const override { return "circuit " + std::to_string(info_.serial); }
  [[nodiscard]] std::string describe_flow() const override;
  [[nodiscard]] RelayIdentity exit_identity() const override;

  // Leg mode (LegCircuit): set before the circuit is built, so the owner
  // sees it open.
  void set_leg_owner(LegOwner* owner) override;
  [[nodiscard]] bool is_leg() const noexcept { return leg_owner_ != nullptr || was_leg_; }
  [[nodiscard]] std::size_t stream_count() const noexcept { return streams_.size(); }
  [[nodiscard]] std::uint64_t streams_attached() const noexcept { return streams_attached_; }

  [[nodiscard]] Phase phase() const noexcept { return phase_; }
  [[nodiscard]] const CircuitBytes& bytes() const noexcept { return bytes_; }
  [[nodiscard]] CircId id() const noexcept { return inner_.id(); }
  [[nodiscard]] const CircuitInfo& info() const noexcept override { return info_; }
  [[nodiscard]] CircuitInfo& info() noexcept { return info_; }
  [[nodiscard]] Clock::time_point launched_at() const noexcept { return launched_; }
  [[nodiscard]] std::optional<Clock::time_point> built_at() const noexcept { return built_at_; }
  // When the first stream attached (tor's "dirty" timestamp).
  [[nodiscard]] std::optional<Clock::time_point> dirty_since() const noexcept { return dirty_since_; }
  [[nodiscard]] const PathHop& exit_hop() const { return info_.path.back(); }
  // A build the relays ended because one of them could not reach the next
  // (DESTROY: CONNECTFAILED or OR_IDENTITY): that next hop's index in the path.
  [[nodiscard]] std::optional<std::size_t> unreachable_hop() const noexcept;
  [[nodiscard]] HopNum last_hop() const noexcept { return HopNum{static_cast<std::uint8_t>(info_.path.size())}; }

 private:
  void after_cell();
  // DATA may go again: the leg's owner, or every stream in turn, is told.
  void wake();
  void extend_next();
  void finish(std::string why);
  // Carries out the machine's actions (run_client_circuit).
  void run();
  void on_event(proto::ClientCircuitAction& action);
  void deliver(HopNum hop, StreamId stream, const cell::RelayMsg& msg);

  CircuitInfo info_;
  const net::Clock& clock_;
  proto::ClientCircuit inner_;
  net::CircuitCellSink sink_;
  Hooks hooks_;
  Phase phase_ = Phase::Building;
  Clock::time_point launched_;
  std::optional<Clock::time_point> built_at_;
  std::optional<Clock::time_point> dirty_since_;
  std::map<std::uint16_t, StreamEvents*> streams_;
  std::size_t wake_turn_ = 0;  // wake_order's rotation
  std::uint16_t next_stream_ = 1;
  std::uint64_t streams_attached_ = 0;
  LegOwner* leg_owner_ = nullptr;
  bool was_leg_ = false;  // a leg whose owner let go: still never a stream circuit
  bool could_send_ = true;
  bool finishing_ = false;
  CircuitBytes bytes_{};
};

}  // namespace conflux::client
