#include "relay_process.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "conflux/bytes/hex.hpp"
#include "conflux/config/consensus_params.hpp"
#include "conflux/control/control_args.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/keys/fingerprint.hpp"
#include "conflux/proto/cc_params.hpp"
#include "relay_cc_metrics.hpp"
#include "relay_dos.hpp"
#include "relay_metrics.hpp"
#include "relay_tor_descriptor.hpp"

namespace conflux::relay {
namespace {

constexpr auto kHeartbeat = std::chrono::seconds(60);
// The join's deadlines, and sets whose scheduler held DATA back for a moment
// (ECF waiting on a fixed-window leg): once a second would stall such a set
// for up to a second each time.
constexpr auto kConfluxTick = std::chrono::milliseconds(100);


// Schedulers, KISTSchedRunInterval (0 = tor's default today, 2 ms) and
// KISTSchedHoldMinCells;
// KISTLimit and KISTGlobalLimit, the 2014 paper's forms (ours).
net::SchedulerConfig scheduler_config(const config::RelayOptions& o) {
  net::SchedulerConfig c;
  c.preference.clear();
  for (config::SchedulerKind k : o.schedulers) {
    switch (k) {
      case config::SchedulerKind::Kist:
        c.preference.push_back(net::SchedulerPolicy::Kist);
        break;
      case config::SchedulerKind::KistLite:
        c.preference.push_back(net::SchedulerPolicy::KistLite);
        break;
      case config::SchedulerKind::Vanilla:
        c.preference.push_back(net::SchedulerPolicy::Vanilla);
        break;
    }
  }
  if (o.kist_sched_run_interval.count() > 0) c.run_interval = o.kist_sched_run_interval;
  c.hold_min_cells = o.kist_sched_hold_min_cells;
  c.limit_form = o.kist_limit == config::KistLimitKind::Original ? net::KistLimitForm::Original
                                                                  : net::KistLimitForm::Deployed;
  c.global_limit = o.kist_global_limit;
  c.trace_path = o.scheduler_trace_file;
  return c;
}

// Congestion control for the circuits this relay is the edge of, shared by
// the circuit switch (Vegas, SENDME cadence) and the exit (XON/XOFF): until
// a consensus is fetched, tor's defaults (cc_alg 2, cc_sendme_inc 31, ...)
// with OverrideConsensusParams on top; then the consensus's cc_* with the
// same overrides (RelayProcess::apply_consensus).
// `log`: say which values were clamped (once per start or consensus).
proto::CcParams relay_cc_params(const std::map<std::string, std::int32_t>& params, bool log = false) {
  auto built = proto::cc_params_from(params);
  for (const auto& a : log ? built.adjusted : std::vector<proto::CcParamAdjustment>{})
    log::write(log::Severity::Notice, "Consensus parameter " + a.name + "=" + std::to_string(a.given) +
                                          " is out of range; using " + std::to_string(a.used));
  return built.params;
}

proto::CcParams relay_cc_params(const config::RelayOptions& o, bool log = false) {
  return relay_cc_params(o.override_consensus_params, log);
}

// The cc_* entries of a parameter map, to tell when they change.
std::map<std::string, std::int32_t> cc_entries(const std::map<std::string, std::int32_t>& params) {
  std::map<std::string, std::int32_t> out;
  for (const auto& [k, v] : params)
    if (k.rfind("cc_", 0) == 0) out.emplace(k, v);
  return out;
}

net::ChannelManagerConfig manager_config(const config::RelayOptions& o, proto::ClockHealth& clock_health) {
  net::ChannelManagerConfig c;
  c.clock_health = &clock_health;
  c.max_channels = o.max_channels;
  c.max_circuits_per_channel = o.max_circuits_per_channel;
  c.bandwidth_rate = o.bandwidth_rate;
  c.bandwidth_burst = o.bandwidth_burst;
  // CircuitPriorityHalflife: EWMA on every channel's mux; <= 0 is round robin.
  c.channel_limits.priority = proto::CircuitPriority{o.circuit_priority_halflife};
  c.channel_limits.cell_sample_every = o.scheduler_sample_cells;
  c.scheduler = scheduler_config(o);
  c.congestion_control = relay_cc_params(o, true);
  c.max_mem_in_queues = relay_max_mem_in_queues(o, true);
  c.dos = relay_dos_params(o, {});
  for (const auto& a : o.addresses) {
    if (a.is_v4()) {
      c.advertised_addresses.emplace_back(cell::NetinfoIpv4{{a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]}});
    } else {
      c.advertised_addresses.emplace_back(cell::NetinfoIpv6{a.bytes});
    }
  }
  return c;
}

exit::ConfluxJoinConfig conflux_join_config() {
  exit::ConfluxJoinConfig c;
  c.log = log::sink("conflux");
  return c;
}

}  // namespace

