#pragma once
// A relay's copy of a tor network's directory, served as tor's directory
// caches serve it (dir-spec 4, 5.1): the consensus in both flavours
// (microdesc, and ns for stock relays and clients with UseMicrodescriptors
// 0), the authorities' key certificates, the microdescriptors and the
// server descriptors. Sans-I/O: the relay's ConsensusFetcher fills a
// TorDirCache (fetched and verified as our client verifies it); update()
// takes a copy of what is to be served.
//
// Bounded: one consensus per flavour, the certificates of its trusted
// authorities, and the microdescriptors and server descriptors of the
// current and the previous consensus (a client still on the previous one
// asks for those; tor keeps them longer, by age).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conflux/dir/tor_dir_url.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"

namespace conflux::dirnet {

class TorDirMirror {
 public:
  // What the cache holds now replaces what is served. False (nothing
  // changes) when its consensus text does not parse.
  bool update(const TorDirCache& cache);

  // The consensus as tor's handle_get_current_consensus answers: 404 when
  // there is none, it is not reasonably live (valid-after more than a day
  // ahead, valid-until more than a day ago), or `wanted` (authority
  // prefixes from the URL; empty: any) did not sign enough of it.
  [[nodiscard]] DirReply consensus(std::uint64_t now, const std::vector<std::string>& wanted) const;
  // The ns flavour, by the same rules.
  [[nodiscard]] DirReply ns_consensus(std::uint64_t now, const std::vector<std::string>& wanted) const;
  // Every certificate held, or those named by v3ident / by v3ident and
  // signing-key digest; empty when none matches.
  [[nodiscard]] std::string key_certs() const;
  [[nodiscard]] std::string key_certs_for(const std::vector<crypto::RsaFingerprint>& v3idents) const;
  [[nodiscard]] std::string key_certs_for(const std::vector<dir::FpSk>& keys) const;
  // The microdescriptors named (base64 digests) that are held, concatenated.
  [[nodiscard]] std::string microdescs(const std::vector<std::string>& digests) const;
  // Server descriptors, concatenated: those with these digests (tor's,
  // /tor/server/d/), the newest held of these RSA fingerprints
  // (/tor/server/fp/), or every one the ns consensus names (/tor/server/all).
  [[nodiscard]] std::string descriptors_by_digest(const std::vector<crypto::RsaFingerprint>& digests) const;
  [[nodiscard]] std::string descriptors_by_fingerprint(const std::vector<crypto::RsaFingerprint>& fps) const;
  [[nodiscard]] std::string all_descriptors() const;

  [[nodiscard]] bool has_consensus() const noexcept { return !md_.text.empty(); }
  [[nodiscard]] std::uint64_t valid_after() const noexcept { return md_.valid_after; }
  [[nodiscard]] std::size_t microdesc_count() const noexcept { return mds_.size() + previous_mds_.size(); }
  [[nodiscard]] bool has_ns_consensus() const noexcept { return !ns_.text.empty(); }
  [[nodiscard]] std::uint64_t ns_valid_after() const noexcept { return ns_.valid_after; }
  [[nodiscard]] std::size_t descriptor_count() const noexcept { return descs_.size() + previous_descs_.size(); }

 private:
  struct Cert {
    crypto::RsaFingerprint v3ident{}, signing{};
    std::string text;
  };
  struct Flavour {
    std::string text;
    std::uint64_t valid_after = 0, valid_until = 0;
    std::vector<crypto::RsaFingerprint> signers;
  };
  struct Desc {
    crypto::RsaFingerprint identity{};
    std::uint64_t published = 0;
    std::string text;
  };
  using Descs = std::map<crypto::RsaFingerprint, Desc>;  // tor's digest -> descriptor
  void update_ns(const TorDirCache& cache);

  Flavour md_, ns_;
  std::vector<Cert> certs_;
  std::map<std::string, std::string> mds_, previous_mds_;  // base64 digest -> text
  Descs descs_, previous_descs_;
};

}  // namespace conflux::dirnet
