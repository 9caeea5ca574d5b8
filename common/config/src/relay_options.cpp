// Building RelayOptions from entries: the table drives the per-option work;
// this file adds what involves several options at once.
#include "conflux/config/relay_options.hpp"

#include <algorithm>
#include <map>

#include "conflux/config/layers.hpp"

namespace conflux::config {
namespace {

class Builder {
 public:
  explicit Builder(std::string_view main_source) : main_(main_source) {}

  void entry(RelayOptions& o, const ConfigEntry& e) {
    if (key_equals(e.key, kIncludeKey)) {
      errors_.emplace_back(e.where, "%include was not resolved (parse with a FileSource)");
      return;
    }
    const OptionSpec* spec = find_relay_option(e.key);
    if (spec == nullptr) {
      errors_.emplace_back(e.where, "unknown option '" + e.key + "'");
      return;
    }
    if (e.value.empty()) {
      if (spec->repeatable) {
        o.warnings.emplace_back(e.where, std::string(spec->name) + " has no value; line skipped");
      } else {
        spec->reset(o);
        seen_[spec->name] = e.where;
      }
      return;
    }
    if (!spec->repeatable && seen_.count(spec->name) != 0)
      o.warnings.emplace_back(e.where, std::string(spec->name) + " is given more than once; the last value wins");
    if (auto err = spec->apply(o, e)) errors_.emplace_back(e.where, std::string(spec->name) + ": " + *err);
    seen_[spec->name] = e.where;
  }

  // Cross-option checks. Each error points at the line most likely to need
  // the fix, or at the configuration as a whole when no line is involved.
  void validate(RelayOptions& o) {
    if (o.data_directory.empty()) error("DataDirectory", "DataDirectory is required");
    if (std::none_of(o.or_ports.begin(), o.or_ports.end(), [](const PortConfig& p) { return p.enabled(); }))
      error("ORPort", "an ORPort is required: conflux-relay always relays");
    std::size_t v4 = 0, v6 = 0;
    for (const auto& a : o.addresses) (a.is_v4() ? v4 : v6)++;
    if (v4 > 1 || v6 > 1) error("Address", "Address: at most one IPv4 and one IPv6 address");
    if (o.bandwidth_burst < o.bandwidth_rate)
      error(seen_.count("BandwidthBurst") != 0 ? "BandwidthBurst" : "BandwidthRate",
            "BandwidthBurst (" + std::to_string(o.bandwidth_burst) + ") must be at least BandwidthRate (" +
                std::to_string(o.bandwidth_rate) + ")");
    if (o.bandwidth_rate < kTorMinRelayBandwidth)
      o.warnings.emplace_back(pos("BandwidthRate"), "BandwidthRate is below 75 KBytes, which tor requires of relays");
    if (o.bridge_relay && o.authoritative_directory)
      error("BridgeRelay", "BridgeRelay and AuthoritativeDirectory cannot both be set");
    if (o.authoritative_directory &&
        std::none_of(o.dir_ports.begin(), o.dir_ports.end(), [](const PortConfig& p) { return p.enabled(); }))
      error("AuthoritativeDirectory", "a directory authority needs a DirPort");
    for (std::size_t i = 0; i < o.dir_authorities.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const auto& a = o.dir_authorities[i];
        const auto& b = o.dir_authorities[j];
        if (key_equals(a.nickname, b.nickname) || a.ed25519_id == b.ed25519_id)
          error("DirAuthority", "DirAuthority: two authorities share a nickname or an identity");
      }
    if (o.dir_authorities.empty() && !o.bridge_relay)
      o.warnings.emplace_back(pos("DirAuthority"), "no DirAuthority lines: the descriptor is published nowhere");
    if (o.ipv6_exit && o.exit_relay == AutoBool::False)
      o.warnings.emplace_back(pos("IPv6Exit"), "IPv6Exit has no effect with ExitRelay 0");
    for (const auto& m : o.metrics_ports) {
      bool loopback = m.address && (m.address->is_v4() ? m.address->bytes[0] == 127
                                                       : *m.address == loopback6());
      if (!loopback) o.warnings.emplace_back(pos("MetricsPort"), "MetricsPort is reachable beyond this host");
    }
    if (o.logs.empty()) o.logs.push_back(LogSpec{});  // tor: notice and above to stdout
  }

  ConfigErrors take_errors() { return std::move(errors_); }

 private:
  static IpAddress loopback6() {
    IpAddress ip;
    ip.family = IpAddress::Family::V6;
    ip.bytes[15] = 1;
    return ip;
  }

  SourcePos pos(std::string_view option) const {
    auto it = seen_.find(option);
    if (it != seen_.end()) return it->second;
    return {std::string(main_), 0};
  }
  void error(std::string_view option, std::string message) { errors_.emplace_back(pos(option), std::move(message)); }

  std::string main_;
  std::map<std::string_view, SourcePos> seen_;  // canonical name -> last line
  ConfigErrors errors_;
};

}  // namespace

Result<RelayOptions, ConfigErrors> relay_options_from_entries(const Entries& entries, std::string_view main_source) {
  const Entries layer[] = {entries};
  auto merged = merge_layers(layer);
  RelayOptions options;
  Builder b(main_source);
  for (const auto& e : merged) b.entry(options, e);
  b.validate(options);
  auto errors = b.take_errors();
  if (!errors.empty()) return Unexpected{std::move(errors)};
  return options;
}

Result<RelayOptions, ConfigErrors> load_relay_options(const CommandLine& cl, const FileSource& files) {
  ConfigErrors errors;
  auto load = [&](const std::optional<std::string>& path, bool missing_is_error) -> Entries {
    if (!path) return {};
    if (files.kind(*path) == PathKind::Missing && !missing_is_error) return {};
    auto parsed = load_torrc_file(*path, files);
    if (!parsed) {
      errors.push_back(parsed.error());
      return {};
    }
    return std::move(*parsed);
  };
  auto defaults = load(cl.defaults_torrc_path, !cl.ignore_missing_torrc);
  auto torrc = load(cl.torrc_path, cl.torrc_explicit && !cl.ignore_missing_torrc);
  if (!errors.empty()) return Unexpected{std::move(errors)};
  auto merged = merge_layers(defaults, torrc, cl.overrides);
  return relay_options_from_entries(merged, cl.torrc_path ? std::string_view(*cl.torrc_path)
                                                          : std::string_view(kCommandLineSource));
}

}  // namespace conflux::config
