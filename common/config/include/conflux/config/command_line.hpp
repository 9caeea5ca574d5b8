#pragma once
// The command line, as tor reads it (a pure function of argv):
//   -f FILE | --torrc-file FILE    the torrc (default: the caller's, or none)
//   --defaults-torrc FILE          a lower-priority defaults file
//   --ignore-missing-torrc         a missing torrc is not an error
//   --verify-config                check the configuration and exit
//   -h | --help, --version, --list-torrc-options (alias --list-options)
//   --Key value                    replaces every line of Key from the files
//   --+Key value | +Key value      appends to the files' lines of Key
//   --/Key | /Key                  removes every line of Key from the files
// A value is always the next argument, even if it starts with '-'. Anything
// else (unknown -x flags, bare words, tor flags we do not implement such as
// --hash-password or --keygen) is an error. Whether Key is a known option is
// checked later by the option schema, which reports it with the argv index.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "conflux/bytes/result.hpp"
#include "conflux/config/error.hpp"
#include "conflux/config/torrc_parser.hpp"

namespace conflux::config {

enum class Action : std::uint8_t { Run, VerifyConfig, Help, Version, ListOptions };

struct CommandLine {
  Action action = Action::Run;              // Help > Version > ListOptions > VerifyConfig > Run
  std::optional<std::string> torrc_path;    // -f, else the caller's default
  bool torrc_explicit = false;              // true when -f was given (a missing file is then an error)
  std::optional<std::string> defaults_torrc_path;
  bool ignore_missing_torrc = false;
  Entries overrides;  // where = {kCommandLineSource, argv index of the --Key argument}
};

// `args` excludes the program name; positions reported are argv indices
// (args[0] is argv[1]).
[[nodiscard]] Result<CommandLine, ConfigError> parse_command_line(
    std::span<const std::string_view> args, const std::optional<std::string>& default_torrc = std::nullopt);
[[nodiscard]] Result<CommandLine, ConfigError> parse_command_line(
    int argc, const char* const* argv, const std::optional<std::string>& default_torrc = std::nullopt);

}  // namespace conflux::config
