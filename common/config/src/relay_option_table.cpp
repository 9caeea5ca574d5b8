// The relay option table: one row per option. To add an option, add a field
// to RelayOptions, a row here (a parser from values.hpp / option_values.hpp /
// option_table_support.hpp, or a small one below), and a line in docs/CONFIG.md.
#include <algorithm>

#include "conflux/config/relay_options.hpp"
#include "control_option_rows.hpp"
#include "option_table_support.hpp"

namespace conflux::config {
namespace {

using namespace table;

ValueResult<PortConfig> listener_port(std::string_view s) { return parse_port_config(s, PortFlags::Listener); }

ValueResult<std::uint64_t> bandwidth(std::string_view s) {
  auto v = parse_memunit(s);
  if (!v) return v;
  if (*v > kMaxBandwidth) return Unexpected{"at most " + std::to_string(kMaxBandwidth) + " bytes (as tor)"};
  return v;
}

// tor requires the voting interval to divide a day, so that every
// authority's schedule lines up with midnight UTC.
ValueResult<std::chrono::seconds> consensus_interval(std::string_view s) {
  auto v = parse_interval(s);
  if (!v) return v;
  if (v->count() < 10 || v->count() > 86400) return Unexpected{std::string("must be between 10 seconds and 1 day")};
  if (86400 % v->count() != 0) return Unexpected{std::string("must divide 24 hours evenly (as tor requires)")};
  return v;
}

ValueResult<double> halflife(std::string_view s) { return parse_double(s, -1.0, 86400.0); }

ValueResult<std::uint32_t> dos_number(std::string_view s) { return bounded<std::uint32_t, 0, 2147483647>(s); }

// tor's MaxMemInQueues is a memory unit; 0 (or unset) picks the default.
ValueResult<std::uint64_t> max_mem(std::string_view s) { return parse_memunit(s); }

ValueResult<std::chrono::milliseconds> kist_interval(std::string_view s) {
  auto v = parse_msec_interval(s);
  if (!v) return v;
  if (v->count() > 100) return Unexpected{std::string("at most 100 msec (as tor)")};
  return v;
}

ValueResult<std::vector<SchedulerKind>> schedulers(std::string_view s) {
  std::vector<SchedulerKind> out;
  for (const auto& name : split_list(s)) {
    SchedulerKind k = SchedulerKind::Kist;
    if (key_equals(name, "KIST")) k = SchedulerKind::Kist;
    else if (key_equals(name, "KISTLite")) k = SchedulerKind::KistLite;
    else if (key_equals(name, "Vanilla")) k = SchedulerKind::Vanilla;
    else return Unexpected{"unknown scheduler '" + name.substr(0, 40) + "' (KIST, KISTLite, Vanilla)"};
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  if (out.empty()) return Unexpected{std::string("no scheduler named")};
  return out;
}

ValueResult<std::uint32_t> hold_min_cells(std::string_view s) { return bounded<std::uint32_t, 0, 100000>(s); }

ValueResult<std::uint32_t> sample_every(std::string_view s) {
  auto v = parse_int(s, 0, 1'000'000);
  if (!v) return Unexpected{v.error()};
  return static_cast<std::uint32_t>(*v);
}

ValueResult<KistLimitKind> kist_limit_kind(std::string_view s) {
  if (key_equals(s, "Deployed")) return KistLimitKind::Deployed;
  if (key_equals(s, "Original")) return KistLimitKind::Original;
  return Unexpected{"unknown KIST limit '" + std::string(s.substr(0, 40)) + "' (Deployed, Original)"};
}

Applied apply_exit_policy(RelayOptions& o, const ConfigEntry& e) {
  for (auto& item : split_list(e.value)) o.exit_policy.push_back({std::move(item), e.where});
  return std::nullopt;
}

Applied apply_family(RelayOptions& o, const ConfigEntry& e) {
  for (const auto& item : split_list(e.value)) {
    auto m = parse_family_member(item);
    if (!m) return m.error();
    o.my_family.push_back(std::move(*m));
  }
  return std::nullopt;
}

Applied apply_run_as_daemon(RelayOptions&, const ConfigEntry& e) {
  auto v = parse_bool(e.value);
  if (!v) return v.error();
  if (*v) return std::string("not supported: run conflux-relay in the foreground under a service manager");
  return std::nullopt;
}

void no_reset(RelayOptions&) {}

using R = RelayOptions;
using D = DosOptions;
template <auto Member, auto Parse>
constexpr auto set_dos = set_sub_value<&R::dos, Member, Parse>;
template <auto Member>
constexpr auto reset_dos = reset_sub_value<&R::dos, Member>;
constexpr auto Same = TorCompat::Same;
constexpr auto Restricted = TorCompat::Restricted;
constexpr auto Ours = TorCompat::Ours;

// clang-format off
constexpr OptionSpec kOptions[] = {
  {"Nickname", "", false, set_value<&R::nickname, parse_nickname>, reset_value<&R::nickname>,
   "nickname", "Unnamed", Same, "1-19 letters and digits"},
  {"Address", "", true, add_value<&R::addresses, parse_ip>, reset_value<&R::addresses>,
   "IP address", "(none)", Restricted, "advertised address; at most one IPv4 and one IPv6; no host names"},
  {"ORPort", "", true, add_value<&R::or_ports, listener_port>, reset_value<&R::or_ports>,
   "[ADDR:]PORT|auto [flags]", "(required)", Same, "relay listener; flags NoAdvertise NoListen IPv4Only IPv6Only"},
  {"DirPort", "", true, add_value<&R::dir_ports, listener_port>, reset_value<&R::dir_ports>,
   "[ADDR:]PORT|auto [flags]", "0", Same, "directory listener (required for an authority)"},
  {"DataDirectory", "", false, set_value<&R::data_directory, any_text>, reset_value<&R::data_directory>,
   "path", "/var/lib/conflux (root), ~/.conflux", Same, "keys and state; tor's rule with our name"},
  {"Log", "", true, add_value<&R::logs, parse_log>, reset_value<&R::logs>,
   "SEV[-SEV] stdout|stderr|syslog|file PATH", "notice stdout", Restricted, "no per-domain severities"},
  {"ExitRelay", "", false, set_value<&R::exit_relay, parse_autobool>, reset_value<&R::exit_relay>,
   "0|1|auto", "0", Restricted, "tor's default is auto; auto = exit when ExitPolicy or IPv6Exit is set"},
  {"ExitPolicy", "", true, apply_exit_policy, reset_value<&R::exit_policy>,
   "policy[,policy...]", "(none)", Same, "accept|reject ADDR[/MASK][:PORT[-PORT]], kept in order"},
  {"ExitPolicyRejectPrivate", "", false, set_value<&R::exit_policy_reject_private, parse_bool>,
   reset_value<&R::exit_policy_reject_private>, "0|1", "1", Same, "reject private and own addresses first"},
  {"IPv6Exit", "", false, set_value<&R::ipv6_exit, parse_bool>, reset_value<&R::ipv6_exit>,
   "0|1", "0", Same, "allow exit connections to IPv6"},
  {"ServerDNSResolvConfFile", "", false, set_value<&R::server_dns_resolv_conf_file, any_text>,
   reset_value<&R::server_dns_resolv_conf_file>, "path", "/etc/resolv.conf", Same,
   "the exit's nameservers: its 'nameserver ADDR[:PORT]' lines (unset: /etc/resolv.conf's, or 127.0.0.1 "
   "when it has none); SIGHUP and SETCONF read it again"},
  {"ServerDNSAllowNonRFC953Hostnames", "", false, set_value<&R::server_dns_allow_non_rfc953, parse_bool>,
   reset_value<&R::server_dns_allow_non_rfc953>, "0|1", "0", Same,
   "look up names with characters other than letters, digits, '-', '.', '_'"},
  {"BridgeRelay", "", false, set_value<&R::bridge_relay, parse_bool>, reset_value<&R::bridge_relay>,
   "0|1", "0", Same, "unlisted bridge: publish to no authority"},
  {"ServerTransportPlugin", "", true, add_value<&R::server_transport_plugins, parse_server_transport_plugin>,
   reset_value<&R::server_transport_plugins>, "TRANSPORT[,TRANSPORT...] exec PATH [ARGS...]", "(none)", Restricted,
   "managed pluggable transport (obfs4proxy) in front of the ORPort; no 'proxy' form"},
  {"ServerTransportListenAddr", "", true,
   add_value<&R::server_transport_listen_addrs, parse_transport_listen_addr>,
   reset_value<&R::server_transport_listen_addrs>, "TRANSPORT IP:PORT", "(the transport chooses)", Same,
   "where the transport listens (TOR_PT_SERVER_BINDADDR)"},
  {"ServerTransportOptions", "", true, add_value<&R::server_transport_options, parse_transport_options>,
   reset_value<&R::server_transport_options>, "TRANSPORT K=V [K=V...]", "(none)", Same,
   "arguments for the transport (TOR_PT_SERVER_TRANSPORT_OPTIONS)"},
  {"AuthoritativeDirectory", "", false, set_value<&R::authoritative_directory, parse_bool>,
   reset_value<&R::authoritative_directory>, "0|1", "0", Same, "act as a directory authority"},
  {"DirAuthority", "", true, add_value<&R::dir_authorities, parse_dir_authority>, reset_value<&R::dir_authorities>,
   "NICK [orport=PORT] v3ident=HEX40 ADDR:DIRPORT RSA_FINGERPRINT", "(none)", Restricted,
   "tor's form; v3ident= required (no bridge authorities)"},
  {"BandwidthRate", "", false, set_value<&R::bandwidth_rate, bandwidth>, reset_value<&R::bandwidth_rate>,
   "memory unit per second", "1 GB", Same, "token-bucket average rate"},
  {"BandwidthBurst", "", false, set_value<&R::bandwidth_burst, bandwidth>, reset_value<&R::bandwidth_burst>,
   "memory unit", "1 GB", Same, "token-bucket size; at least BandwidthRate"},
  {"MaxCircuitsPerChannel", "", false,
   set_value<&R::max_circuits_per_channel, bounded<std::uint32_t, 1, 1048576>>,
   reset_value<&R::max_circuits_per_channel>, "integer 1-1048576", "1024", Ours, "not a tor option"},
  {"MaxChannels", "", false, set_value<&R::max_channels, bounded<std::uint32_t, 1, 1048576>>,
   reset_value<&R::max_channels>, "integer 1-1048576", "4096", Ours, "not a tor option"},
  {"TestingTorNetwork", "", false, set_value<&R::testing_tor_network, parse_bool>,
   reset_value<&R::testing_tor_network>, "0|1", "0", Restricted,
   "authorities assign flags without the uptime and familiarity a new network cannot have"},
  {"TestingDirAuthVoteGuard", "", false, set_value<&R::testing_vote_guard, parse_router_set>,
   reset_value<&R::testing_vote_guard>, "$FINGERPRINT|nickname[,...]", "(none)", Restricted,
   "with TestingTorNetwork, an authority votes Guard for these relays; no country codes or addresses"},
  {"TestingDirAuthVoteGuardIsStrict", "", false, set_value<&R::testing_vote_guard_strict, parse_bool>,
   reset_value<&R::testing_vote_guard_strict>, "0|1", "0", Same,
   "with TestingTorNetwork, Guard for no relay outside TestingDirAuthVoteGuard"},
  {"TestingDirAuthVoteExit", "", false, set_value<&R::testing_vote_exit, parse_router_set>,
   reset_value<&R::testing_vote_exit>, "$FINGERPRINT|nickname[,...]", "(none)", Restricted,
   "with TestingTorNetwork, an authority votes Exit for these relays; no country codes or addresses"},
  {"TestingDirAuthVoteExitIsStrict", "", false, set_value<&R::testing_vote_exit_strict, parse_bool>,
   reset_value<&R::testing_vote_exit_strict>, "0|1", "0", Same,
   "with TestingTorNetwork, Exit for no relay outside TestingDirAuthVoteExit"},
  {"V3BandwidthsFile", "", false, set_value<&R::v3_bandwidths_file, any_text>, reset_value<&R::v3_bandwidths_file>,
   "path", "(none)", Same, "an authority's bandwidth file: the relays' measured consensus weights"},
  {"ContactInfo", "", false, set_value<&R::contact_info, any_text>, reset_value<&R::contact_info>,
   "text", "(none)", Same, "published in the descriptor"},
  {"MyFamily", "", true, apply_family, reset_value<&R::my_family>,
   "member[,member...]", "(none)", Restricted, "nicknames, $RSA fingerprints or Ed25519 identities"},
  {"ConsensusInterval", "V3AuthVotingInterval", false, set_value<&R::consensus_interval, consensus_interval>,
   reset_value<&R::consensus_interval>, "interval 10 s - 1 day, divides a day", "5 minutes", Ours,
   "authority publication interval; tor's V3AuthVotingInterval is accepted as an alias"},
  {"ConsensusParams", "", false, set_value<&R::consensus_params, parse_consensus_params>,
   reset_value<&R::consensus_params>, "K=V [K=V...]", "(none)", Same,
   "an authority's consensus parameters (e.g. cc_alg=2 cc_sendme_inc=31); unused by other relays"},
  {"OverrideConsensusParams", "", false, set_value<&R::override_consensus_params, parse_consensus_params>,
   reset_value<&R::override_consensus_params>, "K=V [K=V...]", "(none)", Ours,
   "experiments: these values instead of the consensus's (e.g. cc_alg=0 for fixed windows)"},
  {"RunAsDaemon", "", false, apply_run_as_daemon, no_reset,
   "0", "0", Restricted, "only 0: use a service manager"},
  {"ConfluxEnabled", "", false, set_value<&R::conflux_enabled, parse_autobool>, reset_value<&R::conflux_enabled>,
   "0|1|auto", "auto", Same, "accept Conflux LINK requests at the exit"},
  {"CircuitPriorityHalflife", "", false, set_value<&R::circuit_priority_halflife, halflife>,
   reset_value<&R::circuit_priority_halflife>, "seconds -1..86400", "30", Same,
   "EWMA half-life; 0 or -1 = round robin"},
  {"Schedulers", "", false, set_value<&R::schedulers, schedulers>, reset_value<&R::schedulers>,
   "KIST|KISTLite|Vanilla[,...]", "KIST,KISTLite,Vanilla", Same, "first usable one wins"},
  {"KISTSchedRunInterval", "", false, set_value<&R::kist_sched_run_interval, kist_interval>,
   reset_value<&R::kist_sched_run_interval>, "msec interval 0-100", "0 msec", Same, "0 = built-in default"},
  {"KISTSchedHoldMinCells", "", false, set_value<&R::kist_sched_hold_min_cells, hold_min_cells>,
   reset_value<&R::kist_sched_hold_min_cells>, "integer 0-100000", "8", Ours,
   "a KIST run that moved fewer cells and left none waiting does not hold the next run; 0 = always (tor)"},
  {"KISTLimit", "", false, set_value<&R::kist_limit, kist_limit_kind>, reset_value<&R::kist_limit>,
   "Deployed|Original", "Deployed", Ours,
   "per-socket limit: tor's, or the 2014 paper's min(SO_SNDBUF - SIOCOUTQ, (cwnd - unacked) * mss)"},
  {"KISTGlobalLimit", "", false, set_value<&R::kist_global_limit, parse_bool>, reset_value<&R::kist_global_limit>,
   "0|1", "0", Ours, "the 2014 paper's cap on a run's total: the most bytes drained in one run period"},
  {"SchedulerSampleCells", "", false, set_value<&R::scheduler_sample_cells, sample_every>,
   reset_value<&R::scheduler_sample_cells>, "integer 0-1000000", "100", Ours,
   "one circuit cell in N is timed through the relay (queue metrics, trace); 0 = none"},
  {"SchedulerTraceFile", "", false, set_value<&R::scheduler_trace_file, any_text>,
   reset_value<&R::scheduler_trace_file>, "path", "(none)", Ours,
   "experiments: per sampled cell and per KIST run timings, one line each"},
  {"MaxMemInQueues", "", false, set_value<&R::max_mem_in_queues, max_mem>, reset_value<&R::max_mem_in_queues>,
   "memory unit", "0 (3/4 of RAM, 2/5 from 8 GB; 256 MB - 8 GB)", Same,
   "cell queues above this: circuits with the oldest queued cells are closed until 90% of it; at least 64 MB"},
  // The DoS defences (docs/OPERATORS.md); SIGHUP and SETCONF apply them.
  {"DoSCircuitCreationEnabled", "", false, set_dos<&D::cc_enabled, parse_autobool>,
   reset_dos<&D::cc_enabled>, "0|1|auto", "auto", Same, "auto: the consensus (off if absent)"},
  {"DoSCircuitCreationMinConnections", "", false, set_dos<&D::cc_min_connections, dos_number>,
   reset_dos<&D::cc_min_connections>, "integer 0-2147483647", "0", Same, "0: the consensus (3 if absent)"},
  {"DoSCircuitCreationRate", "", false, set_dos<&D::cc_rate, dos_number>, reset_dos<&D::cc_rate>,
   "integer 0-2147483647", "0", Same, "circuits per second per client address; 0: the consensus (3)"},
  {"DoSCircuitCreationBurst", "", false, set_dos<&D::cc_burst, dos_number>, reset_dos<&D::cc_burst>,
   "integer 0-2147483647", "0", Same, "0: the consensus (90)"},
  {"DoSCircuitCreationDefenseType", "", false, set_dos<&D::cc_defense_type, bounded<std::uint32_t, 0, 2>>,
   reset_dos<&D::cc_defense_type>, "0|1|2", "0", Same, "1 none, 2 refuse CREATE; 0: the consensus (2)"},
  {"DoSCircuitCreationDefenseTimePeriod", "", false,
   set_dos<&D::cc_defense_time_period, interval_within<0, 2147483647>>,
   reset_dos<&D::cc_defense_time_period>, "interval", "0", Same, "0: the consensus (1 hour)"},
  {"DoSConnectionEnabled", "", false, set_dos<&D::conn_enabled, parse_autobool>,
   reset_dos<&D::conn_enabled>, "0|1|auto", "auto", Same, "auto: the consensus (off if absent)"},
  {"DoSConnectionMaxConcurrentCount", "", false, set_dos<&D::conn_max_concurrent, dos_number>,
   reset_dos<&D::conn_max_concurrent>, "integer 0-2147483647", "0", Same, "0: the consensus (100)"},
  {"DoSConnectionDefenseType", "", false, set_dos<&D::conn_defense_type, bounded<std::uint32_t, 0, 2>>,
   reset_dos<&D::conn_defense_type>, "0|1|2", "0", Same, "1 none, 2 close; 0: the consensus (2)"},
  {"DoSConnectionConnectRate", "", false, set_dos<&D::conn_connect_rate, dos_number>,
   reset_dos<&D::conn_connect_rate>, "integer 0-2147483647", "0", Same, "0: the consensus (20 per second)"},
  {"DoSConnectionConnectBurst", "", false, set_dos<&D::conn_connect_burst, dos_number>,
   reset_dos<&D::conn_connect_burst>, "integer 0-2147483647", "0", Same, "0: the consensus (40)"},
  {"DoSConnectionConnectDefenseTimePeriod", "", false,
   set_dos<&D::conn_connect_defense_time_period, interval_within<0, 2147483647>>,
   reset_dos<&D::conn_connect_defense_time_period>, "interval", "0", Same, "0: the consensus (24 hours)"},
  {"DoSStreamCreationEnabled", "", false, set_dos<&D::stream_enabled, parse_autobool>,
   reset_dos<&D::stream_enabled>, "0|1|auto", "auto", Same, "exit side; auto: the consensus (off if absent)"},
  {"DoSStreamCreationRate", "", false, set_dos<&D::stream_rate, dos_number>, reset_dos<&D::stream_rate>,
   "integer 0-2147483647", "0", Same, "BEGIN/RESOLVE per second per circuit; 0: the consensus (100)"},
  {"DoSStreamCreationBurst", "", false, set_dos<&D::stream_burst, dos_number>,
   reset_dos<&D::stream_burst>, "integer 0-2147483647", "0", Same, "0: the consensus (300)"},
  {"DoSStreamCreationDefenseType", "", false, set_dos<&D::stream_defense_type, bounded<std::uint32_t, 0, 3>>,
   reset_dos<&D::stream_defense_type>, "0|1|2|3", "0", Same,
   "1 none, 2 refuse the stream, 3 close the circuit; 0: the consensus (2)"},
  {"MetricsPort", "", true, add_value<&R::metrics_ports, metrics_port>, reset_value<&R::metrics_ports>,
   "[ADDR:]PORT [prometheus]", "(none)", Same, "Prometheus metrics listener; default address 127.0.0.1"},
  // The control port (control_option_rows.hpp; the same rows in both tables).
  {"ControlPort", "", true, add_control_port<R>, reset_control_ports<R>, "[ADDR:]PORT|auto", "(none)", Restricted,
   "control-protocol listener (docs/CONTROL.md); address defaults to 127.0.0.1; no flags"},
  {"ControlSocket", "", true, add_control_socket<R>, reset_control_sockets<R>, "PATH [flags]|0", "(none)", Restricted,
   "control protocol on a unix socket, mode 0600 (GroupWritable 0660, WorldWritable 0666; RelaxDirModeCheck)"},
  {"ControlPortWriteToFile", "", false, set_control_port_file<R>, reset_control_port_file<R>, "path", "(none)", Same,
   "write \"PORT=127.0.0.1:N\" for each ControlPort here once bound (for ControlPort auto)"},
  {"CookieAuthentication", "", false, set_cookie_authentication<R>, reset_cookie_authentication<R>, "0|1", "0",
   Same, "controllers may authenticate with the cookie file (COOKIE, SAFECOOKIE)"},
  {"CookieAuthFile", "", false, set_cookie_auth_file<R>, reset_cookie_auth_file<R>, "path",
   "DataDirectory/control_auth_cookie", Same, "where the 32-byte cookie is written (mode 0600)"},
  {"HashedControlPassword", "", true, add_hashed_control_password<R>, reset_hashed_control_passwords<R>,
   "16:HEX (tor --hash-password)", "(none)", Same, "controllers may authenticate with one of these passwords"},
};
// clang-format on

}  // namespace

std::span<const OptionSpec> relay_option_table() noexcept { return kOptions; }

const OptionSpec* find_relay_option(std::string_view key) noexcept {
  return find_option(relay_option_table(), key);
}

std::string list_relay_options() { return list_options(relay_option_table()); }

}  // namespace conflux::config
