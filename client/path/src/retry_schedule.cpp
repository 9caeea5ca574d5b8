#include "conflux/path/retry_schedule.hpp"

namespace conflux::path {
namespace {
constexpr std::uint64_t kMinute = 60, kHour = 3600, kDay = 86400;
}

std::uint64_t RetrySchedule::delay(std::uint64_t failing_for) const noexcept {
  for (const Step& s : steps)
    if (failing_for < s.failing_for_below) return s.delay;
  return final_delay;
}

RetrySchedule RetrySchedule::primary_guards() {
  return RetrySchedule{{{6 * kHour, 10 * kMinute}, {96 * kHour, 90 * kMinute}, {96 * kHour + 3 * kDay, 4 * kHour}},
                       9 * kHour};
}

RetrySchedule RetrySchedule::other_guards() {
  return RetrySchedule{{{6 * kHour, kHour}, {96 * kHour, 4 * kHour}, {96 * kHour + 3 * kDay, 18 * kHour}},
                       36 * kHour};
}

}  // namespace conflux::path
