#pragma once
// Retransmission history, so that no data is lost when a leg dies (prop 329
// section 2.7, which C tor does not implement: it tears the set down).
//
// Each end keeps every sequenced cell it sent on a leg until that leg's
// circuit SENDMEs show the far end received it. A SENDME acknowledges DATA
// cells; the other multiplexed cells (BEGIN, END, ...) are not counted by
// the window but travel in order on the same circuit, so they are known
// received once a later DATA cell is. A side that sends no DATA (the client
// of a download sends only stream SENDMEs) learns instead what the peer has
// delivered (on_peer_delivered: ConfluxSet infers it from the peer's stream
// windows), which frees every leg's cells up to that number. When a leg dies, cells_to_resend()
// returns what it still held beyond what the peer reports delivered (its
// last_seqno_recv in the replacement leg's LINK/LINKED), ordered by number,
// for ConfluxSender::prepare_resend() on the replacement leg.
//
// Memory is bounded by the legs' windows: a leg holds at most
// 'max_cells_per_leg' cells (a circuit window plus room for the unwindowed
// commands) and the buffer at most 'max_bytes'. Past either, the cell is
// not kept, the call says RetransmitFull, and that leg's history is dropped:
// the set carries on, but if that leg dies its data is lost
// (ResendUnavailable), which is tor's behaviour.
#include <cstddef>
#include <deque>
#include <span>
#include <vector>

#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

struct RetransmitLimits {
  std::size_t max_cells_per_leg = 1000 + 256;
  std::size_t max_bytes = std::size_t{4} << 20;
};

struct ResendCell {
  SeqAbs seq{};
  SeqCell cell;
};

class RetransmitBuffer {
 public:
  static constexpr std::size_t kEntryOverhead = 64;

  explicit RetransmitBuffer(RetransmitLimits limits = {}) noexcept : limits_(limits) {}

  // Numbers on one leg must increase, except right after restart_leg().
  ConfluxResult<ConfluxOk> on_cell_sent(LegId leg, SeqAbs seq, SeqCell cell);
  // The leg was relinked: the next cell sent on it may carry a lower number
  // (a resend). Its history stays in send order, which is what SENDMEs
  // acknowledge.
  void restart_leg(LegId leg) noexcept;
  // A circuit SENDME on 'leg' acknowledged 'data_cells' more DATA cells.
  ConfluxResult<ConfluxOk> on_leg_acked(LegId leg, CellCount data_cells);
  // Everything up to and including 'seq' on 'leg' is known received.
  void on_leg_acked_through(LegId leg, SeqAbs seq) noexcept;
  // The peer delivered every cell up to and including 'seq', whatever leg
  // carried it.
  void on_peer_delivered(SeqAbs seq) noexcept;

  // The unacknowledged cells of the dead legs numbered above
  // 'peer_delivered', merged in order; the legs' history is dropped.
  ConfluxResult<std::vector<ResendCell>> cells_to_resend(std::span<const LegId> dead_legs,
                                                         SeqAbs peer_delivered);
  void forget_leg(LegId leg) noexcept;

  [[nodiscard]] std::size_t retained_cells(LegId leg) const noexcept;
  [[nodiscard]] std::size_t retained_bytes() const noexcept { return bytes_; }
  // False once the leg lost part of its history to the caps.
  [[nodiscard]] bool complete(LegId leg) const noexcept;

 private:
  struct Entry {
    SeqAbs seq{};
    SeqCell cell;
    std::size_t cost = 0;
    // Freed once this many of the leg's DATA cells are acknowledged: its own
    // ordinal for a DATA cell, the next DATA cell's for any other.
    std::uint64_t gate = 0;
  };
  struct Leg {
    LegId id{};
    std::deque<Entry> cells;
    bool broken = false;
    bool restarted = false;  // the next number may be lower than the last
    std::uint64_t data_sent = 0;
    std::uint64_t data_acked = 0;
  };
  Leg* find(LegId leg) noexcept;
  const Leg* find(LegId leg) const noexcept;
  Leg& get(LegId leg);
  void pop_front(Leg& l) noexcept;
  void drop_history(Leg& l) noexcept;

  RetransmitLimits limits_;
  std::vector<Leg> legs_;
  std::size_t bytes_ = 0;
};

}  // namespace conflux::proto
