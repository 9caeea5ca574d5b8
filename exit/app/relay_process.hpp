#pragma once
// One running relay: the channel manager (ORPort, circuits), the Conflux join
// point, the exit module, the directory services and the MetricsPort, with
// one owner (this object) for all of them. Stream messages go manager ->
// join -> exit module, and answers back the same way.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "conflux/dirnet/authority_service.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"
#include "conflux/dirnet/descriptor_publisher.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/dir_server.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "conflux/dirnet/tor_dir_mirror.hpp"
#include "conflux/exit/conflux_join.hpp"
#include "conflux/exit/exit_streams.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/log/log.hpp"
#include "conflux/metrics/metrics_server.hpp"
#include "conflux/metrics/registry.hpp"
#include "conflux/net/channel_manager.hpp"
#include "conflux/net/clock.hpp"
#include "relay_config.hpp"
#include "relay_control.hpp"
#include "relay_transports.hpp"

namespace conflux::relay {

class RelayProcess {
 public:
  RelayProcess(net::asio::io_context& io, const net::Clock& clock, StartupConfig config, keys::RelayKeys keys);
  ~RelayProcess();
  RelayProcess(const RelayProcess&) = delete;
  RelayProcess& operator=(const RelayProcess&) = delete;

  // Opens the listeners and starts the services. False (after logging why)
  // if a port cannot be bound.
  bool start();
  // Closes listeners and channels; circuits die with CHANNEL_CLOSED at peers.
  void stop();
  // One line of counters at `severity` (heartbeat, SIGUSR1, shutdown).
  void log_counters(log::Severity severity) const;
  // SIGHUP: the torrc read again. What can change while running changes
  // now (CircuitPriorityHalflife, SchedulerTraceFile, MaxMemInQueues, DoS*,
  // BandwidthRate/Burst, Log, ExitPolicy, ServerDNS*); the rest takes effect
  // at the next start.
  void reload();
  // SETCONF over the ControlPort: only what apply_runtime_options applies
  // may change (CircuitPriorityHalflife, SchedulerTraceFile, MaxMemInQueues,
  // DoS*, BandwidthRate/Burst, Log), ExitPolicy and ServerDNS*; else 553.
  control::ConfigOutcome reconfigure(config::RelayOptions next, const std::vector<std::string>& changed);

 private:
  // What can change while running: false when the trace file cannot open.
  bool apply_runtime_options(const config::RelayOptions& fresh);
  // MaxMemInQueues and the DoS* options (relay_dos.hpp), from the fresh torrc.
  void apply_defences(const config::RelayOptions& fresh);
  void apply_bandwidth_and_logs(const config::RelayOptions& fresh);
  // Opens config_'s Log destinations (again), then logs `done`; a file that
  // cannot be opened leaves the old destinations and is logged.
  void open_logs(const std::string& done);
  // SIGHUP: ExitPolicy and the resolver.
  void apply_exit_changes(const StartupConfig& fresh);
  // SIGHUP and SETCONF: the nameservers (already read, from
  // ServerDNSResolvConfFile or /etc/resolv.conf) and
  // ServerDNSAllowNonRFC953Hostnames; new lookups use them. The resolver is
  // changed only when they differ from the running ones.
  void apply_dns(std::vector<config::AddrPort> nameservers, const config::RelayOptions& fresh);
  // SIGHUP and SETCONF: streams opened from now on meet `policy`.
  void apply_exit_policy(proto::ExitPolicy policy, std::vector<config::PolicyLine> lines);
  void republish_descriptor();
  void arm_heartbeat();
  void arm_conflux_tick();
  bool start_or_ports();
  bool start_directory();
  bool start_tor_authority();
  bool start_metrics();
  bool start_control();
  void start_transports();
  bool start_begin_dir_listener();
  void start_tor_mirror(const std::vector<net::tcp::endpoint>& authority_dirs);
  void load_tor_mirror(const dirnet::ConsensusQuery& q);
  void save_tor_mirror() const;
  void start_publisher(const std::vector<net::tcp::endpoint>& authority_dirs);
  void descriptor_status(const dirnet::DescriptorPublisher::Answer& a);
  void apply_consensus(const dir::Consensus& c);
  [[nodiscard]] std::optional<dirnet::RelayInfo> relay_info() const;
  // The ORPort self-test (relay_reachability.cpp).
  void start_reachability();
  void reachability_checking();
  void reachability_found(bool ipv6, std::string_view how);
  void reachability_create(const net::ChannelReport& r);
  void reachability_consensus(const dir::ConsensusBody& body);
  void reachability_overdue();
  void reachability_events(const std::vector<control::ReachabilityStatus::Event>& events);

  net::asio::io_context& io_;
  const net::Clock& clock_;
  StartupConfig config_;
  keys::RelayKeys keys_;
  crypto::RsaPrivateKey tap_onion_key_;  // only for tor's descriptor (relay_tor_descriptor.hpp)
  std::uint64_t started_ = 0;            // seconds since the epoch
  net::ChannelManager manager_;
  exit::ConfluxJoin join_;  // between the manager and the exit module
  exit::ExitStreams exit_;
  net::asio::steady_timer heartbeat_;
  net::asio::steady_timer conflux_tick_;  // the join's deadlines and held DATA, every 100 ms
  std::uint16_t or_port_ = 0;   // as bound (ORPort auto picks one)
  std::uint16_t dir_port_ = 0;
  std::vector<net::tcp::endpoint> or_bound_;  // the OR listeners as bound (GETINFO net/listeners/or)
  dirnet::DirRoutes routes_;
  std::unique_ptr<dirnet::AuthorityState> authority_;
  std::optional<dirnet::TorAuthorityKeys> tor_keys_;
  std::unique_ptr<dirnet::TorAuthorityState> tor_authority_;
  std::unique_ptr<dirnet::TorDirMirror> tor_mirror_;  // a tor network's directory, as a cache (relay_tor_mirror.cpp)
  std::shared_ptr<dirnet::DirServer> dir_server_;
  std::shared_ptr<dirnet::AuthorityService> authority_service_;
  std::shared_ptr<dirnet::DescriptorPublisher> publisher_;
  // The consensus, as tor's relays fetch it: its cc_* (with
  // OverrideConsensusParams on top) replace tor's defaults.
  std::shared_ptr<dirnet::ConsensusFetcher> consensus_;
  std::shared_ptr<dirnet::ConsensusFetcher> mirror_fetch_;  // tor's documents, for tor_mirror_
  std::map<std::string, std::int32_t> cc_params_in_use_;  // the cc_* keys last applied
  std::map<std::string, std::int32_t> dos_consensus_params_;  // the last consensus's, with the overrides
  metrics::Registry metrics_;  // before its servers: they render it
  std::vector<std::shared_ptr<metrics::MetricsServer>> metrics_servers_;
  std::unique_ptr<RelayControl> control_;  // with ControlPort lines
  std::unique_ptr<RelayTransports> transports_;  // ServerTransportPlugin processes
  std::optional<control::ReachabilityStatus> reachability_;  // once the relay has an address to advertise
  net::asio::steady_timer reachability_timer_;               // REACHABILITY_FAILED when overdue
  bool stopped_ = false;
};

// "EWMA, half-life 30 s" or "round robin", for the log (relay_runtime_options.cpp).
[[nodiscard]] std::string circuit_priority_text(double halflife);
// The exit's resolver settings from the torrc (ServerDNS*).
[[nodiscard]] exit::DnsSettings relay_dns_settings(const StartupConfig& s);

}  // namespace conflux::relay
