#pragma once
// A fuzz input read as a stream of small integers: past the end every read
// gives 0, so a target never runs out of decisions mid-step.
#include <cstddef>
#include <cstdint>

namespace conflux::fuzz {

struct Input {
  const std::uint8_t* p;
  std::size_t n;
  [[nodiscard]] bool empty() const { return n == 0; }
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | u8();
    return v;
  }
};

}  // namespace conflux::fuzz
