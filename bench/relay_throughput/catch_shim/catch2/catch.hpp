#pragma once
// The integration test's process helpers (tests/unit/test_net_processes_*.hpp)
// report failures with Catch2's REQUIRE and INFO. The throughput benchmark is
// a plain program, not a test, so it reuses them with this stand-in: a
// failed REQUIRE throws, and main reports it and exits non-zero.
#include <stdexcept>
#include <string>

namespace conflux::bench {
struct RequireFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace conflux::bench

#define REQUIRE(...)                                                                                       \
  do {                                                                                                     \
    if (!(__VA_ARGS__))                                                                                    \
      throw ::conflux::bench::RequireFailed(std::string(__FILE__) + ":" + std::to_string(__LINE__) +       \
                                            ": REQUIRE(" #__VA_ARGS__ ") failed");                         \
  } while (false)
#define REQUIRE_FALSE(...) REQUIRE(!(__VA_ARGS__))
// Context messages are only for test reports; the benchmark prints its own.
#define INFO(...) static_cast<void>(0)
