#pragma once
// Circuit build timeout learnt from build times (path-spec 2.4, tor's CBT):
// a Pareto curve fitted to the last `history` outcomes, the timeout at its
// `quantile` (80%). Sans-I/O: the runtime reports each build time or
// abandoned build and asks for the current timeout.
//
//  - Until `min_circs` builds completed: `initial` (60 s).
//  - Xm: the count-weighted mean of the midpoints of the `num_modes` most
//    frequent `bin_ms` histogram bins; times below Xm count as Xm.
//  - alpha = s / (u*ln(x_max) + sum ln(x_i) - n*ln(Xm)), s completed, u
//    abandoned (right-censored at the longest completed time), n = s + u.
//  - timeout = Xm / (1 - quantile)^(1/alpha), clamped to [min, max].
//  - If `max_recent_timeouts` of the last `recent_count` outcomes were
//    abandoned, the network changed: history is dropped and the timeout goes
//    to `initial`, or doubles if it was already there or above.
//
// close_timeout() is the 95% point (at least `initial`): tor keeps building
// past timeout() until then, to measure the tail; a runtime that does so
// reports the late build times, and add_timeout() only past close_timeout().
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace conflux::path {

struct BuildTimeoutParams {
  std::size_t history = 1000;        // CBT_NCIRCUITS_TO_OBSERVE
  std::size_t min_circs = 100;       // cbtmincircs
  std::size_t num_modes = 10;        // cbtnummodes (tor's current default)
  std::uint32_t bin_ms = 10;         // CBT_BIN_WIDTH
  double quantile = 0.80;            // cbtquantile
  double close_quantile = 0.95;      // cbtclosequantile
  std::size_t recent_count = 20;     // cbtrecentcount
  std::size_t max_recent_timeouts = 18;  // cbtmaxtimeouts
  std::chrono::milliseconds initial{60000};  // cbtinitialtimeout
  std::chrono::milliseconds min{1500};       // cbtmintimeout (tor: 10 ms; see PATHS.md)
  std::chrono::milliseconds max{120000};
};

class BuildTimeoutEstimator {
 public:
  struct Fit {
    double xm_ms = 0;
    double alpha = 0;
  };

  explicit BuildTimeoutEstimator(BuildTimeoutParams params = {});

  void add_build_time(std::chrono::milliseconds took);
  void add_timeout();
  [[nodiscard]] std::chrono::milliseconds timeout() const;
  [[nodiscard]] std::chrono::milliseconds close_timeout() const;
  [[nodiscard]] const std::optional<Fit>& fit() const;
  [[nodiscard]] std::size_t completed() const noexcept { return completed_; }
  [[nodiscard]] std::size_t abandoned() const noexcept { return abandoned_; }
  // How many times recent timeouts made it start over.
  [[nodiscard]] std::uint64_t resets() const noexcept { return resets_; }

 private:
  void record(std::uint32_t ms);  // 0 = abandoned
  void note_recent(bool timed_out);
  void recompute() const;  // refreshes the cached fit when an outcome arrived since

  BuildTimeoutParams params_;
  std::vector<std::uint32_t> ring_;  // circular history; 0 = abandoned
  std::size_t next_ = 0;
  std::size_t completed_ = 0, abandoned_ = 0;
  std::deque<bool> recent_;  // true = timed out
  std::chrono::milliseconds base_;  // the timeout without a fit (initial, or doubled)
  // Cache: the fit costs O(history), outcomes arrive far more often than
  // the runtime asks for the timeout.
  mutable bool dirty_ = true;
  mutable std::chrono::milliseconds timeout_;
  mutable std::chrono::milliseconds close_timeout_;
  mutable std::optional<Fit> fit_;
  std::uint64_t resets_ = 0;
};

}  // namespace conflux::path
