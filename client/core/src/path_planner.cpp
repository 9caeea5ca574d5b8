#include "conflux/client/path_planner.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/path/bridge_set.hpp"
#include "conflux/path/build_timeout.hpp"
#include "conflux/path/client_guards.hpp"
#include "conflux/path/guard_set.hpp"
#include "conflux/path/guard_state.hpp"
#include "conflux/path/net_view.hpp"
#include "conflux/path/path_builder.hpp"
#include "conflux/path/relay_rules.hpp"

namespace conflux::client {
namespace {

constexpr std::uint64_t kAvoidUnreachableSeconds = 300;
constexpr std::size_t kMaxAvoided = 1000;

proto::HopTarget to_target(const path::Hop& h) {
  proto::HopTarget t;
  t.identity = h.identity;
  t.onion_key = h.ntor_onion_key;
  t.link_specs.push_back(cell::LinkSpecIpv4{h.ipv4, h.or_port});
  if (h.rsa_identity) t.link_specs.push_back(cell::LinkSpecLegacyId{*h.rsa_identity});
  if (h.ipv6) t.link_specs.push_back(cell::LinkSpecIpv6{*h.ipv6, h.or_port});
  return t;
}

std::vector<net::tcp::endpoint> endpoints_of(const path::Hop& h) {
  std::vector<net::tcp::endpoint> out;
  out.emplace_back(net::asio::ip::address_v4(h.ipv4), h.or_port);
  if (h.ipv6) out.emplace_back(net::asio::ip::address_v6(*h.ipv6), h.or_port);
  return out;
}

}  // namespace

struct PathPlanner::Impl {
  const net::Clock& clock;
  net::LogSink log;
  bool use_bridges;
  std::filesystem::path state_file;
  path::SelectionRules rules;
  path::NetView net;
  bool have_consensus = false;
  path::GuardSet guards;
  std::optional<path::ClientGuards> clients;  // PerClientGuards 1; not persisted (client_guards.hpp)
  path::BridgeSet bridges;
  path::BuildTimeoutEstimator cbt;
  bool learn_cbt;
  std::chrono::milliseconds fixed_timeout;
  std::uint64_t saved_generation = 0;
  // Relays another relay could not reach lately, until when (unix seconds):
  // avoided as middle and exit while others fit. Bounded by the consensus.
  std::map<crypto::Ed25519Public, std::uint64_t> avoid_until;
  path::Rng rng = [] {
    auto b = crypto::random_array<8>();
    std::uint64_t v = 0;
    for (auto x : b) v = (v << 8) | x;
    return v;
  };

  Impl(const config::ProxyOptions& o, const net::Clock& c, net::LogSink l)
      : clock(c), log(std::move(l)), use_bridges(o.use_bridges),
        state_file(std::filesystem::path(o.data_directory) / "guard-state"), learn_cbt(o.learn_circuit_build_timeout),
        fixed_timeout(std::chrono::duration_cast<std::chrono::milliseconds>(o.circuit_build_timeout)) {
    rules.enforce_distinct_subnets = o.enforce_distinct_subnets;
    path::GuardParams gp;
    gp.num_entry_guards = o.num_entry_guards;
    auto loaded = path::load_guard_state(state_file, gp);
    if (!loaded.warning.empty())
      net::emit(log, loaded.status == path::GuardStateLoad::Status::Corrupt ? net::LogLevel::Warn : net::LogLevel::Info,
                "Guard state: " + loaded.warning);
    guards = std::move(loaded.guards);
    saved_generation = guards.generation();
    if (o.per_client_guards) clients.emplace(gp, o.per_client_guards_max);
  }

  std::uint64_t now() const { return clock.unix_seconds(); }

  void save_guards() {
    if (guards.generation() == saved_generation) return;
    if (auto err = path::save_guard_state(state_file, guards)) {
      net::emit(log, net::LogLevel::Warn, "Cannot save the guard state: " + *err);
      return;
    }
    saved_generation = guards.generation();
  }

  // The guard set of a client (the process's for none), made if there is
  // room (admitted while UseBridges was 1, say); null past PerClientGuardsMax.
  path::GuardSet* guards_of(std::string_view client) {
    if (client.empty() || !clients) return &guards;
    return clients->admit(client) ? clients->find(client) : nullptr;
  }