exit::DnsSettings relay_dns_settings(const StartupConfig& s) {
  exit::DnsSettings d;
  d.allow_non_rfc953 = s.options.server_dns_allow_non_rfc953;
  for (const auto& ns : s.nameservers) {
    exit::DnsServer server;
    if (ns.addr.is_v4()) {
      server.addr = cell::Ipv4Bytes{ns.addr.bytes[0], ns.addr.bytes[1], ns.addr.bytes[2], ns.addr.bytes[3]};
    } else {
      server.addr = ns.addr.bytes;
    }
    server.port = ns.port;
    d.servers.push_back(server);
  }
  return d;
}

namespace {

exit::ExitConfig exit_config(const StartupConfig& s, const net::Clock& clock, const proto::ClockHealth& health) {
  exit::ExitConfig c;
  c.clock_health = &health;
  c.congestion_control = relay_cc_params(s.options);
  c.now = [&clock] { return clock.now(); };
  c.mode = s.options.is_exit() ? exit::ExitMode::Exit : exit::ExitMode::NotExit;
  c.policy = s.exit_policy;
  c.ipv6_exit = s.options.ipv6_exit;
  c.dns = relay_dns_settings(s);
  c.log = log::sink("exit");
  return c;
}

// TestingDirAuthVote*, from the configuration's routersets (an RsaId is an
// RsaFingerprint's bytes); authority_params drops them outside a test network.
dir::RelaySet relay_set(const config::RouterSet& s) {
  dir::RelaySet out;
  out.fingerprints.assign(s.fingerprints.begin(), s.fingerprints.end());
  out.nicknames = s.nicknames;
  return out;
}

dir::TestingVotes testing_votes(const config::RelayOptions& o) {
  return {{relay_set(o.testing_vote_guard), o.testing_vote_guard_strict},
          {relay_set(o.testing_vote_exit), o.testing_vote_exit_strict}};
}

// Where BEGIN_DIR streams connect: the DirPort as this host reaches it
// (loopback for a wildcard listener).
exit::DirPortTarget begin_dir_target(const net::tcp::endpoint& listener) {
  exit::DirPortTarget t;
  t.port = listener.port();
  const auto a = listener.address();
  if (a.is_v4()) {
    t.addr = a.is_unspecified() ? net::asio::ip::address_v4::loopback().to_bytes() : a.to_v4().to_bytes();
  } else {
    t.addr = a.is_unspecified() ? net::asio::ip::address_v6::loopback().to_bytes() : a.to_v6().to_bytes();
  }
  return t;
}

}  // namespace

RelayProcess::RelayProcess(net::asio::io_context& io, const net::Clock& clock, StartupConfig config,
                           keys::RelayKeys keys)
    : io_(io),
      clock_(clock),
      config_(std::move(config)),
      keys_(std::move(keys)),
      tap_onion_key_(crypto::RsaPrivateKey::generate(1024)),
      started_(clock.unix_seconds()),
      manager_(io, clock, keys_, nullptr, manager_config(config_.options, proto::process_clock_health()), log::sink("channel")),
      join_(manager_, [&clock] { return clock.now(); }, conflux_join_config()),
      exit_(io, join_, exit_config(config_, clock, proto::process_clock_health())),
      heartbeat_(io),
      conflux_tick_(io),
      reachability_timer_(io) {
  join_.set_inner(&exit_);
  manager_.set_exit_handler(&join_);
  metrics_.add_collector([this](metrics::Snapshot& out) {
    const net::RuntimeCounters counters = manager_.counters();
    const exit::ExitStats exit_stats = exit_.stats();
    collect_relay_metrics(out, counters, exit_stats, join_.stats());
    collect_cc_metrics(out, manager_, counters, exit_stats);
    collect_scheduler_metrics(out, manager_.scheduler());
    collect_dos_metrics(out, counters);
    if (consensus_) {
      out.counter("conflux_relay_consensus_fetches_total",
                  "Consensus fetches from the authorities (for its parameters), by outcome.", consensus_->fetched(),
                  {{"outcome", "ok"}});
      out.counter("conflux_relay_consensus_fetches_total", "", consensus_->failed(), {{"outcome", "failed"}});
    }
  });
}

