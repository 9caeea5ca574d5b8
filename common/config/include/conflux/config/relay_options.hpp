#pragma once
// The options of conflux-relay, filled from the merged torrc layers. Every
// option is one row of a table (relay_option_table.cpp; rows as in
// option_spec.hpp): name, alias, whether it may repeat, its parser, its
// documentation. Unknown options are errors
// with file:line, as tor refuses to start on an unknown option.
//
// Semantics shared with tor:
//   - An option that may appear once and is repeated: the last line wins,
//     with a warning.
//   - An empty value ("Nickname" alone, or Nickname "") resets the option to
//     its default; an empty line of a list option is skipped with a warning.
// docs/CONFIG.md lists every option, its type, default and tor compatibility.
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/config/transport_lines.hpp"
#include "conflux/config/address.hpp"
#include "conflux/config/consensus_params.hpp"
#include "conflux/config/control_options.hpp"
#include "conflux/config/default_directories.hpp"
#include "conflux/config/command_line.hpp"
#include "conflux/config/error.hpp"
#include "conflux/config/file_source.hpp"
#include "conflux/config/option_spec.hpp"
#include "conflux/config/option_values.hpp"
#include "conflux/config/router_set.hpp"
#include "conflux/config/torrc_parser.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config {

// One ExitPolicy item ("accept *:80"), after splitting lines at commas. Kept
// raw, with its position, for the exit policy parser to report errors.
struct PolicyLine {
  std::string text;
  SourcePos where;
  bool operator==(const PolicyLine&) const = default;
};

enum class SchedulerKind : std::uint8_t { Kist, KistLite, Vanilla };
// KISTLimit: tor's per-socket limit, or the 2014 paper's (Eq. 1).
enum class KistLimitKind : std::uint8_t { Deployed, Original };

inline constexpr std::uint64_t kDefaultBandwidth = std::uint64_t{1} << 30;  // tor: 1 GByte/s
inline constexpr std::uint64_t kMaxBandwidth = 0x7fffffff;                  // tor: INT32_MAX bytes/s
inline constexpr std::uint64_t kTorMinRelayBandwidth = 75 * 1024;           // below: a warning only

// The DoS defences (tor's DoS* options): auto / 0 = the consensus decides.
// One struct, so that a reload copies them in one assignment.
struct DosOptions {
  AutoBool cc_enabled = AutoBool::Auto;                 // DoSCircuitCreationEnabled
  std::uint32_t cc_min_connections = 0;                 // DoSCircuitCreationMinConnections
  std::uint32_t cc_rate = 0;                            // DoSCircuitCreationRate
  std::uint32_t cc_burst = 0;                           // DoSCircuitCreationBurst
  std::uint32_t cc_defense_type = 0;                    // DoSCircuitCreationDefenseType
  std::chrono::seconds cc_defense_time_period{0};       // DoSCircuitCreationDefenseTimePeriod
  AutoBool conn_enabled = AutoBool::Auto;               // DoSConnectionEnabled
  std::uint32_t conn_max_concurrent = 0;                // DoSConnectionMaxConcurrentCount
  std::uint32_t conn_defense_type = 0;                  // DoSConnectionDefenseType
  std::uint32_t conn_connect_rate = 0;                  // DoSConnectionConnectRate
  std::uint32_t conn_connect_burst = 0;                 // DoSConnectionConnectBurst
  std::chrono::seconds conn_connect_defense_time_period{0};  // DoSConnectionConnectDefenseTimePeriod
  AutoBool stream_enabled = AutoBool::Auto;             // DoSStreamCreationEnabled
  std::uint32_t stream_rate = 0;                        // DoSStreamCreationRate
  std::uint32_t stream_burst = 0;                       // DoSStreamCreationBurst
  std::uint32_t stream_defense_type = 0;                // DoSStreamCreationDefenseType
  bool operator==(const DosOptions&) const = default;
};

