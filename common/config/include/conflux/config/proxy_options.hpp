#pragma once
// The options of conflux-proxy, the SOCKS onion proxy end users run, filled
// from the merged torrc layers. Same machinery and semantics as the relay's
// (option_spec.hpp, option_builder.hpp): unknown options are errors with
// file:line, a repeated singleton's last line wins with a warning, an empty
// value resets a singleton to its default. docs/CONFIG.md, section
// "conflux-proxy", lists every option with its type, default and tor
// compatibility.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/config/address.hpp"
#include "conflux/config/consensus_params.hpp"
#include "conflux/config/control_options.hpp"
#include "conflux/config/command_line.hpp"
#include "conflux/config/default_directories.hpp"
#include "conflux/config/error.hpp"
#include "conflux/config/fallback_dir.hpp"
#include "conflux/config/file_source.hpp"
#include "conflux/config/option_spec.hpp"
#include "conflux/config/option_values.hpp"
#include "conflux/config/torrc_parser.hpp"
#include "conflux/config/transport_lines.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config {

inline constexpr std::uint16_t kDefaultSocksPort = 9050;  // tor's

// One SOCKS listener: "SocksPort [ADDR:]PORT|auto [flags]". The address
// defaults to 127.0.0.1. Flags (case-insensitive, tor's names):
// IsolateSOCKSAuth (on by default) / NoIsolateSOCKSAuth, IsolateDestPort,
// IsolateDestAddr. Streams that differ in an isolated property never share a
// circuit.
struct SocksPortConfig {
  IpAddress address = IpAddress::v4(127, 0, 0, 1);
  std::uint16_t port = kDefaultSocksPort;  // meaningless when is_auto
  bool is_auto = false;                    // let the OS choose ("auto", "ADDR:auto")
  bool isolate_socks_auth = true;          // SOCKS username/password
  bool isolate_dest_port = false;
  bool isolate_dest_addr = false;
  bool operator==(const SocksPortConfig&) const = default;
};
// One SocksPort value; "0" (the port off) gives no listener. Unknown flags
// are errors.
[[nodiscard]] ValueResult<std::optional<SocksPortConfig>> parse_socks_port(std::string_view text);

// "Bridge [TRANSPORT] ADDR:PORT ID [K=V...]": a bridge to use as the first
// hop when UseBridges is 1, split as tor's parse_bridge_line does: a first
// word that is a C identifier is the transport, then the address; with a
// transport, the next word is a k=v argument (tor: when it has an '=' after
// its first character) or the identity, and every later word a k=v argument,
// handed to the transport as SOCKS credentials (at most 510 bytes, as tor);
// without one, the words after the address are the identity, joined as tor
// joins them ("4352 E584 ..."). ADDR is IPv4 or [IPv6]. ID is tor's RSA
// fingerprint (40 hex digits, optionally after '$'; the bridge's descriptor,
// fetched from the bridge, gives its Ed25519 identity); our former form with
// an Ed25519 identity is an error. Unlike tor, an identity is required.
struct BridgeLine {
  AddrPort address;
  RsaId rsa_fingerprint{};
  std::string transport{};  // "" for a plain bridge
  TransportArgs args{};     // the transport's k=v arguments (cert=..., iat-mode=...)
  bool operator==(const BridgeLine&) const = default;
};
[[nodiscard]] ValueResult<BridgeLine> parse_bridge_line(std::string_view text);

// ConfluxClientUX: what the client's Conflux sets optimise (tor's names).
enum class ConfluxUx : std::uint8_t { Throughput, Latency, ThroughputLowMem, LatencyLowMem };
[[nodiscard]] ValueResult<ConfluxUx> parse_conflux_ux(std::string_view text);
[[nodiscard]] std::string_view to_string(ConfluxUx ux) noexcept;

