#pragma once
// Exit policies in tor's syntax (tor(1) "ExitPolicy", dir-spec "accept/reject"):
//
//   accept|reject|accept6|reject6 ADDR[/MASK][:PORT[-PORT]]
//
// ADDR is "*" (both families), "*4", "*6", "private", a dotted IPv4 address or
// an IPv6 address in brackets. MASK is /N (0..32 or 0..128) or, for IPv4, a
// dotted prefix mask. PORT is "*", N or N-M; no port means "*".
//
// Two layers: PolicyEntry is one config entry as written (it prints back with
// to_string() and re-parses to an equal entry); ExitPolicy is the compiled,
// ordered rule list the exit consults, with "*" split into *4 and *6 and
// "private" expanded into tor's private networks, as tor does.
//
// Deliberately stricter than tor in corner cases nobody writes on purpose:
// port 0 ("*:0", "0-80"), an empty port after ':' and upper-case keywords are
// parse errors instead of rules that silently match nothing (or everything).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_addr.hpp"

namespace conflux::proto {

enum class PolicyAction : std::uint8_t { Accept, Reject };
enum class AddrFamily : std::uint8_t { Ipv4, Ipv6 };

[[nodiscard]] AddrFamily family_of(const cell::RelayIpAddr& addr) noexcept;

// An inclusive port range; policies never contain port 0.
struct PortRange {
  std::uint16_t lo = 1;
  std::uint16_t hi = 65535;

  [[nodiscard]] constexpr bool covers_all() const noexcept { return lo <= 1 && hi == 65535; }
  [[nodiscard]] constexpr bool contains(std::uint16_t p) const noexcept { return lo <= p && p <= hi; }
  friend constexpr bool operator==(PortRange, PortRange) noexcept = default;
};

// What the address part of an entry names.
enum class PolicyTarget : std::uint8_t {
  Any,      // "*": every IPv4 and IPv6 address ("*" after accept6/reject6 is Any6)
  Any4,     // "*4"
  Any6,     // "*6"
  Private,  // "private": tor's private networks (both families, also for accept6)
  Ipv4,     // a.b.c.d[/mask]
  Ipv6,     // [v6][/bits]
};

// One policy entry as configured. For Ipv4/Ipv6 targets the address has its
// bits beyond the prefix cleared (tor does the same), so "10.1.2.3/8" and
// "10.0.0.0/8" are equal entries.
struct PolicyEntry {
  PolicyAction action = PolicyAction::Reject;
  PolicyTarget target = PolicyTarget::Any;
  std::array<std::uint8_t, 16> addr{};  // IPv4 in bytes 0..3, the rest zero
  std::uint8_t prefix_len = 0;          // 0..32 or 0..128; 0 for the keyword targets
  PortRange ports;

  // Canonical form: "reject 10.0.0.0/8:*", "accept [2001:db8::]/32:80-443".
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const PolicyEntry&, const PolicyEntry&) = default;
};

enum class PolicyParseError : std::uint8_t {
  Empty,             // nothing but whitespace
  TooLong,           // longer than kMaxPolicyEntryLen
  UnknownAction,     // not accept, reject, accept6 or reject6
  MissingAddress,    // keyword without an address
  TrailingGarbage,   // more than one word after the keyword
  BadAddress,        // not *, *4, *6, private, IPv4 or [IPv6] (e.g. unbracketed IPv6)
  UnclosedBracket,   // "[" without "]"
  BadMask,           // /N out of range for the family, or not a number
  NonPrefixMask,     // dotted IPv4 mask that is not contiguous (255.0.255.0)
  MaskOnWildcard,    // "*/8"
  BadPort,           // not *, not 1..65535, empty
  BadPortRange,      // N-M with N > M
  Ipv4WithAccept6,   // accept6/reject6 with an IPv4 address or *4: tor ignores
                     // such an entry with a warning and keeps the rest
};

[[nodiscard]] const char* to_string(PolicyParseError e) noexcept;
// False only for Ipv4WithAccept6: the entry is skipped, the policy still loads.
[[nodiscard]] constexpr bool is_fatal(PolicyParseError e) noexcept {
  return e != PolicyParseError::Ipv4WithAccept6;
}

