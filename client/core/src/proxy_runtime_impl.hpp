#pragma once
// ProxyRuntime's state (proxy_runtime.cpp runs it, proxy_reconfigure.cpp
// applies SETCONF to it). Private to client/core.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <list>

#include "conflux/client/bridge_directory.hpp"
#include "conflux/client/circuit_pool.hpp"
#include "conflux/client/proxy_runtime.hpp"
#include "conflux/client/conflux_pool.hpp"
#include "conflux/client/directory_client.hpp"
#include "conflux/client/link_pool.hpp"
#include "conflux/client/path_planner.hpp"
#include "conflux/client/proxy_control.hpp"
#include "conflux/client/proxy_metrics.hpp"
#include "conflux/client/proxy_transports.hpp"
#include "conflux/client/socks_session.hpp"
#include "conflux/metrics/metrics_server.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/tls.hpp"

namespace conflux::client {

inline net::tcp::endpoint to_endpoint(const config::IpAddress& ip, std::uint16_t port) {
  if (ip.is_v4()) {
    net::asio::ip::address_v4::bytes_type b{};
    std::copy_n(ip.bytes.begin(), 4, b.begin());
    return {net::asio::ip::address_v4(b), port};
  }
  net::asio::ip::address_v6::bytes_type b{};
  std::copy_n(ip.bytes.begin(), 16, b.begin());
  return {net::asio::ip::address_v6(b), port};
}

inline std::string endpoint_text(const net::tcp::endpoint& e) {
  return e.address().to_string() + ":" + std::to_string(e.port());
}

inline cell::ConfluxUx link_ux(config::ConfluxUx ux) {
  switch (ux) {
    case config::ConfluxUx::Throughput: return cell::ConfluxUx::HighThroughput;
    case config::ConfluxUx::Latency: return cell::ConfluxUx::MinLatency;
    case config::ConfluxUx::ThroughputLowMem: return cell::ConfluxUx::LowMemThroughput;
    case config::ConfluxUx::LatencyLowMem: return cell::ConfluxUx::LowMemLatency;
  }
  return cell::ConfluxUx::HighThroughput;
}

struct ProxyRuntime::Impl {
  net::asio::io_context& io;
  const net::Clock& clock;
  config::ProxyOptions options;
  net::LogSink log;
  std::shared_ptr<int> life = std::make_shared<int>(0);
  // The ControlPort, with ControlPort lines. Before the pools: their hooks
  // report to it until they are gone (it reads them only when asked).
  std::unique_ptr<ProxyControl> control;

  net::asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler;
  ProxyCounters counters;
  PathPlanner planner;
  // ClientTransportPlugin processes; before the links, whose routes they give.
  ProxyTransports transports;
  LinkPool links;
  CircuitPool pool;
  // ConfluxEnabled 1: streams ride Conflux sets whose legs the circuit pool
  // launches (declared after it and the links: it goes first).
  std::unique_ptr<ConfluxPool> conflux;
  std::unique_ptr<DirectoryClient> directory;
  std::unique_ptr<DirectoryClient> old_directory;  // stopped by the last DisableNetwork 1
  std::unique_ptr<BridgeDirectory> bridges;
  std::unique_ptr<BridgeDirectory> old_bridges;  // stopped by the last SETCONF of the bridges
  ProxyMetrics metrics;
  std::vector<std::shared_ptr<metrics::MetricsServer>> metrics_servers;  // one per MetricsPort line
  struct SocksListener {
    config::SocksPortConfig config;
    net::tcp::acceptor acceptor;
  };
  std::list<SocksListener> acceptors;
  // The ports "auto" listeners had when DisableNetwork 1 closed them: opened
  // again on the same port when it is free, so a browser set to it still works.
  std::vector<std::pair<config::SocksPortConfig, std::uint16_t>> held_auto_ports;
  std::size_t next_listener = 0;  // each listener's isolation index
  std::optional<SocksContext> socks;
  net::asio::steady_timer tick_timer;
  int bootstrap = -1;
  bool stopped = false;
  bool bridges_started = false;
  bool network_started = false;  // the directory was started once (DisableNetwork 0)
  static constexpr std::string_view kNetworkDisabled =
      "DisableNetwork is set. Tor will not make or accept non-control network connections. "
      "Shutting down all existing connections.";
  std::string last_not_ready;

