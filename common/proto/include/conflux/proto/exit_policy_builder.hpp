#pragma once
// Building a relay's exit policy from its configuration the way tor's
// policies_parse_exit_policy_from_options() does:
//
//   ExitRelay 0            -> reject *4:*, reject *6:*  (nothing else)
//   otherwise, in order:
//     IPv6Exit 0           -> reject *6:*
//     ExitPolicyRejectPrivate 1 (default)
//                          -> reject private:*, then reject each of the
//                             relay's own public addresses (IPv6 ones only
//                             with IPv6Exit 1)
//     the ExitPolicy entries, in config order
//     tor's default exit policy (kDefaultExitPolicy), or for a bridge
//     (add_default_policy = false) reject *4:*, reject *6:*
//   then every rule after a catch-all of its family is dropped, so the
//   default policy only matters when the operator's list does not end in
//   accept/reject *:* (tor's exit_policy_remove_redundancies, step one).
//
// Resolving "ExitRelay auto" is the config layer's job (tor: an exit only if
// ExitPolicy, ReducedExitPolicy or IPv6Exit is set).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_addr.hpp"
#include "conflux/proto/exit_policy.hpp"

namespace conflux::proto {

// tor's DEFAULT_EXIT_POLICY (policies.c; tor(1) "the default exit policy").
inline constexpr std::string_view kDefaultExitPolicy =
    "reject *:25,reject *:119,reject *:135-139,reject *:445,"
    "reject *:563,reject *:1214,reject *:4661-4666,"
    "reject *:6346-6429,reject *:6699,reject *:6881-6999,accept *:*";

struct ExitPolicyOptions {
  bool exit_relay = false;          // ExitRelay, after "auto" is resolved
  bool reject_private = true;       // ExitPolicyRejectPrivate (tor default 1)
  bool ipv6_exit = false;           // IPv6Exit (tor default 0)
  bool add_default_policy = true;   // false for bridges, as in tor
  std::vector<cell::RelayIpAddr> own_addresses;  // published / bound addresses
};

// Where a bad entry is: which ExitPolicy value (the config layer knows its
// file and line) and which comma-separated item inside it.
struct ExitPolicyConfigError {
  std::size_t value_index = 0;
  std::size_t entry_index = 0;
  PolicyParseError error = PolicyParseError::Empty;
  friend bool operator==(const ExitPolicyConfigError&, const ExitPolicyConfigError&) = default;
};

struct BuiltExitPolicy {
  ExitPolicy policy;
  // Non-fatal entries that were skipped (accept6 with an IPv4 address), for
  // the config layer to warn about.
  std::vector<ExitPolicyConfigError> ignored;
};

// 'values' are the ExitPolicy config values in order; each may hold several
// comma-separated entries. The first fatal entry fails the whole policy (tor
// discards the list). Entries are parsed even with ExitRelay 0 so that a
// typo is reported before someone turns the exit on.
[[nodiscard]] Result<BuiltExitPolicy, ExitPolicyConfigError> build_exit_policy(
    std::span<const std::string> values, const ExitPolicyOptions& options);

// Drops every rule that follows a catch-all (prefix 0, all ports) of its own
// family: such rules can never match.
[[nodiscard]] std::vector<PolicyRule> remove_unreachable_rules(std::vector<PolicyRule> rules);

}  // namespace conflux::proto
