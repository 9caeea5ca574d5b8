#pragma once
// NETINFO cell body (tor-spec 4.5), a fixed cell:
//
//   TIME[4] | OTHERADDR | NMYADDR[1] | NMYADDR x address
//   address = ATYPE[1] | ALEN[1] | AVAL[ALEN]
//
// ATYPE 4 is IPv4 (ALEN 4), 6 is IPv6 (ALEN 16). Addresses of any other type
// are skipped (ALEN bytes), as tor's parser does. A 4 or 6 with the wrong
// ALEN makes the whole cell malformed: tor's trunnel parser fails on it and
// tor closes the connection, so we reject it too (BadLength) rather than
// follow the spec's softer "should be ignored". Bytes after the last address
// are padding and ignored.
#include <array>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

inline constexpr std::uint8_t kNetinfoAddrIpv4 = 4;
inline constexpr std::uint8_t kNetinfoAddrIpv6 = 6;

struct NetinfoIpv4 {
  std::array<std::uint8_t, 4> octets{};  // network byte order
  friend bool operator==(const NetinfoIpv4&, const NetinfoIpv4&) = default;
};
struct NetinfoIpv6 {
  std::array<std::uint8_t, 16> octets{};  // network byte order
  friend bool operator==(const NetinfoIpv6&, const NetinfoIpv6&) = default;
};
using NetinfoAddress = std::variant<NetinfoIpv4, NetinfoIpv6>;

struct NetinfoCell {
  std::uint32_t timestamp = 0;  // seconds since the epoch; clients SHOULD send 0
  // nullopt: the peer sent an address type we do not know (decode), or we do
  // not know the peer's address (encode: written as ATYPE 0, ALEN 0, which
  // every tor skips as an unknown type).
  std::optional<NetinfoAddress> other_address;
  // Only the recognised addresses; unknown types are dropped on decode.
  std::vector<NetinfoAddress> my_addresses;
  friend bool operator==(const NetinfoCell&, const NetinfoCell&) = default;
};

// Truncated if a field runs past the payload; BadLength for an IPv4/IPv6
// address with the wrong ALEN.
[[nodiscard]] Decoded<NetinfoCell> decode_netinfo_cell(bytes::ByteSpan payload);
// TooManyItems for more than 255 addresses; PayloadTooLong if the body does
// not fit the 509-byte fixed payload.
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_netinfo_cell(const NetinfoCell& cell);

}  // namespace conflux::cell
