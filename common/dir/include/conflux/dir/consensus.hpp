#pragma once
// The consensus: the list of usable relays with their flags and weights,
// signed by the directory authorities.
//
// Text form: {"body": BODY, "signatures": [SIG...]} (DIRECTORY.md has the
// field tables). Every authority signs the bytes
//     "conflux-consensus-v1\n" || canonical JSON of BODY
// with its signing key, and each SIG carries the authority's identity, its
// type-4 signing certificate and the signature. Authorities that computed
// the same body produce the same bytes, so their signatures combine in one
// document. A client accepts the document when more than half of the
// authorities it is configured with have a valid signature in it.
//
// Parsing is strict (unknown fields rejected, as for descriptors: a field the
// parser ignored would be outside the signed bytes), capped at 5 MiB,
// 10,000 routers and 64 signatures.
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

inline constexpr std::string_view kConsensusPrefix = "conflux-consensus-v1\n";
inline constexpr std::size_t kMaxConsensusSize = 5 * 1024 * 1024;
inline constexpr std::size_t kMaxRouters = 10000;
inline constexpr std::size_t kMaxSignatures = 64;
inline constexpr std::size_t kMaxParams = 256;  // the public Tor network's consensus has about 90
inline constexpr std::size_t kMaxDetachedSignatureSize = 4096;

// The flags of dir-spec 3.4.1 that this directory assigns. JSON: the names
// that are set, as a sorted list ("Exit","Fast","Guard","Running","Stable","Valid").
struct Flags {
  bool exit = false;
  bool fast = false;
  bool guard = false;
  bool running = false;
  bool stable = false;
  bool valid = false;
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
  crypto::X25519Public ntor_onion_key{};
  std::string exit_policy;      // summary, as in the descriptor
  std::string protocols;
  std::vector<crypto::Ed25519Public> family;  // as declared in the descriptor (sorted)
  std::array<std::uint8_t, 32> descriptor_digest{};  // SHA-256 of the canonical descriptor
  std::uint64_t published = 0;
  // The relay's RSA identity (SHA-1 of its key), which stock tor relays
  // require in EXTEND2; relays from tor's directory have one, ours do not yet.
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

struct ConsensusSignature {
  crypto::Ed25519Public identity{};        // the authority
  std::vector<std::uint8_t> signing_cert;  // type-4: identity -> signing key
  crypto::Ed25519Signature signature{};    // over consensus_signed_bytes(body)
  friend bool operator==(const ConsensusSignature&, const ConsensusSignature&) = default;
};

struct Consensus {
  ConsensusBody body;
  std::vector<ConsensusSignature> signatures;  // kept in document order
  friend bool operator==(const Consensus&, const Consensus&) = default;
};

// One authority's signature sent to another (POST .../consensus-signature):
// the digest says which body it is for.
struct DetachedSignature {
  std::array<std::uint8_t, 32> digest{};  // consensus_body_digest of the signed body
  ConsensusSignature signature;
  friend bool operator==(const DetachedSignature&, const DetachedSignature&) = default;
};

// ---- codec ----
[[nodiscard]] std::string encode_consensus_body(const ConsensusBody& body);
[[nodiscard]] std::vector<std::uint8_t> consensus_signed_bytes(const ConsensusBody& body);
// SHA-256 of consensus_signed_bytes(body).
[[nodiscard]] std::array<std::uint8_t, 32> consensus_body_digest(const ConsensusBody& body);
[[nodiscard]] std::string encode_consensus(const Consensus& c);
[[nodiscard]] DirResult<Consensus> parse_consensus(std::string_view text);
[[nodiscard]] std::string encode_detached_signature(const DetachedSignature& s);
[[nodiscard]] DirResult<DetachedSignature> parse_detached_signature(std::string_view text);

// ---- verification ----
struct ConsensusCheck {
  std::uint64_t allowed_skew = 0;  // seconds of clock skew tolerated at both ends of the window
};

// Checks one signature over `body`: the certificate for sig.identity (type 4,
// unexpired at now), then the signature.
[[nodiscard]] DirResult<crypto::Ed25519Public> verify_consensus_signature(const ConsensusBody& body,
                                                                          const ConsensusSignature& sig,
                                                                          std::uint64_t now);

// The time window (valid_after - skew <= now <= valid_until + skew), then the
// signatures: each distinct configured authority with a valid signature over
// this body counts once (duplicates, unknown authorities and bad signatures
// count zero). Succeeds with the count when 2 * count > |distinct configured
// authorities|.
[[nodiscard]] DirResult<std::size_t> verify_consensus(const Consensus& c,
                                                      std::span<const crypto::Ed25519Public> authorities,
                                                      std::uint64_t now, const ConsensusCheck& check = {});

}  // namespace conflux::dir
