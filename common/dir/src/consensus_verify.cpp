#include <set>

#include "conflux/dir/consensus.hpp"
#include "conflux/dir/signing_cert.hpp"

namespace conflux::dir {

DirResult<crypto::Ed25519Public> verify_consensus_signature(const ConsensusBody& body,
                                                            const ConsensusSignature& sig,
                                                            std::uint64_t now) {
  auto signing = verify_signing_cert(sig.signing_cert, sig.identity, now);
  if (!signing) return signing;
  if (!crypto::ed25519_verify(*signing, consensus_signed_bytes(body), sig.signature))
    return dir_fail(DirErrc::BadSignature);
  return signing;
}

DirResult<std::size_t> verify_consensus(const Consensus& c,
                                        std::span<const crypto::Ed25519Public> authorities,
                                        std::uint64_t now, const ConsensusCheck& check) {
  const std::set<crypto::Ed25519Public> configured(authorities.begin(), authorities.end());
  if (configured.empty()) return dir_fail(DirErrc::NoAuthorities);
  const ConsensusBody& b = c.body;
  if (now + check.allowed_skew < b.valid_after) return dir_fail(DirErrc::FromFuture);
  if (now > b.valid_until + check.allowed_skew) return dir_fail(DirErrc::Expired);

  // The signed bytes are computed once: every signature in one document is
  // over the same body, so a signature made over any other body fails here.
  const std::vector<std::uint8_t> signed_bytes = consensus_signed_bytes(b);
  std::set<crypto::Ed25519Public> counted;
  for (const auto& sig : c.signatures) {
    if (!configured.contains(sig.identity) || counted.contains(sig.identity)) continue;
    auto signing = verify_signing_cert(sig.signing_cert, sig.identity, now);
    if (!signing) continue;
    if (!crypto::ed25519_verify(*signing, signed_bytes, sig.signature)) continue;
    counted.insert(sig.identity);
  }
  if (2 * counted.size() <= configured.size()) return dir_fail(DirErrc::NotEnoughSignatures);
  return counted.size();
}

}  // namespace conflux::dir
