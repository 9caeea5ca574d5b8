#include "conflux/path/relay_rules.hpp"

#include <algorithm>

namespace conflux::path {
namespace {

bool running_valid_fast(const dir::Flags& f) noexcept { return f.running && f.valid && f.fast; }

bool lists(std::span<const crypto::Ed25519Public> family, const crypto::Ed25519Public& id) noexcept {
  // Sorted in the consensus and descriptors, but a Hop built by hand need
  // not be: a linear scan over at most kMaxFamily keys is cheap.
  return std::find(family.begin(), family.end(), id) != family.end();
}

}  // namespace

bool usable_as_guard(const dir::RouterEntry& r) noexcept {
  return running_valid_fast(r.flags) && r.flags.guard && r.flags.stable;
}

bool usable_as_middle(const dir::RouterEntry& r) noexcept { return running_valid_fast(r.flags); }

bool usable_as_exit(const dir::RouterEntry& r, std::optional<std::uint16_t> port) noexcept {
  if (!running_valid_fast(r.flags)) return false;
  if (port) return exit_policy_allows(r.exit_policy, *port);
  return any_port_tier(r.exit_policy) < 3;
}

bool usable_as_conflux_exit(const dir::RouterEntry& r) noexcept {
  return r.flags.stable && r.flags.fast && dir::protocols_support(r.protocols, "Conflux", 1) &&
         dir::protocols_support(r.protocols, "FlowCtrl", 2);
}

bool exit_policy_allows(std::string_view summary, std::uint16_t port) noexcept {
  if (port == 0) return false;
  try {
    auto p = dir::parse_policy_summary(summary);
    return p && p->allows_port(port);
  } catch (...) {  // allocation failure: treat as not allowed
    return false;
  }
}

int any_port_tier(std::string_view summary) noexcept {
  std::optional<dir::PolicySummary> p;
  try {
    p = dir::parse_policy_summary(summary);
  } catch (...) {
    return 3;
  }
  if (!p) return 3;
  const bool web = p->allows_port(80), tls = p->allows_port(443);
  if (web && tls) return 0;
  if (web || tls) return 1;
  // "accept" lists at least one range; "reject" allows something unless it covers 1-65535.
  if (p->accept) return p->ranges.empty() ? 3 : 2;
  std::uint32_t covered = 0;
  for (const auto& [lo, hi] : p->ranges) covered += static_cast<std::uint32_t>(hi - lo) + 1;
  return covered >= 65535 ? 3 : 2;
}

std::int64_t position_weight(const dir::Flags& f, Position pos,
                             const std::optional<dir::BandwidthWeights>& w) noexcept {
  if (!w) return 1;
  const bool g = f.guard, e = f.exit;
  std::int64_t v = 0;
  switch (pos) {
    case Position::Guard:
      v = (g && e) ? w->wgd : g ? w->wgg : e ? 0 : w->wgm;
      break;
    case Position::Middle:
      v = (g && e) ? w->wmd : g ? w->wmg : e ? w->wme : w->wmm;
      break;
    case Position::Exit:
      v = (g && e) ? w->wed : g ? w->weg : e ? w->wee : w->wem;
      break;
  }
  return std::clamp<std::int64_t>(v, 0, std::int64_t{1} << 31);
}

bool same_family(const crypto::Ed25519Public& a_id, std::span<const crypto::Ed25519Public> a_family,
                 const crypto::Ed25519Public& b_id, std::span<const crypto::Ed25519Public> b_family) noexcept {
  if (a_id == b_id) return true;
  return lists(a_family, b_id) && lists(b_family, a_id);
}

bool same_subnet(const dir::Ipv4& a4, const std::optional<dir::Ipv6>& a6, const dir::Ipv4& b4,
                 const std::optional<dir::Ipv6>& b6) noexcept {
  if (a4[0] == b4[0] && a4[1] == b4[1]) return true;
  return a6 && b6 && std::equal(a6->begin(), a6->begin() + 4, b6->begin());
}

}  // namespace conflux::path
