// A relay's exit policy from its configuration (see exit_policy_builder.hpp).
#include "conflux/proto/exit_policy_builder.hpp"

#include <algorithm>
#include <array>
#include <variant>

namespace conflux::proto {

namespace {

PolicyRule reject_all(AddrFamily f) {
  PolicyRule r;
  r.action = PolicyAction::Reject;
  r.family = f;
  return r;
}

PolicyRule reject_host(const cell::RelayIpAddr& a) {
  PolicyRule r;
  r.action = PolicyAction::Reject;
  r.family = family_of(a);
  std::visit([&](const auto& bytes) { std::copy(bytes.begin(), bytes.end(), r.addr.begin()); }, a);
  r.prefix_len = r.family == AddrFamily::Ipv4 ? 32 : 128;
  return r;
}

bool is_unspecified(const cell::RelayIpAddr& a) {
  return std::visit(
      [](const auto& bytes) {
        for (auto b : bytes)
          if (b != 0) return false;
        return true;
      },
      a);
}

bool is_multicast(const cell::RelayIpAddr& a) {
  if (const auto* v4 = std::get_if<cell::Ipv4Bytes>(&a)) return ((*v4)[0] & 0xf0) == 0xe0;
  return std::get<cell::Ipv6Bytes>(a)[0] == 0xff;
}

std::vector<PolicyEntry> default_entries() {
  std::vector<PolicyEntry> out;
  for (std::string_view item : split_policy_value(kDefaultExitPolicy)) {
    auto e = parse_policy_entry(item);
    if (e) out.push_back(*e);  // a constant that the unit tests parse in full
  }
  return out;
}

void append(std::vector<PolicyRule>& out, const ExitPolicy& p) {
  out.insert(out.end(), p.rules().begin(), p.rules().end());
}

}  // namespace

std::vector<PolicyRule> remove_unreachable_rules(std::vector<PolicyRule> rules) {
  std::vector<PolicyRule> out;
  bool dead_v4 = false;
  bool dead_v6 = false;
  for (const PolicyRule& r : rules) {
    bool& dead = r.family == AddrFamily::Ipv4 ? dead_v4 : dead_v6;
    if (dead) continue;
    out.push_back(r);
    if (r.is_catch_all()) dead = true;
  }
  return out;
}

Result<BuiltExitPolicy, ExitPolicyConfigError> build_exit_policy(std::span<const std::string> values,
                                                                 const ExitPolicyOptions& options) {
  BuiltExitPolicy built;
  std::vector<PolicyEntry> entries;
  for (std::size_t v = 0; v < values.size(); ++v) {
    const auto items = split_policy_value(values[v]);
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto e = parse_policy_entry(items[i]);
      if (e) {
        entries.push_back(*e);
        continue;
      }
      const ExitPolicyConfigError err{v, i, e.error()};
      if (is_fatal(e.error())) return Unexpected{err};
      built.ignored.push_back(err);
    }
  }

  std::vector<PolicyRule> rules;
  if (!options.exit_relay) {
    rules = {reject_all(AddrFamily::Ipv4), reject_all(AddrFamily::Ipv6)};
    built.policy = ExitPolicy::from_rules(std::move(rules));
    return built;
  }

  if (!options.ipv6_exit) rules.push_back(reject_all(AddrFamily::Ipv6));
  if (options.reject_private) {
    PolicyEntry priv;
    priv.action = PolicyAction::Reject;
    priv.target = PolicyTarget::Private;
    append(rules, ExitPolicy::from_entries(std::span<const PolicyEntry>(&priv, 1)));
    // The relay's own addresses: private ones are covered already; tor also
    // skips unspecified and multicast ones, and IPv6 ones when not an IPv6
    // exit (all of IPv6 is rejected then).
    for (const auto& a : options.own_addresses) {
      if (is_unspecified(a) || is_multicast(a) || is_private_address(a)) continue;
      if (family_of(a) == AddrFamily::Ipv6 && !options.ipv6_exit) continue;
      rules.push_back(reject_host(a));
    }
  }
  append(rules, ExitPolicy::from_entries(entries));
  if (options.add_default_policy) {
    append(rules, ExitPolicy::from_entries(default_entries()));
  } else {
    rules.push_back(reject_all(AddrFamily::Ipv4));
    rules.push_back(reject_all(AddrFamily::Ipv6));
  }
  built.policy = ExitPolicy::from_rules(remove_unreachable_rules(std::move(rules)));
  return built;
}

}  // namespace conflux::proto
