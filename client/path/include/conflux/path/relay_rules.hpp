#pragma once
// Which relays may stand in which position, how much each weighs there, and
// which pairs may not share a path (path-spec 2.2, dir-spec 3.8.3).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/bandwidth_weights.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::path {

enum class Position : std::uint8_t { Guard, Middle, Exit };

struct SelectionRules {
  // tor's EnforceDistinctSubnets: no two hops in one IPv4 /16 or IPv6 /32.
  // conflux-net turns it off: every relay of a local network is on 127.0.0.1.
  bool enforce_distinct_subnets = true;
  // No two hops in one family (mutual declaration, as tor).
  bool enforce_families = true;
};

// Running + Valid + Guard + Fast + Stable (guard-spec's {set:GUARDS}, without V2Dir
// which this directory does not have).
[[nodiscard]] bool usable_as_guard(const dir::RouterEntry& r) noexcept;
// Running + Valid + Fast.
[[nodiscard]] bool usable_as_middle(const dir::RouterEntry& r) noexcept;
// Running + Valid + Fast, and a policy summary that allows `port` (or, with no
// port, accepts some port). The Exit flag only changes the weight, as in tor.
[[nodiscard]] bool usable_as_exit(const dir::RouterEntry& r, std::optional<std::uint16_t> port) noexcept;

// A Conflux set's exit (tor's CRN_CONFLUX with NEED_UPTIME and
// NEED_CAPACITY): Stable and Fast, and it speaks Conflux=1 and FlowCtrl=2
// (congestion control, which tor's Conflux requires).
[[nodiscard]] bool usable_as_conflux_exit(const dir::RouterEntry& r) noexcept;

// Whether a policy summary allows `port`; false when it does not parse.
[[nodiscard]] bool exit_policy_allows(std::string_view summary, std::uint16_t port) noexcept;

// For an exit chosen without a port (preemptive circuits): 0 when it allows
// both 80 and 443, 1 when one of them, 2 when only other ports, 3 when none.
[[nodiscard]] int any_port_tier(std::string_view summary) noexcept;

// The W<position><class> factor for a relay with these flags, or 1 when the
// consensus has no weights. Clamped to [0, 2^31].
[[nodiscard]] std::int64_t position_weight(const dir::Flags& f, Position pos,
                                           const std::optional<dir::BandwidthWeights>& w) noexcept;

// Two relays are one family when each lists the other (tor's rule; a
// one-sided claim counts for nothing, so a relay cannot push honest relays
// off the paths it is on).
[[nodiscard]] bool same_family(const crypto::Ed25519Public& a_id, std::span<const crypto::Ed25519Public> a_family,
                               const crypto::Ed25519Public& b_id,
                               std::span<const crypto::Ed25519Public> b_family) noexcept;

[[nodiscard]] bool same_subnet(const dir::Ipv4& a4, const std::optional<dir::Ipv6>& a6, const dir::Ipv4& b4,
                               const std::optional<dir::Ipv6>& b6) noexcept;

// Whether two hops may share a path: never the same relay, and (per rules)
// not the same subnet or family. Works on anything with identity, ipv4,
// ipv6 and family (RouterEntry, Descriptor, Hop).
template <class A, class B>
[[nodiscard]] bool compatible(const A& a, const B& b, const SelectionRules& rules) noexcept {
  if (a.identity == b.identity) return false;
  if (rules.enforce_distinct_subnets && same_subnet(a.ipv4, a.ipv6, b.ipv4, b.ipv6)) return false;
  if (rules.enforce_families && same_family(a.identity, a.family, b.identity, b.family)) return false;
  return true;
}

}  // namespace conflux::path