RelayProcess::~RelayProcess() {
  stop();
  manager_.set_exit_handler(nullptr);
  join_.set_inner(nullptr);
}

bool RelayProcess::start() {
  if (!start_or_ports() || !start_directory() || !start_metrics() || !start_control()) return false;
  start_reachability();
  manager_.set_observer({[this](const net::ChannelReport& r) {
                           if (control_) control_->orconn(r);
                         },
                         [this](const net::ChannelReport& r) { reachability_create(r); }});
  start_transports();
  log::write(log::Severity::Notice, std::string("Relay ") + config_.options.nickname + " is up as " +
                                        (config_.options.is_exit() ? "an exit" : "a non-exit relay") +
                                        (config_.options.bridge_relay ? " (bridge)" : "") +
                                        (config_.options.authoritative_directory ? " and directory authority" : "") +
                                        "; identity " + keys::identity_base64(keys_.identity()));
  if (control_) control_->up();
  const bool kist = manager_.scheduler().policy() == net::SchedulerPolicy::Kist;
  const std::string kist_limits =
      !kist ? ""
            : std::string(" (") +
                  (config_.options.kist_limit == config::KistLimitKind::Original ? "original" : "deployed") +
                  " limit" + (config_.options.kist_global_limit ? ", global limit" : "") + ")";
  log::write(log::Severity::Notice, std::string("Scheduler: ") + net::scheduler_policy_name(manager_.scheduler().policy()) +
                                        kist_limits + "; circuit priority: " +
                                        circuit_priority_text(config_.options.circuit_priority_halflife));
  log::write(log::Severity::Notice, dos_summary(manager_.dos_guard().params()) + ".");
  arm_heartbeat();
  arm_conflux_tick();
  return true;
}

bool RelayProcess::start_or_ports() {
  for (const auto& port : config_.options.or_ports) {
    if (!port.enabled() || port.no_listen) continue;
    auto addr = port.address ? net::asio::ip::make_address(port.address->to_string())
                             : net::asio::ip::address(net::asio::ip::address_v4::any());
    boost::system::error_code ec;
    auto bound = manager_.listen({addr, port.is_auto ? std::uint16_t{0} : port.port}, ec);
    if (!bound) {
      log::write(log::Severity::Err, "Could not bind ORPort " + addr.to_string() + ":" +
                                         std::to_string(port.port) + ": " + ec.message());
      return false;
    }
    log::write(log::Severity::Notice, "Opened OR listener on " + bound->address().to_string() + ":" +
                                          std::to_string(bound->port()));
    if (or_port_ == 0 && !port.no_advertise) or_port_ = bound->port();
    or_bound_.push_back(*bound);
  }
  return true;
}

void RelayProcess::start_transports() {
  const auto& o = config_.options;
  if (o.server_transport_plugins.empty()) return;
  BridgeIdentity b;
  b.rsa_fingerprint = bytes::to_hex(keys_.rsa_fingerprint(), true);
  for (const auto& a : o.addresses)
    if (a.is_v4() && !b.address) b.address = a;
  for (const auto& p : o.or_ports)
    if (!b.address && p.address && p.address->is_v4() && !p.no_advertise) b.address = *p.address;
  // TOR_PT_ORPORT: where the transport reaches our ORPort (loopback when it
  // listens on every address).
  std::string or_host = "127.0.0.1";
  for (const auto& p : o.or_ports)
    if (p.enabled() && !p.no_listen && !p.no_advertise) {
      const auto width = p.address && p.address->is_v4() ? 4 : 16;
      const bool any = p.address && std::all_of(p.address->bytes.begin(), p.address->bytes.begin() + width,
                                                [](std::uint8_t byte) { return byte == 0; });
      if (p.address && !any)
        or_host = p.address->is_v4() ? p.address->to_string() : "[" + p.address->to_string() + "]";
      break;
    }
  transports_ = std::make_unique<RelayTransports>(io_, config_.options, std::move(b));
  transports_->start(or_host + ":" + std::to_string(or_port_));
}

