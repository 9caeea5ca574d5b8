#pragma once
// When the scheduler looks again at a sampled write that the peer has not
// acknowledged yet (kernel queue time, net/scheduler_stats.hpp).
//
// A fixed poll period costs a wake-up per period for as long as a probe is
// outstanding, so the cost grew with the link's round trip: at 500 µs, a
// relay on 20-200 ms links polled 2000 times a second (BENCHMARKS.md, the
// 100-relay run). The period here grows with the probe's age instead:
//
//   period(age) = max(500 µs, age / 8)
//
// An acknowledgement that arrives between two looks is seen at the second,
// so the measured time is late by at most the period chosen at the first:
// max(500 µs, 1/8 of the true time). (The first look waits for the
// socket's smallest round trip seen, which an acknowledgement cannot beat
// unless the path became faster than in the kernel's last 5 minutes.) The histograms' buckets are powers of
// two, so that error moves a value at most one bucket up, and only when it
// lies within an eighth below a bound. The number of looks until `age` then
// grows with the logarithm of the age (54 in the first second, 83 by the
// 30 s at which a probe is given up) instead of linearly (2000 a second).
#include <algorithm>
#include <chrono>
#include <cstdint>

namespace conflux::proto {

inline constexpr std::chrono::nanoseconds kProbeMinPeriod{500'000};
// The relative resolution: a look is at most 1/kProbeAgeDivisor of the
// probe's age after the previous one.
inline constexpr std::int64_t kProbeAgeDivisor = 8;
// A write that long unacknowledged is given up (a stuck socket).
inline constexpr std::chrono::nanoseconds kProbeGiveUp{std::chrono::seconds(30)};

// The first look, after the write: bytes written now cannot be acknowledged
// sooner than one round trip, so none is made before the socket's smallest
// round trip seen (tcpi_min_rtt; 0 when unknown). On links of 20-200 ms that
// skips the 8-30 looks that could only find nothing.
[[nodiscard]] constexpr std::chrono::nanoseconds kernel_probe_first_look(std::chrono::nanoseconds min_rtt) noexcept {
  return std::max(kProbeMinPeriod, min_rtt);
}

// The wait until the next look at a probe that was `age` old at this one.
[[nodiscard]] constexpr std::chrono::nanoseconds kernel_probe_poll_period(std::chrono::nanoseconds age) noexcept {
  return std::max(kProbeMinPeriod, age / kProbeAgeDivisor);
}

// Looks at one probe from its write until `age`: the first at
// kernel_probe_first_look(min_rtt), each next one period after the previous.
// What a probe costs at most when nothing else reads its socket.
[[nodiscard]] constexpr std::uint32_t kernel_probe_polls_until(std::chrono::nanoseconds age,
                                                               std::chrono::nanoseconds min_rtt = {}) noexcept {
  std::chrono::nanoseconds t = kernel_probe_first_look(min_rtt);
  if (t > age) return 0;
  std::uint32_t polls = 1;
  while (t + kernel_probe_poll_period(t) <= age) {
    t += kernel_probe_poll_period(t);
    ++polls;
  }
  return polls;
}

}  // namespace conflux::proto
