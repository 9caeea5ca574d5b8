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
// The ns flavor (what tor's relays fetch as directory caches) is written
// from the same body and tor's descriptor digests (build_ns), signed and
// combined the same way, one signature message per flavor; an authority
// that adopted the others' microdesc consensus fetches their ns one too
// (adopt_ns).
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

  // The microdesc document for this body; returns the signature message
  // for the others.
  std::string build(const dir::ConsensusBody& body, std::uint64_t now);
  // The ns document for this body (the routers `digests` names); returns
  // its signature message.
  std::string build_ns(const dir::ConsensusBody& body, const dir::TorRouterDigests& digests, std::uint64_t now);
  // Either flavor's signature (the message's digest says which).
  [[nodiscard]] TorSignatureStatus add_signature(std::string_view message, std::uint64_t now);

  // A consensus fetched from the other authorities (their majority's, when
  // ours found none): taken with its microdescriptors and certificates when
  // it verifies against the configured voters at `now` and is newer than
  // the one served. Returns whether it was taken.
  bool adopt(const TorDirCache& fetched, std::uint64_t now);
  // The same for an ns consensus, checked with the certificates held.
  bool adopt_ns(std::string_view text, std::uint64_t now);

  // The latest majority-signed microdesc consensus while valid at `now`.
  [[nodiscard]] std::optional<std::string> consensus(std::uint64_t now) const;
  // The latest majority-signed ns consensus while valid at `now`.
  [[nodiscard]] std::optional<std::string> ns_consensus(std::uint64_t now) const;
  // Their valid-after (0: none served yet).
  [[nodiscard]] std::uint64_t published_valid_after() const noexcept { return md_.published_valid_after; }
  [[nodiscard]] std::uint64_t ns_published_valid_after() const noexcept { return ns_.published_valid_after; }
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
  [[nodiscard]] std::size_t signature_count() const noexcept { return md_.items.size(); }
  [[nodiscard]] std::size_t ns_signature_count() const noexcept { return ns_.items.size(); }

 private:
  struct Pending {
    std::vector<std::uint8_t> digest;
    std::string item;
  };
  // One flavor's document: the draft, the signatures on it, the one served.
  struct Flavored {
    std::optional<dir::TorConsensusDraft> draft;
    std::map<crypto::RsaFingerprint, std::string> items;  // signatures on draft
    std::map<crypto::RsaFingerprint, Pending> early;      // for a draft not built yet
    std::string published;
    std::uint64_t published_valid_after = 0, published_valid_until = 0;
  };
  std::string sign_draft(Flavored& f, dir::TorConsensusDraft draft, std::uint64_t now);
  bool try_publish(Flavored& f, std::uint64_t now);
  bool known_voter(const crypto::RsaFingerprint& id) const;

  const TorAuthorityKeys& keys_;
  std::vector<dir::TorVoter> voters_;
  std::map<crypto::RsaFingerprint, dir::AuthorityKeyCert> certs_;  // v3ident -> latest
  Flavored md_, ns_;
  std::map<std::string, std::string> published_mds_, draft_mds_;  // base64 digest -> text
};

}  // namespace conflux::dirnet
