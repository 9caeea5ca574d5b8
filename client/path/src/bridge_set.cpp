#include "conflux/path/bridge_set.hpp"

#include <algorithm>

#include "conflux/bytes/hex.hpp"

namespace conflux::path {

namespace {

std::string address_text(const BridgeAddress& a) {
  const bool v6_only = a.ipv4 == dir::Ipv4{} && a.ipv6;
  return (v6_only ? "[" + dir::format_ipv6(*a.ipv6) + "]" : dir::format_ipv4(a.ipv4)) + ":" + std::to_string(a.or_port);
}

}  // namespace

crypto::Ed25519Public BridgeInfo::identity() const noexcept {
  return descriptor ? descriptor->ed25519_identity : crypto::Ed25519Public{};
}

std::string controller_name(const BridgeInfo& b) {
  const std::string fp = "$" + bytes::to_hex(b.rsa_identity, true);
  return b.descriptor && !b.descriptor->nickname.empty() ? fp + "~" + b.descriptor->nickname : fp;
}

BridgeSet::BridgeSet(RetrySchedule retry) : retry_(std::move(retry)) {}

void BridgeSet::set_bridges(std::vector<BridgeInfo> bridges) {
  std::vector<Entry> next;
  next.reserve(bridges.size());
  for (BridgeInfo& b : bridges) {
    Entry e;
    // The same bridge by its fingerprint (its Ed25519 identity is learned
    // with its descriptor).
    auto same = std::find_if(bridges_.begin(), bridges_.end(),
                             [&](const Entry& o) { return o.info.rsa_identity == b.rsa_identity; });
    if (same != bridges_.end()) e = *same;
    e.info = std::move(b);
    next.push_back(std::move(e));
  }
  bridges_ = std::move(next);
}

BridgeSet::Entry* BridgeSet::find(const crypto::Ed25519Public& id) {
  auto it = std::find_if(bridges_.begin(), bridges_.end(),
                         [&](const Entry& e) { return e.info.descriptor && e.info.identity() == id; });
  return it == bridges_.end() ? nullptr : &*it;
}

std::string BridgeSet::defect(const BridgeInfo& b) {
  if (!b.descriptor) return b.fetch_error.empty() ? "no descriptor yet" : "no descriptor (" + b.fetch_error + ")";
  // The runtime verifies; these checks keep a mix-up from putting another
  // relay in the first position.
  if (b.descriptor->rsa_identity != b.rsa_identity) return "descriptor is for another bridge";
  if (!b.address && b.descriptor->or_port == 0) return "no address";
  return {};
}

std::string BridgeSet::label(const BridgeInfo& b) {
  const std::string name = b.descriptor ? b.descriptor->nickname : "";
  // Fingerprint prefix: enough to match the Bridge line, not a key.
  const std::string id = "$" + bytes::to_hex(b.rsa_identity, true).substr(0, 8);
  std::string out = "bridge " + (name.empty() ? std::string() : name + " ") + "(" + id + ")";
  if (b.address) out += " at " + address_text(*b.address);
  return out;
}

bool BridgeSet::reachable(const Entry& e, std::uint64_t now) const noexcept {
  return !e.failing_since || e.retry_at <= now;
}

Hop BridgeSet::to_hop(const BridgeInfo& b) {
  return hop_from(*b.descriptor, b.address);
}

Result<Hop, PathError> BridgeSet::choose_first_hop(const NetView&, const HopFilter& fits, const Rng& rng,
                                                   std::uint64_t now) {
  std::vector<Hop> ok;
  bool any_usable = false;
  for (const Entry& e : bridges_) {
    if (!defect(e.info).empty() || !reachable(e, now)) continue;
    any_usable = true;
    Hop h = to_hop(e.info);
    if (!fits || fits(h)) ok.push_back(std::move(h));
  }
  if (!ok.empty()) return ok[uniform_below(rng, ok.size())];
  PathError err;
  if (any_usable) {
    err.code = PathErrc::NoCompatibleBridge;
    err.message = "no usable bridge fits this path's constraints";
    return Unexpected{std::move(err)};
  }
  err.code = PathErrc::AllBridgesUnusable;
  err.message = bridges_.empty() ? "UseBridges is set but no bridge is configured"
                                 : "none of the " + std::to_string(bridges_.size()) + " bridges is usable";
  err.bridge_reports = unusable_reasons(now);
  for (const Entry& e : bridges_)
    if (defect(e.info).empty() && e.failing_since && (!err.retry_at || e.retry_at < *err.retry_at))
      err.retry_at = e.retry_at;
  return Unexpected{std::move(err)};
}

std::optional<Hop> BridgeSet::find_first_hop(const NetView&, const crypto::Ed25519Public& id, std::uint64_t now) {
  const Entry* e = find(id);
  if (!e || !defect(e->info).empty() || !reachable(*e, now)) return std::nullopt;
  return to_hop(e->info);
}

bool BridgeSet::mark_failed(const crypto::Ed25519Public& id, std::uint64_t now) {
  Entry* e = find(id);
  if (!e) return false;
  if (!e->failing_since) e->failing_since = now;
  e->retry_at = now + retry_.delay(now - std::min(now, *e->failing_since));
  return true;
}

bool BridgeSet::mark_succeeded(const crypto::Ed25519Public& id, std::uint64_t) {
  Entry* e = find(id);
  if (!e) return false;
  e->failing_since.reset();
  e->retry_at = 0;
  e->confirmed = true;
  return true;
}

std::vector<BridgeSet::Status> BridgeSet::status(std::uint64_t now) const {
  std::vector<Status> out;
  out.reserve(bridges_.size());
  for (const Entry& e : bridges_) out.push_back({&e.info, e.confirmed, defect(e.info).empty(), reachable(e, now)});
  return out;
}

void BridgeSet::mark_all_retriable() {
  for (Entry& e : bridges_) {
    e.failing_since.reset();
    e.retry_at = 0;
  }
}

std::size_t BridgeSet::usable(std::uint64_t now) const {
  return static_cast<std::size_t>(std::count_if(bridges_.begin(), bridges_.end(), [&](const Entry& e) {
    return defect(e.info).empty() && reachable(e, now);
  }));
}

std::vector<std::string> BridgeSet::unusable_reasons(std::uint64_t now) const {
  std::vector<std::string> out;
  for (const Entry& e : bridges_) {
    std::string why = defect(e.info);
    if (why.empty() && !reachable(e, now))
      why = "unreachable, next try in " + std::to_string(e.retry_at - now) + " s";
    if (!why.empty()) out.push_back(label(e.info) + ": " + why);
  }
  return out;
}

}  // namespace conflux::path
