#pragma once
// The logging vocabulary every layer shares: tor's five severities and a
// Sink function. Header-only, so libraries log without depending on the
// backend (spdlog, in log.hpp) that the programs configure.
//
// Rule for every caller: no keys, nonces or destination addresses above
// Debug.
#include <cstdint>
#include <functional>
#include <string_view>

namespace conflux::log {

enum class Severity : std::uint8_t { Debug, Info, Notice, Warn, Err };

using Sink = std::function<void(Severity, std::string_view)>;

}  // namespace conflux::log
