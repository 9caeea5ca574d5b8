#pragma once
// Where an authority tests a relay's ORPort: what our descriptors and tor's
// both say (reachability_probe.hpp).
#include <cstdint>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::dirnet {

struct ProbeTarget {
  crypto::Ed25519Public identity{};
  dir::Ipv4 ipv4{};
  std::uint16_t or_port = 0;
};

}  // namespace conflux::dirnet
