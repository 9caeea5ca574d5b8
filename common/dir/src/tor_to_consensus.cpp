#include "conflux/dir/tor_to_consensus.hpp"

#include <algorithm>
#include <map>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/bandwidth_weights.hpp"
#include "conflux/dir/tor_relay_facts.hpp"

namespace conflux::dir {
namespace {

Flags flags_of(const TorRouterStatus& r) {
  Flags f;
  f.exit = r.has_flag("Exit") && !r.has_flag("BadExit");
  f.fast = r.has_flag("Fast");
  f.guard = r.has_flag("Guard");
  f.running = r.has_flag("Running");
  f.stable = r.has_flag("Stable");
  f.valid = r.has_flag("Valid");
  f.v2dir = r.has_flag("V2Dir");
  return f;
}

std::optional<BandwidthWeights> weights_of(const TorConsensus& c) {
  if (c.bandwidth_weights.empty()) return std::nullopt;
  BandwidthWeights w;
  const auto scale = c.params.find("bwweightscale");
  w.scale = scale != c.params.end() && scale->second > 0 ? scale->second : kDefaultWeightScale;
  for (const auto& [name, member] : kWeightFields) {
    const auto v = c.bandwidth_weights.find(std::string(name));
    if (v == c.bandwidth_weights.end() || v->second < 0 || v->second > w.scale) return std::nullopt;
    w.*member = v->second;
  }
  return w;
}

RouterEntry entry_of(const TorRouterStatus& r, const TorMicrodesc& md) {
  RouterEntry e;
  e.identity = *md.ed25519_id;
  e.nickname = r.nickname;
  e.ipv4 = r.ipv4;
  if (md.ipv6) e.ipv6 = md.ipv6->first;
  e.or_port = r.or_port;
  e.dir_port = r.dir_port;
  e.flags = flags_of(r);
  e.bandwidth = r.bandwidth;
  e.measured = !r.unmeasured;
  e.ntor_onion_key = md.ntor_onion_key;
  e.exit_policy = format_policy_summary(md.ipv4_policy);
  e.protocols = r.protocols;
  e.descriptor_digest = md.digest;
  e.published = r.published;
  e.rsa_identity = r.identity;
  return e;
}

}  // namespace

TorConversion consensus_from_tor(const TorConsensus& c, const std::vector<TorMicrodesc>& microdescs) {
  TorConversion out;
  out.body.valid_after = c.valid_after;
  out.body.fresh_until = c.fresh_until;
  out.body.valid_until = c.valid_until;
  out.body.params = c.params;
  out.body.bandwidth_weights = weights_of(c);
  std::map<std::array<std::uint8_t, 32>, const TorMicrodesc*> by_digest;
  for (const auto& md : microdescs) by_digest.emplace(md.digest, &md);
  std::map<crypto::RsaFingerprint, crypto::Ed25519Public> ed_of;
  std::vector<std::pair<RouterEntry, const TorMicrodesc*>> entries;
  for (const auto& r : c.routers) {
    const auto md = by_digest.find(r.microdesc_digest);
    if (md == by_digest.end()) {
      ++out.missing_microdesc;
      continue;
    }
    if (!md->second->ed25519_id) {
      ++out.missing_ed25519;
      continue;
    }
    ed_of.emplace(r.identity, *md->second->ed25519_id);
    entries.emplace_back(entry_of(r, *md->second), md->second);
  }
  for (auto& [e, md] : entries) {
    for (const auto& member : md->family) {
      const auto fp = family_member_fingerprint(member);
      const auto ed = fp ? ed_of.find(*fp) : ed_of.end();
      if (ed != ed_of.end() && ed->second != e.identity) e.family.push_back(ed->second);
    }
    std::sort(e.family.begin(), e.family.end());
    e.family.erase(std::unique(e.family.begin(), e.family.end()), e.family.end());
  }
  std::stable_sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first.identity < b.first.identity; });
  for (auto& [e, md] : entries) {
    // Two relays claiming one Ed25519 identity: the first (lowest RSA id) stays.
    if (!out.body.routers.empty() && out.body.routers.back().identity == e.identity) continue;
    out.body.routers.push_back(std::move(e));
  }
  return out;
}

}  // namespace conflux::dir
