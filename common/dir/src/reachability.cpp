#include "conflux/dir/reachability.hpp"

namespace conflux::dir {

std::uint64_t ReachabilityHistory::run_length(std::uint64_t now) const noexcept {
  if (!up_since || now < *up_since) return 0;
  return now - *up_since;
}

std::uint32_t ReachabilityHistory::wfu_ppm() const noexcept {
  if (tracked_seconds == 0) return up_since ? 1'000'000U : 0U;
  // Halve both until up * 10^6 cannot overflow (never happens in practice:
  // 2^40 seconds is 35,000 years).
  std::uint64_t up = up_seconds, tracked = tracked_seconds;
  while (tracked >= (std::uint64_t{1} << 40)) {
    up >>= 1;
    tracked >>= 1;
  }
  return static_cast<std::uint32_t>(up * 1'000'000U / tracked);
}

std::uint64_t ReachabilityHistory::known_for(std::uint64_t now) const noexcept {
  if (!first_seen || now < *first_seen) return 0;
  return now - *first_seen;
}

ReachabilityHistory observe(ReachabilityHistory h, std::uint64_t now, bool reachable) {
  if (h.last_tested && now < *h.last_tested) return h;
  if (!h.first_seen) h.first_seen = now;
  if (h.last_tested) {
    const std::uint64_t gap = now - *h.last_tested;
    h.tracked_seconds += gap;
    // Up between two tests only when both succeeded.
    if (reachable && h.up_since) h.up_seconds += gap;
  }
  h.last_tested = now;
  if (reachable) {
    h.last_reachable = now;
    if (!h.up_since) h.up_since = now;
  } else {
    h.up_since.reset();
  }
  return h;
}

}  // namespace conflux::dir
