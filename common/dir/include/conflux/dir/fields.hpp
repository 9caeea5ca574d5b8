#pragma once
// The syntax of the text fields the directory documents carry, shared by the
// descriptor and the consensus: nickname, platform, protocol versions, exit
// policy summary, IP addresses. Each check accepts exactly what the encoder
// writes, so a parsed document re-serializes to the same text.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/crypto/rsa.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxNicknameLen = 19;     // dir-spec 2.1.3
inline constexpr std::size_t kMaxPlatformLen = 128;
inline constexpr std::size_t kMaxProtocolsLen = 512;
inline constexpr std::size_t kMaxPolicySummaryLen = 1000;  // dir-spec, exit policy summaries
inline constexpr std::uint32_t kMaxProtocolVersion = 63;   // tor's limit per protocol

// 1..19 characters of [A-Za-z0-9], as tor's nicknames.
[[nodiscard]] bool valid_nickname(std::string_view s) noexcept;
// Printable ASCII (0x20..0x7e), 1..128 characters.
[[nodiscard]] bool valid_platform(std::string_view s) noexcept;

// "Name=ranges Name=ranges ...": names [A-Za-z0-9]{1,32}, each at most once,
// in any order; ranges "N" or "N-M" (N < M) comma-separated, ascending and not
// overlapping, versions 0..63; single spaces. May be empty. The string is kept
// verbatim. Example: "Link=4-5 Relay=2-4 FlowCtrl=1-2 Conflux=1".
[[nodiscard]] bool valid_protocols(std::string_view s) noexcept;
// Whether `protocols` (valid as above) lists `version` of `name`.
[[nodiscard]] bool protocols_support(std::string_view protocols, std::string_view name,
                                     std::uint32_t version) noexcept;

// An exit policy summary (dir-spec "Exit policy summaries"):
// "accept PORTLIST" or "reject PORTLIST", PORTLIST = "P" or "P-Q" items,
// comma-separated, 1 <= P < Q <= 65535, ascending, not overlapping.
struct PolicySummary {
  bool accept = false;
  std::vector<std::pair<std::uint16_t, std::uint16_t>> ranges;  // inclusive
  [[nodiscard]] bool allows_port(std::uint16_t port) const noexcept;
  friend bool operator==(const PolicySummary&, const PolicySummary&) = default;
};
[[nodiscard]] std::optional<PolicySummary> parse_policy_summary(std::string_view s);
[[nodiscard]] std::string format_policy_summary(const PolicySummary& p);

// 40 hex digits, either case: an RSA identity fingerprint or a v3ident, as
// "fingerprint" and "dir-source" items and directory URLs write them.
[[nodiscard]] std::optional<crypto::RsaFingerprint> parse_hex_fingerprint(std::string_view s);

// IPv4 in dotted-quad form without leading zeros; IPv6 in the form inet_ntop
// writes (RFC 5952), without brackets. Parsing demands that exact form.
using Ipv4 = std::array<std::uint8_t, 4>;
using Ipv6 = std::array<std::uint8_t, 16>;
[[nodiscard]] std::optional<Ipv4> parse_ipv4(std::string_view s);
[[nodiscard]] std::optional<Ipv6> parse_ipv6(std::string_view s);
[[nodiscard]] std::string format_ipv4(const Ipv4& a);
[[nodiscard]] std::string format_ipv6(const Ipv6& a);

}  // namespace conflux::dir
