#include "conflux/path/guard_set.hpp"

#include <algorithm>

#include "conflux/path/relay_rules.hpp"
#include "conflux/path/weighted.hpp"

namespace conflux::path {
namespace {

const dir::RouterEntry* listed_guard(const NetView& net, const crypto::Ed25519Public& id) {
  const dir::RouterEntry* r = net.find(id);
  return (r && usable_as_guard(*r)) ? r : nullptr;
}

}  // namespace

GuardSet::GuardSet(GuardParams params) : params_(std::move(params)) {
  params_.num_entry_guards = std::max<std::size_t>(params_.num_entry_guards, 1);
  params_.num_primary = std::max(params_.num_primary, params_.num_entry_guards);
  params_.max_sample = std::max(params_.max_sample, params_.num_primary);
}

GuardSet::GuardSet(GuardParams params, std::vector<GuardRecord> records) : GuardSet(std::move(params)) {
  records_ = std::move(records);
}

GuardRecord* GuardSet::find(const crypto::Ed25519Public& id) {
  auto it = std::find_if(records_.begin(), records_.end(), [&](const GuardRecord& g) { return g.identity == id; });
  return it == records_.end() ? nullptr : &*it;
}

void GuardSet::update(const NetView& net, std::uint64_t now) {
  const std::size_t before = records_.size();
  bool changed = false;
  for (GuardRecord& g : records_) {
    const bool listed = listed_guard(net, g.identity) != nullptr;
    if (listed && g.unlisted_since) {
      g.unlisted_since.reset();
      changed = true;
    } else if (!listed && !g.unlisted_since) {
      g.unlisted_since = now;
      changed = true;
    }
    if (listed) {
      const std::string& nick = net.find(g.identity)->nickname;
      if (g.nickname != nick) {
        g.nickname = nick;
        changed = true;
      }
    }
  }
  std::erase_if(records_, [&](const GuardRecord& g) {
    if (g.unlisted_since && now - std::min(now, *g.unlisted_since) >= params_.remove_unlisted_after) return true;
    const bool old = now >= g.added_on && now - g.added_on >= params_.lifetime;
    const bool recently_confirmed =
        g.confirmed_on && (now < *g.confirmed_on || now - *g.confirmed_on < params_.confirmed_lifetime);
    return old && !recently_confirmed;
  });
  if (changed || records_.size() != before) ++generation_;
  refresh_primary(net);
}

void GuardSet::refresh_primary(const NetView& net) {
  for (GuardRecord& g : records_) g.primary = false;
  const auto order = ordered_listed(net);
  for (std::size_t k = 0; k < order.size() && k < params_.num_primary; ++k) records_[order[k]].primary = true;
}

bool GuardSet::is_reachable(const GuardRecord& g, std::uint64_t now) const noexcept {
  return !g.failing_since || g.retry_at <= now;
}

// Listed sampled guards: confirmed ones first (in confirmation order), then
// the others in sample order. The first num_primary are the primary guards.
std::vector<std::size_t> GuardSet::ordered_listed(const NetView& net) const {
  std::vector<std::size_t> confirmed, others;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (!listed_guard(net, records_[i].identity)) continue;
    (records_[i].confirmed_on ? confirmed : others).push_back(i);
  }
  std::stable_sort(confirmed.begin(), confirmed.end(),
                   [&](std::size_t a, std::size_t b) { return *records_[a].confirmed_on < *records_[b].confirmed_on; });
  confirmed.insert(confirmed.end(), others.begin(), others.end());
  return confirmed;
}

// Adds guards, by guard-position weight, until num_primary listed guards are
// reachable or the sample is full. Driven by availability only, never by one
// path's constraints.
void GuardSet::add_to_sample(const dir::RouterEntry& r, const Rng& rng, std::uint64_t now) {
  GuardRecord g;
  g.identity = r.identity;
  g.nickname = r.nickname;
  // guard-spec: ADDED_ON_DATE = RAND(now, GUARD_LIFETIME/10), a point in the
  // past, so the file does not date the moment we chose.
  const std::uint64_t spread = params_.lifetime / 10;
  g.added_on = now - std::min(now, uniform_below(rng, spread + 1));
  records_.push_back(std::move(g));
  ++generation_;
}

void GuardSet::grow_sample(const NetView& net, const Rng& rng, std::uint64_t now) {
  auto reachable_listed = [&] {
    std::size_t n = 0;
    for (const GuardRecord& g : records_)
      if (listed_guard(net, g.identity) && is_reachable(g, now)) ++n;
    return n;
  };
  std::size_t have = reachable_listed();
  while (have < params_.num_primary && records_.size() < params_.max_sample) {
    std::vector<const dir::RouterEntry*> pool;
    for (const dir::RouterEntry& r : net.relays())
      if (usable_as_guard(r) && !find(r.identity)) pool.push_back(&r);
    auto pick = choose_by_bandwidth(pool, Position::Guard, net.weights(), rng);
    if (!pick) return;
    add_to_sample(*pool[*pick], rng, now);
    ++have;
  }
}

std::optional<Hop> GuardSet::grow_sample_fitting(const NetView& net, const HopFilter& fits, const Rng& rng,
                                                 std::uint64_t now) {
  if (records_.size() >= params_.max_sample) return std::nullopt;
  std::vector<const dir::RouterEntry*> pool;
  for (const dir::RouterEntry& r : net.relays())
    if (usable_as_guard(r) && !find(r.identity) && fits(hop_from(r))) pool.push_back(&r);
  auto pick = choose_by_bandwidth(pool, Position::Guard, net.weights(), rng);
  if (!pick) return std::nullopt;
  add_to_sample(*pool[*pick], rng, now);
  return hop_from(*pool[*pick]);
}

