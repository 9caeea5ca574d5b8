#pragma once
// One Conflux set at one end (client or exit), sans-I/O: the sender, the
// receiver, the retransmit history, the legs' window/RTT state and the leg
// scheduler, composed. The runtime owns the legs' circuits; it tells the set
// what happened on them and sends the LegCells the set returns, in order, on
// the named leg's circuit (SWITCH and sequenced messages alike).
//
//   Linking    advertise() gives the numbers for our LINK / LINKED; once the
//              peer's numbers are known, add_leg(). When legs died before,
//              their unacknowledged cells are queued for the new leg and
//              go out through flush() as its window allows.
//   Sending    send(stream, msg) for a multiplexed message (BEGIN, DATA,
//              END, CONNECTED, RESOLVE(D), XON, XOFF). DATA needs
//              can_send_data(); the other commands go on the current leg, or
//              any live leg, or (no leg alive) wait in a small bounded queue
//              until a leg is added.
//   Receiving  on_switch() and on_cell() for what arrives on a leg (the
//              caller has already applied check_join_point at the client and
//              refused BEGIN_DIR); on_cell returns the messages now in order.
//              on_leg_sendme() for every circuit-level SENDME on a leg.
//   Legs dying leg_closed(): the leg's retained cells wait for the next
//              add_leg or relink_leg, and the surviving legs carry on. The
//              client relinks a surviving leg at once (a LINK/LINKED
//              exchange on it again, begin_relink() then relink_leg()):
//              that resets the leg's numbering on both ends, so the dead
//              leg's cells go out again on it, below numbers it already
//              carried (a SWITCH can only move a leg's count forward). It
//              also links a replacement leg; the exit waits for either.
//
// Every error is the peer's fault or a cap reached; the caller closes this
// set only (is_local_error() ones are bugs in the caller).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "conflux/cell/relay_msg.hpp"
#include "conflux/proto/conflux_delivery_proof.hpp"
#include "conflux/proto/conflux_receiver.hpp"
#include "conflux/proto/conflux_resync.hpp"
#include "conflux/proto/conflux_retransmit.hpp"
#include "conflux/proto/conflux_sender.hpp"
#include "conflux/proto/conflux_unconfirmed.hpp"
#include "conflux/proto/leg_sched.hpp"
#include "conflux/proto/leg_sched_leg.hpp"

namespace conflux::proto {

struct ConfluxSetConfig {
  LegSchedKind scheduler = LegSchedKind::Blest;
  LegSchedParams sched_params{};
  LegWindowParams window{};          // classic windows: cwnd 1000, 100 per SENDME
  ReceiverLimits receiver{};
  RetransmitLimits retransmit{};
  std::size_t max_legs = 8;
  // Non-DATA messages sent while no leg is alive (END, CONNECTED...), kept
  // for the next leg; beyond this the send fails with RetransmitFull.
  std::size_t max_held_messages = 256;
  // How far our DATA may run ahead of what the legs' SENDMEs confirmed
  // (conflux_unconfirmed.hpp). Beyond it only the leg holding the oldest
  // unconfirmed cell takes DATA. Well under what our receiver holds for one
  // set (ReceiverLimits::max_set_bytes, 4 MiB: ~7400 full cells), and above
  // what the legs' windows keep in flight when none stalls (2 x 1000 cells
  // with fixed windows; Vegas's cwnd, a few hundred, under CC).
  std::uint64_t max_unconfirmed_cells = 4000;
};

// A cell for the runtime to send on `leg`'s circuit: a SWITCH, or a
// multiplexed message of `stream`.
struct LegCell {
  LegId leg{};
  StreamId stream{};
  cell::RelayMsg msg;
};

// A multiplexed message now in order, for the stream layer.
struct DeliveredMsg {
  StreamId stream{};
  cell::RelayMsg msg;
};

// What the metrics show of one live leg.
struct ConfluxLegInfo {
  LegId id{};
  RttDuration srtt{};
  RttDuration min_rtt{};
  std::uint32_t cwnd = 0;
  std::uint32_t inflight = 0;
  std::uint64_t cells_sent = 0;      // multiplexed cells, resends included
  std::uint64_t cells_received = 0;  // multiplexed cells that arrived on it
  std::size_t resend_queued = 0;     // resent cells still waiting for its window
};

struct ConfluxSetStats {
  std::uint64_t cells_sent = 0;
  std::uint64_t cells_received = 0;
  std::uint64_t cells_delivered = 0;
  std::uint64_t switches_sent = 0;
  std::uint64_t switches_received = 0;
  std::uint64_t cells_resent = 0;
  std::uint64_t cells_resent_on_relinked = 0;  // of those, on a leg that was already carrying the set
  std::uint64_t duplicates_dropped = 0;
  std::uint64_t legs_added = 0;
  std::uint64_t legs_closed = 0;
  std::uint64_t legs_relinked = 0;
  std::size_t max_reorder_cells = 0;  // deepest the out-of-order queue got
  // Answers of "no leg for DATA" (can_send_data, send) because the set ran
  // max_unconfirmed_cells ahead, where the windows had room.
  std::uint64_t unconfirmed_holds = 0;
};

class ConfluxSet {
 public:
  ConfluxSet(SetId id, ReorderBudget& budget, ConfluxSetConfig config = {});
  ~ConfluxSet();
  ConfluxSet(const ConfluxSet&) = delete;
  ConfluxSet& operator=(const ConfluxSet&) = delete;