  Impl(net::asio::io_context& io_, const net::Clock& clock_, config::ProxyOptions options_, net::LogSink log_)
      : io(io_), clock(clock_), options(std::move(options_)), log(std::move(log_)), scheduler(io, clock, nullptr),
        planner(options, clock, log),
        transports(io, options, log),
        links(io, tls, scheduler, clock, net::ClientLink::Options{}, link_hooks(), log),
        pool(links, clock, pool_options(), pool_hooks(), log),
        conflux(make_conflux()),
        metrics(counters, pool, links, conflux.get()),
        tick_timer(io) {}

  [[nodiscard]] bool conflux_on() const { return options.conflux_enabled == config::AutoBool::True; }

  std::unique_ptr<ConfluxPool> make_conflux() {
    if (!conflux_on()) return nullptr;
    ConfluxPool::Options o;
    o.max_dirtiness = options.max_circuit_dirtiness;
    o.new_circuit_period = options.new_circuit_period;
    o.tunnel = ConfluxTunnelConfig::for_ux(link_ux(options.conflux_client_ux), options.conflux_num_legs);
    // PerClientGuards: a set is one client's, so each client may hold one.
    if (options.per_client_guards) o.max_sets += options.per_client_guards_max;
    ConfluxPool::Hooks h;
    h.launch_leg = [this](const PathRequest& r, LegOwner& owner, PathProblem* problem) -> LegCircuit* {
      return pool.launch_leg(r, owner, problem);
    };
    h.exit_allows = [this](const std::string& s, std::uint16_t port) { return planner.exit_allows(s, port); };
    h.fallback = &pool;
    return std::make_unique<ConfluxPool>(clock, std::move(o), std::move(h), log);
  }

  LinkPool::Hooks link_hooks() {
    LinkPool::Hooks h;
    h.link_open = [this](const LinkPool::Peer& p) {
      if (p.ed25519) planner.first_hop_reachable(*p.ed25519, true);
    };
    h.link_closed = [this](const LinkPool::Peer& p, bool was_open, bool transport_down, std::string_view why) {
      // A transport that just died (its supervisor relaunches it) does not
      // make its bridges unreachable for the retry schedule's 10 minutes.
      if (was_open) return;
      net::emit(log, net::LogLevel::Info, "Could not open a channel to a first hop: " + std::string(why));
      if (!transport_down && p.ed25519) planner.first_hop_reachable(*p.ed25519, false);
    };
    h.route = [this](const LinkPool::Peer& p) { return transports.route(p); };
    h.report = [this](const LinkPool::LinkReport& r) {
      if (control) control->orconn(r);
    };
    return h;
  }

  CircuitPool::Options pool_options() const {
    CircuitPool::Options o;
    o.max_dirtiness = options.max_circuit_dirtiness;
    o.new_circuit_period = options.new_circuit_period;
    o.max_pending = options.max_client_circuits_pending;
    // With Conflux every stream rides a set: single circuits are not prebuilt.
    if (options.conflux_enabled == config::AutoBool::True) o.preemptive = 0;
    return o;
  }