  path::FirstHopSource* first_hops(std::string_view client) {
    if (use_bridges) return &bridges;
    return guards_of(client);
  }

  std::vector<GuardReport> reports_of(const path::GuardSet& set) const {
    std::vector<GuardReport> out;
    for (const auto& g : set.status(net, now())) {
      GuardReport r;
      const dir::RouterEntry* e = net.find(g.identity);
      r.name = e != nullptr && e->rsa_identity ? "$" + bytes::to_hex(*e->rsa_identity, true) + "~" + g.nickname
                                               : g.nickname;
      // tor's order of precedence (entrynodes.c, getinfo_helper_format_single_entry_guard).
      r.status = !g.confirmed ? "never-connected" : !g.listed ? "unusable" : !g.reachable ? "down" : "up";
      r.reachable = g.reachable;
      out.push_back(std::move(r));
    }
    return out;
  }
};

PathPlanner::PathPlanner(const config::ProxyOptions& options, const net::Clock& clock, net::LogSink log)
    : impl_(std::make_unique<Impl>(options, clock, std::move(log))) {}

PathPlanner::~PathPlanner() = default;

void PathPlanner::set_consensus(const dir::Consensus& c) {
  auto& m = *impl_;
  m.net = path::NetView(c.body);
  m.have_consensus = true;
  m.guards.update(m.net, m.now());
  if (m.clients) m.clients->update(m.net, m.now());
  m.save_guards();
}

void PathPlanner::set_bridges(const std::vector<BridgeStatus>& list) {
  std::vector<path::BridgeInfo> infos;
  for (const auto& b : list) {
    path::BridgeInfo info;
    info.rsa_identity = b.target.rsa;
    path::BridgeAddress addr;
    if (b.target.at.address().is_v4()) {
      addr.ipv4 = b.target.at.address().to_v4().to_bytes();
    } else {
      addr.ipv6 = b.target.at.address().to_v6().to_bytes();
    }
    addr.or_port = b.target.at.port();
    info.address = addr;
    info.descriptor = b.descriptor;
    info.fetch_error = b.last_error;
    infos.push_back(std::move(info));
  }
  impl_->bridges.set_bridges(std::move(infos));
}

void PathPlanner::set_use_bridges(bool use) { impl_->use_bridges = use; }

bool PathPlanner::ready() const {
  const auto& m = *impl_;
  if (!m.have_consensus || m.net.empty()) return false;
  if (m.use_bridges) return m.bridges.usable(m.now()) > 0;
  return true;
}

std::string PathPlanner::not_ready_reason() const {
  const auto& m = *impl_;
  if (!m.have_consensus || m.net.empty()) return "no consensus yet";
  if (m.use_bridges && m.bridges.usable(m.now()) == 0) {
    std::string why = "none of the configured bridges is usable:";
    for (const auto& line : m.bridges.unusable_reasons(m.now())) why += "\n  " + line;
    return why;
  }
  return {};
}

std::optional<PathChoice> PathPlanner::choose(const PathRequest& req, PathProblem& problem) {
  auto& m = *impl_;
  std::string& why = problem.why;
  if (!ready()) {
    why = not_ready_reason();
    return std::nullopt;
  }
  path::PathOptions po;
  po.port = req.port;
  const auto ed = [](const LinkPool::Identity& id) {
    crypto::Ed25519Public e{};
    std::copy(id.begin(), id.end(), e.begin());
    return e;
  };
  for (const auto& id : req.avoid_exits) po.exclude_exits.insert(ed(id));
  std::erase_if(m.avoid_until, [&](const auto& kv) { return kv.second <= m.now(); });
  for (const auto& [id, until] : m.avoid_until) po.avoid.insert(id);
  for (const auto& id : req.exclude) po.exclude.insert(ed(id));
  if (req.exit) po.exit = ed(*req.exit);
  if (req.first_hop) po.first_hop = ed(*req.first_hop);
  po.conflux = req.conflux_leg;
  path::FirstHopSource* first_hops = m.first_hops(req.guard_client);
  if (first_hops == nullptr) {
    why = "the stream's client has no guards (PerClientGuardsMax reached)";
    return std::nullopt;
  }
  auto p = path::build_path(m.net, *first_hops, po, m.rules, m.rng, m.now());
  m.save_guards();
  if (!p) {
    why = p.error().message;
    problem.no_exit_for_port = req.port.has_value() && p.error().code == path::PathErrc::NoExit;
    problem.no_compatible_first_hop =
        p.error().code == path::PathErrc::NoCompatibleGuard || p.error().code == path::PathErrc::NoCompatibleBridge;
    problem.first_hop_unusable = p.error().code == path::PathErrc::FirstHopUnusable;
    for (const auto& line : p.error().bridge_reports) why += "\n  " + line;
    return std::nullopt;
  }
  PathChoice choice;
  for (const auto& h : p->hops) {
    PathHop hop;
    hop.target = to_target(h);
    hop.nickname = h.nickname;
    hop.exit_policy = h.exit_policy;
    choice.info.path.push_back(std::move(hop));
  }
  choice.first_hop_at = endpoints_of(p->first());
  return choice;
}

bool PathPlanner::exit_allows(const std::string& summary, std::uint16_t port) const {
  return path::exit_policy_allows(summary, port);
}

std::chrono::milliseconds PathPlanner::build_timeout() const {
  const auto& m = *impl_;
  return m.learn_cbt ? m.cbt.timeout() : m.fixed_timeout;
}

void PathPlanner::circuit_built(const Circuit& c, std::chrono::milliseconds took) {
  auto& m = *impl_;
  m.cbt.add_build_time(took);
  const auto& first = c.info().path.front().target.identity;
  if (m.use_bridges) {
    m.bridges.mark_succeeded(first, m.now());
  } else if (path::GuardSet* g = m.guards_of(c.info().guard_client)) {
    g->mark_succeeded(first, m.now());
    m.save_guards();
  }
}

void PathPlanner::circuit_failed(const Circuit& c, bool timed_out) {
  auto& m = *impl_;
  if (timed_out) m.cbt.add_timeout();
  const auto hop = c.unreachable_hop();
  if (!hop) return;
  // The consensus still lists it, but it is probably down: without this, a
  // path with few choices (our guard being one of two exits) would pick it
  // again and again until the next consensus.
  const auto& target = c.info().path[*hop];
  const crypto::Ed25519Public id = target.target.identity;
  if (m.avoid_until.size() >= kMaxAvoided && !m.avoid_until.contains(id)) return;
  m.avoid_until[id] = m.now() + kAvoidUnreachableSeconds;
  net::emit(m.log, net::LogLevel::Info,
            c.info().path[*hop - 1].nickname + " could not reach " + target.nickname + "; avoiding it for " +
                std::to_string(kAvoidUnreachableSeconds / 60) + " minutes where another relay fits");
}

void PathPlanner::first_hop_reachable(const LinkPool::Identity& id, bool reachable) {
  auto& m = *impl_;
  crypto::Ed25519Public ed{};
  std::copy(id.begin(), id.end(), ed.begin());
  if (reachable) return;  // success is counted when a circuit is built
  if (m.use_bridges) {
    m.bridges.mark_failed(ed, m.now());
  } else {
    m.guards.mark_failed(ed, m.now());
    if (m.clients) m.clients->mark_failed(ed, m.now());
    m.save_guards();
  }
}

std::vector<GuardReport> PathPlanner::guards() const {
  const auto& m = *impl_;
  std::vector<GuardReport> out;
  if (m.use_bridges) {
    // tor's guards with UseBridges 1 are its bridges (entrynodes.c's bridge
    // guard selection), in the same words.
    for (const auto& b : m.bridges.status(m.now())) {
      GuardReport r;
      r.name = path::controller_name(*b.info);
      r.status = !b.confirmed ? "never-connected" : !b.usable ? "unusable" : !b.reachable ? "down" : "up";
      r.reachable = b.reachable;
      out.push_back(std::move(r));
    }
    return out;
  }
  if (!m.have_consensus) return out;
  return m.reports_of(m.guards);
}

bool PathPlanner::admit_guard_client(std::string_view client) {
  auto& m = *impl_;
  if (!m.clients || client.empty() || m.use_bridges) return true;
  return m.clients->admit(client);
}

std::optional<std::vector<GuardReport>> PathPlanner::client_guards(std::string_view client) const {
  const auto& m = *impl_;
  if (!m.clients) return std::nullopt;
  const path::GuardSet* set = m.clients->find(client);
  if (set == nullptr) return std::nullopt;
  if (!m.have_consensus) return std::vector<GuardReport>{};
  return m.reports_of(*set);
}

}  // namespace conflux::client
