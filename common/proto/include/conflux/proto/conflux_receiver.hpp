#pragma once
// The receiving half of a Conflux set (prop 329 section 2.6): per-leg
// absolute sequence numbers, SWITCH processing, and the out-of-order queue
// that turns cells arriving over several legs back into one ordered stream.
//
//   rx.add_leg(leg, base);                 // base: the last_seqno_recv we sent
//   auto a = rx.on_cell(leg, cell, now);   // in order -> a->deliver holds it
//   if (a && a->deliver) process(*a->deliver);
//   while (auto c = rx.pop_ready()) process(*c);
//
// Each multiplexed cell takes its leg's number + 1. It is delivered at once
// when it is the next one, queued when it is ahead (within 'seq_window'),
// and otherwise refused with a typed error: the caller closes this set only.
// A duplicate is dropped silently only on a leg linked into a set that had
// already carried data, where the peer may resend what a dead leg lost, and
// only up to 'resend_allowance_cells' per such leg.
//
// SWITCH checks tor lacks: a relative number of 0 is refused except as the
// very first event on a leg (C tor may send it when switching to a freshly
// relinked leg); a second SWITCH with no cell since the first is refused; a
// jump past the window is refused.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "conflux/proto/conflux_reorder_budget.hpp"
#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

struct ReceiverLimits {
  // Cells a sequence number may run ahead of delivery: the sum of the legs'
  // windows bounds it for a correct sender (8 legs of 1000-cell classic
  // windows; congestion-control windows grow beyond that, hence the margin).
  std::uint64_t seq_window = 32768;
  std::size_t max_set_bytes = std::size_t{4} << 20;
  // Beyond max_set_bytes a set still queues a stream's DATA while that
  // stream has fewer than this many cells queued: a correct sender never
  // has more in flight (its stream window), and a page's dozens of streams
  // on one set legitimately hold more than max_set_bytes out of order when
  // the legs' RTTs differ (issue 13). The shared ReorderBudget stays the
  // bound on memory.
  std::uint32_t stream_window_cells = 500;
  std::size_t max_legs = 8;
  std::uint32_t resend_allowance_cells = 2000;
};

enum class CellFate : std::uint8_t {
  Deliver,           // 'deliver' holds the cell: process it, then pop_ready()
  Queued,            // ahead of delivery: kept until the gap fills
  DuplicateDropped,  // a resent copy of something already received
};

struct Arrival {
  CellFate fate = CellFate::Deliver;
  SeqAbs seq{};
  std::optional<SeqCell> deliver;
  bool memory_pressure = false;  // the shared budget asks the caller to shed sets
};

class ConfluxReceiver {
 public:
  // Out-of-order bytes are charged per cell: its body plus this overhead.
  static constexpr std::size_t kEntryOverhead = 64;

  ConfluxReceiver(SetId id, ReorderBudget& budget, ReceiverLimits limits = {});
  ~ConfluxReceiver();
  ConfluxReceiver(const ConfluxReceiver&) = delete;
  ConfluxReceiver& operator=(const ConfluxReceiver&) = delete;

  // 'base' is the last_seqno_recv this side put in the leg's LINK or LINKED
  // (0 for a new set): the peer numbers that leg's cells from there.
  ConfluxResult<ConfluxOk> add_leg(LegId leg, SeqAbs base);
  // A live leg relinked: its count starts again from 'base' (what this side
  // advertised in the new LINK or LINKED), as for a new leg, with the same
  // allowance for resent copies.
  ConfluxResult<ConfluxOk> rebase_leg(LegId leg, SeqAbs base);
  void remove_leg(LegId leg) noexcept;

  ConfluxResult<ConfluxOk> on_switch(LegId leg, SeqRel relative);
  ConfluxResult<Arrival> on_cell(LegId leg, SeqCell cell, ConfluxTime now);
  // The next queued cell if it is the next in order.
  std::optional<SeqCell> pop_ready();

  [[nodiscard]] SetId id() const noexcept { return id_; }
  [[nodiscard]] SeqAbs last_delivered() const noexcept { return delivered_; }
  [[nodiscard]] SeqAbs highest_received() const noexcept { return highest_; }
  [[nodiscard]] std::size_t queued_cells() const noexcept { return queue_.size(); }
  [[nodiscard]] std::size_t queued_bytes() const noexcept { return queued_bytes_; }
  // A new per-set cap (ReceiverLimits::max_set_bytes) from now on.
  void set_max_set_bytes(std::size_t bytes) noexcept { limits_.max_set_bytes = bytes; }
  [[nodiscard]] std::optional<ConfluxTime> oldest_queued() const noexcept;
  [[nodiscard]] std::optional<SeqAbs> leg_last_seq(LegId leg) const noexcept;
  [[nodiscard]] std::size_t leg_count() const noexcept { return legs_.size(); }

  [[nodiscard]] static std::size_t cost_of(const SeqCell& cell) noexcept {
    return cell.body.size() + kEntryOverhead;
  }

 private:
  struct Leg {
    LegId id{};
    SeqAbs last{};
    bool switch_pending = false;  // a SWITCH arrived and no cell since
    bool seen_event = false;      // any SWITCH or cell since linking
    std::uint32_t dup_allowance = 0;
  };
  struct Entry {
    SeqCell cell;
    ConfluxTime arrived{};
    std::size_t cost = 0;
  };

  void count_queued(const SeqCell& cell, bool add) noexcept;
  Leg* find(LegId leg) noexcept;
  const Leg* find(LegId leg) const noexcept;
  [[nodiscard]] std::uint32_t resend_allowance() const noexcept;
  void report() noexcept;
  ConfluxResult<Arrival> duplicate(Leg& leg, SeqAbs seq);

  SetId id_;
  ReorderBudget& budget_;
  ReceiverLimits limits_;
  std::vector<Leg> legs_;
  SeqAbs delivered_{};
  SeqAbs highest_{};
  std::map<std::uint64_t, Entry> queue_;
  std::multiset<ConfluxTime> arrivals_;
  std::size_t queued_bytes_ = 0;
  std::map<std::uint16_t, std::uint32_t> queued_data_;  // DATA cells queued, by stream
};

}  // namespace conflux::proto
