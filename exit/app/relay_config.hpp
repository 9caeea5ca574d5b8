#pragma once
// Start-up of conflux-relay before the event loop: command line, torrc,
// --help/--version/--verify-config, log destinations and the exit policy,
// each failure reported as tor does (file:line, exit status 1).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conflux/config/file_source.hpp"
#include "conflux/config/relay_options.hpp"
#include "conflux/config/resolv_conf.hpp"
#include "conflux/log/log.hpp"
#include "conflux/proto/exit_policy_builder.hpp"

namespace conflux::relay {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kDefaultTorrc = "/etc/conflux/torrc";

// GETINFO version and PROTOCOLINFO's VERSION Tor=: the tor release whose
// control protocol we speak, then ours (docs/CONTROL.md).
[[nodiscard]] inline std::string control_version() {
  return std::string("0.4.9.0-conflux (conflux-relay-") + kVersion + ")";
}

struct StartupConfig {
  config::RelayOptions options;
  proto::ExitPolicy exit_policy;
  config::CommandLine command_line;  // read again on SIGHUP
  // The resolver's nameservers (read_nameservers), read again on SIGHUP.
  std::vector<config::AddrPort> nameservers;
};

// Either a configuration to run with, or the exit status to end with (after
// printing what the action asked for: help, version, option list, the
// verify-config verdict, or errors).
struct StartupDecision {
  std::optional<StartupConfig> run;
  int exit_status = 0;
};

StartupDecision decide_startup(int argc, const char* const* argv);

using ErrorSink = std::function<void(const std::vector<config::ConfigError>&)>;
// The exit policy the options describe (ExitPolicy lines, ExitRelay,
// ExitPolicyRejectPrivate, IPv6Exit, Address); errors go to `report`.
std::optional<proto::ExitPolicy> build_policy(const config::RelayOptions& o, const ErrorSink& report);

// The resolver's nameservers: ServerDNSResolvConfFile's, or those of
// `system_file` (/etc/resolv.conf) when it is unset, with tor's fallback to
// 127.0.0.1 (config::resolver_nameservers). Warnings go to `warn`; nullopt,
// with the error reported, when the named file cannot be read or names no
// nameserver.
std::optional<std::vector<config::AddrPort>> read_nameservers(
    const config::RelayOptions& o, const config::FileSource& files, const ErrorSink& report, const ErrorSink& warn,
    const std::string& system_file = config::kSystemResolvConf);
std::optional<std::vector<config::AddrPort>> read_nameservers(const config::RelayOptions& o, const ErrorSink& report,
                                                              const ErrorSink& warn);
// Each as a warning in the log (SIGHUP, SETCONF).
void log_config_warnings(const std::vector<config::ConfigError>& warnings);

// SIGHUP: the torrc read again with the same command line. Errors are
// logged (file:line) and give nullopt: the relay keeps its configuration.
std::optional<StartupConfig> reload_startup_config(const config::CommandLine& command_line);

std::vector<log::Destination> log_destinations(const config::RelayOptions& options);

}  // namespace conflux::relay
