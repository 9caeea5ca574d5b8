#pragma once
// Tor's five severities and where log lines go. Libraries take a Sink (a
// plain function) so they stay independent of the logging backend; the
// programs configure destinations once at start-up.
//
// Rule for every caller: no keys, nonces or destination addresses above
// Debug.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace conflux::log {

enum class Severity : std::uint8_t { Debug, Info, Notice, Warn, Err };

[[nodiscard]] std::string_view to_string(Severity s) noexcept;

using Sink = std::function<void(Severity, std::string_view)>;

struct Destination {
  enum class Kind : std::uint8_t { Stdout, Stderr, File };
  Kind kind = Kind::Stdout;
  std::string path;                  // for File
  Severity min = Severity::Notice;   // inclusive range, as tor's "Log notice-err stdout"
  Severity max = Severity::Err;
};

// Replaces the process's destinations. Throws std::runtime_error if a log
// file cannot be opened (the program reports it as a config error).
void configure(const std::vector<Destination>& destinations);

// Writes one line to every destination whose range includes `s`.
void write(Severity s, std::string_view message);

// A Sink that writes through write(), optionally prefixed with a component
// name ("channel: ...").
[[nodiscard]] Sink sink(std::string component = {});

// Flushes and closes every destination (before exit).
void shutdown();

}  // namespace conflux::log
