#pragma once
// EXTEND2 link specifiers (tor-spec 5.1.2): {LSTYPE u8, LSLEN u8, LSPEC}.
//
// Known types must have their exact length (tor's trunnel parser fails
// otherwise); unknown types are kept opaque because nodes MUST ignore, not
// reject, them.
#include <array>
#include <cstdint>
#include <variant>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/writer.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_addr.hpp"

namespace conflux::cell {

enum class LinkSpecType : std::uint8_t {
  Ipv4 = 0,         // IPv4[4] ORPort u16
  Ipv6 = 1,         // IPv6[16] ORPort u16
  LegacyId = 2,     // SHA-1 RSA identity fingerprint [20]
  Ed25519Id = 3,    // Ed25519 identity key [32]
};

struct LinkSpecIpv4 {
  Ipv4Bytes addr{};
  std::uint16_t port = 0;
  friend bool operator==(const LinkSpecIpv4&, const LinkSpecIpv4&) = default;
};
struct LinkSpecIpv6 {
  Ipv6Bytes addr{};
  std::uint16_t port = 0;
  friend bool operator==(const LinkSpecIpv6&, const LinkSpecIpv6&) = default;
};
struct LinkSpecLegacyId {
  std::array<std::uint8_t, 20> id{};
  friend bool operator==(const LinkSpecLegacyId&, const LinkSpecLegacyId&) = default;
};
struct LinkSpecEd25519Id {
  std::array<std::uint8_t, 32> id{};
  friend bool operator==(const LinkSpecEd25519Id&, const LinkSpecEd25519Id&) = default;
};
struct LinkSpecUnknown {
  std::uint8_t type = 0;  // never 0..3
  std::vector<std::uint8_t> data;  // at most 255 bytes
  friend bool operator==(const LinkSpecUnknown&, const LinkSpecUnknown&) = default;
};

using LinkSpec =
    std::variant<LinkSpecIpv4, LinkSpecIpv6, LinkSpecLegacyId, LinkSpecEd25519Id, LinkSpecUnknown>;

// Reads one specifier; the reader is left failed on truncation. Wrong lengths
// for known types give BadLength.
Decoded<LinkSpec> read_link_spec(bytes::Reader& r);
void write_link_spec(bytes::Writer& w, const LinkSpec& ls);

}  // namespace conflux::cell
