#pragma once
// One Conflux set at the client (prop 329): the streams that ride it and
// the legs that carry it. A StreamCarrier for streams, the LegOwner of its
// leg circuits. It owns the sans-I/O proto::ConfluxSet (sequencing,
// reordering, retransmission, the leg scheduler) and proto::ClientLinker
// (LINK / LINKED / LINKED_ACK, the launch budget), the set's 32-byte nonce
// (never logged), and the stream table; the leg circuits belong to the
// LinkPool and are launched through Hooks::launch_leg (ConfluxPool).
//
// Life: start() launches ConfluxNumLegs legs to one exit (the first leg's
// path picks it). Each leg sends LINK once built; a LINKED from the exit
// hop links it into the set (the first linked leg opens the set to streams,
// as prop 329 allows). A leg that dies is dropped from the set, which keeps
// going on the others. A surviving leg is relinked at once (LINK again on
// it: its LINK/LINKED numbers resynchronise both ends on that leg), and
// both ends resend on it what the dead leg lost; a replacement is launched
// too (through the same first hop up to same_guard_retries times, then
// another), and takes the lost cells instead when no leg survived. The
// linker's budget bounds every launch. Any error of the set (a
// peer's sequencing violation, a memory cap) closes this set only: every
// leg is closed and every stream told.
//
// All of that needs an exit of ours, which says so in its LINKED
// (cell::ConfluxLinkFields::offers_resumption). A tor exit resends nothing,
// refuses a LINK again on a live leg and a LINK that reveals data loss, so
// with one the set behaves as tor's client does: it takes streams only once
// every leg linked (or no launch is left), never relinks, launches no
// replacement once it carried a stream, and closes when a leg dies after
// that (tor-reference.md 1.4.1, 1.10).
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conflux/client/leg_circuit.hpp"
#include "conflux/client/stream_carrier.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/log_sink.hpp"
#include "conflux/proto/conflux_linking.hpp"
#include "conflux/proto/conflux_set.hpp"

namespace conflux::client {

struct ConfluxTunnelConfig {
  std::size_t num_legs = 2;                        // ConfluxNumLegs
  cell::ConfluxUx ux = cell::ConfluxUx::HighThroughput;  // ConfluxClientUX, sent in LINK
  std::size_t same_guard_retries = 2;              // a dead leg's first hop is tried again this often
  // The middles of legs that died are kept off this set's new legs this
  // long (the consensus may still list a relay that just went away).
  std::chrono::seconds suspect_for{120};
  proto::ConfluxSetConfig set{};                   // the scheduler follows `ux` (for_ux)
  proto::ClientLinkConfig link{};                  // legs_per_set follows num_legs
  // Every leg asks its exit for congestion control with these parameters,
  // and a leg whose exit does not agree (with our sendme_inc) is not linked,
  // as tor's Conflux requires; the set then follows each leg's Vegas cwnd
  // and its streams run XON/XOFF. Nullopt: fixed windows on every leg.
  std::optional<proto::CcParams> congestion_control;

  // The settings for a ConfluxClientUX: the scheduler for our data
  // (leg_sched_for_ux) and the LINK's desired_ux.
  [[nodiscard]] static ConfluxTunnelConfig for_ux(cell::ConfluxUx ux, std::size_t num_legs);
};

// What a new leg needs of its path.
struct LegRequest {
  std::optional<std::uint16_t> port;              // the first leg: its exit allows this
  std::optional<RelayIdentity> exit;              // later legs: the set's exit
  std::set<RelayIdentity> exclude_first_hops;     // the other legs' guards or bridges
  std::set<RelayIdentity> exclude_middles;        // the other legs' middles (and a failing guard)
  std::optional<RelayIdentity> first_hop;         // retry through the dead leg's guard
};

struct ConfluxTunnelStats {
  std::uint64_t legs_launched = 0;
  std::uint64_t legs_linked = 0;
  std::uint64_t legs_lost = 0;     // linked legs that died
  std::uint64_t legs_failed = 0;   // legs that died before linking
  std::uint64_t legs_relinked = 0; // surviving legs relinked to take a dead leg's cells
};

class ConfluxTunnel final : public StreamCarrier, public LegOwner {
 public:
  enum class State : std::uint8_t { Linking, Open, Closed };
  using Clock = std::chrono::steady_clock;
  struct Hooks {
    // Launches a leg circuit with this tunnel as its owner; null when no
    // path or launch is possible now.
    std::function<LegCircuit*(ConfluxTunnel&, const LegRequest&)> launch_leg;
    // Once, when the set closes (the owner destroys it later, never inside
    // one of its calls).
    std::function<void(ConfluxTunnel&, std::string_view why)> closed;
    // The shared reorder budget is under pressure: the owner sheds sets.
    std::function<void()> memory_pressure;
    // A leg linked (the set may have become usable).
    std::function<void()> leg_linked;
  };

