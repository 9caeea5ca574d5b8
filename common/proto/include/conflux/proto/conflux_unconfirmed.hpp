#pragma once
// How far our sending runs ahead of what the legs' circuit SENDMEs have
// shown the peer to hold: from the oldest DATA cell not yet acknowledged to
// the last number sent. Everything in that span may be waiting in the
// peer's out-of-order queue, which the peer caps (ReceiverLimits): a set
// that overruns it is closed with every stream on it.
//
// Why a sender must bound it: when one leg stalls (its relay starved of CPU
// for seconds on a loaded machine, a bridge that stops reading), the other
// legs keep getting SENDMEs, since the peer acknowledges cells on arrival,
// before reordering; with congestion control no stream window stops them
// either, and the leg scheduler's RTT estimates do not see a stall. MPTCP
// bounds the same thing with its connection-level receive window.
//
// Kept per live leg in wire order: a SENDME acknowledges the oldest DATA
// cells of its leg. Only DATA is counted (the other cells are few and no
// SENDME acknowledges them). A closed leg's cells are forgotten (they are
// tracked again when resent), so while a set recovers the span may be low.
// At most one entry per DATA cell in flight: bounded by the legs' windows.
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

class UnconfirmedData {
 public:
  void on_data_sent(LegId leg, SeqAbs seq);
  // A circuit SENDME on `leg` acknowledged its `data_cells` oldest DATA cells.
  void on_acked(LegId leg, std::uint64_t data_cells);
  void forget_leg(LegId leg);

  // Numbers from the oldest unacknowledged DATA cell to `last_sent`,
  // inclusive; 0 when every DATA cell is acknowledged.
  [[nodiscard]] std::uint64_t span(SeqAbs last_sent) const noexcept;
  // The leg carrying the oldest unacknowledged DATA cell.
  [[nodiscard]] std::optional<LegId> oldest_leg() const noexcept;
  [[nodiscard]] std::size_t cells() const noexcept { return all_.size(); }

 private:
  std::deque<std::uint64_t>* find(LegId leg) noexcept;

  std::vector<std::pair<LegId, std::deque<std::uint64_t>>> legs_;  // a set has at most 8
  std::multiset<std::uint64_t> all_;  // every leg's entries: the oldest is begin()
};

}  // namespace conflux::proto
