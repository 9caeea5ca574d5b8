#include "conflux/proto/kist_global_limit.hpp"

#include <algorithm>

#include "conflux/proto/kist_limit.hpp"

namespace conflux::proto {

std::uint64_t kist_drained(std::uint64_t acked_before, std::uint64_t acked_now) noexcept {
  return acked_now > acked_before ? acked_now - acked_before : 0;
}

void KistGlobalLimit::observe(std::uint64_t drained, std::chrono::nanoseconds elapsed,
                              std::chrono::nanoseconds period) noexcept {
  std::uint64_t per_period = drained;
  if (period.count() > 0 && elapsed > period) {
    if (elapsed - period > period) return;  // over two periods (no overflow)
    // In double: drained * period could overflow 64 bits. Byte counts below
    // 2^53 stay exact; rounding may not lift the result past `drained`.
    const double scaled = static_cast<double>(drained) * static_cast<double>(period.count()) /
                          static_cast<double>(elapsed.count());
    if (scaled < static_cast<double>(drained)) per_period = static_cast<std::uint64_t>(scaled);
  }
  max_drained_ = std::max(max_drained_, per_period);
}

std::optional<std::uint64_t> KistGlobalLimit::cap() const noexcept {
  if (max_drained_ == 0) return std::nullopt;
  return std::max(max_drained_, kKistCellCost);
}

}  // namespace conflux::proto