  // `budget` and `clock` must outlive the tunnel.
  ConfluxTunnel(std::uint64_t serial, ConfluxTunnelConfig config, proto::ReorderBudget& budget, Hooks hooks,
                const net::Clock& clock, net::LogSink log);
  ~ConfluxTunnel() override;
  ConfluxTunnel(const ConfluxTunnel&) = delete;
  ConfluxTunnel& operator=(const ConfluxTunnel&) = delete;

  // Launches the legs; the first leg's exit must allow `port` (none: any).
  void start(std::optional<std::uint16_t> port);
  // Once a second: LINKED deadlines, legs that could not be launched before.
  void tick();

  // StreamCarrier
  [[nodiscard]] std::optional<StreamId> attach(StreamEvents& events) override;
  void detach(StreamId id) override;
  bool send(StreamId id, const cell::RelayMsg& msg) override;
  [[nodiscard]] bool can_send_data() const override;
  void close(cell::DestroyReason reason, std::string_view why) override;
  [[nodiscard]] std::uint64_t serial() const override { return serial_; }
  [[nodiscard]] std::string name() const override { return "Conflux set " + std::to_string(serial_); }
  [[nodiscard]] std::string describe_flow() const override;
  [[nodiscard]] RelayIdentity exit_identity() const override { return exit_.value_or(RelayIdentity{}); }
  // The first linked leg's circuit serial, else any leg's (0: none).
  [[nodiscard]] std::uint64_t control_circuit_id() const override;
  // The circuit serial of the leg the set calls `id` (0: none).
  [[nodiscard]] std::uint64_t leg_serial(proto::LegId id) const;
  [[nodiscard]] const proto::CcParams* congestion_control() const override {
    return config_.congestion_control ? &*config_.congestion_control : nullptr;
  }

  // LegOwner
  void on_leg_open(std::uint64_t serial) override;
  void on_leg_msg(std::uint64_t serial, HopNum hop, StreamId stream, const cell::RelayMsg& msg) override;
  void on_leg_writable(std::uint64_t serial) override;
  void on_leg_closed(std::uint64_t serial, std::string_view why) override;
  [[nodiscard]] const proto::CcParams* leg_congestion_control() const override { return congestion_control(); }

  // For the pool: state, exit, isolation and dirtiness (as a circuit's).
  [[nodiscard]] State state() const noexcept { return state_; }
  // What the first LINKED said of the exit.
  enum class ExitKind : std::uint8_t { Unknown, Resumes, Tor };
  [[nodiscard]] ExitKind exit_kind() const noexcept { return exit_kind_; }
  [[nodiscard]] bool has_exit() const noexcept { return exit_.has_value(); }
  [[nodiscard]] const std::string& exit_policy() const noexcept { return exit_policy_; }
  [[nodiscard]] std::optional<std::uint16_t> port() const noexcept { return port_; }
  [[nodiscard]] std::size_t stream_count() const noexcept { return streams_.size(); }
  [[nodiscard]] std::uint64_t streams_attached() const noexcept { return streams_attached_; }
  [[nodiscard]] std::optional<Clock::time_point> dirty_since() const noexcept { return dirty_since_; }
  [[nodiscard]] const std::string& isolation() const noexcept { return isolation_; }
  void set_isolation(std::string key) { isolation_ = std::move(key); }
  // PerClientGuards: the client whose guards its legs use (fixed at launch).
  [[nodiscard]] const std::string& guard_client() const noexcept { return guard_client_; }
  void set_guard_client(std::string client) { guard_client_ = std::move(client); }
  [[nodiscard]] bool retired() const noexcept { return retired_; }
  void retire() noexcept { retired_ = true; }

