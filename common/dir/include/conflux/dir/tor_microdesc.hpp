#pragma once
// Microdescriptors (dir-spec 3.3): what a client needs of a relay to build
// circuits through it, named in the microdesc consensus by the SHA-256 of
// the microdescriptor's text ("m" lines). Served concatenated
// (/tor/micro/d/D1-D2-...); each one starts at its "onion-key" line (or at
// "ntor-onion-key" when a relay has no RSA onion key, as tor 0.4.9 allows)
// and its digest covers every byte up to the next one.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxMicrodescsSize = std::size_t{8} << 20;

struct TorMicrodesc {
  std::array<std::uint8_t, 32> digest{};  // SHA-256 of its text: the consensus's "m"
  crypto::X25519Public ntor_onion_key{};
  std::optional<crypto::Ed25519Public> ed25519_id;  // "id ed25519"
  std::optional<std::pair<std::array<std::uint8_t, 16>, std::uint16_t>> ipv6;  // the first "a" line
  std::vector<std::string> family;  // "family" entries as written ($FINGERPRINT, nicknames)
  PolicySummary ipv4_policy;        // "p" (absent: reject 1-65535)
  std::optional<PolicySummary> ipv6_policy;  // "p6"
  std::string text;                          // as served: what `digest` covers (for a cache on disk)
};

// Every microdescriptor in `text`; fails on the first malformed one.
[[nodiscard]] DirResult<std::vector<TorMicrodesc>> parse_tor_microdescs(std::string_view text);

}  // namespace conflux::dir
