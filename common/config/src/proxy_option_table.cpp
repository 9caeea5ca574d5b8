// The proxy option table: one row per option. To add an option, add a field
// to ProxyOptions, a row here (a parser from values.hpp / option_values.hpp /
// option_table_support.hpp, or a small one below), and a line in docs/CONFIG.md.
#include "conflux/config/proxy_options.hpp"
#include "control_option_rows.hpp"
#include "option_table_support.hpp"

namespace conflux::config {
namespace {

using namespace table;

// tor's MIN_MAX_CIRCUIT_DIRTINESS and MAX_MAX_CIRCUIT_DIRTINESS.
constexpr std::int64_t kMinDirtiness = 10;
constexpr std::int64_t kMaxDirtiness = 30 * 24 * 3600;
constexpr std::int64_t kDay = 24 * 3600;
constexpr std::int64_t kMaxInterval = 0x7fffffff;

// "0" opens nothing; the default listener is added later only when no
// SocksPort line was given at all.
Applied apply_socks_port(ProxyOptions& o, const ConfigEntry& e) {
  auto v = parse_socks_port(e.value);
  if (!v) return v.error();
  if (!*v) return std::nullopt;
  if (!(*v)->address.is_loopback())
    o.warnings.emplace_back(e.where, "SocksPort listens beyond this host: anyone who reaches it can use "
                                     "this proxy (an open proxy)");
  o.socks_ports.push_back(**v);
  return std::nullopt;
}

void reset_socks_ports(ProxyOptions& o) { o.socks_ports.clear(); }

// tor raises a dirtiness below 10 seconds, with a warning, and refuses more
// than 30 days.
Applied apply_dirtiness(ProxyOptions& o, const ConfigEntry& e) {
  auto v = parse_interval(e.value);
  if (!v) return v.error();
  if (v->count() > kMaxDirtiness) return std::string("at most 30 days (as tor)");
  if (v->count() < kMinDirtiness) {
    o.warnings.emplace_back(e.where, "MaxCircuitDirtiness is too short; raising to 10 seconds (as tor)");
    *v = std::chrono::seconds{kMinDirtiness};
  }
  o.max_circuit_dirtiness = *v;
  return std::nullopt;
}

using P = ProxyOptions;
constexpr auto Same = TorCompat::Same;
constexpr auto Restricted = TorCompat::Restricted;
constexpr auto Ours = TorCompat::Ours;

// clang-format off
constexpr ProxyOptionSpec kOptions[] = {
  {"SocksPort", "", true, apply_socks_port, reset_socks_ports,
   "[ADDR:]PORT|auto [flags]", "127.0.0.1:9050", Restricted,
   "SOCKS listener; address defaults to 127.0.0.1; 0 disables; flags IsolateSOCKSAuth (default) "
   "NoIsolateSOCKSAuth IsolateDestPort IsolateDestAddr only"},
  {"DataDirectory", "", false, set_value<&P::data_directory, any_text>, reset_value<&P::data_directory>,
   "path", "~/.conflux-proxy", Same,
   "guard state and cached directory; /var/lib/conflux-proxy for root (tor: ~/.tor, /var/lib/tor)"},
  {"Log", "", true, add_value<&P::logs, parse_log>, reset_value<&P::logs>,
   "SEV[-SEV] stdout|stderr|syslog|file PATH", "notice stdout", Restricted, "no per-domain severities"},
  {"DirAuthority", "", true, add_value<&P::dir_authorities, parse_dir_authority>, reset_value<&P::dir_authorities>,
   "NICK [orport=PORT] v3ident=HEX40 ADDR:DIRPORT RSA_FINGERPRINT", "(the public Tor network's)", Restricted,
   "the consensus comes from these; v3ident= required (no bridge authorities)"},
  {"FallbackDir", "", true, add_value<&P::fallback_dirs, parse_fallback_dir>, reset_value<&P::fallback_dirs>,
   "ADDR[:DIRPORT] orport=PORT id=FINGERPRINT [weight=N] [ipv6=[ADDR]:PORT]",
   "(the public network's, without DirAuthority lines)", Same, "directory caches to bootstrap from"},
  {"UseBridges", "", false, set_value<&P::use_bridges, parse_bool>, reset_value<&P::use_bridges>,
   "0|1", "0", Same, "first hops are the Bridge lines instead of guards"},
  {"Bridge", "", true, add_value<&P::bridges, parse_bridge_line>, reset_value<&P::bridges>,
   "[TRANSPORT] ADDR:PORT RSA_FINGERPRINT [K=V...]", "(none)", Restricted,
   "the fingerprint is required; TRANSPORT needs a ClientTransportPlugin"},
  {"ClientTransportPlugin", "", true, add_value<&P::client_transport_plugins, parse_client_transport_plugin>,
   reset_value<&P::client_transport_plugins>, "TRANSPORT[,TRANSPORT...] exec PATH [ARGS...]", "(none)", Restricted,
   "managed pluggable transport (obfs4proxy) launched when a Bridge line needs it; no socks4/socks5 form"},
  {"NumEntryGuards", "", false, set_value<&P::num_entry_guards, bounded<std::uint32_t, 1, 10>>,
   reset_value<&P::num_entry_guards>, "integer 1-10", "1", Restricted, "primary guards in use; tor: 0 = consensus"},
  {"PerClientGuards", "", false, set_value<&P::per_client_guards, parse_bool>, reset_value<&P::per_client_guards>,
   "0|1", "0", Ours,
   "experiments: a guard selection per client (SOCKS username up to its first '/') as if each were its own tor"},
  {"PerClientGuardsMax", "", false, set_value<&P::per_client_guards_max, bounded<std::uint32_t, 1, 65536>>,
   reset_value<&P::per_client_guards_max>, "integer 1-65536", "1024", Ours,
   "clients PerClientGuards keeps guards for; a new client past it is refused (SOCKS general failure)"},
  {"MaxCircuitDirtiness", "", false, apply_dirtiness, reset_value<&P::max_circuit_dirtiness>,
   "interval 10 s - 30 days", "10 minutes", Same, "no new streams on a circuit first used longer ago"},
  {"CircuitBuildTimeout", "", false,
   set_value<&P::circuit_build_timeout, interval_within<1, kDay>>, reset_value<&P::circuit_build_timeout>,
   "interval 1 s - 1 day", "60 seconds", Restricted, "give up building a circuit after this long"},
  {"LearnCircuitBuildTimeout", "", false, set_value<&P::learn_circuit_build_timeout, parse_bool>,
   reset_value<&P::learn_circuit_build_timeout>, "0|1", "1", Same, "adapt the build timeout to observed times"},
  {"NewCircuitPeriod", "", false, set_value<&P::new_circuit_period, interval_within<1, kDay>>,
   reset_value<&P::new_circuit_period>, "interval 1 s - 1 day", "30 seconds", Restricted,
   "how often to consider building a new circuit"},
  {"EnforceDistinctSubnets", "", false, set_value<&P::enforce_distinct_subnets, parse_bool>,
   reset_value<&P::enforce_distinct_subnets>, "0|1", "1", Same, "no two hops in one IPv4 /16 or IPv6 /32"},
  {"SocksTimeout", "", false, set_value<&P::socks_timeout, interval_within<1, kMaxInterval>>,
   reset_value<&P::socks_timeout>, "interval", "2 minutes", Same, "how long a stream waits for a circuit"},
  {"MetricsPort", "", true, add_value<&P::metrics_ports, metrics_port>, reset_value<&P::metrics_ports>,
   "[ADDR:]PORT [prometheus]", "(none)", Same, "Prometheus metrics listener; default address 127.0.0.1"},
  {"OverrideConsensusParams", "", false, set_value<&P::override_consensus_params, parse_consensus_params>,
   reset_value<&P::override_consensus_params>, "K=V [K=V...]", "(none)", Ours,
   "experiments: these values instead of the consensus's (e.g. cc_alg=0 for fixed windows)"},
  {"ConfluxEnabled", "", false, set_value<&P::conflux_enabled, parse_autobool>, reset_value<&P::conflux_enabled>,
   "0|1|auto", "auto", Same, "link circuits into Conflux sets; auto = as the consensus says"},
  {"ConfluxClientUX", "", false, set_value<&P::conflux_client_ux, parse_conflux_ux>,
   reset_value<&P::conflux_client_ux>, "throughput|latency|throughput_lowmem|latency_lowmem", "throughput",
   Same, "what the exit's leg scheduling optimises"},
  {"ConfluxNumLegs", "", false, set_value<&P::conflux_num_legs, bounded<std::uint32_t, 2, 8>>,
   reset_value<&P::conflux_num_legs>, "integer 2-8", "2", Ours,
   "legs per Conflux set; tor takes it from the consensus (cfx_num_legs_set)"},
  {"MaxClientCircuitsPending", "", false,
   set_value<&P::max_client_circuits_pending, bounded<std::uint32_t, 1, 1024>>,
   reset_value<&P::max_client_circuits_pending>, "integer 1-1024", "32", Same, "circuits being built at once"},
  {"TestingTorNetwork", "", false, set_value<&P::testing_tor_network, parse_bool>,
   reset_value<&P::testing_tor_network>, "0|1", "0", Restricted,
   "a test network that just started: relaxed checks and timings"},
  {"DisableNetwork", "", false, set_value<&P::disable_network, parse_bool>, reset_value<&P::disable_network>,
   "0|1", "0", Restricted,
   "1: no directory fetches, transports, channels or circuits until 0 (SETCONF); SOCKS listeners stay open"},
  {"__OwningControllerProcess", "", false,
   set_value<&P::owning_controller_process, bounded<std::uint32_t, 1, 0x7fffffff>>,
   reset_value<&P::owning_controller_process>, "PID", "(none)", Same,
   "exit when this process is gone (a controller that owns the proxy, such as conflux-gui)"},
  // The control port (control_option_rows.hpp; the same rows in both tables).
  {"ControlPort", "", true, add_control_port<P>, reset_control_ports<P>, "[ADDR:]PORT|auto", "(none)", Restricted,
   "control-protocol listener (docs/CONTROL.md); address defaults to 127.0.0.1; no flags"},
  {"ControlSocket", "", true, add_control_socket<P>, reset_control_sockets<P>, "PATH [flags]|0", "(none)", Restricted,
   "control protocol on a unix socket, mode 0600 (GroupWritable 0660, WorldWritable 0666; RelaxDirModeCheck)"},
  {"ControlPortWriteToFile", "", false, set_control_port_file<P>, reset_control_port_file<P>, "path", "(none)", Same,
   "write \"PORT=127.0.0.1:N\" for each ControlPort here once bound (for ControlPort auto)"},
  {"CookieAuthentication", "", false, set_cookie_authentication<P>, reset_cookie_authentication<P>, "0|1", "0",
   Same, "controllers may authenticate with the cookie file (COOKIE, SAFECOOKIE)"},
  {"CookieAuthFile", "", false, set_cookie_auth_file<P>, reset_cookie_auth_file<P>, "path",
   "DataDirectory/control_auth_cookie", Same, "where the 32-byte cookie is written (mode 0600)"},
  {"HashedControlPassword", "", true, add_hashed_control_password<P>, reset_hashed_control_passwords<P>,
   "16:HEX (tor --hash-password)", "(none)", Same, "controllers may authenticate with one of these passwords"},
};
// clang-format on

}  // namespace

std::span<const ProxyOptionSpec> proxy_option_table() noexcept { return kOptions; }

const ProxyOptionSpec* find_proxy_option(std::string_view key) noexcept {
  return find_option(proxy_option_table(), key);
}

std::string list_proxy_options() { return list_options(proxy_option_table()); }

}  // namespace conflux::config
