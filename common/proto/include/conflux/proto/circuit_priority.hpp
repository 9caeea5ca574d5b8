#pragma once
// Which active circuit of a channel sends next: the circuit mux's policy.
//
//   - Round robin: one cell per active circuit in turn.
//   - EWMA (Tang & Goldberg, CCS 2010): the circuit that sent the fewest
//     cells recently, counted with exponential decay of half-life H, so
//     bursty circuits (web, circuit building) overtake bulk ones.
//
// EWMA uses Mathewson's scaled form: instead of decaying every circuit's
// count as time passes, a cell sent at time t adds V(t) = 2^((t - ref)/H) to
// its circuit's stored count. Stored counts then compare exactly like the
// decayed ones (they differ by the common factor V(now)), so no circuit is
// touched as time passes and the active circuits live in a min-heap that
// changes only where a cell is sent. Before V grows large, every stored
// count is divided by 2^k and `ref` moves k half-lives forward: a power of
// two, so the rescaling is exact and cannot overflow.
#include <chrono>
#include <cstddef>
#include <memory>

#include "conflux/bytes/strong_int.hpp"

namespace conflux::proto {

using MuxTime = std::chrono::steady_clock::time_point;

// A cell timed through the relay (per-cell tracing, "Never Been KIST" 4):
// `seq` numbers this mux's sampled cells from 0, so (channel, seq) names
// the cell uniquely in the relay.
struct CellSample {
  std::uint64_t seq = 0;
  CircId circ{};
  MuxTime queued{};
};

// CircuitPriorityHalflife: H in seconds; H <= 0 (tor's -1) is round robin.
struct CircuitPriority {
  double halflife_s = 30.0;
  [[nodiscard]] bool ewma() const noexcept { return halflife_s > 0.0; }
};

class ActiveCircuits {
 public:
  virtual ~ActiveCircuits() = default;
  // `circ` had no cells and now has some.
  virtual void activate(CircId circ) = 0;
  [[nodiscard]] virtual bool empty() const noexcept = 0;
  // The circuit to serve next (precondition: !empty()). Ties go to the
  // lowest circuit ID, so the choice is deterministic.
  [[nodiscard]] virtual CircId head() const = 0;
  // The head sent one cell at `now`; `still_active` if it has more.
  virtual void sent(CircId circ, MuxTime now, bool still_active) = 0;
  // The circuit is gone (closed): forget it, active or not.
  virtual void remove(CircId circ) = 0;
  // What one of the circuit's cells adds to its count: the experimental
  // priority factor F of a worse-class circuit ("Never Been KIST" 5.1;
  // 1 = off). Round robin has no counts and ignores it.
  virtual void set_weight(CircId circ, double weight) = 0;
  // The head's decayed cell count at `now`, comparable across channels
  // (KIST picks the channel whose head is quietest). 0 for round robin.
  [[nodiscard]] virtual double head_priority(MuxTime now) const = 0;
  // A circuit's decayed cell count at `now` (0 if unknown or round robin).
  [[nodiscard]] virtual double count(CircId circ, MuxTime now) const = 0;
};

[[nodiscard]] std::unique_ptr<ActiveCircuits> make_active_circuits(CircuitPriority priority);

}  // namespace conflux::proto
