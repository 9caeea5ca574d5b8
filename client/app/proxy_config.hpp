#pragma once
// Start-up of conflux-proxy before the event loop: command line, torrc,
// --help/--version/--verify-config/--list-torrc-options, log destinations,
// each failure reported as tor does (file:line, exit status 1). The same
// steps as conflux-relay's (conflux/config/program.hpp).
#include <optional>
#include <string>
#include <vector>

#include "conflux/config/proxy_options.hpp"
#include "conflux/log/log.hpp"

namespace conflux::proxy {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kDefaultTorrc = "/etc/conflux/proxy-torrc";

// GETINFO version and PROTOCOLINFO's VERSION Tor=: the tor release whose
// control protocol we speak, then ours (stem reads the first part to decide
// what the controller may ask; docs/CONTROL.md).
[[nodiscard]] inline std::string control_version() {
  return std::string("0.4.9.0-conflux (conflux-proxy-") + kVersion + ")";
}

// Either options to run with, or the exit status to end with (after printing
// what the action asked for: help, version, option list, the verify-config
// verdict, or errors). Warnings are printed on stderr only for
// --verify-config; when running they stay in run->warnings for the log.
struct StartupDecision {
  std::optional<config::ProxyOptions> run;
  int exit_status = 0;
};

StartupDecision decide_startup(int argc, const char* const* argv);

std::vector<log::Destination> log_destinations(const config::ProxyOptions& options);

}  // namespace conflux::proxy
