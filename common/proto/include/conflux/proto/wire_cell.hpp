#pragma once
// One encoded fixed-size cell as it goes on the wire (link v4+: 514 bytes).
#include <array>
#include <cstddef>
#include <cstdint>

namespace conflux::proto {

inline constexpr std::size_t kWireCellLen = 514;
using WireCell = std::array<std::uint8_t, kWireCellLen>;

}  // namespace conflux::proto