  CircuitPool::Hooks pool_hooks() {
    CircuitPool::Hooks h;
    h.choose_path = [this](const PathRequest& r, PathProblem& p) -> std::optional<PathChoice> {
      if (options.disable_network) {  // no circuit at all, a stream's or a leg's
        p.why = "DisableNetwork is set";
        return std::nullopt;
      }
      return planner.choose(r, p);
    };
    h.exit_allows = [this](const std::string& s, std::uint16_t port) { return planner.exit_allows(s, port); };
    h.build_timeout = [this] { return planner.build_timeout(); };
    // A build that ends frees a MaxClientCircuitsPending slot: streams
    // waiting for a set may launch one now rather than at their next retry.
    h.built = [this](const Circuit& c, std::chrono::milliseconds took) {
      planner.circuit_built(c, took);
      metrics.observe_build(took);
      if (conflux) conflux->pending_slot_freed();
    };
    h.build_failed = [this](const Circuit& c, bool timed_out, std::string_view) {
      planner.circuit_failed(c, timed_out);
      if (conflux) conflux->pending_slot_freed();
    };
    h.event = [this](const Circuit& c, std::string_view status, std::string_view why) {
      if (control) control->circuit(c, status, why);
    };
    return h;
  }

  void set_bootstrap(int percent, std::string_view tag, std::string_view summary) {
    if (percent <= bootstrap) return;
    bootstrap = percent;
    metrics.bootstrap_percent = percent;
    if (control) control->bootstrap(percent, tag, summary);
    net::emit(log, net::LogLevel::Notice,
              "Bootstrapped " + std::to_string(percent) + "% (" + std::string(tag) + "): " + std::string(summary));
  }

  // SIGNAL DUMP and HEARTBEAT, SIGUSR1, the 10-minute heartbeat.
  void heartbeat() const {
    const auto& c = counters;
    net::emit(log, net::LogLevel::Notice,
              "Heartbeat: bootstrapped " + std::to_string(bootstrap) + "%, " + std::to_string(links.links_open()) +
                  " channels, " + std::to_string(pool.open_count()) + " circuits open (" +
                  std::to_string(pool.building_count()) + " building), " +
                  (conflux ? std::to_string(conflux->open_count()) + " Conflux sets open (" +
                                 std::to_string(conflux->linking_count()) + " linking), "
                           : std::string()) +
                  std::to_string(c.streams_active) + " streams active; " + std::to_string(c.streams_opened) +
                  " streams opened, " + std::to_string(c.streams_failed) + " failed; " +
                  std::to_string(c.bytes_to_network) + " bytes sent, " + std::to_string(c.bytes_from_network) +
                  " bytes received.");
  }

  bool start_control() {
    if (!options.control.enabled()) return true;
    ProxyControl::Sources s{options, pool, conflux.get(), counters, {}, {}, {}, {}, {}, {}, {}, {}, {}};
    s.socks_listeners = [this] {
      std::string out;
      for (const auto& a : acceptors) {
        boost::system::error_code ec;
        const auto at = a.acceptor.local_endpoint(ec);
        if (!ec) out += (out.empty() ? "\"" : " \"") + endpoint_text(at) + "\"";
      }
      return out;
    };
    s.newnym = [this] {
      pool.retire_all();
      if (conflux) conflux->retire_all();
    };
    s.heartbeat = [this] { heartbeat(); };
    s.test_bridges = [this](std::function<void(std::string)> report) { return test_bridges(std::move(report)); };
    s.guards = [this] { return planner.guards(); };
    s.client_guards = [this](std::string_view client) { return planner.client_guards(client); };
    s.microdesc = [this](const std::array<std::uint8_t, 32>& digest) -> std::optional<std::string> {
      return directory ? directory->microdesc_text(digest) : std::nullopt;
    };
    // As SIGTERM: main's handler logs, stops the runtime and the loop.
    s.shutdown = [] { std::raise(SIGTERM); };
    s.reconfigure = [this](config::ProxyOptions next, const std::vector<std::string>& changed) {
      return reconfigure(std::move(next), changed);
    };
    control = std::make_unique<ProxyControl>(io, std::move(s), options.control.version, log);
    return control->start();
  }