inline constexpr std::size_t kMaxPolicyEntryLen = 256;

// Parses one entry (no commas). Leading and trailing whitespace is ignored.
[[nodiscard]] Result<PolicyEntry, PolicyParseError> parse_policy_entry(std::string_view text);

// Splits one ExitPolicy config value at commas, trimming whitespace and
// dropping empty items (tor's SPLIT_SKIP_SPACE | SPLIT_IGNORE_BLANK).
[[nodiscard]] std::vector<std::string_view> split_policy_value(std::string_view value);

// A compiled rule: one address family, a prefix and a port range.
struct PolicyRule {
  PolicyAction action = PolicyAction::Reject;
  AddrFamily family = AddrFamily::Ipv4;
  std::array<std::uint8_t, 16> addr{};  // masked; IPv4 in bytes 0..3
  std::uint8_t prefix_len = 0;
  PortRange ports;

  [[nodiscard]] bool matches_addr(const cell::RelayIpAddr& a) const noexcept;
  [[nodiscard]] bool is_catch_all() const noexcept { return prefix_len == 0 && ports.covers_all(); }
  // tor's policy_write_item form: "reject *4:*", "accept 1.2.3.0/24:80".
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const PolicyRule&, const PolicyRule&) = default;
};

// tor's private_nets (policies.c), in tor's order: what "private" expands to
// and what the summary ignores. All authorities must agree on this list.
struct PrivateNet {
  AddrFamily family;
  std::array<std::uint8_t, 16> addr;
  std::uint8_t prefix_len;
};
[[nodiscard]] std::span<const PrivateNet> private_nets() noexcept;
// True if the address lies in one of the private networks.
[[nodiscard]] bool is_private_address(const cell::RelayIpAddr& addr) noexcept;

// Result of asking about a port when the address is not known yet (tor's
// compare_unknown_tor_addr_to_addr_policy): "probably" means some rule that
// depends on the address came first.
enum class PortVerdict : std::uint8_t { Rejected, ProbablyRejected, ProbablyAccepted, Accepted };

class ExitPolicy {
 public:
  // An empty policy accepts everything (tor's "no match: accept"); policies
  // from build_exit_policy() always end in catch-alls for both families.
  ExitPolicy() = default;
  // Expands "*" into *4 then *6 and "private" into private_nets(), in order.
  static ExitPolicy from_entries(std::span<const PolicyEntry> entries);
  static ExitPolicy from_rules(std::vector<PolicyRule> rules);

  // First match wins. Port 0 is always rejected.
  [[nodiscard]] PolicyAction check(const cell::RelayIpAddr& addr, std::uint16_t port) const noexcept;
  // For a hostname not resolved yet: could a connection to this port be
  // accepted? 'family' limits the answer to addresses of one family (e.g.
  // when BEGIN said IPv4-not-OK); nullopt takes the better of the two.
  [[nodiscard]] PortVerdict check_port(std::uint16_t port,
                                       std::optional<AddrFamily> family = std::nullopt) const noexcept;
  // An exit may refuse a BEGIN for a hostname early (END EXITPOLICY) when
  // this is false: no address of any family could be accepted on the port.
  [[nodiscard]] bool may_accept_port(std::uint16_t port) const noexcept {
    return check_port(port) != PortVerdict::Rejected;
  }
  // tor's policy_is_reject_star(): true when the policy certainly rejects
  // every address of the family on every port. Consistent with check(), a
  // policy in which no rule decides (e.g. empty) is not reject-star.
  [[nodiscard]] bool is_reject_star(AddrFamily family) const noexcept;

  // dir-spec / microdescriptor port summary for one family, computed as tor's
  // policy_summarize(): "accept 80,443" or "reject 25,119", whichever is
  // shorter (ties: accept), "reject 1-65535" when nothing is accepted,
  // "accept 1-65535" when nothing is rejected, cut at 1000 characters.
  [[nodiscard]] std::string summary(AddrFamily family = AddrFamily::Ipv4) const;

  [[nodiscard]] std::span<const PolicyRule> rules() const noexcept { return rules_; }
  // Rules joined with ",".
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const ExitPolicy&, const ExitPolicy&) = default;

 private:
  std::vector<PolicyRule> rules_;
};

}  // namespace conflux::proto
