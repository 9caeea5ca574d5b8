#pragma once
// Where log lines go (spdlog underneath). Programs configure destinations
// once at start-up; libraries only see log::Sink (sink.hpp).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/log/sink.hpp"

namespace conflux::log {

[[nodiscard]] std::string_view to_string(Severity s) noexcept;

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

// Also called with every line of notice and above (the ControlPort's
// NOTICE/WARN/ERR events), on the writer's thread; an empty function
// removes it. A line the observer itself writes is not observed again.
void set_observer(std::function<void(Severity, std::string_view)> observer);

// A Sink that writes through write(), optionally prefixed with a component
// name ("channel: ...").
[[nodiscard]] Sink sink(std::string component = {});

// Flushes and closes every destination (before exit).
void shutdown();

}  // namespace conflux::log
