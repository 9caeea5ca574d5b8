#pragma once
// Tor's consensus documents (dir-spec 3.4.1; the microdesc flavor of 3.9.2
// and the full "ns" one): the preamble (times, known flags, params), the
// authorities that voted, one entry per relay ("r", "a", "m", "s", "v",
// "pr", "w" lines), the footer's bandwidth weights, and the authorities'
// signatures. Each signature covers one digest of the text from its start
// through "directory-signature " (the keyword of the first signature and the
// space after it); verify_tor_consensus checks them against key
// certificates (tor_key_cert.hpp) and the configured authorities.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/tor_key_cert.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxTorConsensusSize = std::size_t{16} << 20;  // the real one is ~3 MB uncompressed
inline constexpr std::size_t kMaxTorRouters = 20000;

enum class ConsensusFlavor : std::uint8_t { Ns, Microdesc };

struct TorRouterStatus {
  std::string nickname;
  crypto::RsaFingerprint identity{};  // SHA-1 of the relay's RSA identity key
  std::uint64_t published = 0;
  std::array<std::uint8_t, 4> ipv4{};
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  std::optional<std::pair<std::array<std::uint8_t, 16>, std::uint16_t>> ipv6;  // the first "a" line
  std::array<std::uint8_t, 32> microdesc_digest{};  // microdesc flavor: SHA-256 of its microdescriptor
  std::array<std::uint8_t, 20> descriptor_digest{}; // ns flavor: tor's digest of its server descriptor
  std::vector<std::string> flags;                   // as listed ("Exit", "Fast", ...), sorted
  std::string version;                              // "v": the platform, e.g. "Tor 0.4.9.11"
  std::string protocols;                            // "pr": e.g. "Conflux=1 ... Relay=2-6"
  std::uint64_t bandwidth = 0;                      // "w Bandwidth=" (kilobytes/s)
  bool unmeasured = false;                          // "w ... Unmeasured=1"
  [[nodiscard]] bool has_flag(std::string_view f) const;
};

struct TorDirSource {
  std::string nickname;
  crypto::RsaFingerprint v3ident{};
  std::string address;
  std::uint16_t dir_port = 0;
  std::uint16_t or_port = 0;
};

struct TorConsensusSignature {
  bool sha256 = false;  // else SHA-1 (a "directory-signature" line without an algorithm)
  crypto::RsaFingerprint v3ident{};
  crypto::RsaFingerprint signing_key_digest{};
  std::vector<std::uint8_t> signature;
};

struct TorConsensus {
  ConsensusFlavor flavor = ConsensusFlavor::Microdesc;
  std::uint32_t consensus_method = 0;
  std::uint64_t valid_after = 0;
  std::uint64_t fresh_until = 0;
  std::uint64_t valid_until = 0;
  std::vector<std::string> known_flags;
  std::map<std::string, std::int32_t> params;
  std::string recommended_client_protocols, required_client_protocols;
  std::vector<TorDirSource> dir_sources;
  std::vector<TorRouterStatus> routers;  // in document order (ascending identity)
  std::map<std::string, std::int32_t> bandwidth_weights;
  std::vector<TorConsensusSignature> signatures;
  // What the signatures cover, hashed both ways.
  std::array<std::uint8_t, 20> signed_sha1{};
  std::array<std::uint8_t, 32> signed_sha256{};
};

[[nodiscard]] DirResult<TorConsensus> parse_tor_consensus(std::string_view text);

// The number of `trusted` authorities (v3idents) with a valid signature,
// each counted once: the signature's certificate (matched by v3ident and
// signing-key digest) must be current at `now`. Succeeds when that is more
// than half of `trusted` and the consensus is within valid-after - skew ..
// valid-until + skew (tor's clients also accept one up to a day past
// valid-until as "reasonably live"; that choice belongs to the caller).
// The clock skew a client tolerates at both ends of a consensus's window
// (the `skew` of verify_tor_consensus).
struct ConsensusCheck {
  std::uint64_t allowed_skew = 0;  // seconds
};

[[nodiscard]] DirResult<std::size_t> verify_tor_consensus(const TorConsensus& c,
                                                          const std::vector<AuthorityKeyCert>& certs,
                                                          const std::vector<crypto::RsaFingerprint>& trusted,
                                                          std::uint64_t now, std::uint64_t skew = 0);

}  // namespace conflux::dir
