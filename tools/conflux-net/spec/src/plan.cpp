#include "conflux/netspec/plan.hpp"

#include <array>

namespace conflux::netspec {

namespace {
constexpr std::array<std::string_view, 7> kRoleNames = {"fileserver", "authority", "relay", "exit",
                                                        "bridge",     "proxy",     "router"};
}

std::string_view to_string(Role r) noexcept { return kRoleNames[static_cast<std::size_t>(r)]; }

std::optional<Role> role_from_string(std::string_view s) noexcept {
  for (std::size_t i = 0; i < kRoleNames.size(); ++i)
    if (kRoleNames[i] == s) return static_cast<Role>(i);
  return std::nullopt;
}

bool is_relay_role(Role r) noexcept {
  return r == Role::Authority || r == Role::Relay || r == Role::Exit || r == Role::Bridge;
}

std::vector<ProcessPlan> plan_processes(const NetSpec& spec) {
  std::vector<ProcessPlan> plan;
  plan.push_back({std::string(kFileServerName), Role::FileServer, true, {}, false, true, {}});
  for (unsigned i = 1; i <= spec.authorities; ++i)
    plan.push_back({"auth" + std::to_string(i), Role::Authority, true, {}, false, true, {}});
  for (unsigned i = 1; i <= spec.relays - spec.exits; ++i)
    plan.push_back({"relay" + std::to_string(i), Role::Relay, true, spec.relay_bandwidth_rate, false, true, {}});
  for (unsigned i = 1; i <= spec.exits; ++i)
    plan.push_back({"exit" + std::to_string(i), Role::Exit, true, spec.relay_bandwidth_rate, false, true, {}});
  for (const auto& b : spec.bridges)
    plan.push_back({b.name, Role::Bridge, true, b.bandwidth_rate, false, true, {}, b.transport});
  for (const auto& x : spec.proxies) {
    plan.push_back({x.name, Role::Proxy, x.start, {}, x.use_bridges, x.conflux, {}});
    plan.back().options = x.options;
  }
  for (auto& p : plan) p.stock_tor = runs_stock_tor(spec, p.name);
  if (!spec.emulation) return plan;
  if (spec.relay_bandwidth_rate == kLinkRate) {
    // Each relay's rate (and so its advertised bandwidth, its consensus
    // weight) is its own link's: clients then load relays by capacity.
    for (auto& p : plan) {
      if (p.role != Role::Authority && p.role != Role::Relay && p.role != Role::Exit) continue;
      const auto it = spec.emulation->hosts.find(p.name);
      p.bandwidth_rate = (it == spec.emulation->hosts.end() ? spec.emulation->defaults : it->second).rate;
    }
  }
  const auto subnet = parse_subnet24(spec.emulation->subnet).value_or(0);
  for (std::size_t i = 0; i < plan.size(); ++i) plan[i].address = ipv4_text(subnet | static_cast<std::uint32_t>(i + 1));
  ProcessPlan router{std::string(kRouterName), Role::Router, true, {}, false, true, {}};
  router.address.clear();
  plan.insert(plan.begin(), std::move(router));
  return plan;
}

namespace {
std::size_t ports_of(const ProcessPlan& p) {
  switch (p.role) {
    case Role::Bridge:
      return p.transport.empty() ? 2 : 3;
    case Role::Authority:
    case Role::Proxy:
      return 2;
    case Role::Relay:
    case Role::Exit:
      return p.stock_tor ? 2 : 1;
    case Role::FileServer:
      return 1;
    case Role::Router:
      return 0;
  }
  return 0;
}
}  // namespace

std::size_t ports_needed(const std::vector<ProcessPlan>& plan) {
  std::size_t n = 0;
  for (const auto& p : plan) n += ports_of(p);
  return n;
}

void assign_ports(std::vector<ProcessPlan>& plan, std::span<const std::uint16_t> ports) {
  std::size_t next = 0;
  auto take = [&] { return next < ports.size() ? ports[next++] : std::uint16_t{0}; };
  for (auto& p : plan) {
    p.ports = {};
    switch (p.role) {
      case Role::FileServer:
        p.ports.http_port = take();
        break;
      case Role::Authority:
      case Role::Bridge:
        p.ports.or_port = take();
        p.ports.dir_port = take();
        if (!p.transport.empty()) p.ports.pt_port = take();
        break;
      case Role::Relay:
      case Role::Exit:
        p.ports.or_port = take();
        if (p.stock_tor) p.ports.control_port = take();
        break;
      case Role::Proxy:
        p.ports.socks_port = take();
        // tor has no MetricsPort for clients: its ControlPort instead.
        (p.stock_tor ? p.ports.control_port : p.ports.metrics_port) = take();
        break;
      case Role::Router:
        break;
    }
  }
}

ProcessPaths paths_for(const std::filesystem::path& net_dir, std::string_view name) {
  const auto dir = net_dir / name;
  return {dir, dir / "torrc", dir / "data", dir / "notice.log", dir / "output.log"};
}

}  // namespace conflux::netspec
