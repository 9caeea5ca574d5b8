#include "relay_config.hpp"

#include <cstdio>
#include <iostream>

#include "conflux/config/file_source.hpp"

namespace conflux::relay {
namespace {

constexpr const char* kUsage =
    "Usage: conflux-relay [-f FILE] [--defaults-torrc FILE] [--Option value]...\n"
    "       conflux-relay --verify-config [-f FILE] [--Option value]...\n"
    "       conflux-relay --help | --version | --list-torrc-options\n"
    "\n"
    "The Conflux relay: a Tor-protocol relay core (guard, middle, bridge, exit, directory authority).\n"
    "Options are read from FILE (default " "/etc/conflux/torrc" ") in torrc syntax and may be given\n"
    "on the command line as --Option value, which replaces the file's lines for that option.\n"
    "Every option is described in docs/CONFIG.md.\n";

log::Severity to_log(config::Severity s) {
  switch (s) {
    case config::Severity::Debug: return log::Severity::Debug;
    case config::Severity::Info: return log::Severity::Info;
    case config::Severity::Notice: return log::Severity::Notice;
    case config::Severity::Warn: return log::Severity::Warn;
    case config::Severity::Err: return log::Severity::Err;
  }
  return log::Severity::Err;
}

void print_errors(const std::vector<config::ConfigError>& errors) {
  for (const auto& e : errors) std::cerr << "conflux-relay: " << e.to_string() << "\n";
}

std::optional<proto::ExitPolicy> build_policy(const config::RelayOptions& o) {
  std::vector<std::string> values;
  values.reserve(o.exit_policy.size());
  for (const auto& line : o.exit_policy) values.push_back(line.text);
  proto::ExitPolicyOptions popts;
  popts.exit_relay = o.is_exit();
  popts.reject_private = o.exit_policy_reject_private;
  popts.ipv6_exit = o.ipv6_exit;
  popts.add_default_policy = !o.bridge_relay;
  for (const auto& a : o.addresses) {
    if (a.is_v4()) {
      popts.own_addresses.emplace_back(cell::Ipv4Bytes{a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]});
    } else {
      cell::Ipv6Bytes v6{};
      std::copy(a.bytes.begin(), a.bytes.end(), v6.begin());
      popts.own_addresses.emplace_back(v6);
    }
  }
  auto built = proto::build_exit_policy(values, popts);
  if (!built) {
    const auto& e = built.error();
    config::ConfigError err;
    if (e.value_index < o.exit_policy.size()) err = {o.exit_policy[e.value_index].where.file,
                                                     o.exit_policy[e.value_index].where.line, ""};
    err.message = "ExitPolicy entry " + std::to_string(e.entry_index + 1) + ": " + std::string(to_string(e.error));
    print_errors({err});
    return std::nullopt;
  }
  for (const auto& ignored : built->ignored) {
    const auto& where = o.exit_policy.at(ignored.value_index).where;
    std::cerr << "conflux-relay: " << where.file << ":" << where.line
              << ": warning: ExitPolicy entry ignored (" << to_string(ignored.error) << ")\n";
  }
  return std::move(built->policy);
}

}  // namespace

StartupDecision decide_startup(int argc, const char* const* argv) {
  auto cl = config::parse_command_line(argc, argv, std::string(kDefaultTorrc));
  if (!cl) {
    print_errors({cl.error()});
    std::cerr << kUsage;
    return {std::nullopt, 1};
  }
  switch (cl->action) {
    case config::Action::Help:
      std::cout << kUsage;
      return {std::nullopt, 0};
    case config::Action::Version:
      std::cout << "conflux-relay " << kVersion << "\n";
      return {std::nullopt, 0};
    case config::Action::ListOptions:
      std::cout << config::list_relay_options();
      return {std::nullopt, 0};
    case config::Action::VerifyConfig:
    case config::Action::Run:
      break;
  }
  config::RealFileSource files;
  auto options = config::load_relay_options(*cl, files);
  if (!options) {
    print_errors(options.error());
    return {std::nullopt, 1};
  }
  for (const auto& w : options->warnings) std::cerr << "conflux-relay: warning: " << w.to_string() << "\n";
  auto policy = build_policy(*options);
  if (!policy) return {std::nullopt, 1};
  if (cl->action == config::Action::VerifyConfig) {
    std::cout << "Configuration was valid\n";  // tor's wording
    return {std::nullopt, 0};
  }
  return {StartupConfig{std::move(options).value(), std::move(*policy)}, 0};
}

std::vector<log::Destination> log_destinations(const config::RelayOptions& options) {
  std::vector<log::Destination> out;
  for (const auto& spec : options.logs) {
    log::Destination d;
    d.min = to_log(spec.min);
    d.max = to_log(spec.max);
    switch (spec.dest) {
      case config::LogSpec::Dest::Stdout: d.kind = log::Destination::Kind::Stdout; break;
      case config::LogSpec::Dest::Stderr:
      case config::LogSpec::Dest::Syslog:  // no syslog sink: stderr reaches the journal under systemd
        d.kind = log::Destination::Kind::Stderr;
        break;
      case config::LogSpec::Dest::File:
        d.kind = log::Destination::Kind::File;
        d.path = spec.path;
        break;
    }
    out.push_back(std::move(d));
  }
  if (out.empty()) out.push_back({});
  return out;
}

}  // namespace conflux::relay
