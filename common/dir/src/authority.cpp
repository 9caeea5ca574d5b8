#include "conflux/dir/authority.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "conflux/crypto/digest.hpp"

namespace conflux::dir {
namespace {

// The k-th smallest of `v` (tor's find_nth_*), 0 for an empty list.
template <class T>
T nth_smallest(std::vector<T> v, std::size_t k) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

struct Candidate {
  const ReachabilityHistory* history;
  std::uint64_t bw;      // advertised, bytes/s; then what the flags are computed from (credible_bandwidths)
  RouterEntry entry;     // everything but the flags and the weight
  // A tor descriptor's family, by RSA fingerprint: the entry lists those
  // members that are listed too, by their Ed25519 identity (listed_relays).
  std::vector<crypto::RsaFingerprint> rsa_family{};
  bool dir_cache = false;  // tunnelled-dir-server: it answers BEGIN_DIR
};

bool running_at(const ReachabilityHistory& h, std::uint64_t at, const AuthorityParams& params) {
  const auto& last = h.last_reachable;
  return last && !(at > *last && at - *last > params.thresholds.running_window);
}

// Keeps `c` unless `best` holds a later one of the same identity (the larger
// digest breaks a tie), so the choice does not depend on input order.
void keep_latest(std::map<crypto::Ed25519Public, Candidate>& best, Candidate c) {
  auto [it, fresh] = best.try_emplace(c.entry.identity, c);
  if (fresh) return;
  const RouterEntry& old = it->second.entry;
  if (c.entry.published > old.published ||
      (c.entry.published == old.published && c.entry.descriptor_digest > old.descriptor_digest))
    it->second = std::move(c);
}

// A tor descriptor, checked again at `at`: both signatures and the
// certificates (by parsing its text at `at`), and the descriptor window.
std::optional<Candidate> candidate_of(const TorRelayRecord& rec, std::uint64_t at, const AuthorityParams& params) {
  auto d = parse_tor_server_descriptor(rec.descriptor.text, at);
  if (!d) return std::nullopt;
  const DescriptorCheck& check = params.descriptor_check;
  if (d->published > at + check.max_future || d->published + check.max_age < at) return std::nullopt;
  if (!valid_protocols(d->protocols) || d->protocols.size() > kMaxProtocolsLen) return std::nullopt;
  Candidate c{&rec.history, std::min(d->facts.bandwidth_rate, d->facts.bandwidth_observed), {}};
  RouterEntry& e = c.entry;
  e.identity = d->ed25519_identity;
  e.nickname = d->nickname;
  e.ipv4 = d->ipv4;
  e.ipv6 = d->facts.ipv6;
  e.or_port = d->or_port;
  e.dir_port = d->dir_port;
  e.ntor_onion_key = d->ntor_onion_key;
  e.exit_policy = d->facts.exit_policy;
  e.protocols = d->protocols;
  e.descriptor_digest =
      crypto::sha256({reinterpret_cast<const std::uint8_t*>(d->text.data()), d->text.size()});
  e.published = d->published;
  e.rsa_identity = d->rsa_identity;
  c.rsa_family = d->facts.family;
  c.dir_cache = d->tunnelled_dir_server;
  return c;
}

// A tor descriptor's family members named in the entry as our consensus
// names them: by the Ed25519 identity of the listed relay with that RSA
// fingerprint (members not listed are left out, as the microdescriptor's
// "family" writer and the client do: a family is mutual, and an unlisted
// relay is never on a path).
void name_tor_families(std::vector<Candidate>& listed) {
  std::map<crypto::RsaFingerprint, crypto::Ed25519Public> ed_of;
  for (const Candidate& c : listed)
    if (c.entry.rsa_identity) ed_of.emplace(*c.entry.rsa_identity, c.entry.identity);
  for (Candidate& c : listed) {
    if (c.rsa_family.empty()) continue;
    auto& family = c.entry.family;
    for (const auto& fp : c.rsa_family) {
      auto it = ed_of.find(fp);
      if (it != ed_of.end() && it->second != c.entry.identity) family.push_back(it->second);
    }
    std::sort(family.begin(), family.end());
    family.erase(std::unique(family.begin(), family.end()), family.end());
  }
}

// One verified, Running descriptor per Ed25519 identity (the latest), and
// one per RSA identity (the first by Ed25519 identity), so that each relay
// is listed once under either name.
std::vector<Candidate> listed_relays(std::span<const TorRelayRecord> records, std::uint64_t at,
                                     const AuthorityParams& params) {
  std::map<crypto::Ed25519Public, Candidate> latest;
  for (const TorRelayRecord& rec : records) {
    if (!running_at(rec.history, at, params)) continue;
    if (auto c = candidate_of(rec, at, params)) keep_latest(latest, std::move(*c));
  }
  std::set<crypto::RsaFingerprint> rsa_claimed;
  std::vector<Candidate> out;
  out.reserve(latest.size());
  for (auto& [id, c] : latest)  // std::map: sorted by identity
    if (rsa_claimed.insert(*c.entry.rsa_identity).second) out.push_back(std::move(c));
  name_tor_families(out);
  return out;
}

// tor's consensus parameters FastFlagMinThreshold and FastFlagMaxThreshold
// (bytes/s), as its authorities apply them to the threshold they computed:
// raised to the minimum, lowered to the maximum, the minimum winning. tor
// reads them from the consensus; ours are the ones this body carries.
std::uint64_t fast_threshold(std::uint64_t computed, const std::map<std::string, std::int32_t>& p) {
  std::uint64_t out = computed;
  if (auto it = p.find("FastFlagMaxThreshold"); it != p.end() && it->second >= 0)
    out = std::min<std::uint64_t>(out, static_cast<std::uint64_t>(it->second));
  if (auto it = p.find("FastFlagMinThreshold"); it != p.end() && it->second >= 0)
    out = std::max<std::uint64_t>(out, static_cast<std::uint64_t>(it->second));
  return out;
}

// tor's dirserv_get_credible_bandwidth_kb, for the flag thresholds: a
// measured relay's measurement; an unmeasured one's advertised bandwidth,
// or 0 once more than MinMeasuredBWsForAuthToIgnoreAdvertised relays are
// measured. Returns the consensus weights (KB/s) and sets each entry's
// `measured`: an unmeasured relay's weight is its advertised bandwidth,
// capped at the "maxunmeasuredbw" consensus parameter (default 20 KB/s) as
// soon as any relay is measured, as tor's consensus caps it when enough
// authorities measure (this body is every authority's, below).
std::vector<std::uint64_t> credible_bandwidths(std::vector<Candidate>& listed, const MeasuredBandwidths& measured,
                                               const std::map<std::string, std::int32_t>& params) {
  std::size_t n_measured = 0;
  for (Candidate& c : listed) {
    auto it = c.entry.rsa_identity ? measured.kb.find(*c.entry.rsa_identity) : measured.kb.end();
    c.entry.measured = it != measured.kb.end();
    if (c.entry.measured) ++n_measured;
  }
  std::uint64_t max_unmeasured = kDefaultMaxUnmeasuredKb;
  if (auto it = params.find("maxunmeasuredbw"); it != params.end())
    max_unmeasured = static_cast<std::uint64_t>(std::max(it->second, 1));
  std::vector<std::uint64_t> weights;
  weights.reserve(listed.size());
  for (Candidate& c : listed) {
    if (c.entry.measured) {
      const std::uint64_t kb = measured.kb.at(*c.entry.rsa_identity);
      weights.push_back(kb);
      c.bw = kb * 1000;
      continue;
    }
    weights.push_back(n_measured > 0 ? std::min(c.bw / 1000, max_unmeasured) : c.bw / 1000);
    if (n_measured > kMinMeasuredToIgnoreAdvertised) c.bw = 0;
  }
  return weights;
}

}  // namespace

FlagThresholds FlagThresholds::testing_network() {
  FlagThresholds t;
  t.fast_minimum = 0;
  t.stable_guarantee = 0;
  t.guard_familiar_after = 0;
  t.guard_wfu_ppm = 0;
  return t;
}

bool exit_flag(std::string_view policy_summary) noexcept {
  auto p = parse_policy_summary(policy_summary);
  return p && p->allows_port(80) && p->allows_port(443);
}

std::vector<RouterEntry> compute_router_entries(std::span<const TorRelayRecord> records, std::uint64_t at,
                                                const AuthorityParams& params, const MeasuredBandwidths& measured) {
  const FlagThresholds& th = params.thresholds;
  std::vector<Candidate> listed = listed_relays(records, at, params);
  const std::size_t n = listed.size();
  const std::vector<std::uint64_t> weights = credible_bandwidths(listed, measured, params.consensus_params);

  std::vector<std::uint64_t> bws, runs, familiar_wfus;
  for (const Candidate& c : listed) {
    bws.push_back(c.bw);
    runs.push_back(c.history->run_length(at));
    if (c.history->known_for(at) >= th.guard_familiar_after) familiar_wfus.push_back(c.history->wfu_ppm());
  }
  // Fast: in the top 7/8 by bandwidth, or at the guarantee; never below the
  // floor; then within tor's FastFlagMinThreshold..FastFlagMaxThreshold.
  const std::uint64_t fast_bw = fast_threshold(
      std::min(std::max(nth_smallest(bws, n / 8), th.fast_minimum), th.fast_guarantee), params.consensus_params);
  // Stable: run length at least the median, or at the guarantee.
  const std::uint64_t stable_run = std::min(nth_smallest(runs, n / 2), th.stable_guarantee);
  // Guard: bandwidth in the top 25%, or at the guarantee; WFU at least the
  // median of familiar relays, or at the guarantee.
  const std::uint64_t guard_bw = std::min(nth_smallest(bws, n * 3 / 4), th.guard_bw_guarantee);
  const std::uint64_t guard_wfu = std::min<std::uint64_t>(
      nth_smallest(familiar_wfus, familiar_wfus.size() / 2), th.guard_wfu_ppm);

  std::vector<RouterEntry> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Candidate& c = listed[i];
    const ReachabilityHistory& h = *c.history;
    RouterEntry& e = c.entry;
    e.flags.running = true;
    e.flags.valid = true;
    // tor's authorities: V2Dir for a directory cache (tunnelled-dir-server,
    // which stock relays publish by default and ours as mirrors); a DirPort
    // serves tor's documents too (exit/app/relay_tor_mirror.cpp).
    e.flags.v2dir = c.dir_cache || e.dir_port != 0;
    e.flags.fast = c.bw >= fast_bw;
    e.flags.stable = h.run_length(at) >= stable_run;
    e.flags.exit = exit_flag(e.exit_policy);
    e.flags.guard = e.flags.fast && e.flags.stable && h.known_for(at) >= th.guard_familiar_after &&
                    h.wfu_ppm() >= guard_wfu && c.bw >= guard_bw;
    if (params.testing_votes) apply_testing_votes(*params.testing_votes, e);
    e.bandwidth = weights[i];
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<BandwidthWeights> weights_for(std::span<const RouterEntry> routers, std::int64_t scale) {
  std::int64_t g = 0, m = 0, e = 0, d = 0;
  for (const RouterEntry& r : routers) {
    const auto bw = static_cast<std::int64_t>(r.bandwidth);
    if (r.flags.guard && r.flags.exit) d += bw;
    else if (r.flags.guard) g += bw;
    else if (r.flags.exit) e += bw;
    else m += bw;
  }
  auto w = compute_bandwidth_weights(g, m, e, d, scale);
  if (!w) return std::nullopt;
  return w->weights;
}

std::uint64_t valid_after_for(std::uint64_t now, std::uint64_t interval) noexcept {
  if (interval == 0) return now;
  return now - now % interval;
}

ConsensusBody make_body(std::span<const TorRelayRecord> records, std::uint64_t va, const AuthorityParams& params,
                        const MeasuredBandwidths& measured) {
  ConsensusBody b;
  const std::uint64_t interval = std::max<std::uint64_t>(params.interval, 1);
  b.valid_after = va;
  b.fresh_until = va + interval;
  b.valid_until = va + interval * std::max<std::uint64_t>(params.valid_intervals, 2);
  b.params = params.consensus_params;
  b.routers = compute_router_entries(records, va, params, measured);
  b.bandwidth_weights = weights_for(b.routers, params.weight_scale);
  return b;
}

}  // namespace conflux::dir
