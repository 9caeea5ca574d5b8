#pragma once
// The consensus as path selection reads it: the listed relays with their
// flags and weights, the times and the parameters. Our authorities compute
// one body (authority.hpp) and write tor's consensus from it
// (tor_consensus_make.hpp); the client reads tor's consensus into one
// (tor_to_consensus.hpp) once its signatures verified in tor's form
// (tor_consensus.hpp). Our former JSON form of it, signed with Ed25519
// keys, retired (issue 15).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/dir/bandwidth_weights.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::dir {

// The flags of dir-spec 3.4.1 that this directory assigns.
struct Flags {
  bool exit = false;
  bool fast = false;
  bool guard = false;
  bool running = false;
  bool stable = false;
  bool valid = false;
  // A directory cache: tor's authorities vote V2Dir for a relay whose
  // descriptor says tunnelled-dir-server (ours: or has a DirPort), and stock
  // clients take guards only among V2Dir relays.
  bool v2dir = false;
  friend bool operator==(const Flags&, const Flags&) = default;
};

struct RouterEntry {
  crypto::Ed25519Public identity{};
  std::string nickname;
  Ipv4 ipv4{};
  std::optional<Ipv6> ipv6;
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  Flags flags;
  std::uint64_t bandwidth = 0;  // consensus weight, kilobytes/s (tor's "w Bandwidth=")
  // The weight is a bandwidth authority's measurement (V3BandwidthsFile),
  // not what the relay advertises: tor's consensus says "Unmeasured=1" when not.
  bool measured = false;
  crypto::X25519Public ntor_onion_key{};
  std::string exit_policy;      // summary, as in the descriptor
  std::string protocols;
  std::vector<crypto::Ed25519Public> family;  // as declared in the descriptor (sorted)
  std::array<std::uint8_t, 32> descriptor_digest{};  // SHA-256 of the tor descriptor's text
  std::uint64_t published = 0;
  // The relay's RSA identity (SHA-1 of its key), which stock tor relays
  // require in EXTEND2; tor's consensus names every relay by it.
  std::optional<crypto::RsaFingerprint> rsa_identity;
  friend bool operator==(const RouterEntry&, const RouterEntry&) = default;
};

struct ConsensusBody {
  std::uint64_t valid_after = 0;   // VA < FU < VU (dir-spec 1.4)
  std::uint64_t fresh_until = 0;
  std::uint64_t valid_until = 0;
  std::map<std::string, std::int32_t> params;  // tor-style consensus parameters, e.g. cfx_enabled
  std::vector<RouterEntry> routers;            // strictly ascending by identity bytes
  std::optional<BandwidthWeights> bandwidth_weights;  // absent when they could not be balanced
  friend bool operator==(const ConsensusBody&, const ConsensusBody&) = default;
};

// A consensus a client verified and uses (tor's signatures are checked
// before it is converted, so it carries none).
struct Consensus {
  ConsensusBody body;
  friend bool operator==(const Consensus&, const Consensus&) = default;
};

}  // namespace conflux::dir