  // For the metrics and the log.
  [[nodiscard]] std::size_t linked_legs() const noexcept;
  [[nodiscard]] std::size_t pending_legs() const noexcept;  // building or waiting for LINKED
  [[nodiscard]] const ConfluxTunnelStats& stats() const noexcept { return stats_; }
  // Null once closed.
  [[nodiscard]] const proto::ConfluxSet* set() const noexcept { return set_.get(); }
  [[nodiscard]] std::size_t reorder_bytes() const noexcept { return set_ ? set_->reorder_bytes() : 0; }

 private:
  enum class LegPhase : std::uint8_t { Building, Linking, Linked };
  struct Leg {
    proto::LegId id{};
    LegCircuit* circuit = nullptr;
    LegPhase phase = LegPhase::Building;
    std::vector<RelayIdentity> relays;  // first hop .. exit
    proto::LinkNumbers ours{};          // what our LINK said
    bool relinking = false;             // linked, and a LINK again went out on it
  };

  [[nodiscard]] proto::ConfluxTime now() const { return clock_.now(); }
  // Each leg blocked on its link or not, into the set's scheduler: read
  // before every choice, since the link's queues move with every cell.
  void follow_leg_channels() const;
  Leg* find_leg(std::uint64_t serial);
  Leg* find_leg(proto::LegId id);
  // The set's window follows the leg's Vegas (congestion control only).
  void follow_leg_cwnd(const Leg& l);
  bool launch_leg(std::optional<RelayIdentity> retry_through);
  void top_up();
  void on_linked(std::uint64_t serial, const cell::ConfluxLinkedMsg& msg);
  void on_relinked(Leg& leg, const proto::ClientLinked& linked);
  // Linking -> Open: at once with an exit of ours, once every leg linked
  // (or no launch is left) with a tor exit.
  bool maybe_open();  // true when it opened
  // A linked leg died on a set whose exit is tor's.
  void on_tor_leg_lost(const Leg& leg, std::string_view why);
  // A leg died: a surviving leg (the lowest RTT) is relinked so that both
  // ends can resend on it what the dead leg lost, now rather than once a
  // replacement is built. One relink at a time; a leg lost meanwhile asks
  // for another.
  void relink_survivor();
  [[nodiscard]] bool any_relinking() const noexcept;
  void on_sequenced(std::uint64_t serial, StreamId stream, const cell::RelayMsg& msg);
  void on_leg_sendme(std::uint64_t serial);
  // Puts the set's cells on their legs' circuits, in order.
  void put(std::vector<proto::LegCell> cells);
  void flush();
  void deliver(std::vector<proto::DeliveredMsg> msgs);
  void notify_writable();
  void close_leg(std::uint64_t serial, cell::DestroyReason reason, std::string why);
  void fail(proto::ConfluxError e);
  void check_viable();
  [[nodiscard]] std::string leg_name(proto::LegId id) const;

  std::uint64_t serial_;
  ConfluxTunnelConfig config_;
  Hooks hooks_;
  const net::Clock& clock_;
  net::LogSink log_;
  std::unique_ptr<proto::ConfluxSet> set_;
  // The set's secret (LINK cells only; never logged). Kept to renew the
  // linker's launch budget once every leg is linked, as tor resets
  // num_leg_launch when a set finalizes.
  proto::ConfluxNonce nonce_;
  proto::ClientLinker linker_;
  State state_ = State::Linking;
  ExitKind exit_kind_ = ExitKind::Unknown;
  std::optional<std::uint16_t> port_;
  std::optional<RelayIdentity> exit_;
  std::string exit_policy_;
  std::map<std::uint64_t, Leg> legs_;  // by circuit serial
  std::uint32_t next_leg_ = 1;
  bool relink_again_ = false;  // a leg was lost while a relink was under way
  std::map<RelayIdentity, std::size_t> first_hop_failures_;
  std::map<RelayIdentity, Clock::time_point> suspects_;  // middles of dead legs, until then
  std::map<std::uint16_t, StreamEvents*> streams_;
  std::size_t wake_turn_ = 0;  // wake_order's rotation
  std::uint16_t next_stream_ = 1;
  std::uint64_t streams_attached_ = 0;
  std::optional<Clock::time_point> dirty_since_;
  std::string isolation_;
  std::string guard_client_;
  bool retired_ = false;
  ConfluxTunnelStats stats_;
};

}  // namespace conflux::client
