#pragma once
// tor's FallbackDir line: a directory cache (a relay) a client may fetch its
// first consensus from, besides the authorities. tor(1):
//   FallbackDir ADDRESS[:DIRPORT] orport=PORT id=FINGERPRINT [weight=N] [ipv6=[ADDR]:PORT]
// tor 0.4.9's built-in list gives no DirPort: such a cache is reached only
// at its ORPort, over BEGIN_DIR. Its signatures count for nothing: the
// consensus it serves must still verify against the authorities.
#include <cstdint>
#include <optional>
#include <string_view>

#include "conflux/config/address.hpp"
#include "conflux/config/option_values.hpp"

namespace conflux::config {

struct FallbackDirLine {
  IpAddress address;                  // IPv4 (tor's rule)
  std::optional<std::uint16_t> dir_port;
  std::uint16_t or_port = 0;
  RsaId rsa_identity{};               // id=
  std::optional<AddrPort> ipv6_or;    // ipv6=[ADDR]:PORT, not used yet
  bool operator==(const FallbackDirLine&) const = default;
};
[[nodiscard]] ValueResult<FallbackDirLine> parse_fallback_dir(std::string_view text);

}  // namespace conflux::config
