#pragma once
// What one authority has seen of one relay's reachability. The networked
// part tests each relay's ORPort (a TLS connection and link handshake that
// proves the identity) and feeds the outcome to observe(); the flag rules
// read the result. Unweighted (tor decays its history by a factor of 0.95
// every 12 hours); at our scale and for test networks a plain history is
// enough and easier to reason about.
#include <cstdint>
#include <optional>

namespace conflux::dir {

struct ReachabilityHistory {
  std::optional<std::uint64_t> first_seen;      // first test, either outcome
  std::optional<std::uint64_t> last_tested;     // most recent test, either outcome
  std::optional<std::uint64_t> last_reachable;  // most recent successful test
  std::optional<std::uint64_t> up_since;        // start of the current run of successes
  std::uint64_t tracked_seconds = 0;            // time covered by consecutive tests
  std::uint64_t up_seconds = 0;                 // of which between two successes
  friend bool operator==(const ReachabilityHistory&, const ReachabilityHistory&) = default;

  // Uptime of the current run (0 when not up), as of `now`.
  [[nodiscard]] std::uint64_t run_length(std::uint64_t now) const noexcept;
  // Weighted fractional uptime in parts per million (tor: WFU); 1'000'000
  // when nothing is tracked yet and the relay is up, 0 when down.
  [[nodiscard]] std::uint32_t wfu_ppm() const noexcept;
  // Time since first_seen (0 if never seen).
  [[nodiscard]] std::uint64_t known_for(std::uint64_t now) const noexcept;
};

// Records one reachability test at `now`. Tests must come in time order;
// one with now < last_tested is ignored.
[[nodiscard]] ReachabilityHistory observe(ReachabilityHistory h, std::uint64_t now, bool reachable);

}  // namespace conflux::dir