  // One SOCKS listener more, accepting at once; false (logged at `level`)
  // when it cannot be bound.
  bool open_socks(const config::SocksPortConfig& sp, net::LogLevel level) {
    net::tcp::acceptor a(io);
    auto at = to_endpoint(sp.address, sp.is_auto ? held_auto_port(sp) : sp.port);
    auto ec = bind_socks(a, at);
    if (ec && sp.is_auto && at.port() != 0) {  // the old port is taken: any other will do
      at.port(0);
      ec = bind_socks(a, at);
    }
    if (ec) {
      net::emit(log, level, "Could not bind SocksPort " + endpoint_text(at) + ": " + ec.message());
      return false;
    }
    net::emit(log, net::LogLevel::Notice, "Opened Socks listener on " + endpoint_text(a.local_endpoint()));
    SocksIsolation iso{next_listener++, sp.isolate_socks_auth, sp.isolate_dest_port, sp.isolate_dest_addr};
    acceptors.push_back(SocksListener{sp, std::move(a)});
    net::asio::co_spawn(io, accept_loop(acceptors.back().acceptor, iso), net::asio::detached);
    return true;
  }

  boost::system::error_code bind_socks(net::tcp::acceptor& a, const net::tcp::endpoint& at) {
    boost::system::error_code ec;
    if (a.is_open()) a.close(ec);
    a.open(at.protocol(), ec);
    if (!ec) a.set_option(net::tcp::acceptor::reuse_address(true), ec);
    if (!ec) a.bind(at, ec);
    if (!ec) a.listen(net::asio::socket_base::max_listen_connections, ec);
    return ec;
  }

  // The port an "auto" listener of this line had before DisableNetwork 1
  // closed it (taken from the list), or 0.
  std::uint16_t held_auto_port(const config::SocksPortConfig& sp) {
    const auto it = std::find_if(held_auto_ports.begin(), held_auto_ports.end(),
                                 [&](const auto& held) { return held.first == sp; });
    if (it == held_auto_ports.end()) return 0;
    const auto port = it->second;
    held_auto_ports.erase(it);
    return port;
  }

  // tor's DisableNetwork 1: no listener but the ControlPort.
  void close_socks() {
    held_auto_ports.clear();
    for (auto& l : acceptors) {
      boost::system::error_code ec;
      const auto at = l.acceptor.local_endpoint(ec);
      if (!ec && l.config.is_auto) held_auto_ports.emplace_back(l.config, at.port());
      net::emit(log, net::LogLevel::Notice, "Closing no-longer-configured Socks listener on " + endpoint_text(at));
      l.acceptor.close(ec);
    }
    acceptors.clear();
  }

  // The MetricsPort closes too under DisableNetwork 1, as tor's
  // retry_all_listeners closes every listener but the control ones (a
  // scrape already accepted finishes).
  void close_metrics() {
    for (auto& m : metrics_servers) {
      net::emit(log, net::LogLevel::Notice, "Closing no-longer-configured Metrics listener on " +
                                                endpoint_text(m->local_endpoint()));
      m->stop();
    }
    metrics_servers.clear();
  }

  // False (logged at `level`) when one cannot be bound; those opened stay.
  bool open_metrics(net::LogLevel level) {
    for (const auto& mp : options.metrics_ports) {
      if (!mp.enabled()) continue;
      const auto at = to_endpoint(mp.address.value_or(config::IpAddress::v4(127, 0, 0, 1)), mp.port);
      auto server = metrics::MetricsServer::create(io.get_executor(), at, [this] { return metrics.render(); });
      if (!server) {
        net::emit(log, level, "Could not bind MetricsPort " + endpoint_text(at) + ": " + server.error().message());
        return false;
      }
      metrics_servers.push_back(*server);
      metrics_servers.back()->start();
      net::emit(log, net::LogLevel::Notice,
                "Opened Metrics listener on " + endpoint_text(metrics_servers.back()->local_endpoint()));
    }
    return true;
  }

