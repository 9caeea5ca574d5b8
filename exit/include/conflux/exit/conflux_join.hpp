#pragma once
// The Conflux join point at the exit (prop 329; docs/CONFLUX.md, "The exit's
// join point"). It sits between the runtime and the exit module:
//
//   ChannelManager --ExitHandler--> ConfluxJoin --ExitHandler--> ExitStreams
//   ChannelManager <-CircuitOutput-- ConfluxJoin <-CircuitOutput-- ExitStreams
//
// Plain circuits pass through with their own handle. A circuit whose client
// sends CONFLUX_LINK becomes a leg of a set (found by nonce in the
// ExitLinkRegistry, or new); each set is one proto::ConfluxSet and one
// virtual circuit handle, set_handle(id), so the exit module keeps the set's
// streams once, here, whichever leg their cells travel on. Sequenced cells
// from a leg go through the set and reach the exit module in order; what the
// exit module sends on the set's handle is spread over the legs by the set's
// scheduler, with SWITCH cells, and retransmitted when a leg dies with
// unacknowledged cells: on a surviving leg the client relinks (a LINK again
// on it), or on a replacement leg.
//
// What is closed, and only that: a circuit breaking the linking rules (LINK
// on a circuit that carried streams, caps) or a leg breaking the linking or
// leg rules (a LINK again before its LINKED_ACK, with another nonce or past
// the relink cap; unexpected LINKED_ACK, LINKED, BEGIN_DIR, a late
// LINKED_ACK);
// a whole set, with its streams, when its peer breaks the sequencing rules
// or it exceeds its memory, or when it stayed without a leg for
// legless_grace.
//
// Sans-I/O apart from the two interfaces: time comes from the `now`
// function and tick(now). One thread; the output may call back into this
// object (a circuit closing while a cell is sent), which every path allows
// for.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "conflux/log/sink.hpp"
#include "conflux/proto/conflux_linking.hpp"
#include "conflux/proto/conflux_reorder_budget.hpp"
#include "conflux/proto/conflux_set.hpp"
#include "conflux/proto/exit_interface.hpp"

namespace conflux::exit {

struct ConfluxJoinConfig {
  proto::ExitLinkConfig link{};
  proto::ReorderBudgetConfig budget{};
  // For every set; the scheduler and its parameters are replaced by those
  // of the first LINK's desired_ux.
  proto::ConfluxSetConfig set{};
  // How long a set without a live leg keeps its streams, waiting for the
  // client to link a replacement leg with the same nonce.
  std::chrono::milliseconds legless_grace{30'000};
  log::Sink log;
};

// Why a set was closed (the metrics' label).
enum class SetCloseReason : std::uint8_t {
  Protocol,        // the peer broke the sequencing or SWITCH rules (DESTROY PROTOCOL)
  Memory,          // reorder or retransmit caps, or shed under memory pressure (RESOURCELIMIT)
  LeglessTimeout,  // no leg for legless_grace
  Client,          // the client closed its last leg itself (DESTROY NONE, FINISHED or REQUESTED)
  Internal,        // a local failure (a bug): the set cannot go on
};
inline constexpr std::size_t kSetCloseReasons = 5;

struct ConfluxJoinStats {
  // Gauges.
  std::uint64_t sets = 0;            // sets alive, legless ones included
  std::uint64_t sets_legless = 0;    // sets waiting for a replacement leg
  std::uint64_t legs = 0;            // linked legs alive
  std::uint64_t reorder_bytes = 0;   // out-of-order bytes held, all sets (the shared budget)
  std::uint64_t reorder_cap_bytes = 0;
  std::uint64_t retained_bytes = 0;  // sent cells kept for retransmission, all sets
  // Counters.
  std::uint64_t sets_created = 0;
  std::uint64_t legs_linked = 0;     // LINKs accepted (new sets and joins)
  std::uint64_t legs_relinked = 0;   // LINKs again on linked legs (they carry a dead leg's cells)
  std::uint64_t links_refused = 0;   // LINKs whose circuit was closed instead
  std::uint64_t legs_closed = 0;     // linked legs gone, for any reason
  std::uint64_t linked_ack_timeouts = 0;
  std::array<std::uint64_t, kSetCloseReasons> sets_closed{};  // by SetCloseReason
  // Summed over every set, closed ones included.
  std::uint64_t cells_resent = 0;
  std::uint64_t cells_resent_on_relinked = 0;  // of those, on a surviving leg the client relinked
  std::uint64_t duplicates_dropped = 0;
  std::uint64_t switches_sent = 0;
  std::uint64_t switches_received = 0;
  std::uint64_t unconfirmed_holds = 0;  // DATA held: the set ran max_unconfirmed_cells ahead
};

class ConfluxJoin final : public proto::ExitHandler, public proto::CircuitOutput {
 public:
  using NowFn = std::function<proto::ConfluxTime()>;

