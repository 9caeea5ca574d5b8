#pragma once
// A relay descriptor: what a relay says about itself, signed by its signing
// key (certified by its Ed25519 identity). Relays upload it to every
// authority; a bridge serves it only to clients that name it.
//
// Text form: canonical JSON (sorted keys, no whitespace; DIRECTORY.md has the
// field table). What is signed: the bytes
//     "conflux-descriptor-v1\n" || canonical JSON of every field but "signature"
// with the signing key. The digest the consensus lists is SHA-256 of the whole
// canonical document (signature included).
//
// Parsing is strict: size <= 20,000 bytes (tor's descriptor limit), no
// unknown or repeated fields, every field checked for type, length and range.
// Unknown fields are rejected rather than ignored because the signature covers
// only the fields we re-serialize: an ignored field would be unsigned. A new
// field means a new format: "conflux-descriptor-v2" adds the relay's RSA-1024
// identity ("rsa_identity", PKCS#1 DER) and that key's signature
// ("rsa_signature": PKCS#1 v1.5 over the SHA-256 of the same signed bytes the
// Ed25519 signature covers, v2 prefix). A descriptor carries both or
// neither; one without them is v1, signed exactly as before.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::dir {

inline constexpr std::string_view kDescriptorPrefix = "conflux-descriptor-v1\n";
inline constexpr std::string_view kDescriptorPrefixV2 = "conflux-descriptor-v2\n";
inline constexpr std::size_t kMaxDescriptorSize = 20000;
inline constexpr std::size_t kMaxFamily = 64;
inline constexpr std::uint64_t kMaxBandwidth = std::uint64_t{1} << 40;  // bytes/s; keeps sums exact

struct Bandwidth {
  std::uint64_t rate = 0;      // BandwidthRate, bytes/s
  std::uint64_t burst = 0;     // BandwidthBurst, bytes/s
  std::uint64_t observed = 0;  // highest sustained throughput seen, bytes/s
  friend bool operator==(const Bandwidth&, const Bandwidth&) = default;
};

struct Descriptor {
  std::string nickname;                      // [A-Za-z0-9]{1,19}
  crypto::Ed25519Public identity{};          // the relay's Ed25519 identity
  std::vector<std::uint8_t> signing_cert;    // type-4 cert: identity -> signing key
  crypto::X25519Public ntor_onion_key{};     // for ntor and ntor-v3
  Ipv4 ipv4{};
  std::optional<Ipv6> ipv6;
  std::uint16_t or_port = 0;                 // 1..65535
  std::uint16_t dir_port = 0;                // 0 = none
  Bandwidth bandwidth;
  std::string exit_policy = "reject 1-65535";  // summary: "accept|reject PORTLIST"
  std::vector<crypto::Ed25519Public> family;   // encoded sorted and unique
  std::string platform;                      // e.g. "Conflux 0.1.0 on Linux"
  std::string protocols;                     // e.g. "Link=4-5 Relay=2-4 FlowCtrl=1-2 Conflux=1"
  std::uint64_t published = 0;               // seconds since the epoch
  bool is_bridge = false;
  // v2: the RSA-1024 identity (PKCS#1 DER; its SHA-1 is the relay's tor
  // fingerprint) and its signature. Empty in a v1 descriptor.
  std::vector<std::uint8_t> rsa_identity;
  std::vector<std::uint8_t> rsa_signature;
  crypto::Ed25519Signature signature{};
  friend bool operator==(const Descriptor&, const Descriptor&) = default;
};

// Canonical JSON, signature included.
[[nodiscard]] std::string encode_descriptor(const Descriptor& d);
// The exact bytes the signatures cover (prefix + canonical JSON without
// "signature" and "rsa_signature").
[[nodiscard]] std::vector<std::uint8_t> descriptor_signed_bytes(const Descriptor& d);
// SHA-256 of encode_descriptor(d): how the consensus names this descriptor.
[[nodiscard]] std::array<std::uint8_t, 32> descriptor_digest(const Descriptor& d);

// Strict parse (no signature check).
[[nodiscard]] DirResult<Descriptor> parse_descriptor(std::string_view text);

// Signs with `signing_key`; the caller has set identity and signing_cert
// (see make_signing_cert). Family is sorted and deduplicated first, as the
// encoder would write it.
[[nodiscard]] Descriptor sign_descriptor(Descriptor d, const crypto::Ed25519Keypair& signing_key);
// v2: also names `rsa_identity` and signs with it.
[[nodiscard]] Descriptor sign_descriptor(Descriptor d, const crypto::Ed25519Keypair& signing_key,
                                         const crypto::RsaPrivateKey& rsa_identity);
// The SHA-1 fingerprint of a v2 descriptor's RSA identity (nullopt for v1).
[[nodiscard]] std::optional<crypto::RsaFingerprint> descriptor_rsa_fingerprint(const Descriptor& d);

struct DescriptorCheck {
  std::uint64_t max_age = 48 * 3600;    // tor drops descriptors older than 48 h
  std::uint64_t max_future = 3600;      // clock skew tolerated on "published"
};

// Certificate (type 4, for this identity, unexpired), then the signature
// (and for v2 the RSA identity, 1024 bits, and its signature), then
// the time window: published in [now - max_age, now + max_future]. Returns
// the signing key.
[[nodiscard]] DirResult<crypto::Ed25519Public> verify_descriptor(const Descriptor& d, std::uint64_t now,
                                                                 const DescriptorCheck& check = {});

// parse + verify, for an upload or a bridge's self-descriptor.
[[nodiscard]] DirResult<Descriptor> parse_and_verify_descriptor(std::string_view text, std::uint64_t now,
                                                                const DescriptorCheck& check = {});

}  // namespace conflux::dir
