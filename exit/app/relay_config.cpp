#include "relay_config.hpp"

#include <cstdio>
#include <functional>
#include <iostream>

#include "conflux/config/file_source.hpp"
#include "conflux/config/resolv_conf.hpp"
#include "conflux/config/program.hpp"

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


void print_errors(const std::vector<config::ConfigError>& errors) {
  config::print_errors("conflux-relay", errors, std::cerr);
}


}  // namespace

std::optional<std::vector<config::AddrPort>> read_nameservers(const config::RelayOptions& o,
                                                              const config::FileSource& files,
                                                              const ErrorSink& report, const ErrorSink& warn,
                                                              const std::string& system_file) {
  auto found = config::resolver_nameservers(o.server_dns_resolv_conf_file, files, system_file);
  if (!found) {
    report({found.error()});
    return std::nullopt;
  }
  if (!found->warnings.empty()) warn(found->warnings);
  return std::move(found->nameservers);
}

std::optional<std::vector<config::AddrPort>> read_nameservers(const config::RelayOptions& o, const ErrorSink& report,
                                                              const ErrorSink& warn) {
  return read_nameservers(o, config::RealFileSource{}, report, warn);
}

namespace {

// The torrc (with the command line's overrides) and the exit policy built from it.
std::optional<StartupConfig> load_startup_config(const config::CommandLine& cl, const ErrorSink& report,
                                                 const ErrorSink& warn) {
  config::RealFileSource files;
  auto options = config::load_relay_options(cl, files, config::user_environment());
  if (!options) {
    report(options.error());
    return std::nullopt;
  }
  config::print_warnings("conflux-relay", options->warnings, std::cerr);
  auto policy = build_policy(*options, report);
  if (!policy) return std::nullopt;
  auto nameservers = read_nameservers(*options, files, report, warn);
  if (!nameservers) return std::nullopt;
  return StartupConfig{std::move(options).value(), std::move(*policy), cl, std::move(*nameservers)};
}

}  // namespace

std::optional<proto::ExitPolicy> build_policy(const config::RelayOptions& o, const ErrorSink& report) {
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
    report({err});
    return std::nullopt;
  }
  for (const auto& ignored : built->ignored) {
    const auto& where = o.exit_policy.at(ignored.value_index).where;
    std::cerr << "conflux-relay: " << where.file << ":" << where.line
              << ": warning: ExitPolicy entry ignored (" << to_string(ignored.error) << ")\n";
  }
  return std::move(built->policy);
}

StartupDecision decide_startup(int argc, const char* const* argv) {
  const config::ProgramInfo program{"conflux-relay", kVersion, kDefaultTorrc, kUsage, config::list_relay_options};
  auto cl = config::handle_command_line(program, argc, argv, std::cout, std::cerr);
  if (!cl.load) return {std::nullopt, cl.exit_status};
  auto loaded = load_startup_config(*cl.load, print_errors, [](const std::vector<config::ConfigError>& warnings) {
    config::print_warnings("conflux-relay", warnings, std::cerr);
  });
  if (!loaded) return {std::nullopt, 1};
  if (cl.load->action == config::Action::VerifyConfig) {
    std::cout << config::kConfigValid;
    return {std::nullopt, 0};
  }
  return {std::move(loaded), 0};
}

void log_config_warnings(const std::vector<config::ConfigError>& warnings) {
  for (const auto& w : warnings) log::write(log::Severity::Warn, w.to_string());
}

std::optional<StartupConfig> reload_startup_config(const config::CommandLine& command_line) {
  return load_startup_config(command_line, [](const std::vector<config::ConfigError>& errors) {
    for (const auto& e : errors)
      log::write(log::Severity::Warn, e.file + ":" + std::to_string(e.line) + ": " + e.message);
  }, log_config_warnings);
}

std::vector<log::Destination> log_destinations(const config::RelayOptions& options) {
  return config::log_destinations(options.logs);
}

}  // namespace conflux::relay
