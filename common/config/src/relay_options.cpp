// Building RelayOptions from entries: the table drives the per-option work
// (through OptionBuilder); this file adds what involves several options at once.
#include "conflux/config/relay_options.hpp"

#include <algorithm>

#include "option_builder.hpp"

namespace conflux::config {
namespace {

// tor ignores, with a warning, a listen address or options for a transport
// no ServerTransportPlugin launches; we refuse two lines for one transport
// (tor silently takes the first).
void check_server_transports(OptionBuilder& b, RelayOptions& o) {
  auto launched = [&o](const std::string& t) {
    return std::any_of(o.server_transport_plugins.begin(), o.server_transport_plugins.end(),
                       [&](const TransportPluginLine& p) {
                         return std::find(p.transports.begin(), p.transports.end(), t) != p.transports.end();
                       });
  };
  for (std::size_t i = 0; i < o.server_transport_listen_addrs.size(); ++i) {
    const auto& t = o.server_transport_listen_addrs[i].transport;
    if (!launched(t))
      o.warnings.emplace_back(b.pos("ServerTransportListenAddr"),
                              "no ServerTransportPlugin provides '" + t + "': its ServerTransportListenAddr is ignored");
    for (std::size_t j = 0; j < i; ++j)
      if (o.server_transport_listen_addrs[j].transport == t)
        b.error("ServerTransportListenAddr", "two ServerTransportListenAddr lines for '" + t + "'");
  }
  for (std::size_t i = 0; i < o.server_transport_options.size(); ++i) {
    const auto& t = o.server_transport_options[i].transport;
    if (!launched(t))
      o.warnings.emplace_back(b.pos("ServerTransportOptions"),
                              "no ServerTransportPlugin provides '" + t + "': its ServerTransportOptions are ignored");
    for (std::size_t j = 0; j < i; ++j)
      if (o.server_transport_options[j].transport == t)
        b.error("ServerTransportOptions", "two ServerTransportOptions lines for '" + t + "'");
  }
}

// tor ignores the TestingDirAuthVote* options outside a test network's
// authority, silently; we say so.
void warn_unused_testing_votes(OptionBuilder& b, RelayOptions& o) {
  for (std::string_view name : {"TestingDirAuthVoteGuard", "TestingDirAuthVoteGuardIsStrict",
                                "TestingDirAuthVoteExit", "TestingDirAuthVoteExitIsStrict"}) {
    if (!b.seen(name)) continue;
    if (!o.testing_tor_network)
      o.warnings.emplace_back(b.pos(name), std::string(name) + " has no effect without TestingTorNetwork 1");
    else if (!o.authoritative_directory)
      o.warnings.emplace_back(b.pos(name), std::string(name) + " has no effect but at an authority");
  }
}

// tor reads V3BandwidthsFile only at an authority.
void warn_unused_bandwidth_file(OptionBuilder& b, RelayOptions& o) {
  if (b.seen("V3BandwidthsFile") && !o.authoritative_directory)
    o.warnings.emplace_back(b.pos("V3BandwidthsFile"), "V3BandwidthsFile has no effect but at an authority");
}

// Cross-option checks. Each error points at the line most likely to need the
// fix, or at the configuration as a whole when no line is involved.
void validate(OptionBuilder& b, RelayOptions& o, const UserEnvironment& env) {
  auto error = [&b](std::string_view option, std::string message) { b.error(option, std::move(message)); };
  if (o.data_directory.empty()) o.data_directory = default_relay_data_directory(env);
  if (o.data_directory.empty()) error("DataDirectory", "DataDirectory is required: there is no default without HOME");
  if (std::none_of(o.or_ports.begin(), o.or_ports.end(), [](const PortConfig& p) { return p.enabled(); }))
    error("ORPort", "an ORPort is required: conflux-relay always relays");
  std::size_t v4 = 0, v6 = 0;
  for (const auto& a : o.addresses) (a.is_v4() ? v4 : v6)++;
  if (v4 > 1 || v6 > 1) error("Address", "Address: at most one IPv4 and one IPv6 address");
  if (o.bandwidth_burst < o.bandwidth_rate)
    error(b.seen("BandwidthBurst") ? "BandwidthBurst" : "BandwidthRate",
          "BandwidthBurst (" + std::to_string(o.bandwidth_burst) + ") must be at least BandwidthRate (" +
              std::to_string(o.bandwidth_rate) + ")");
  if (o.bandwidth_rate < kTorMinRelayBandwidth)
    o.warnings.emplace_back(b.pos("BandwidthRate"), "BandwidthRate is below 75 KBytes, which tor requires of relays");
  if (o.bridge_relay && o.authoritative_directory)
    error("BridgeRelay", "BridgeRelay and AuthoritativeDirectory cannot both be set");
  if (o.authoritative_directory &&
      std::none_of(o.dir_ports.begin(), o.dir_ports.end(), [](const PortConfig& p) { return p.enabled(); }))
    error("AuthoritativeDirectory", "a directory authority needs a DirPort");
  check_dir_authorities(b, o.dir_authorities);
  if (o.dir_authorities.empty() && !o.bridge_relay)
    o.warnings.emplace_back(b.pos("DirAuthority"), "no DirAuthority lines: the descriptor is published nowhere");
  if (o.ipv6_exit && o.exit_relay == AutoBool::False)
    o.warnings.emplace_back(b.pos("IPv6Exit"), "IPv6Exit has no effect with ExitRelay 0");
  check_server_transports(b, o);
  warn_unused_testing_votes(b, o);
  warn_unused_bandwidth_file(b, o);
  warn_public_metrics(b, o.metrics_ports, o.warnings);
  if (o.logs.empty()) o.logs.push_back(LogSpec{});  // tor: notice and above to stdout
}

}  // namespace

Result<RelayOptions, ConfigErrors> relay_options_from_entries(const Entries& entries, std::string_view main_source,
                                                              const UserEnvironment& env) {
  RelayOptions options;
  OptionBuilder b(main_source);
  auto merged = single_layer(entries);
  for (const auto& e : merged) b.entry(options, relay_option_table(), e);
  validate(b, options, env);
  options.config_lines = std::move(merged);
  auto errors = b.take_errors();
  if (!errors.empty()) return Unexpected{std::move(errors)};
  return options;
}

Result<RelayOptions, ConfigErrors> load_relay_options(const CommandLine& cl, const FileSource& files,
                                                      const UserEnvironment& env) {
  auto merged = load_layers(cl, files);
  if (!merged) return Unexpected{merged.error()};
  auto options = relay_options_from_entries(*merged, main_source(cl), env);
  if (options) {
    options->control.config_file = cl.torrc_path.value_or("");
    options->control.defaults_file = cl.defaults_torrc_path.value_or("");
  }
  return options;
}

}  // namespace conflux::config