  // The virtual handle of a set's streams: switch handles are small
  // counters, so the top bit keeps the two apart.
  static constexpr proto::CircuitHandle kSetHandleBit = proto::CircuitHandle{1} << 63;
  [[nodiscard]] static constexpr proto::CircuitHandle set_handle(proto::SetId id) noexcept {
    return kSetHandleBit | id.value();
  }
  [[nodiscard]] static constexpr bool is_set_handle(proto::CircuitHandle h) noexcept {
    return (h & kSetHandleBit) != 0;
  }

  // `out` (the runtime) must outlive this object; `inner` (the exit module)
  // may be set later and must outlive it or be unset first.
  ConfluxJoin(proto::CircuitOutput& out, NowFn now, ConfluxJoinConfig config = {});
  ~ConfluxJoin() override;
  ConfluxJoin(const ConfluxJoin&) = delete;
  ConfluxJoin& operator=(const ConfluxJoin&) = delete;

  void set_inner(proto::ExitHandler* inner) noexcept { inner_ = inner; }

  // proto::ExitHandler: what the runtime delivers.
  void on_stream_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) override;
  void on_circuit_writable(proto::CircuitHandle circuit) override;
  void on_circuit_sendme(proto::CircuitHandle circuit) override;
  void on_circuit_closed(proto::CircuitHandle circuit, cell::DestroyReason reason) override;
  // MaxMemInQueues: the inner exit's stream buffers and the sets' reorder
  // queues, as tor adds its conflux out-of-order bytes to the cell queues'
  // total (the reorder budget still sheds on its own at its pressure mark).
  // A set is listed under its set_handle, with its oldest out-of-order cell.
  [[nodiscard]] std::size_t buffered_bytes() const override;
  [[nodiscard]] std::vector<proto::BufferedCircuit> buffered_circuits() const override;
  // A set's handle (its reorder queue, or its streams' buffers): the whole
  // set closes (SetCloseReason::Memory), every leg with RESOURCELIMIT.
  bool close_for_memory(proto::CircuitHandle circuit) override;

  // proto::CircuitOutput: what the exit module sends.
  bool send_to_client(proto::CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg) override;
  [[nodiscard]] bool can_send_data(proto::CircuitHandle circuit) const override;
  // A set's streams use XON/XOFF when every live leg negotiated congestion
  // control (a client negotiates its legs alike; tor links only CC legs).
  [[nodiscard]] bool uses_congestion_control(proto::CircuitHandle circuit) const override;
  [[nodiscard]] bool blocked_on_channel(proto::CircuitHandle circuit) const override;
  // A plain circuit's, from the runtime; a set has none of its own.
  [[nodiscard]] std::optional<proto::RelayCircuitFlowInfo> flow_info(proto::CircuitHandle circuit) const override {
    if (is_set_handle(circuit)) return std::nullopt;
    return out_.flow_info(circuit);
  }
  void close_circuit(proto::CircuitHandle circuit, cell::DestroyReason reason) override;
  [[nodiscard]] std::optional<proto::ChannelId> client_channel(proto::CircuitHandle circuit) const override;

  // Deadlines: overdue LINKED_ACKs (the leg closes), sets legless for too
  // long, memory pressure (the sets with the oldest out-of-order data
  // close). The relay calls it once a second.
  void tick(proto::ConfluxTime now);

  [[nodiscard]] ConfluxJoinStats stats() const;
  [[nodiscard]] std::size_t set_count() const noexcept { return sets_.size(); }
  // The set a leg circuit belongs to.
  [[nodiscard]] std::optional<proto::SetId> set_of(proto::CircuitHandle leg_circuit) const;
  [[nodiscard]] const proto::ConfluxSet* set(proto::SetId id) const;
  [[nodiscard]] const proto::ReorderBudget& budget() const noexcept { return budget_; }

 private:
  struct LegRef {
    proto::SetId set{};
    proto::LegId leg{};
  };
  // A cell the exit module sent that the set could not number yet.
  struct Waiting {
    StreamId stream;
    cell::RelayMsg msg;
  };
  struct SetEntry {
    std::unique_ptr<proto::ConfluxSet> set;
    std::vector<proto::CircuitHandle> legs;           // live leg circuits
    std::optional<proto::ConfluxTime> legless_since;  // no live leg since
    // DATA the set's scheduler refused although can_send_data() had said
    // yes (the answer depends on the clock and on cells sent since), and
    // every cell sent after it, in order: they go once a window opens, as
    // tor queues on a circuit rather than refuse.
    std::deque<Waiting> waiting;
    // The exit module found DATA blocked: tell it when DATA can go again.
    mutable bool want_writable = false;
  };
  // Cells of one set waiting for a window (each a stale yes's DATA, or a
  // SENDME or END behind it): beyond this the set is closed (RESOURCELIMIT).
  static constexpr std::size_t kMaxWaitingCells = 2048;

