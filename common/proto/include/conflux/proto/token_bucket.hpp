#pragma once
// BandwidthRate / BandwidthBurst as a token bucket over an injected time:
// tokens (bytes) refill at `rate` per second up to `burst`. Writes take what
// they are allowed; the scheduler waits for refill when the bucket is empty.
#include <chrono>
#include <cstdint>

namespace conflux::proto {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  // rate == 0 means unlimited.
  TokenBucket(std::uint64_t rate_bytes_per_sec, std::uint64_t burst_bytes, Clock::time_point now) noexcept
      : rate_(rate_bytes_per_sec), burst_(burst_bytes < rate_bytes_per_sec ? rate_bytes_per_sec : burst_bytes),
        tokens_(burst_), last_(now) {}

  [[nodiscard]] bool unlimited() const noexcept { return rate_ == 0; }
  void refill(Clock::time_point now) noexcept;
  // How many of `wanted` bytes may be written now (after refill()).
  [[nodiscard]] std::uint64_t allowance(std::uint64_t wanted) const noexcept;
  void consume(std::uint64_t n) noexcept;
  // A new rate and burst from `now` on (tor's token_bucket_rw_adjust): what
  // the old rate earned until now is kept, capped at the new burst.
  void adjust(std::uint64_t rate_bytes_per_sec, std::uint64_t burst_bytes, Clock::time_point now) noexcept;
  // Time until at least `n` bytes are available (zero if they are).
  [[nodiscard]] Clock::duration wait_for(std::uint64_t n) const noexcept;
  [[nodiscard]] std::uint64_t tokens() const noexcept { return tokens_; }

 private:
  std::uint64_t rate_;
  std::uint64_t burst_;
  std::uint64_t tokens_;
  Clock::time_point last_;
  std::uint64_t carry_nanos_ = 0;  // sub-byte remainder so slow rates are exact
};

}  // namespace conflux::proto
