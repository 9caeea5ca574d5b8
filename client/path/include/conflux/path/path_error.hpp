#pragma once
// Why no path could be built. The message is one line for the log: it names
// relays by nickname and never carries keys or destination addresses.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conflux::path {

enum class PathErrc : std::uint8_t {
  BadOptions,          // num_hops out of range
  NoConsensus,         // no relays at all
  NoGuardReachable,    // every guard is down (retry_at says when one may be tried)
  NoCompatibleGuard,   // reachable guards exist, but the path's constraints exclude them
  AllBridgesUnusable,  // UseBridges and no bridge has a descriptor or is reachable
  NoCompatibleBridge,  // usable bridges exist, but the path's constraints exclude them
  FirstHopUnusable,    // the fixed first hop is not a usable guard/bridge of ours
  NoExit,              // no exit allows the port (or, without a port, any port)
  ExitUnusable,        // the fixed exit is unknown, not an exit for the port, or conflicts
  NoMiddle,            // no middle relay fits the constraints
};

[[nodiscard]] std::string_view to_string(PathErrc c) noexcept;

struct PathError {
  PathErrc code{};
  std::string message;
  std::optional<std::uint64_t> retry_at;    // earliest time a failed guard/bridge may be retried
  std::vector<std::string> bridge_reports;  // with bridges: one line per unusable bridge
};

}  // namespace conflux::path
