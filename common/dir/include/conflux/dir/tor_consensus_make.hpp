#pragma once
// Writing tor's microdesc consensus (dir-spec 3.4.1 / 3.9.2) and the
// microdescriptors it names (3.3) from the body our authorities already
// agree on (consensus.hpp). Every input is in the body or the configured
// authority list, so authorities that agree on the body write the same
// bytes and their signatures combine.
//
// What is written: consensus-method 35 (what tor 0.4.9 authorities use),
// known flags Exit Fast Guard Running Stable Valid, the body's params, tor
// 0.4.9's client and relay protocol lines, one dir-source per configured
// authority (ascending v3ident; as there are no votes, the vote-digest is
// the SHA-1 of the document without its dir-sources), one entry per router
// that has an RSA identity (ascending by it; "r" with tor's fixed 2038-01-01
// published time of methods >= 32, first "a", "m", "s", "v", "pr" sorted by
// name, "w Bandwidth=N", with " Unmeasured=1" unless a bandwidth file
// measured the relay: RouterEntry::measured), the footer's
// bandwidth-weights, then the signatures. Microdescriptors: an empty
// "onion-key" (no TAP key: tor 0.4.9 makes its body optional),
// "ntor-onion-key", the IPv6 "a", "family" ($fingerprints of declared
// family members that are listed), "p" (unless reject-all), "id ed25519".
//
// The ns flavor ("network-status-version 3", what tor's relays fetch as
// directory caches) is written from the same body: the same preamble,
// dir-sources and footer; per router "r" with tor's descriptor digest and
// the descriptor's own published time (tor writes the fixed time in the
// microdesc flavor only), "a", "s", "v", "pr", "w", and "p" with the exit
// policy summary (reject-all included); no "m". Its signatures sign SHA-1
// and name no algorithm, as tor's authorities sign that flavor.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "conflux/crypto/rsa_private.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/tor_consensus.hpp"

namespace conflux::dir {

inline constexpr std::uint32_t kTorConsensusMethod = 35;

struct TorVoter {
  std::string nickname;
  crypto::RsaFingerprint v3ident{};
  std::string address;  // IPv4, dotted quad
  std::uint16_t dir_port = 0;
  std::uint16_t or_port = 0;
  std::string contact;
};

struct TorConsensusDraft {
  ConsensusFlavor flavor = ConsensusFlavor::Microdesc;
  // Everything up to and including "directory-footer" and bandwidth-weights:
  // the signatures follow.
  std::string unsigned_text;
  // Microdesc flavor: one per listed router, in document order: each one's
  // text, what "m" names. Empty for the ns flavor.
  std::vector<std::string> microdescs;
  // The digest of unsigned_text + "directory-signature " that each signature
  // signs: SHA-256 (microdesc flavor, 32 bytes) or SHA-1 (ns, 20 bytes).
  std::vector<std::uint8_t> signed_digest;
};

[[nodiscard]] TorConsensusDraft make_tor_microdesc_consensus(const ConsensusBody& body,
                                                             const std::vector<TorVoter>& voters);

// tor's descriptor digest (TorServerDescriptor::router_digest) of each
// router the ns flavor can list, by the body's descriptor_digest (SHA-256
// of the tor descriptor's text). A router without one (its descriptor is
// no longer held) is left out of the ns flavor.
using TorRouterDigests = std::map<std::array<std::uint8_t, 32>, std::array<std::uint8_t, 20>>;

[[nodiscard]] TorConsensusDraft make_tor_ns_consensus(const ConsensusBody& body, const std::vector<TorVoter>& voters,
                                                      const TorRouterDigests& digests);

// "directory-signature sha256 V3IDENT SIGNINGKEYDIGEST" (the ns flavor:
// "directory-signature V3IDENT SIGNINGKEYDIGEST") and its SIGNATURE object,
// made with the authority's signing key.
[[nodiscard]] std::string make_tor_signature_item(const TorConsensusDraft& draft,
                                                  const crypto::RsaFingerprint& v3ident,
                                                  const crypto::RsaPrivateKey& signing_key);

// The document: the draft followed by the signature items in ascending
// v3ident order (as tor orders them).
[[nodiscard]] std::string assemble_tor_consensus(const TorConsensusDraft& draft,
                                                 std::vector<std::pair<crypto::RsaFingerprint, std::string>> items);

}  // namespace conflux::dir
