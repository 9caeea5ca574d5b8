#pragma once
// When to retry a guard (or bridge) that failed: tor's legacy schedules from
// guard-spec appendix A.1, as a function of how long it has been failing.
#include <cstdint>
#include <vector>

namespace conflux::path {

struct RetrySchedule {
  struct Step {
    std::uint64_t failing_for_below = 0;  // seconds since the first failure
    std::uint64_t delay = 0;              // seconds until the next try
  };
  std::vector<Step> steps;  // ascending failing_for_below
  std::uint64_t final_delay = 0;

  [[nodiscard]] std::uint64_t delay(std::uint64_t failing_for) const noexcept;

  // 10 min for 6 h, 90 min for the next 90 h, 4 h for the next 3 days, then 9 h.
  [[nodiscard]] static RetrySchedule primary_guards();
  // 1 h for 6 h, 4 h for the next 90 h, 18 h for the next 3 days, then 36 h.
  [[nodiscard]] static RetrySchedule other_guards();
};

}  // namespace conflux::path
