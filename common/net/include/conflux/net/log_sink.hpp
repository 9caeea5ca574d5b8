#pragma once
// How the runtime reports what it does. The runtime takes a plain function so
// that it does not depend on a logging backend; the programs pass one that
// writes through conflux::log (same severities, so the adapter is a cast).
//
// Rule for every message: no keys, nonces or destination addresses above
// Debug.
#include <cstdint>
#include <functional>
#include <string_view>

namespace conflux::net {

enum class LogLevel : std::uint8_t { Debug, Info, Notice, Warn, Err };

using LogSink = std::function<void(LogLevel, std::string_view)>;

// Calls `sink` if it is set.
inline void emit(const LogSink& sink, LogLevel level, std::string_view message) {
  if (sink) sink(level, message);
}

}  // namespace conflux::net
