#pragma once
// One hop of a chosen path: what the runtime needs to open a channel to the
// relay and extend a circuit through it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"

namespace conflux::path {

struct Hop {
  crypto::Ed25519Public identity{};
  std::string nickname;
  crypto::X25519Public ntor_onion_key{};
  dir::Ipv4 ipv4{};
  std::optional<dir::Ipv6> ipv6;
  std::uint16_t or_port = 0;
  std::string exit_policy;                    // summary, "accept|reject PORTLIST"
  std::string protocols;                      // e.g. "... Conflux=1", to check leg support
  std::vector<crypto::Ed25519Public> family;  // declared, sorted (for the family rule)
  bool is_bridge = false;
  std::optional<crypto::RsaFingerprint> rsa_identity;  // sent in EXTEND2 when known (stock tor wants it)
  friend bool operator==(const Hop&, const Hop&) = default;
};

[[nodiscard]] Hop hop_from(const dir::RouterEntry& r);

// A bridge: the address the Bridge line gives is where we connect (the
// descriptor's own address may be an internal one), the rest from its tor
// server descriptor (its family, named by RSA fingerprint, is not used: a
// bridge is only ever the first hop).
// An IPv6-only Bridge line leaves ipv4 at 0.0.0.0.
struct BridgeAddress {
  dir::Ipv4 ipv4{};
  std::optional<dir::Ipv6> ipv6;
  std::uint16_t or_port = 0;
  friend bool operator==(const BridgeAddress&, const BridgeAddress&) = default;
};
[[nodiscard]] Hop hop_from(const dir::TorServerDescriptor& d, const std::optional<BridgeAddress>& configured);

}  // namespace conflux::path