  bool open_listeners() {
    // With DisableNetwork 1 the SOCKS and Metrics listeners open when it
    // becomes 0 (tor).
    if (options.disable_network) return true;
    for (const auto& sp : options.socks_ports)
      if (!open_socks(sp, net::LogLevel::Err)) return false;
    return open_metrics(net::LogLevel::Err);
  }

  net::awaitable<void> accept_loop(net::tcp::acceptor& acceptor, SocksIsolation iso) {
    std::weak_ptr<int> alive = life;
    net::asio::steady_timer backoff(io);
    std::uint64_t failures = 0;  // in a row; logged when they start and end
    for (;;) {
      auto [ec, sock] = co_await acceptor.async_accept(net::use_nothrow);
      if (alive.expired() || stopped) co_return;
      if (!ec && failures > 0) {
        net::emit(log, net::LogLevel::Notice,
                  "SOCKS accept works again, after " + std::to_string(failures) + " failed attempts");
        failures = 0;
      }
      if (ec) {
        if (ec == net::asio::error::operation_aborted) co_return;
        // EMFILE and friends: the connection stays in the backlog, so trying
        // again at once would spin. Pause, keep serving the others.
        if (failures++ == 0)
          net::emit(log, net::LogLevel::Warn, "SOCKS accept failed: " + ec.message() + "; retrying every 100 ms");
        backoff.expires_after(std::chrono::milliseconds(100));
        (void)co_await backoff.async_wait(net::use_nothrow);
        if (alive.expired() || stopped) co_return;
        continue;
      }
      net::asio::co_spawn(io, run_socks_session(std::move(sock), *socks, iso), net::asio::detached);
    }
  }

  void start_directory() {
    network_started = true;
    if (directory) old_directory = std::move(directory);
    DirectoryClient::Options d;
    d.data_directory = options.data_directory;
    d.links = &links;
    for (const auto& a : options.dir_authorities) {
      d.authorities_at.push_back(to_endpoint(a.dir.addr, a.dir.port));
      d.tor_authorities.push_back(a.v3ident);
      if (a.or_port) d.begin_dir_relays.push_back({a.rsa_identity, to_endpoint(a.dir.addr, *a.or_port), a.nickname});
    }
    // A fallback with a DirPort is asked like an authority (what it serves
    // must still carry the authorities' signatures); tor 0.4.9's built-in
    // ones have none and are reached over BEGIN_DIR only.
    for (const auto& f : options.fallback_dirs) {
      const auto at = to_endpoint(f.address, f.or_port);
      d.begin_dir_relays.push_back({f.rsa_identity, at, "fallback " + endpoint_text(at)});
      if (f.dir_port) d.authorities_at.push_back(to_endpoint(f.address, *f.dir_port));
    }
    if (options.default_directories)
      net::emit(log, net::LogLevel::Notice,
                "No DirAuthority lines: using the public Tor network's " + std::to_string(options.dir_authorities.size()) +
                    " directory authorities and " + std::to_string(options.fallback_dirs.size()) +
                    " fallback directories.");
    // tor's defaults with the overrides until a consensus says otherwise.
    apply_cc_params(options.override_consensus_params);
    directory = std::make_unique<DirectoryClient>(io, clock, std::move(d), log);
    directory->on_consensus = [this](const dir::Consensus& c, std::string_view source) {
      if (source.starts_with("BEGIN_DIR")) ++counters.consensus_begin_dir;
      if (source.starts_with("DirPort")) ++counters.consensus_dir_port;
      planner.set_consensus(c);
      if (control) control->consensus(c.body);
      apply_cc_params(config::merge_consensus_params(c.body.params, options.override_consensus_params));
      set_bootstrap(50, "loading_descriptors", "Loaded the consensus: " + std::to_string(c.body.routers.size()) + " relays");
      check_ready();
    };
    set_bootstrap(10, "requesting_status", "Asking for the networkstatus consensus");
    directory->start();

    start_bridges();
  }

