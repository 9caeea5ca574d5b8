#pragma once
// How the runtime reports what it does. The runtime takes a plain function so
// that it does not depend on a logging backend; the programs pass one that
// writes through conflux::log (same severities, so the adapter is a cast).
//
// Rule for every message: no keys, nonces or destination addresses above
// Debug.
#include <string_view>

#include "conflux/log/sink.hpp"

namespace conflux::net {

// The project-wide logging vocabulary (common/log/sink.hpp).
using LogLevel = log::Severity;
using LogSink = log::Sink;

// Calls `sink` if it is set.
inline void emit(const LogSink& sink, LogLevel level, std::string_view message) {
  if (sink) sink(level, message);
}

}  // namespace conflux::net
