#pragma once
// The memory budget that every set's out-of-order queue draws from (one per
// process side: the proxy has one, the exit has one).
//
// Two levels: 'cap_bytes' is hard (a charge that would exceed it is refused,
// and the set that asked is closed), 'pressure_bytes' is where shedding
// starts: sets_to_close() names the sets holding the OLDEST out-of-order
// data first, as prop 329 section 4.1 asks and tor does not do (its OOM
// killer ignores reorder-queue age). Sets release their bytes when their
// queue drains or when they are destroyed, so the total cannot leak upward
// (tor's TROVE-2026-010).
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

struct ReorderBudgetConfig {
  std::size_t cap_bytes = std::size_t{64} << 20;
  std::size_t pressure_bytes = std::size_t{48} << 20;
};

class ReorderBudget {
 public:
  explicit ReorderBudget(ReorderBudgetConfig config = {}) noexcept : config_(config) {}
  ReorderBudget(const ReorderBudget&) = delete;
  ReorderBudget& operator=(const ReorderBudget&) = delete;

  // Whether 'bytes' more would fit under the hard cap.
  [[nodiscard]] bool can_charge(std::size_t bytes) const noexcept;
  // A set reports its current usage (bytes 0 removes it from the ranking).
  void update(SetId set, std::size_t bytes, std::optional<ConfluxTime> oldest);
  void release(SetId set) { update(set, 0, std::nullopt); }

  [[nodiscard]] std::size_t used_bytes() const noexcept { return used_; }
  [[nodiscard]] const ReorderBudgetConfig& config() const noexcept { return config_; }
  [[nodiscard]] bool under_pressure() const noexcept { return used_ > config_.pressure_bytes; }

  // The sets to close, oldest out-of-order data first, until what remains is
  // at or below pressure_bytes. Empty when there is no pressure.
  [[nodiscard]] std::vector<SetId> sets_to_close() const;

  // Each set holding out-of-order bytes, with the time its oldest was held
  // (MaxMemInQueues weighs them against the relay's other queues).
  struct SetUsage {
    SetId set{};
    std::size_t bytes = 0;
    ConfluxTime oldest{};
  };
  [[nodiscard]] std::vector<SetUsage> usage() const;

 private:
  struct Usage {
    std::size_t bytes = 0;
    ConfluxTime oldest{};
  };
  ReorderBudgetConfig config_;
  std::size_t used_ = 0;
  std::map<SetId, Usage> sets_;
};

}  // namespace conflux::proto
