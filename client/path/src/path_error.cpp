#include "conflux/path/path_error.hpp"

namespace conflux::path {

std::string_view to_string(PathErrc c) noexcept {
  switch (c) {
    case PathErrc::BadOptions: return "bad path options";
    case PathErrc::NoConsensus: return "no consensus";
    case PathErrc::NoGuardReachable: return "no guard reachable";
    case PathErrc::NoCompatibleGuard: return "no guard fits this path";
    case PathErrc::AllBridgesUnusable: return "all bridges unusable";
    case PathErrc::NoCompatibleBridge: return "no bridge fits this path";
    case PathErrc::FirstHopUnusable: return "requested first hop unusable";
    case PathErrc::NoExit: return "no exit";
    case PathErrc::ExitUnusable: return "requested exit unusable";
    case PathErrc::NoMiddle: return "no middle relay";
  }
  return "unknown path error";
}

}  // namespace conflux::path
