#pragma once
// The exit's decisions that need no sockets, kept pure so they can be tested
// on their own: which address family a BEGIN allows, which resolved address
// to connect to, which END reason an OS error means, how RESOLVE names and
// answers look.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/cell/relay_addr.hpp"
#include "conflux/cell/relay_stream_msgs.hpp"
#include "conflux/proto/exit_policy.hpp"

namespace conflux::exit {

// What a BEGIN's FLAGS (tor-spec 6.2) allow, after the exit's own IPv6Exit
// setting: without IPv6Exit, IPv6 is never OK and never preferred.
struct FamilyChoice {
  bool ipv4_ok = true;
  bool ipv6_ok = false;
  bool ipv6_preferred = false;

  // The family the exit policy's early port check should be limited to;
  // nullopt when both are possible. Meaningless when neither is OK.
  [[nodiscard]] std::optional<proto::AddrFamily> only_family() const noexcept;
  [[nodiscard]] bool any() const noexcept { return ipv4_ok || ipv6_ok; }
};

[[nodiscard]] FamilyChoice family_choice(std::uint32_t begin_flags, bool ipv6_exit) noexcept;

// The address to connect to among resolved ones (each list in resolver
// order): the first IPv4 address, unless IPv6 is preferred or IPv4 is not OK
// (then the first IPv6 one, falling back to IPv4 if allowed). nullopt when
// no address of an allowed family exists.
[[nodiscard]] std::optional<cell::RelayIpAddr> choose_address(std::span<const cell::Ipv4Bytes> v4,
                                                              std::span<const cell::Ipv6Bytes> v6,
                                                              const FamilyChoice& families) noexcept;

// A dotted quad or a bare IPv6 address (no brackets), strictly.
[[nodiscard]] std::optional<cell::RelayIpAddr> parse_ip_literal(std::string_view text);

// Names an exit never looks up: empty (an onion-service request on the wrong
// circuit) and ".onion" names. tor answers these with RESOLVEFAILED.
[[nodiscard]] bool is_unresolvable_name(std::string_view host) noexcept;

// tor's address_is_invalid_destination for a server, inverted: an IP
// literal, or a name of letters, digits, '-', '.' and '_' only (underscores
// because zones in the wild use them). ServerDNSAllowNonRFC953Hostnames
// turns the check off.
[[nodiscard]] bool is_rfc953_name(std::string_view host) noexcept;

// "d.c.b.a.in-addr.arpa" and the 32-nibble "...ip6.arpa" form (any case, an
// optional trailing dot) -> the address to look up a PTR record for.
[[nodiscard]] std::optional<cell::RelayIpAddr> parse_reverse_name(std::string_view name);

// The canonical reverse-lookup name of an address (lower case, no trailing
// dot): parse_reverse_name(reverse_name(a)) == a.
[[nodiscard]] std::string reverse_name(const cell::RelayIpAddr& addr);

// tor's errno_to_stream_end_reason: the END reason for a socket error
// (connect, read or write) given as an errno value.
[[nodiscard]] cell::EndReason end_reason_for_errno(int err) noexcept;

// How a failed lookup is reported in RESOLVED.
enum class LookupFailure : std::uint8_t {
  NotFound,   // the name (or PTR) does not exist, or has no address: nontransient
  Transient,  // timeout, server failure, try again later
};

// RESOLVED bodies. Answers are deduplicated, IPv4 first (tor-spec 6.4), at
// most kMaxAnswersPerFamily of each family, all with 'ttl'.
inline constexpr std::size_t kMaxAnswersPerFamily = 8;
[[nodiscard]] cell::ResolvedMsg resolved_addresses(std::span<const cell::Ipv4Bytes> v4,
                                                   std::span<const cell::Ipv6Bytes> v6, std::uint32_t ttl);
// A PTR answer; names longer than 255 bytes cannot be carried and are
// reported as not found.
[[nodiscard]] cell::ResolvedMsg resolved_hostname(std::string_view hostname, std::uint32_t ttl);
// One error answer, as tor sends it (its text is for humans; receivers ignore it).
[[nodiscard]] cell::ResolvedMsg resolved_error(LookupFailure failure, std::uint32_t ttl);

}  // namespace conflux::exit