struct ProxyOptions {
  // SocksPort: the enabled listeners. No SocksPort line gives tor's default
  // {127.0.0.1:9050}; "SocksPort 0" alone leaves this empty (no listener).
  std::vector<SocksPortConfig> socks_ports = {SocksPortConfig{}};
  // DataDirectory: none given = default_proxy_data_directory() (tor's rule,
  // our name: ~/.conflux-proxy, /var/lib/conflux-proxy for root).
  std::string data_directory;
  std::vector<LogSpec> logs;                           // Log: none given = {notice-err stdout}
  // DirAuthority: none given = the public Tor network's authorities
  // (default_directories.hpp), and then also its FallbackDirs unless the
  // torrc has FallbackDir lines.
  std::vector<DirAuthorityLine> dir_authorities;
  std::vector<FallbackDirLine> fallback_dirs;          // FallbackDir
  bool default_directories = false;                    // the two above are tor's built-in lists
  bool use_bridges = false;                            // UseBridges: first hop is a Bridge
  std::vector<BridgeLine> bridges;                     // Bridge: required with UseBridges 1
  std::vector<TransportPluginLine> client_transport_plugins;  // ClientTransportPlugin (managed only)
  std::uint32_t num_entry_guards = 1;                  // NumEntryGuards 1..10
  // PerClientGuards (ours): a guard selection per client, named by the SOCKS
  // username up to its first '/' (client/path/client_guards.hpp); at most
  // PerClientGuardsMax clients, a new one past it refused.
  bool per_client_guards = false;
  std::uint32_t per_client_guards_max = 1024;          // PerClientGuardsMax 1..65536
  std::chrono::seconds max_circuit_dirtiness{600};     // MaxCircuitDirtiness: new streams stop using a circuit
  std::chrono::seconds circuit_build_timeout{60};      // CircuitBuildTimeout
  bool learn_circuit_build_timeout = true;             // LearnCircuitBuildTimeout
  std::chrono::seconds new_circuit_period{30};         // NewCircuitPeriod: how often to consider a new circuit
  bool enforce_distinct_subnets = true;                // EnforceDistinctSubnets: no two hops in one /16 (/32 v6)
  std::chrono::seconds socks_timeout{120};             // SocksTimeout: unattached stream waits this long
  std::vector<PortConfig> metrics_ports;               // MetricsPort; address defaults to 127.0.0.1
  AutoBool conflux_enabled = AutoBool::Auto;           // ConfluxEnabled
  ConsensusParamMap override_consensus_params;         // OverrideConsensusParams (ours): experiments
  ConfluxUx conflux_client_ux = ConfluxUx::Throughput; // ConfluxClientUX
  std::uint32_t conflux_num_legs = 2;                  // ConfluxNumLegs 2..8 (ours)
  std::uint32_t max_client_circuits_pending = 32;      // MaxClientCircuitsPending 1..1024
  bool testing_tor_network = false;                    // TestingTorNetwork
  // DisableNetwork (tor's): no directory fetch, transport, channel or circuit
  // until it is 0 again; a controller sets its bridges first (conflux-gui).
  bool disable_network = false;
  // __OwningControllerProcess (tor's): the proxy exits when this process is
  // gone (checked every 15 s, as tor does); 0 = none.
  std::uint32_t owning_controller_process = 0;
  ControlOptions control;                              // ControlPort, CookieAuthentication, ...
  Entries config_lines;                                // the effective torrc lines (GETCONF)
  UserEnvironment environment;                         // what DataDirectory's default came from (SETCONF re-validates with it)

  // Non-fatal remarks (repeated singletons, empty list lines, open proxies).
  std::vector<ConfigError> warnings;
};

using ProxyOptionSpec = BasicOptionSpec<ProxyOptions>;

[[nodiscard]] std::span<const ProxyOptionSpec> proxy_option_table() noexcept;
[[nodiscard]] const ProxyOptionSpec* find_proxy_option(std::string_view key) noexcept;
// For --list-torrc-options: "Name" per line, in table order.
[[nodiscard]] std::string list_proxy_options();

// As relay_options_from_entries: one layer, every error found is returned;
// `main_source` names the configuration in errors that belong to no line;
// `env` gives DataDirectory's default (none with the default `env`).
[[nodiscard]] Result<ProxyOptions, ConfigErrors> proxy_options_from_entries(
    const Entries& entries, std::string_view main_source = kStringSource, const UserEnvironment& env = {});

// As load_relay_options: --defaults-torrc, the torrc (with includes) and the
// command-line overrides, then the options.
[[nodiscard]] Result<ProxyOptions, ConfigErrors> load_proxy_options(const CommandLine& cl, const FileSource& files,
                                                                    const UserEnvironment& env = {});

}  // namespace conflux::config
