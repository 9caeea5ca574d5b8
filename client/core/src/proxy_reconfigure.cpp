// SETCONF, RESETCONF and LOADCONF applied to the running proxy
// (docs/CONTROL.md): the options it can change at once, as tor's
// options_act does; any other change is refused before anything changes.
#include <algorithm>
#include <array>
#include <string_view>

#include "proxy_runtime_impl.hpp"

namespace conflux::client {
namespace {

// What the proxy can change while running.
constexpr std::array<std::string_view, 9> kRuntimeOptions = {
    "ConfluxEnabled", "ConfluxNumLegs", "ConfluxClientUX", "UseBridges",    "Bridge",
    "ClientTransportPlugin", "SocksPort", "SocksTimeout",    "DisableNetwork"};

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

control::ConfigOutcome ProxyRuntime::Impl::reconfigure(config::ProxyOptions next,
                                                       const std::vector<std::string>& changed) {
  for (const auto& name : changed)
    if (std::find(kRuntimeOptions.begin(), kRuntimeOptions.end(), name) == kRuntimeOptions.end())
      return {553, "Transition not allowed: While Tor is running, changing " + name + " is not allowed."};
  // tor: the listeners follow SocksPort, and DisableNetwork 1 closes them all.
  const bool listen = !next.disable_network && (has(changed, "SocksPort") || has(changed, "DisableNetwork"));
  if (listen && !reopen_socks(next.socks_ports))
    return {553, "Unable to set option: Failed to bind one of the listener ports."};
  if (!next.disable_network && has(changed, "DisableNetwork") && !reopen_metrics()) {
    close_socks();  // as they were under DisableNetwork 1: none
    return {553, "Unable to set option: Failed to bind one of the listener ports."};
  }
  // What the program resolved at start stays (the changes cannot touch it).
  next.data_directory = options.data_directory;
  next.control.version = options.control.version;
  next.control.config_file = options.control.config_file;
  next.control.defaults_file = options.control.defaults_file;
  const bool conflux_was = conflux_on();
  options = std::move(next);  // the planner and the transports read it in place
  socks->limits.socks_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options.socks_timeout);
  metrics.socks_timeout = options.socks_timeout;
  if (conflux_on() != conflux_was) switch_conflux(conflux_on());
  if (conflux && (has(changed, "ConfluxNumLegs") || has(changed, "ConfluxClientUX"))) {
    // New sets link with the new legs; those open now take no new stream.
    conflux->set_tunnel(ConfluxTunnelConfig::for_ux(link_ux(options.conflux_client_ux), options.conflux_num_legs));
    conflux->retire_all();
  }
  if (has(changed, "UseBridges") || has(changed, "Bridge") || has(changed, "ClientTransportPlugin")) switch_bridges();
  if (has(changed, "DisableNetwork")) switch_network(!options.disable_network);
  return {};
}

// The listeners become `ports`: a listener whose line is unchanged stays
// open (its port too, for "auto"), the new ones open first; one that cannot
// be bound closes those just opened and leaves the old ones as they were.
bool ProxyRuntime::Impl::reopen_socks(const std::vector<config::SocksPortConfig>& ports) {
  std::vector<const SocksListener*> keep;
  std::vector<config::SocksPortConfig> fresh;
  for (const auto& p : ports) {
    auto it = std::find_if(acceptors.begin(), acceptors.end(), [&](const SocksListener& l) {
      return l.config == p && std::find(keep.begin(), keep.end(), &l) == keep.end();
    });
    if (it != acceptors.end()) {
      keep.push_back(&*it);
    } else {
      fresh.push_back(p);
    }
  }
  const std::size_t before = acceptors.size();
  for (const auto& p : fresh) {
    if (open_socks(p, net::LogLevel::Warn)) continue;
    while (acceptors.size() > before) {
      boost::system::error_code ignored;
      acceptors.back().acceptor.close(ignored);
      acceptors.pop_back();
    }
    return false;
  }
  std::size_t i = 0;
  for (auto it = acceptors.begin(); it != acceptors.end() && i < before; ++i) {
    if (std::find(keep.begin(), keep.end(), &*it) != keep.end()) {
      ++it;
      continue;
    }
    boost::system::error_code ec;
    const auto at = it->acceptor.local_endpoint(ec);
    net::emit(log, net::LogLevel::Notice, "Closing no-longer-configured Socks listener on " + endpoint_text(at));
    it->acceptor.close(ec);
    it = acceptors.erase(it);
  }
  return true;
}

// DisableNetwork 0: the MetricsPort listeners open again (MetricsPort
// itself cannot change while running); false, none left open, when one
// cannot be bound.
bool ProxyRuntime::Impl::reopen_metrics() {
  if (!metrics_servers.empty()) return true;
  if (open_metrics(net::LogLevel::Warn)) return true;
  close_metrics();
  return false;
}

// New streams go to Conflux sets or to single circuits; the carriers that
// have streams keep them.
void ProxyRuntime::Impl::switch_conflux(bool on) {
  if (on) {
    if (!conflux) {
      conflux = make_conflux();
      conflux->set_cc_params(pool.cc_params());
      metrics.set_conflux(conflux.get());
      if (control) control->set_conflux(conflux.get());
    }
    conflux->set_prebuilt(ConfluxPool::Options{}.prebuilt);
    pool.set_preemptive(0);
    socks->pool = conflux.get();
    net::emit(log, net::LogLevel::Notice,
              "ConfluxEnabled 1: new streams use Conflux sets of " + std::to_string(options.conflux_num_legs) + " legs.");
    return;
  }
  socks->pool = &pool;
  conflux->set_prebuilt(0);
  conflux->retire_all();
  pool.set_preemptive(CircuitPool::Options{}.preemptive);
  net::emit(log, net::LogLevel::Notice, "ConfluxEnabled 0: new streams use single circuits.");
}

// tor's answer to new bridges or guards: every circuit takes no new streams
// (those without streams close), first hops come from the new list.
void ProxyRuntime::Impl::switch_bridges() {
  net::emit(log, net::LogLevel::Notice,
            "Changed to using entry guards or bridges, or changed preferred or excluded node lists. "
            "Abandoning previous circuits.");
  if (bridges) bridges->stop();
  old_bridges = std::move(bridges);
  bridges_started = false;
  planner.set_use_bridges(options.use_bridges);
  planner.set_bridges({});
  pool.retire_all();
  if (options.disable_network || !network_started) {
    // Held back (DisableNetwork 1): the new lines are used when it is 0.
    transports.stop();
    if (conflux) conflux->retire_all();
    return;
  }
  transports.restart();
  start_bridges();
  if (conflux) conflux->retire_all();
  check_ready();
}

// tor's DisableNetwork. 1: the directory, the bridges' fetches and the
// transports stop, every circuit and set takes no new stream, every channel,
// SOCKS and MetricsPort listener closes, and every stream not yet answered
// gets a SOCKS failure (tor's connection_mark_all_noncontrol_connections). 0: the listeners
// were opened by reconfigure (a port that cannot be bound refuses the
// change); the bootstrap starts (again), with the bridges and transports
// configured now.
void ProxyRuntime::Impl::switch_network(bool on) {
  if (on) {
    net::emit(log, net::LogLevel::Notice, "DisableNetwork 0: connecting to the network.");
    if (network_started) transports.restart();
    if (bridges) bridges->stop();  // a SETCONF of the bridges in the same command started them
    old_bridges = std::move(bridges);
    bridges_started = false;
    start_directory();
    return;
  }
  net::emit(log, net::LogLevel::Notice, std::string(kNetworkDisabled));
  if (directory) directory->stop();
  if (bridges) bridges->stop();
  old_bridges = std::move(bridges);
  bridges_started = false;
  transports.stop();
  pool.retire_all();
  if (conflux) conflux->retire_all();
  // tor closes every stream not yet answered (a SOCKS failure) with the
  // channels; those waiting for a carrier are woken to get that answer.
  if (conflux) conflux->refuse_waiting();
  pool.refuse_waiting();
  links.close_all();
  close_socks();
  close_metrics();
}

}  // namespace conflux::client