std::optional<dirnet::RelayInfo> RelayProcess::relay_info() const {
  const auto& o = config_.options;
  dirnet::RelayInfo info;
  info.nickname = o.nickname;
  // The advertised IPv4 address: Address, else the ORPort's own address.
  std::optional<config::IpAddress> v4;
  for (const auto& a : o.addresses)
    if (a.is_v4()) v4 = a;
  for (const auto& p : o.or_ports)
    if (!v4 && p.address && p.address->is_v4() && !p.no_advertise) v4 = *p.address;
  if (!v4) return std::nullopt;
  std::copy_n(v4->bytes.begin(), 4, info.ipv4.begin());
  for (const auto& a : o.addresses)
    if (!a.is_v4()) info.ipv6 = a.bytes;
  info.or_port = or_port_;
  info.dir_port = dir_port_;
  // Until bandwidth is measured, the relay reports its configured rate as
  // observed (capped at 10 MB/s) so that a new network has usable weights.
  const std::uint64_t cap = 10'000'000;
  info.bandwidth = {o.bandwidth_rate, o.bandwidth_burst, std::min(o.bandwidth_rate, cap)};
  info.exit_policy = config_.exit_policy.summary();
  info.version = kVersion;
  info.bridge = o.bridge_relay;
  return info;
}

bool RelayProcess::start_directory() {
  const auto& o = config_.options;
  // Tor's form of DirAuthority (the configuration refuses ours): the
  // authorities take tor's descriptor and serve tor's documents.
  std::vector<dirnet::AuthorityPeer> peers;
  std::vector<net::tcp::endpoint> authority_dirs;
  for (const auto& a : o.dir_authorities) {
    net::tcp::endpoint ep(net::asio::ip::make_address(a.dir.addr.to_string()), a.dir.port);
    authority_dirs.push_back(ep);
    crypto::RsaFingerprint v3ident{};
    std::copy(a.v3ident.begin(), a.v3ident.end(), v3ident.begin());
    peers.push_back({ep, v3ident});
  }

  // An authority computes the body and signs tor's consensus alone.
  if (o.authoritative_directory) {
    dirnet::AuthorityOptions aopts;
    aopts.params = dirnet::authority_params(static_cast<std::uint64_t>(o.consensus_interval.count()),
                                            o.testing_tor_network, testing_votes(o));
    aopts.params.consensus_params = o.consensus_params;
    authority_ = std::make_unique<dirnet::AuthorityState>(aopts);
    routes_.set_tor_uploads(&authority_->tor_uploads());
    if (!start_tor_authority()) return false;
  }

  for (const auto& port : o.dir_ports) {
    if (!port.enabled() || port.no_listen) continue;
    auto addr = port.address ? net::asio::ip::make_address(port.address->to_string())
                             : net::asio::ip::address(net::asio::ip::address_v4::any());
    auto server = dirnet::DirServer::create(io_.get_executor(), {addr, port.is_auto ? std::uint16_t{0} : port.port},
                                            routes_, clock_);
    if (!server) {
      log::write(log::Severity::Err, "Could not bind DirPort " + addr.to_string() + ":" + std::to_string(port.port) +
                                         ": " + server.error().message());
      return false;
    }
    dir_server_ = *server;
    dir_server_->start();
    dir_port_ = dir_server_->local_endpoint().port();
    log::write(log::Severity::Notice, "Opened Directory listener on " + dir_server_->local_endpoint().address().to_string() +
                                          ":" + std::to_string(dir_port_));
    exit_.set_dir_port(begin_dir_target(dir_server_->local_endpoint()));
    break;  // one DirPort is served
  }

  if (authority_) {
    dirnet::AuthorityServiceOptions sopts;
    sopts.authorities = peers;
    sopts.tor = tor_authority_.get();
    sopts.bandwidth_file = config_.options.v3_bandwidths_file;
    sopts.log = log::sink();
    authority_service_ = dirnet::AuthorityService::create(io_.get_executor(), clock_, *authority_, sopts,
                                                          dirnet::make_tls_probe(std::chrono::seconds(10)));
    routes_.on_new_relay = [svc = std::weak_ptr(authority_service_)](const crypto::Ed25519Public& id) {
      if (auto s = svc.lock()) s->probe_soon(id);
    };
    authority_service_->on_tor_published = [](std::uint64_t va) {
      log::write(log::Severity::Notice, "Serving tor's microdesc consensus valid after " + std::to_string(va));
    };
    authority_service_->start();
  }

  // A directory cache; an authority only takes the consensus parameters
  // from what the authorities serve.
  start_tor_mirror(authority_dirs);
  if (!start_begin_dir_listener()) return false;

  start_publisher(authority_dirs);
  return true;
}

