#pragma once
// tor's server descriptor (dir-spec 2.1.1), as a relay or a bridge serves its
// own at /tor/server/authority and authorities serve them at
// /tor/server/all. What a client needs of a bridge: its addresses, both
// identities, and its ntor onion key, each proven:
//  - "signing-key" is the RSA identity key; the fingerprint is its SHA-1,
//    and "router-signature" is its PKCS#1 signature of the SHA-1 of the text
//    from "router" through the "router-signature" line;
//  - "identity-ed25519" is a type-4 certificate, signed by the Ed25519
//    identity ("master-key-ed25519" must name the same key), certifying the
//    signing key that made "router-sig-ed25519": an Ed25519 signature of the
//    SHA-256 of "Tor router descriptor signature v1" and the text through
//    "router-sig-ed25519 ";
//  - "ntor-onion-key-crosscert SIGN" is a type-10 certificate of the Ed25519
//    identity, signed by the Ed25519 form of the ntor onion key with that
//    sign bit: the relay holds the onion key's private half.
// Certificates must not have expired at `now`. The TAP "onion-key" and its
// crosscert are not used (tor 0.4.9 clients do not use TAP either).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/tor_relay_facts.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxTorServerDescriptorSize = 20000;  // tor's MAX_DESCRIPTOR_UPLOAD_SIZE
inline constexpr std::size_t kMaxTorServerDescriptorsSize = std::size_t{16} << 20;

struct TorServerDescriptor {
  std::string nickname;
  std::array<std::uint8_t, 4> ipv4{};
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  crypto::RsaFingerprint rsa_identity{};
  crypto::Ed25519Public ed25519_identity{};
  crypto::X25519Public ntor_onion_key{};
  std::uint64_t published = 0;
  std::string platform;   // "" when absent
  std::string protocols;  // the "proto" line's arguments, space-separated
  bool tunnelled_dir_server = false;  // answers BEGIN_DIR
  TorRelayFacts facts;                // bandwidth, IPv6 ORPort, exit policy summary
  std::string text;                   // as served
  // SHA-1 of the text from "router" through "router-signature\n": what the
  // RSA signature signs, and what an ns consensus's "r" line and
  // /tor/server/d/ name the descriptor by (tor's descriptor digest).
  std::array<std::uint8_t, 20> router_digest{};
};

// One descriptor, verified at `now` (seconds since the epoch).
[[nodiscard]] DirResult<TorServerDescriptor> parse_tor_server_descriptor(std::string_view text, std::uint64_t now);
// Several, concatenated as /tor/server/all serves them; fails on the first bad one.
[[nodiscard]] DirResult<std::vector<TorServerDescriptor>> parse_tor_server_descriptors(std::string_view text,
                                                                                      std::uint64_t now);

}  // namespace conflux::dir
