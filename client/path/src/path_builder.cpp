#include "conflux/path/path_builder.hpp"

#include <algorithm>

#include "conflux/path/weighted.hpp"

namespace conflux::path {
namespace {

bool fits_all(const dir::RouterEntry& r, const std::vector<Hop>& with, const SelectionRules& rules) {
  return std::all_of(with.begin(), with.end(), [&](const Hop& h) { return compatible(r, h, rules); });
}

PathError fail(PathErrc code, std::string message) {
  PathError e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

std::string port_text(std::optional<std::uint16_t> port) {
  return port ? "port " + std::to_string(*port) : "any port";
}

}  // namespace

Result<Hop, PathError> choose_exit(const NetView& net, std::optional<std::uint16_t> port,
                                   const std::set<crypto::Ed25519Public>& exclude, const std::vector<Hop>& with,
                                   const SelectionRules& rules, const Rng& rng, bool conflux) {
  // Without a port, the best tier available: allowing 80 and 443, then one
  // of them, then anything (path-spec 2.1.1: preemptive circuits for port 80).
  std::array<std::vector<const dir::RouterEntry*>, 3> tiers;
  for (const dir::RouterEntry& r : net.relays()) {
    if (!usable_as_exit(r, port) || (conflux && !usable_as_conflux_exit(r)) || exclude.contains(r.identity) ||
        !fits_all(r, with, rules))
      continue;
    const int tier = port ? 0 : any_port_tier(r.exit_policy);
    if (tier < 3) tiers[static_cast<std::size_t>(tier)].push_back(&r);
  }
  for (const auto& pool : tiers) {
    if (auto pick = choose_by_bandwidth(pool, Position::Exit, net.weights(), rng)) return hop_from(*pool[*pick]);
  }
  return Unexpected{fail(PathErrc::NoExit, std::string(conflux ? "no Conflux exit" : "no exit") + " for " +
                                               port_text(port) + " fits this path")};
}

Result<Path, PathError> build_path(const NetView& net, FirstHopSource& first_hops, const PathOptions& options,
                                   const SelectionRules& rules, const Rng& rng, std::uint64_t now) {
  if (options.num_hops < 1 || options.num_hops > kMaxHops)
    return Unexpected{fail(PathErrc::BadOptions, "a path has 1 to " + std::to_string(kMaxHops) + " hops")};
  if (net.empty()) return Unexpected{fail(PathErrc::NoConsensus, "no relays known yet")};

  // A fixed exit (Conflux: all legs share it) constrains the first hop.
  std::optional<Hop> fixed_exit;
  if (options.exit && options.num_hops >= 2) {
    const dir::RouterEntry* r = net.find(*options.exit);
    if (!r || !usable_as_exit(*r, options.port) || (options.conflux && !usable_as_conflux_exit(*r)) ||
        options.exclude.contains(r->identity) || options.exclude_exits.contains(r->identity))
      return Unexpected{fail(PathErrc::ExitUnusable, "the requested exit is not usable for " + port_text(options.port))};
    fixed_exit = hop_from(*r);
  }

  auto fits_first = [&](const Hop& h, const std::optional<Hop>& with_exit) {
    if (options.exclude.contains(h.identity)) return false;
    return !with_exit || compatible(h, *with_exit, rules);
  };

  Path path;
  if (options.first_hop) {
    auto h = first_hops.find_first_hop(net, *options.first_hop, now);
    if (!h || !fits_first(*h, fixed_exit))
      return Unexpected{fail(PathErrc::FirstHopUnusable, "the requested first hop is not usable now")};
    path.hops.push_back(std::move(*h));
  } else {
    auto h = first_hops.choose_first_hop(net, [&](const Hop& x) { return fits_first(x, fixed_exit); }, rng, now);
    if (!h) return Unexpected{h.error()};
    path.hops.push_back(std::move(*h));
  }
  if (options.num_hops == 1) return path;

  std::optional<Hop> exit = fixed_exit;
  if (!exit) {
    std::set<crypto::Ed25519Public> no_exit = options.exclude;
    no_exit.insert(options.exclude_exits.begin(), options.exclude_exits.end());
    std::set<crypto::Ed25519Public> no_exit_now = no_exit;
    no_exit_now.insert(options.avoid.begin(), options.avoid.end());
    auto e = choose_exit(net, options.port, no_exit_now, path.hops, rules, rng, options.conflux);
    if (!e && !options.first_hop) {
      // No exit fits this first hop: our guard is the only exit (a network
      // with one exit, which is also a Guard), or every other exit is one
      // to avoid (the last one is down). Then the exit first, as tor always
      // picks it, and a first hop that fits it. Only then does a
      // restriction move a circuit to another guard (tor bug 40876).
      if (auto first_exit = choose_exit(net, options.port, no_exit_now, {}, rules, rng, options.conflux)) {
        auto h = first_hops.choose_first_hop(net, [&](const Hop& x) { return fits_first(x, *first_exit); }, rng,
                                             now);
        if (h) {
          path.hops.front() = std::move(*h);
          e = std::move(first_exit);
        }
      }
    }
    if (!e) e = choose_exit(net, options.port, no_exit, path.hops, rules, rng, options.conflux);
    if (!e) return Unexpected{e.error()};
    exit = std::move(*e);
  }

  std::vector<Hop> chosen = path.hops;
  chosen.push_back(*exit);
  for (std::size_t i = 2; i < options.num_hops; ++i) {
    std::vector<const dir::RouterEntry*> pool;
    for (bool skip_avoided : {true, false}) {
      for (const dir::RouterEntry& r : net.relays())
        if (usable_as_middle(r) && !options.exclude.contains(r.identity) &&
            !(skip_avoided && options.avoid.contains(r.identity)) && fits_all(r, chosen, rules))
          pool.push_back(&r);
      if (!pool.empty() || options.avoid.empty()) break;
    }
    auto pick = choose_by_bandwidth(pool, Position::Middle, net.weights(), rng);
    if (!pick) return Unexpected{fail(PathErrc::NoMiddle, "no middle relay fits this path")};
    Hop m = hop_from(*pool[*pick]);
    chosen.push_back(m);
    path.hops.push_back(std::move(m));
  }
  path.hops.push_back(std::move(*exit));
  return path;
}

}  // namespace conflux::path