  // The numbers for our LINK (client) or LINKED (exit) on a new leg. Keep
  // them for add_leg.
  [[nodiscard]] LinkNumbers advertise() const noexcept;
  // The leg is linked: `ours` is what we advertised on it, `peer` what the
  // peer did, `link_rtt` the LINK->LINKED (client) or LINKED->LINKED_ACK
  // (exit) time, or zero if not known yet. Cells of dead legs the peer has
  // not delivered are queued on this leg: call flush().
  ConfluxResult<ConfluxOk> add_leg(LegId leg, LinkNumbers ours, LinkNumbers peer, RttDuration link_rtt,
                                   ConfluxTime now);
  // The client sent a LINK on a live leg to relink it: until relink_leg(),
  // no sequenced cell goes on it (the exit counts its cells from the LINK
  // on), and messages that have no other leg wait in the held queue.
  ConfluxResult<ConfluxOk> begin_relink(LegId leg);
  // A live leg relinked: at the exit when the LINK arrives (before sending
  // LINKED), at the client when the LINKED does. Numbers as for add_leg; the
  // leg keeps its window and RTT. The dead legs' cells the peer has not
  // delivered are queued on it: call flush().
  ConfluxResult<ConfluxOk> relink_leg(LegId leg, LinkNumbers ours, LinkNumbers peer, RttDuration link_rtt,
                                      ConfluxTime now);
  [[nodiscard]] bool relinking(LegId leg) const noexcept;
  // A first RTT sample that came later (the exit's LINKED_ACK).
  void on_link_rtt(LegId leg, RttDuration rtt);
  // The leg's circuit is gone (either side closed it).
  void leg_closed(LegId leg);

  // Whether a DATA cell can go now (some leg has window and the scheduler
  // picks one).
  [[nodiscard]] bool can_send_data(ConfluxTime now);
  // Sends a multiplexed message: the cells to put on the wire, in order.
  // DATA when no leg can send gives WindowClosed; nothing changes then.
  ConfluxResult<std::vector<LegCell>> send(StreamId stream, const cell::RelayMsg& msg, ConfluxTime now);
  // Resent and held cells that can go now.
  std::vector<LegCell> flush(ConfluxTime now);

  ConfluxResult<ConfluxOk> on_switch(LegId leg, const cell::ConfluxSwitchMsg& msg);
  ConfluxResult<std::vector<DeliveredMsg>> on_cell(LegId leg, StreamId stream, const cell::RelayMsg& msg,
                                                   ConfluxTime now);
  // A circuit SENDME arrived on the leg (it acknowledges window.sendme_inc
  // DATA cells). Call flush() after: resends may fit now.
  ConfluxResult<ConfluxOk> on_leg_sendme(LegId leg, ConfluxTime now);
  // The leg's circuit runs congestion control (the set is then built with
  // window.sendme_inc = the negotiated sendme_inc): its cwnd and N-EWMA RTT
  // now, as its Vegas left them. Call once the leg is added and after every
  // on_leg_sendme on it (Vegas has handled that SENDME): the scheduler then
  // reads the circuit's window and RTT (tor's leg->circ_rtts_usec =
  // cc->ewma_rtt_usec) instead of fixed windows and the set's own SENDME
  // timing. In-flight DATA stays the set's own count (leg_sched_leg.hpp).
  void set_leg_cc(LegId leg, const LegCcView& cc);
  // The leg's circuit is blocked on its channel (its cells wait past
  // cellq_high: tor's circuit_blocked_on_*_chan): the scheduler gives it no
  // new DATA until it is not, as tor's circuit_ready_to_send. Resends
  // already queued for the leg still go (flush()).
  void set_leg_channel_blocked(LegId leg, bool blocked);
  // Our receiver's per-set cap on out-of-order bytes (ReceiverLimits::
  // max_set_bytes); the shared ReorderBudget still bounds them all.
  void set_reorder_cap(std::size_t bytes) noexcept { rx_.set_max_set_bytes(bytes); }