  // ---- conflux_join.cpp: cells from legs and circuits, linking
  void on_plain_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg);
  void on_leg_message(proto::CircuitHandle circuit, LegRef ref, StreamId stream, cell::RelayMsg msg);
  void on_link(proto::CircuitHandle circuit, StreamId stream, const cell::ConfluxLinkMsg& msg);
  void on_relink(proto::CircuitHandle circuit, LegRef ref, const cell::ConfluxLinkMsg& msg);
  void on_linked_ack(proto::CircuitHandle circuit, LegRef ref);
  void on_sequenced(LegRef ref, StreamId stream, const cell::RelayMsg& msg);
  void deliver(proto::SetId id, std::vector<proto::DeliveredMsg> msgs);
  proto::LegId allocate_leg(proto::CircuitHandle circuit);

  // ---- conflux_join_sets.cpp: sending on legs, leg and set lifetimes
  // Sends a set's cells on their legs' circuits; a leg that refuses is
  // closed. False once the set is gone.
  bool send_cells(proto::SetId id, const std::vector<proto::LegCell>& cells);
  // Resends and held cells after a window or a leg changed;
  // tells the exit module when DATA can go again.
  void after_window(proto::SetId id);
  // A congestion-controlled leg's circuit: hand its Vegas state (cwnd and
  // RTT) to the set's scheduler.
  void follow_leg_cc(SetEntry& e, proto::CircuitHandle circuit, proto::LegId leg);
  // Each leg's circuit blocked on its channel or not, into the set's
  // scheduler (read before every choice: the queues move with every push and
  // pop; on_circuit_writable tells when a blocked one drained).
  void follow_leg_channels(const SetEntry& e) const;
  // Sends what waits for a window, in order, until the set refuses again.
  // False once the set is gone.
  bool send_waiting(proto::SetId id);
  // The leg stops being one: forgotten here, in the registry and in its set.
  // `deliberate`: the client closed it (the set may end with it).
  void detach_leg(proto::CircuitHandle circuit, bool deliberate);
  // Detaches the leg and closes its circuit (CircuitClosed is then ignored).
  void close_leg(proto::CircuitHandle circuit, cell::DestroyReason reason);
  // A plain circuit: closed, nothing else.
  void close_plain(proto::CircuitHandle circuit, cell::DestroyReason reason);
  // Closes a circuit whose CircuitClosed must not reach the exit module.
  void close_quietly(proto::CircuitHandle circuit, cell::DestroyReason reason);
  // Closes every leg (with `reason`, else the one `why` implies) and tells
  // the exit module the set's handle is gone.
  void close_set(proto::SetId id, SetCloseReason why, std::optional<cell::DestroyReason> reason = std::nullopt);
  // The set's error: every error closes the set (memory caps with RESOURCELIMIT).
  void set_failed(proto::SetId id, proto::ConfluxError e);
  void shed_under_pressure();
  void retire_stats(const proto::ConfluxSet& set);
  [[nodiscard]] SetEntry* find_set(proto::SetId id);
  [[nodiscard]] const SetEntry* find_set(proto::SetId id) const;
  [[nodiscard]] std::optional<proto::CircuitHandle> circuit_of(proto::LegId leg) const;
  void log(log::Severity level, std::string_view text) const;

  proto::CircuitOutput& out_;
  proto::ExitHandler* inner_ = nullptr;
  NowFn now_;
  ConfluxJoinConfig config_;
  proto::ReorderBudget budget_;  // before the sets: they return their bytes to it
  proto::ExitLinkRegistry registry_;
  std::map<proto::SetId, SetEntry> sets_;
  std::unordered_map<proto::CircuitHandle, LegRef> legs_;
  std::unordered_map<proto::LegId, proto::CircuitHandle> leg_circuits_;
  // Plain circuits that carried a stream: a LINK there is refused.
  std::unordered_set<proto::CircuitHandle> used_;
  // Circuits we closed whose CircuitClosed has not come back yet.
  std::unordered_set<proto::CircuitHandle> closing_;
  std::uint32_t next_leg_ = 1;
  ConfluxJoinStats totals_;  // the counters; gauges are filled in by stats()
};

}  // namespace conflux::exit