  // The Bridge lines' directory (UseBridges 1), started once the transports
  // are ready; at start and after SETCONF changed the bridges.
  void start_bridges() {
    if (options.use_bridges) {
      std::vector<BridgeTarget> targets;
      for (const auto& b : options.bridges) {
        BridgeTarget t;
        t.at = to_endpoint(b.address.addr, b.address.port);
        t.rsa = b.rsa_fingerprint;
        targets.push_back(t);
      }
      bridges = std::make_unique<BridgeDirectory>(io, links, clock, std::move(targets), BridgeDirectory::Options{}, log);
      bridges->on_change = [this] {
        planner.set_bridges(bridges->bridges());
        check_ready();
      };
      start_bridges_when_transports_ready();
    }
  }

  // As tor, bridges behind a pluggable transport are not asked for their
  // descriptors before the transport said where it listens; a transport that
  // dies later only makes new links wait (LinkPool::launch refuses them).
  void start_bridges_when_transports_ready() {
    transports.on_change = [this] {
      if (stopped || !bridges) return;
      if (transports.ready() && !bridges_started) {
        bridges_started = true;
        bridges->start();
      }
    };
    transports.start();
    if (transports.needed())
      net::emit(log, net::LogLevel::Notice, "Delaying directory fetches: Pluggable transport proxies still configuring");
    transports.on_change();
  }

  // The consensus's cc_* (prop 324) for the circuits built from now on; a
  // value tor would clamp is used clamped and logged once per consensus.
  void apply_cc_params(const std::map<std::string, std::int32_t>& params) {
    auto built = proto::cc_params_from(params);
    for (const auto& a : built.adjusted)
      net::emit(log, net::LogLevel::Notice, "Consensus parameter " + a.name + "=" + std::to_string(a.given) +
                                                " is out of range; using " + std::to_string(a.used));
    pool.set_cc_params(built.params);
    if (conflux) conflux->set_cc_params(built.params);
  }

  // SETCONF (proxy_reconfigure.cpp): what changed is applied, or nothing.
  control::ConfigOutcome reconfigure(config::ProxyOptions next, const std::vector<std::string>& changed);
  bool reopen_socks(const std::vector<config::SocksPortConfig>& ports);
  bool reopen_metrics();
  void switch_conflux(bool on);
  void switch_bridges();
  void switch_network(bool on);
  std::string test_bridges(std::function<void(std::string)> report);

  void check_ready() {
    if (planner.ready()) {
      set_bootstrap(75, "enough_dirinfo", "Loaded enough directory info to build circuits");
      return;
    }
    // Bridges still on their first fetch are not a failure yet.
    if (bridges && std::any_of(bridges->bridges().begin(), bridges->bridges().end(),
                               [](const BridgeStatus& b) { return b.attempts == 0; }))
      return;
    auto why = planner.not_ready_reason();
    if (why != last_not_ready && bootstrap >= 50) {
      net::emit(log, net::LogLevel::Warn, "Cannot build circuits yet: " + why);
      last_not_ready = why;
    }
  }

  void tick() {
    if (stopped) return;
    if (options.disable_network) {
      // tor's DisableNetwork: nothing is built until it is 0 again.
    } else if (planner.ready()) {
      pool.tick();
      if (conflux) conflux->tick();
      if (bootstrap >= 75 && bootstrap < 90 && pool.building_count() > 0)
        set_bootstrap(90, "circuit_create", "Establishing a Tor circuit");
      // With Conflux, done means a set can take streams.
      // (A set pool kept after SETCONF ConfluxEnabled=0 no longer counts.)
      if ((conflux_on() ? conflux->open_count() : pool.open_count()) > 0) set_bootstrap(100, "done", "Done");
    } else {
      check_ready();
    }
    if (control) control->tick();
    tick_timer.expires_after(std::chrono::seconds(1));
    tick_timer.async_wait([this, alive = std::weak_ptr<int>(life)](const boost::system::error_code& ec) {
      if (!ec && !alive.expired()) tick();
    });
  }
};

}  // namespace conflux::client