  [[nodiscard]] SetId id() const noexcept { return id_; }
  [[nodiscard]] std::size_t live_legs() const noexcept { return legs_.size(); }
  [[nodiscard]] bool has_leg(LegId leg) const noexcept;
  // Cells that a dead leg did not get acknowledged and no new leg took yet.
  [[nodiscard]] bool awaiting_replacement() const noexcept { return !dead_.empty(); }
  // The shared reorder budget asked for sets to be shed (check sets_to_close()).
  [[nodiscard]] bool memory_pressure() const noexcept { return pressure_; }
  [[nodiscard]] std::size_t reorder_cells() const noexcept { return rx_.queued_cells(); }
  [[nodiscard]] std::size_t reorder_bytes() const noexcept { return rx_.queued_bytes(); }
  // The receiver's numbers, for a stalled stream's description.
  [[nodiscard]] const ConfluxReceiver& receiver() const noexcept { return rx_; }
  [[nodiscard]] std::size_t retained_bytes() const noexcept { return retx_.retained_bytes(); }
  [[nodiscard]] std::vector<ConfluxLegInfo> legs() const;
  [[nodiscard]] const ConfluxSetStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const LegSchedStats& sched_stats() const noexcept { return sched_->stats(); }
  [[nodiscard]] LegSchedKind scheduler_kind() const noexcept { return sched_->kind(); }

 private:
  // A cell waiting on its leg: resends (numbered for this leg) and what was
  // sent on the leg behind them. `seq` is set for multiplexed cells, which
  // join the leg's retransmit history when they actually go out.
  struct Queued {
    LegCell cell;
    std::optional<SeqAbs> seq;
  };
  struct Leg {
    LegId id{};
    std::uint64_t cells_sent = 0;
    std::uint64_t cells_received = 0;
    std::deque<Queued> queue;
    bool relinking = false;  // our LINK went out on it, no LINKED yet
    bool channel_blocked = false;
  };
  struct Held {
    StreamId stream{};
    cell::RelayMsg msg;
  };
  [[nodiscard]] std::optional<std::size_t> index_of(LegId leg) const noexcept;
  [[nodiscard]] std::optional<std::size_t> leg_for_control() const;
  // The leg for the next DATA cell (none: WindowClosed).
  [[nodiscard]] std::optional<std::size_t> leg_for_data(ConfluxTime now);
  ConfluxResult<std::vector<LegCell>> send_on(std::size_t index, StreamId stream, const cell::RelayMsg& msg,
                                              ConfluxTime now);
  void refresh_blocked();
  void record_sent(Leg& leg, SeqAbs seq, const LegCell& c);
  // Cells queued on the leg and not sent: numbered for it, in nobody's
  // history. They join the orphans, to be numbered again.
  void orphan_queue(Leg& leg);
  // Queues on the leg (just added or relinked, numbered from `send_base`)
  // what dead legs and orphans owe the peer, then the held messages.
  // Returns the number of cells resent.
  ConfluxResult<std::size_t> queue_owed(std::size_t index, SeqAbs send_base, ConfluxTime now);

  SetId id_;
  ConfluxSetConfig config_;
  ConfluxSender tx_;
  ConfluxReceiver rx_;
  RetransmitBuffer retx_;
  DeliveryProof proof_;  // frees history a SENDME never acknowledges
  UnconfirmedData unconfirmed_;
  std::unique_ptr<LegScheduler> sched_;
  // Parallel vectors: the scheduler indexes LegStates.
  std::vector<Leg> legs_;
  std::vector<LegState> states_;
  std::vector<LegId> dead_;
  std::optional<LegId> last_rx_leg_;  // where the peer's latest multiplexed cell arrived
  std::vector<ResendCell> orphans_;  // numbered for a leg that died before sending them
  std::deque<Held> held_;
  bool pressure_ = false;
  ConfluxSetStats stats_;
};

}  // namespace conflux::proto
