#pragma once
// The one injected clock. Runtime code asks it for "now" and hands the
// values to the sans-I/O layers; tests substitute a manual clock.
#include <chrono>
#include <cstdint>

namespace conflux::net {

class Clock {
 public:
  using Monotonic = std::chrono::steady_clock;
  virtual ~Clock() = default;
  [[nodiscard]] virtual Monotonic::time_point now() const = 0;
  // Seconds since the Unix epoch (certificates, NETINFO, directory times).
  [[nodiscard]] virtual std::uint64_t unix_seconds() const = 0;
};

class SystemClock final : public Clock {
 public:
  [[nodiscard]] Monotonic::time_point now() const override { return Monotonic::now(); }
  [[nodiscard]] std::uint64_t unix_seconds() const override {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
  }
};

}  // namespace conflux::net
