#pragma once
// The start-up steps every program with a torrc shares, as tor behaves:
// --help, --version and --list-torrc-options answered on stdout with status
// 0; a bad command line, or a configuration error, reported as
// "PROGRAM: FILE:LINE: message" on stderr with status 1; --verify-config's
// verdict in tor's words. The program loads its own options in between.
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/config/command_line.hpp"
#include "conflux/config/default_directories.hpp"
#include "conflux/config/option_spec.hpp"
#include "conflux/config/option_values.hpp"
#include "conflux/log/log.hpp"

namespace conflux::config {

struct ProgramInfo {
  std::string_view name;           // "conflux-relay": prefixes every message
  std::string_view version;        // "0.1.0"
  std::string_view default_torrc;  // read when -f is not given (missing: skipped)
  std::string_view usage;          // --help, and after a bad command line
  std::string (*list_options)();   // --list-torrc-options
};

// Either a command line whose configuration is to be loaded (action Run or
// VerifyConfig), or the exit status to end with, after printing what the
// action asked for.
struct CommandLineDecision {
  std::optional<CommandLine> load;
  int exit_status = 0;
};
[[nodiscard]] CommandLineDecision handle_command_line(const ProgramInfo& program, int argc,
                                                      const char* const* argv, std::ostream& out,
                                                      std::ostream& err);

// "PROGRAM: torrc:12: message", one line each.
void print_errors(std::string_view program, std::span<const ConfigError> errors, std::ostream& err);
// "PROGRAM: warning: torrc:12: message", one line each.
void print_warnings(std::string_view program, std::span<const ConfigError> warnings, std::ostream& err);

// This process's user: root or not (geteuid), and $HOME.
[[nodiscard]] UserEnvironment user_environment();

// tor's --verify-config verdict.
inline constexpr std::string_view kConfigValid = "Configuration was valid\n";

[[nodiscard]] log::Severity to_log_severity(Severity s) noexcept;
// The logger's destinations for the Log lines; none gives tor's default
// (notice and above to stdout). syslog goes to stderr, which reaches the
// journal under systemd (there is no syslog sink).
[[nodiscard]] std::vector<log::Destination> log_destinations(std::span<const LogSpec> logs);

}  // namespace conflux::config