// Tor's server descriptor to the authorities (every 18 hours, as tor's
// relays publish), served at /tor/server/authority too (a bridge's only
// there).
void RelayProcess::start_publisher(const std::vector<net::tcp::endpoint>& authority_dirs) {
  auto info = relay_info();
  if (!info) {
    log::write(log::Severity::Warn, "No IPv4 address to advertise (set Address or an ORPort address): "
                                    "the descriptor is not published");
    return;
  }
  dirnet::PublisherOptions popts;
  popts.authorities = authority_dirs;
  const auto build_tor = [this, info = *info](std::uint64_t now) {
    // BEGIN_DIR answers tor's documents at an authority of ours and at a
    // directory cache (relay_tor_mirror.cpp).
    const TorDescriptorSource s{config_.options, config_.exit_policy, keys_, tap_onion_key_, info, started_,
                                (tor_authority_ != nullptr || tor_mirror_ != nullptr) && dir_server_ != nullptr};
    try {
      std::string text = build_tor_descriptor(s, now);
      routes_.set_tor_self_descriptor(text, bytes::to_hex(keys_.rsa_fingerprint(), true));
      return text;
    } catch (const std::invalid_argument& e) {
      log::write(log::Severity::Warn, std::string("Cannot write tor's server descriptor: ") + e.what());
      return std::string();
    }
  };
  popts.build_tor = build_tor;
  popts.republish = std::chrono::hours(18);
  publisher_ = dirnet::DescriptorPublisher::create(io_.get_executor(), clock_, *info, popts);
  publisher_->on_tor_answer = [](bool accepted, bool answered, const std::string& line) {
    log::write(accepted ? log::Severity::Notice : answered ? log::Severity::Warn : log::Severity::Info, line);
  };
  publisher_->on_answer = [this](const dirnet::DescriptorPublisher::Answer& a) { descriptor_status(a); };
  publisher_->start();
}

// tor's STATUS_SERVER events for its uploads (dirclient.c):
// ACCEPTED_SERVER_DESCRIPTOR per authority that took it, GOOD_SERVER_DESCRIPTOR
// once all have, BAD_SERVER_DESCRIPTOR for a 400.
void RelayProcess::descriptor_status(const dirnet::DescriptorPublisher::Answer& a) {
  if (!control_) return;
  const std::string dirauth = "DIRAUTH=" + a.authority.address().to_string() + ":" + std::to_string(a.authority.port());
  if (a.status == 200) {
    control_->server_status("NOTICE", "ACCEPTED_SERVER_DESCRIPTOR " + dirauth);
    if (a.all_accepted) control_->server_status("NOTICE", "GOOD_SERVER_DESCRIPTOR");
  } else if (a.status == 400) {
    control_->server_status("WARN", "BAD_SERVER_DESCRIPTOR " + dirauth + " REASON=" + control::quote_control_string(a.reason));
  }
}

void RelayProcess::apply_consensus(const dir::Consensus& c) {
  if (control_) control_->consensus(c.body);
  reachability_consensus(c.body);
  const auto merged = config::merge_consensus_params(c.body.params, config_.options.override_consensus_params);
  manager_.set_relay_addresses(relay_addresses(c));
  dos_consensus_params_ = merged;
  if (const auto dos = relay_dos_params(config_.options, merged); !(dos == manager_.dos_guard().params())) {
    manager_.set_dos_params(dos);
    log::write(log::Severity::Notice, dos_summary(dos) + " (consensus valid after " +
                                          std::to_string(c.body.valid_after) + ").");
  }
  auto cc = cc_entries(merged);
  if (cc == cc_params_in_use_) return;
  const auto params = relay_cc_params(merged, true);
  manager_.set_cc_params(params);
  exit_.set_cc_params(params);
  std::string list;
  for (const auto& [k, v] : cc) list += " " + k + "=" + std::to_string(v);
  log::write(log::Severity::Notice, "Congestion control now follows the consensus valid after " +
                                        std::to_string(c.body.valid_after) + (list.empty() ? " (tor's defaults)" : ":" + list) +
                                        "; circuits created from now on use it");
  cc_params_in_use_ = std::move(cc);
}

