#pragma once
// Where a configuration entry came from, and what was wrong with it.
#include <cstdint>
#include <string>
#include <utility>

namespace conflux::config {

// Names used for entries that did not come from a file.
inline constexpr const char* kCommandLineSource = "command line";
inline constexpr const char* kStringSource = "<string>";

struct SourcePos {
  std::string file;     // path as given (or kCommandLineSource / kStringSource)
  std::uint32_t line = 0;  // 1-based line in the file, or argv index on the command line; 0 = unknown
  bool operator==(const SourcePos&) const = default;
};

struct ConfigError {
  std::string file;
  std::uint32_t line = 0;
  std::string message;

  ConfigError() = default;
  ConfigError(std::string f, std::uint32_t l, std::string m)
      : file(std::move(f)), line(l), message(std::move(m)) {}
  ConfigError(const SourcePos& pos, std::string m) : file(pos.file), line(pos.line), message(std::move(m)) {}

  // "torrc:12: message" (or "torrc: message" when the line is unknown).
  [[nodiscard]] std::string to_string() const;
  bool operator==(const ConfigError&) const = default;
};

}  // namespace conflux::config
