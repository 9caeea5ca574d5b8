// Building ProxyOptions from entries: the table drives the per-option work
// (through OptionBuilder); this file adds what involves several lines or
// options at once.
#include "conflux/config/proxy_options.hpp"

#include <algorithm>

#include "conflux/config/default_directories.hpp"
#include "option_builder.hpp"

namespace conflux::config {
namespace {

// tor's RECOMMENDED_MIN_CIRCUIT_BUILD_TIMEOUT.
constexpr std::chrono::seconds kRecommendedMinBuildTimeout{10};

// tor refuses "SocksPort 0" beside an open SocksPort: the user's intent is
// unclear. Returns the "0" line, if any, of the merged entries.
std::optional<SourcePos> socks_port_zero_line(const Entries& merged) {
  for (const auto& e : merged) {
    if (!key_equals(e.key, "SocksPort")) continue;
    auto v = parse_socks_port(e.value);
    if (v && !*v) return e.where;
  }
  return std::nullopt;
}

void check_socks_ports(OptionBuilder& b, ProxyOptions& o, const Entries& merged) {
  if (!b.seen("SocksPort")) {
    o.socks_ports = {SocksPortConfig{}};  // tor's default listener
    return;
  }
  auto zero = socks_port_zero_line(merged);
  if (zero && !o.socks_ports.empty())
    b.error_at(*zero, "SocksPort 0 (off) beside SocksPort lines that open a port: disable SOCKS or not?");
  if (o.socks_ports.empty())
    o.warnings.emplace_back(b.pos("SocksPort"), "SocksPort 0: no SOCKS listener, the proxy accepts no connections");
  for (std::size_t i = 0; i < o.socks_ports.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const auto& x = o.socks_ports[i];
      const auto& y = o.socks_ports[j];
      if (!x.is_auto && !y.is_auto && x.port == y.port && x.address == y.address)
        b.error("SocksPort", "SocksPort: two lines listen on the same address and port");
    }
}

// tor's defaults: no DirAuthority line means the public network, whose
// fallback caches come too unless FallbackDir lines name others. Fallbacks
// with DirAuthority lines of a private network are the user's to give.
void check_directories(OptionBuilder& b, ProxyOptions& o) {
  if (!b.seen("DirAuthority")) {
    o.dir_authorities = default_dir_authorities();
    if (!b.seen("FallbackDir")) o.fallback_dirs = default_fallback_dirs();
    o.default_directories = true;
  }
  // Seen and still empty: every line failed to parse, and says so.
  check_dir_authorities(b, o.dir_authorities);
  for (std::size_t i = 0; i < o.fallback_dirs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (o.fallback_dirs[i].rsa_identity == o.fallback_dirs[j].rsa_identity)
        b.error("FallbackDir", "FallbackDir: two lines give the same id=");
}

// tor: a Bridge line's transport must come from a ClientTransportPlugin.
void check_bridge_transports(OptionBuilder& b, const ProxyOptions& o) {
  for (const auto& br : o.bridges) {
    if (br.transport.empty()) continue;
    const bool provided = std::any_of(o.client_transport_plugins.begin(), o.client_transport_plugins.end(),
                                      [&](const TransportPluginLine& p) {
                                        return std::find(p.transports.begin(), p.transports.end(), br.transport) !=
                                               p.transports.end();
                                      });
    if (!provided)
      b.error("Bridge", "You have a Bridge line using the " + br.transport +
                            " pluggable transport, but there doesn't seem to be a corresponding ClientTransportPlugin line.");
  }
}

void validate(OptionBuilder& b, ProxyOptions& o, const Entries& merged, const UserEnvironment& env) {
  check_socks_ports(b, o, merged);
  // tor's TestingTorNetwork defaults: a test network's relays share one
  // address, so hops may share a subnet unless the torrc says otherwise.
  if (o.testing_tor_network && !b.seen("EnforceDistinctSubnets")) o.enforce_distinct_subnets = false;
  if (o.data_directory.empty()) o.data_directory = default_proxy_data_directory(env);
  if (o.data_directory.empty())
    b.error("DataDirectory", "DataDirectory is required: there is no default without HOME");
  check_directories(b, o);
  // A Bridge line that failed to parse has its own error already.
  if (o.use_bridges && o.bridges.empty() && !b.seen("Bridge"))
    b.error("UseBridges", "UseBridges is set but there is no Bridge line");
  if (!o.use_bridges && !o.bridges.empty())
    o.warnings.emplace_back(b.pos("Bridge"), "Bridge lines are ignored without UseBridges 1");
  if (o.use_bridges) check_bridge_transports(b, o);
  for (std::size_t i = 0; i < o.bridges.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (o.bridges[i].rsa_fingerprint == o.bridges[j].rsa_fingerprint)
        b.error("Bridge", "Bridge: two lines give the same identity");
  if (!o.learn_circuit_build_timeout && o.circuit_build_timeout < kRecommendedMinBuildTimeout)
    o.warnings.emplace_back(b.pos("CircuitBuildTimeout"),
                            "CircuitBuildTimeout is below 10 seconds and LearnCircuitBuildTimeout is 0: "
                            "many circuits may fail to build");
  warn_public_metrics(b, o.metrics_ports, o.warnings);
  if (o.logs.empty()) o.logs.push_back(LogSpec{});  // tor: notice and above to stdout
}

}  // namespace

Result<ProxyOptions, ConfigErrors> proxy_options_from_entries(const Entries& entries, std::string_view main_source,
                                                              const UserEnvironment& env) {
  ProxyOptions options;
  options.socks_ports.clear();  // filled by the lines, or by the default in validate
  OptionBuilder b(main_source);
  auto merged = single_layer(entries);
  for (const auto& e : merged) b.entry(options, proxy_option_table(), e);
  validate(b, options, merged, env);
  options.config_lines = std::move(merged);
  options.environment = env;
  auto errors = b.take_errors();
  if (!errors.empty()) return Unexpected{std::move(errors)};
  return options;
}

Result<ProxyOptions, ConfigErrors> load_proxy_options(const CommandLine& cl, const FileSource& files,
                                                      const UserEnvironment& env) {
  auto merged = load_layers(cl, files);
  if (!merged) return Unexpected{merged.error()};
  auto options = proxy_options_from_entries(*merged, main_source(cl), env);
  if (options) {
    options->control.config_file = cl.torrc_path.value_or("");
    options->control.defaults_file = cl.defaults_torrc_path.value_or("");
  }
  return options;
}

}  // namespace conflux::config