struct RelayOptions {
  std::string nickname = "Unnamed";
  std::vector<IpAddress> addresses;       // Address: at most one IPv4 and one IPv6
  std::vector<PortConfig> or_ports;       // ORPort: at least one enabled
  std::vector<PortConfig> dir_ports;      // DirPort
  std::string data_directory;             // DataDirectory: required
  std::vector<LogSpec> logs;              // Log: none given = {notice-err stdout}
  AutoBool exit_relay = AutoBool::False;  // ExitRelay (tor's default is auto; ours 0)
  std::vector<PolicyLine> exit_policy;    // ExitPolicy, in order
  bool exit_policy_reject_private = true;
  bool ipv6_exit = false;
  std::string server_dns_resolv_conf_file;            // ServerDNSResolvConfFile: empty = /etc/resolv.conf
  bool server_dns_allow_non_rfc953 = false;           // ServerDNSAllowNonRFC953Hostnames
  bool bridge_relay = false;
  bool authoritative_directory = false;
  bool testing_tor_network = false;       // TestingTorNetwork: flags for a network that just started
  // TestingDirAuthVoteGuard / ...Exit: an authority of a test network votes
  // the flag for these relays whatever its rules say; ...IsStrict: for no
  // others. Without TestingTorNetwork they are ignored, as in tor.
  RouterSet testing_vote_guard;
  bool testing_vote_guard_strict = false;
  RouterSet testing_vote_exit;
  bool testing_vote_exit_strict = false;
  // V3BandwidthsFile: an authority's bandwidth file (tor's), read before each
  // consensus; empty = none, every weight is what the relay advertises.
  std::string v3_bandwidths_file;
  std::vector<DirAuthorityLine> dir_authorities;
  std::uint64_t bandwidth_rate = kDefaultBandwidth;   // bytes per second
  std::uint64_t bandwidth_burst = kDefaultBandwidth;  // bytes
  std::uint32_t max_circuits_per_channel = 1024;      // ours
  std::uint32_t max_channels = 4096;                  // ours
  std::string contact_info;
  std::vector<std::string> my_family;
  std::chrono::seconds consensus_interval{300};       // ours; alias V3AuthVotingInterval
  ConsensusParamMap consensus_params;                 // ConsensusParams: what an authority publishes
  ConsensusParamMap override_consensus_params;        // OverrideConsensusParams (ours): experiments
  AutoBool conflux_enabled = AutoBool::Auto;
  double circuit_priority_halflife = 30.0;            // seconds; 0 or negative: round robin
  std::vector<SchedulerKind> schedulers = {SchedulerKind::Kist, SchedulerKind::KistLite, SchedulerKind::Vanilla};
  std::chrono::milliseconds kist_sched_run_interval{0};  // 0: built-in default
  std::uint32_t kist_sched_hold_min_cells = 8;           // KISTSchedHoldMinCells (ours); 0: tor's timing
  KistLimitKind kist_limit = KistLimitKind::Deployed;   // ours
  bool kist_global_limit = false;                        // ours
  std::uint32_t scheduler_sample_cells = 100;           // SchedulerSampleCells: 1 in N timed; 0 = none (ours)
  std::string scheduler_trace_file;                    // SchedulerTraceFile: empty = none
  std::vector<PortConfig> metrics_ports;              // MetricsPort; address defaults to 127.0.0.1
  std::uint64_t max_mem_in_queues = 0;                // MaxMemInQueues, bytes; 0: tor's default from the RAM
  DosOptions dos;                                     // DoSCircuitCreation*, DoSConnection*, DoSStreamCreation*
  std::vector<TransportPluginLine> server_transport_plugins;        // ServerTransportPlugin (managed only)
  std::vector<TransportListenAddr> server_transport_listen_addrs;   // ServerTransportListenAddr
  std::vector<TransportOptionsLine> server_transport_options;       // ServerTransportOptions
  ControlOptions control;                             // ControlPort, CookieAuthentication, ...
  Entries config_lines;                               // the effective torrc lines (GETCONF)

  // Non-fatal remarks (repeated singletons, empty list lines, tor minimums).
  std::vector<ConfigError> warnings;

  // ExitRelay 1, or ExitRelay auto with an ExitPolicy or IPv6Exit 1 (tor's
  // rule for auto; tor also counts ReducedExitPolicy, which we do not have).
  [[nodiscard]] bool is_exit() const noexcept {
    return exit_relay == AutoBool::True || (exit_relay == AutoBool::Auto && (!exit_policy.empty() || ipv6_exit));
  }
};

using OptionSpec = BasicOptionSpec<RelayOptions>;

[[nodiscard]] std::span<const OptionSpec> relay_option_table() noexcept;
[[nodiscard]] const OptionSpec* find_relay_option(std::string_view key) noexcept;
// For --list-torrc-options: "Name" per line, in table order.
[[nodiscard]] std::string list_relay_options();

// Builds options from entries (ops Append/Clear are applied as a single
// layer). `main_source` names the configuration in errors that belong to no
// line (e.g. a missing required option). Every error found is returned.
// `env` gives DataDirectory's default (default_relay_data_directory(); none
// with the default `env`, so DataDirectory must then be given).
[[nodiscard]] Result<RelayOptions, ConfigErrors> relay_options_from_entries(
    const Entries& entries, std::string_view main_source = kStringSource, const UserEnvironment& env = {});

// Reads --defaults-torrc and the torrc (with includes) through `files`,
// applies the command-line overrides, and builds the options. A missing
// torrc is an error when it was given with -f (unless
// --ignore-missing-torrc), and is skipped when it is only the default path.
[[nodiscard]] Result<RelayOptions, ConfigErrors> load_relay_options(const CommandLine& cl, const FileSource& files,
                                                                  const UserEnvironment& env = {});

}  // namespace conflux::config
