#pragma once
// The tor-format side of an authority, sans-I/O. After AuthorityState builds
// the body for an interval, this writes tor's microdesc consensus for the
// same body (dir/tor_consensus_make.hpp), signs it with the authority's RSA
// signing key, and collects the other authorities' signatures; once more
// than half of the configured authorities signed (verify_tor_consensus
// against their key certificates) the document is served, with its
// microdescriptors and every authority's key certificate.
//
// With tor-form DirAuthority lines this is the only document the
// authorities sign (AuthorityServiceOptions::json_consensus false): the
// agreement is on its signed digest, and an authority whose own document
// found no majority adopts the majority's (adopt), as tor's authorities
// fetch a consensus they failed to make.
//
// Authorities exchange a signature as one message
// (dir/tor_signature_message.hpp) carrying the signer's key certificate, so
// a receiver learns the certificate it needs to check the signature and to
// serve at /tor/keys/all.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/dir/consensus.hpp"
#include "conflux/dir/tor_consensus_make.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"

namespace conflux::dirnet {

enum class TorSignatureStatus : std::uint8_t { Added, OtherBody, Invalid };

class TorAuthorityState {
 public:
  // `voters`: every configured authority (this one included), as the
  // consensus's dir-source lines name them. `keys` must outlive the state.
  TorAuthorityState(const TorAuthorityKeys& keys, std::vector<dir::TorVoter> voters);

  // The document for this body; returns the signature message for the others.
  std::string build(const dir::ConsensusBody& body, std::uint64_t now);
  [[nodiscard]] TorSignatureStatus add_signature(std::string_view message, std::uint64_t now);

  // A consensus fetched from the other authorities (their majority's, when
  // ours found none): taken with its microdescriptors and certificates when
  // it verifies against the configured voters at `now` and is newer than
  // the one served. Returns whether it was taken.
  bool adopt(const TorDirCache& fetched, std::uint64_t now);

  // The latest majority-signed microdesc consensus while valid at `now`.
  [[nodiscard]] std::optional<std::string> consensus(std::uint64_t now) const;
  // Its valid-after (0: none served yet).
  [[nodiscard]] std::uint64_t published_valid_after() const noexcept { return published_valid_after_; }
  [[nodiscard]] const crypto::RsaFingerprint& v3ident() const noexcept { return keys_.v3ident(); }
  // The configured voters' v3idents: whose signatures count.
  [[nodiscard]] std::vector<crypto::RsaFingerprint> trusted() const;
  // Every key certificate held, parsed (for a fetch that then needs none).
  [[nodiscard]] std::vector<dir::AuthorityKeyCert> certs() const;
  // The microdescriptors named by `digests` (base64 SHA-256, as in "m"
  // lines) that the served or the building document lists, concatenated;
  // unknown ones are left out, as tor's caches do.
  [[nodiscard]] std::string microdescs(const std::vector<std::string>& digests) const;
  // Every key certificate known (ours first), or those of the given v3idents.
  [[nodiscard]] std::string key_certs() const;
  [[nodiscard]] std::string key_certs_for(const std::vector<crypto::RsaFingerprint>& v3idents) const;
  [[nodiscard]] const std::string& own_key_cert() const noexcept { return keys_.certificate; }
  [[nodiscard]] std::size_t signature_count() const noexcept { return items_.size(); }

 private:
  struct Pending {
    std::array<std::uint8_t, 32> digest{};
    std::string item;
  };
  void try_publish(std::uint64_t now);
  bool known_voter(const crypto::RsaFingerprint& id) const;

  const TorAuthorityKeys& keys_;
  std::vector<dir::TorVoter> voters_;
  std::map<crypto::RsaFingerprint, dir::AuthorityKeyCert> certs_;  // v3ident -> latest
  std::optional<dir::TorConsensusDraft> draft_;
  std::map<crypto::RsaFingerprint, std::string> items_;  // signatures on draft_
  std::map<crypto::RsaFingerprint, Pending> early_;      // for a draft not built yet
  std::string published_;
  std::uint64_t published_valid_after_ = 0, published_valid_until_ = 0;
  std::map<std::string, std::string> published_mds_, draft_mds_;  // base64 digest -> text
};

}  // namespace conflux::dirnet