bool RelayProcess::start_metrics() {
  for (const auto& port : config_.options.metrics_ports) {
    if (!port.enabled() || port.no_listen) continue;
    // MetricsPort without an address is loopback only (as in tor).
    auto addr = port.address ? net::asio::ip::make_address(port.address->to_string())
                             : net::asio::ip::address(net::asio::ip::address_v4::loopback());
    auto server = metrics::MetricsServer::create(io_.get_executor(),
                                                 {addr, port.is_auto ? std::uint16_t{0} : port.port}, metrics_);
    if (!server) {
      log::write(log::Severity::Err, "Could not bind MetricsPort " + addr.to_string() + ":" +
                                         std::to_string(port.port) + ": " + server.error().message());
      return false;
    }
    (*server)->start();
    const auto at = (*server)->local_endpoint();
    log::write(log::Severity::Notice,
               "Opened Metrics listener on " + at.address().to_string() + ":" + std::to_string(at.port()));
    metrics_servers_.push_back(std::move(*server));
  }
  return true;
}

bool RelayProcess::start_control() {
  if (!config_.options.control.enabled()) return true;
  RelayControl::Sources s{config_.options, bytes::to_hex(keys_.rsa_identity().public_key().fingerprint(), true),
                          {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  s.or_listeners = or_bound_;
  if (dir_server_) s.dir_listeners.push_back(dir_server_->local_endpoint());
  s.traffic = [this] {
    const auto c = manager_.counters();
    return std::make_pair(c.bytes_in, c.bytes_out);
  };
  s.reload = [this] { reload(); };
  s.reconfigure = [this](config::RelayOptions next, const std::vector<std::string>& changed) {
    return reconfigure(std::move(next), changed);
  };
  s.heartbeat = [this] { log_counters(log::Severity::Notice); };
  s.address = [this](bool ipv6) -> std::optional<std::string> {
    const auto info = relay_info();
    if (!info) return std::nullopt;
    if (!ipv6) return dir::format_ipv4(info->ipv4);
    if (!info->ipv6) return std::nullopt;
    return dir::format_ipv6(*info->ipv6);
  };
  s.clear_dns_cache = [this] { exit_.clear_dns_cache(); };
  s.channels = [this] { return manager_.channel_reports(); };
  s.reachability = [this] { return reachability_ ? &*reachability_ : nullptr; };
  control_ = std::make_unique<RelayControl>(io_, std::move(s));
  return control_->start();
}

void RelayProcess::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (control_) control_->stop();
  heartbeat_.cancel();
  conflux_tick_.cancel();
  reachability_timer_.cancel();
  manager_.set_observer({});
  if (transports_) transports_->stop();
  if (publisher_) publisher_->stop();
  if (consensus_) consensus_->stop();
  if (mirror_fetch_) mirror_fetch_->stop();
  if (authority_service_) authority_service_->stop();
  if (dir_server_) dir_server_->stop();
  for (auto& m : metrics_servers_) m->stop();
  manager_.stop_listening();
  manager_.close_all_channels("shutting down");
}

void RelayProcess::log_counters(log::Severity severity) const {
  auto c = manager_.counters();
  auto e = exit_.stats();
  std::ostringstream line;
  line << "Heartbeat: " << c.circuits << " circuits open (" << c.circuits_created << " created, "
       << c.circuits_closed << " closed), channels " << c.channels_inbound << " in / " << c.channels_outbound
       << " out (" << c.channels_opened_outbound << " out opened since start), cells " << c.cells_in << " in / " << c.cells_out << " out, bytes " << c.bytes_in << " in / "
       << c.bytes_out << " out; streams " << e.streams_open << " open, " << e.streams_connected
       << " connected since start; destroyed by reason:";
  for (std::size_t r = 0; r < c.circuits_destroyed_by_reason.size(); ++r)
    if (c.circuits_destroyed_by_reason[r] != 0) line << " " << r << "=" << c.circuits_destroyed_by_reason[r];
  const auto& d = routes_.counters();
  line << "; directory requests " << d.ok << " answered, " << d.not_found << " not found, " << d.rejected
       << " refused; BEGIN_DIR " << e.begin_dirs;
  log::write(severity, line.str());
  log::write(severity, dos_heartbeat(manager_.dos_guard().params(), c));
}

void RelayProcess::arm_heartbeat() {
  heartbeat_.expires_after(kHeartbeat);
  heartbeat_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    log_counters(log::Severity::Info);
    arm_heartbeat();
  });
}

void RelayProcess::arm_conflux_tick() {
  conflux_tick_.expires_after(kConfluxTick);
  conflux_tick_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    join_.tick(clock_.now());
    arm_conflux_tick();
  });
}

}  // namespace conflux::relay