Result<Hop, PathError> GuardSet::choose_first_hop(const NetView& net, const HopFilter& fits, const Rng& rng,
                                                  std::uint64_t now) {
  update(net, now);
  grow_sample(net, rng, now);
  refresh_primary(net);
  const auto order = ordered_listed(net);
  auto usable = [&](std::size_t i, Hop& out) {
    if (!is_reachable(records_[i], now)) return false;
    out = hop_from(*net.find(records_[i].identity));
    return !fits || fits(out);
  };

  std::vector<Hop> primaries;
  for (std::size_t k = 0; k < order.size() && k < params_.num_primary; ++k) {
    Hop h;
    if (usable(order[k], h)) primaries.push_back(std::move(h));
    if (primaries.size() == params_.num_entry_guards) break;
  }
  if (!primaries.empty()) return primaries[uniform_below(rng, primaries.size())];
  for (std::size_t k = params_.num_primary; k < order.size(); ++k) {
    Hop h;
    if (usable(order[k], h)) return h;
  }
  // guard-spec 4.9 (MIN_FILTERED_SAMPLE): when no sampled guard satisfies the
  // path's restriction (a Conflux leg avoiding the other legs' relays, an
  // exit that is one of our guards), the sample grows by one that does,
  // rather than the restriction being dropped.
  if (fits) {
    if (auto h = grow_sample_fitting(net, fits, rng, now)) return std::move(*h);
  }

  PathError err;
  bool any_reachable = false;
  for (std::size_t i : order) {
    const GuardRecord& g = records_[i];
    if (is_reachable(g, now)) any_reachable = true;
    else if (!err.retry_at || g.retry_at < *err.retry_at) err.retry_at = g.retry_at;
  }
  if (any_reachable) {
    err.code = PathErrc::NoCompatibleGuard;
    err.message = "no reachable guard fits this path's constraints";
    err.retry_at.reset();
  } else {
    err.code = PathErrc::NoGuardReachable;
    err.message = order.empty() ? "no guard in the consensus"
                                : "all " + std::to_string(order.size()) + " listed guards are unreachable";
  }
  return Unexpected{std::move(err)};
}

Result<Hop, PathError> GuardSet::choose_guard(const NetView& net, const Rng& rng, std::uint64_t now) {
  return choose_first_hop(net, HopFilter{}, rng, now);
}

std::optional<Hop> GuardSet::find_first_hop(const NetView& net, const crypto::Ed25519Public& id,
                                            std::uint64_t now) {
  GuardRecord* g = find(id);
  const dir::RouterEntry* r = listed_guard(net, id);
  if (!g || !r || !is_reachable(*g, now)) return std::nullopt;
  return hop_from(*r);
}

bool GuardSet::mark_failed(const crypto::Ed25519Public& id, std::uint64_t now) {
  GuardRecord* g = find(id);
  if (!g) return false;
  if (!g->failing_since) g->failing_since = now;
  ++g->failures;
  const std::uint64_t failing_for = now - std::min(now, *g->failing_since);
  const RetrySchedule& s = g->primary ? params_.primary_retry : params_.other_retry;
  g->retry_at = now + s.delay(failing_for);
  return true;
}

bool GuardSet::mark_succeeded(const crypto::Ed25519Public& id, std::uint64_t now) {
  GuardRecord* g = find(id);
  if (!g) return false;
  // Success while every other primary guard was failing suggests the
  // network was down rather than the guards: retry them (guard-spec, "when
  // the network comes back"), so we return to our primary guards.
  const bool primaries_failing = std::all_of(records_.begin(), records_.end(), [&](const GuardRecord& o) {
    return &o == g || !o.primary || o.failing_since.has_value();
  });
  if (primaries_failing) mark_all_retriable();
  g->failing_since.reset();
  g->retry_at = 0;
  g->failures = 0;
  if (!g->confirmed_on) {
    g->confirmed_on = now;
    ++generation_;
  }
  return true;
}

void GuardSet::mark_all_retriable() {
  for (GuardRecord& g : records_) {
    g.failing_since.reset();
    g.retry_at = 0;
    g.failures = 0;
  }
}

std::vector<GuardStatus> GuardSet::status(const NetView& net, std::uint64_t now) const {
  const auto order = ordered_listed(net);
  std::vector<GuardStatus> out;
  for (const GuardRecord& g : records_) {
    GuardStatus s;
    s.identity = g.identity;
    s.nickname = g.nickname;
    s.listed = listed_guard(net, g.identity) != nullptr;
    s.confirmed = g.confirmed_on.has_value();
    s.reachable = s.listed && is_reachable(g, now);
    if (g.failing_since) s.retry_at = g.retry_at;
    for (std::size_t k = 0; k < order.size() && k < params_.num_primary; ++k)
      if (&records_[order[k]] == &g) s.primary = true;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<crypto::Ed25519Public> GuardSet::reachable(const NetView& net, std::uint64_t now) const {
  std::vector<crypto::Ed25519Public> out;
  for (std::size_t i : ordered_listed(net))
    if (is_reachable(records_[i], now)) out.push_back(records_[i].identity);
  return out;
}

}  // namespace conflux::path
