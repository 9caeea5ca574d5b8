#include "conflux/config/program.hpp"

#include <unistd.h>

#include <cstdlib>

namespace conflux::config {

UserEnvironment user_environment() {
  UserEnvironment env;
  env.is_root = ::geteuid() == 0;
  // Read once at start-up, before any thread exists.
  if (const char* home = std::getenv("HOME")) env.home = home;  // NOLINT(concurrency-mt-unsafe)
  return env;
}

CommandLineDecision handle_command_line(const ProgramInfo& program, int argc, const char* const* argv,
                                        std::ostream& out, std::ostream& err) {
  auto cl = parse_command_line(argc, argv, std::string(program.default_torrc));
  if (!cl) {
    const ConfigError errors[] = {cl.error()};
    print_errors(program.name, errors, err);
    err << program.usage;
    return {std::nullopt, 1};
  }
  switch (cl->action) {
    case Action::Help:
      out << program.usage;
      return {std::nullopt, 0};
    case Action::Version:
      out << program.name << " " << program.version << "\n";
      return {std::nullopt, 0};
    case Action::ListOptions:
      out << program.list_options();
      return {std::nullopt, 0};
    case Action::VerifyConfig:
    case Action::Run:
      break;
  }
  return {std::move(*cl), 0};
}

void print_errors(std::string_view program, std::span<const ConfigError> errors, std::ostream& err) {
  for (const auto& e : errors) err << program << ": " << e.to_string() << "\n";
}

void print_warnings(std::string_view program, std::span<const ConfigError> warnings, std::ostream& err) {
  for (const auto& w : warnings) err << program << ": warning: " << w.to_string() << "\n";
}

log::Severity to_log_severity(Severity s) noexcept {
  switch (s) {
    case Severity::Debug: return log::Severity::Debug;
    case Severity::Info: return log::Severity::Info;
    case Severity::Notice: return log::Severity::Notice;
    case Severity::Warn: return log::Severity::Warn;
    case Severity::Err: return log::Severity::Err;
  }
  return log::Severity::Err;
}

std::vector<log::Destination> log_destinations(std::span<const LogSpec> logs) {
  std::vector<log::Destination> out;
  for (const auto& spec : logs) {
    log::Destination d;
    d.min = to_log_severity(spec.min);
    d.max = to_log_severity(spec.max);
    switch (spec.dest) {
      case LogSpec::Dest::Stdout: d.kind = log::Destination::Kind::Stdout; break;
      case LogSpec::Dest::Stderr:
      case LogSpec::Dest::Syslog: d.kind = log::Destination::Kind::Stderr; break;
      case LogSpec::Dest::File:
        d.kind = log::Destination::Kind::File;
        d.path = spec.path;
        break;
    }
    out.push_back(std::move(d));
  }
  if (out.empty()) out.push_back({});
  return out;
}

}  // namespace conflux::config
