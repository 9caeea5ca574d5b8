#pragma once
// A relay's copy of a tor network's directory, served as tor's directory
// caches serve it (dir-spec 4, 5.1): the microdesc consensus, the
// authorities' key certificates and the microdescriptors. Sans-I/O: the
// relay's ConsensusFetcher fills a TorDirCache (fetched and verified as our
// client verifies it); update() takes a copy of what is to be served.
//
// Bounded: one consensus, the certificates of its trusted authorities, and
// the microdescriptors of the current and the previous consensus (a client
// still on the previous one asks for those; tor keeps them longer, by age).
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
  // Every certificate held, or those named by v3ident / by v3ident and
  // signing-key digest; empty when none matches.
  [[nodiscard]] std::string key_certs() const;
  [[nodiscard]] std::string key_certs_for(const std::vector<crypto::RsaFingerprint>& v3idents) const;
  [[nodiscard]] std::string key_certs_for(const std::vector<dir::FpSk>& keys) const;
  // The microdescriptors named (base64 digests) that are held, concatenated.
  [[nodiscard]] std::string microdescs(const std::vector<std::string>& digests) const;

  [[nodiscard]] bool has_consensus() const noexcept { return !consensus_.empty(); }
  [[nodiscard]] std::uint64_t valid_after() const noexcept { return valid_after_; }
  [[nodiscard]] std::size_t microdesc_count() const noexcept { return mds_.size() + previous_mds_.size(); }

 private:
  struct Cert {
    crypto::RsaFingerprint v3ident{}, signing{};
    std::string text;
  };
  std::string consensus_;
  std::uint64_t valid_after_ = 0, valid_until_ = 0;
  std::vector<crypto::RsaFingerprint> signers_;
  std::vector<Cert> certs_;
  std::map<std::string, std::string> mds_, previous_mds_;  // base64 digest -> text
};

}  // namespace conflux::dirnet
