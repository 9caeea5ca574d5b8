#include "conflux/proto/token_bucket.hpp"

#include <algorithm>

namespace conflux::proto {

void TokenBucket::refill(Clock::time_point now) noexcept {
  if (unlimited() || now <= last_) return;
  auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count();
  last_ = now;
  // bytes = elapsed_ns * rate / 1e9, keeping the remainder for next time.
  // elapsed is capped so the product cannot overflow (a full bucket needs at
  // most burst/rate seconds anyway).
  const std::uint64_t cap_ns = 3600ULL * 1'000'000'000ULL;
  std::uint64_t ns = std::min<std::uint64_t>(static_cast<std::uint64_t>(elapsed), cap_ns);
  constexpr std::uint64_t kNs = 1'000'000'000ULL;
  // Whole seconds and the rest separately keep every product in 64 bits for
  // any rate below 18 GB/s.
  std::uint64_t sub = (ns % kNs) * rate_ + carry_nanos_;
  std::uint64_t add = (ns / kNs) * rate_ + sub / kNs;
  carry_nanos_ = sub % kNs;
  tokens_ = std::min(burst_, tokens_ + std::min(add, burst_));
  if (tokens_ == burst_) carry_nanos_ = 0;
}

std::uint64_t TokenBucket::allowance(std::uint64_t wanted) const noexcept {
  return unlimited() ? wanted : std::min(wanted, tokens_);
}

void TokenBucket::consume(std::uint64_t n) noexcept {
  if (!unlimited()) tokens_ -= std::min(n, tokens_);
}

void TokenBucket::adjust(std::uint64_t rate_bytes_per_sec, std::uint64_t burst_bytes, Clock::time_point now) noexcept {
  refill(now);
  if (now > last_) last_ = now;  // an unlimited bucket does not refill, nor move its time
  rate_ = rate_bytes_per_sec;
  burst_ = std::max(burst_bytes, rate_bytes_per_sec);
  tokens_ = std::min(tokens_, burst_);
  carry_nanos_ = 0;
}

TokenBucket::Clock::duration TokenBucket::wait_for(std::uint64_t n) const noexcept {
  if (unlimited() || tokens_ >= n) return Clock::duration::zero();
  n = std::min(n, burst_);
  std::uint64_t missing = n - tokens_;
  std::uint64_t ns = (missing * 1'000'000'000ULL + rate_ - 1) / rate_;
  return std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns));
}

}  // namespace conflux::proto
