#pragma once
// Raw IP addresses as relay messages carry them (network byte order).
// Kept as plain byte arrays: the wire layer neither resolves nor formats them.
#include <array>
#include <cstdint>
#include <variant>

namespace conflux::cell {

using Ipv4Bytes = std::array<std::uint8_t, 4>;
using Ipv6Bytes = std::array<std::uint8_t, 16>;
using RelayIpAddr = std::variant<Ipv4Bytes, Ipv6Bytes>;

// An address with the number of seconds it may be cached (CONNECTED, END).
struct RelayAddrTtl {
  RelayIpAddr addr;
  std::uint32_t ttl = 0;
  friend bool operator==(const RelayAddrTtl&, const RelayAddrTtl&) = default;
};

}  // namespace conflux::cell
