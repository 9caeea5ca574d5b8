#include "conflux/dirnet/tor_dir_mirror.hpp"

#include <algorithm>

#include "conflux/bytes/base64.hpp"
#include "conflux/dir/tor_consensus.hpp"

namespace conflux::dirnet {
namespace {

// tor's REASONABLY_LIVE_TIME: how far outside its validity a consensus is
// still served (and used by clients).
constexpr std::uint64_t kReasonablyLive = 24 * 60 * 60;

}  // namespace

bool TorDirMirror::update(const TorDirCache& cache) {
  auto c = dir::parse_tor_consensus(cache.consensus_text);
  if (!c) return false;
  if (cache.consensus_text != consensus_) {
    std::map<std::string, std::string> fresh;
    for (const auto& [digest, md] : cache.microdescs) fresh.emplace(bytes::base64_encode(digest), md.text);
    // The previous generation: what the old consensus listed and the new one does not.
    previous_mds_.clear();
    for (auto& [d, text] : mds_)
      if (!fresh.contains(d)) previous_mds_.emplace(d, std::move(text));
    mds_ = std::move(fresh);
  } else {
    for (const auto& [digest, md] : cache.microdescs) mds_.emplace(bytes::base64_encode(digest), md.text);
  }
  consensus_ = cache.consensus_text;
  valid_after_ = c->valid_after;
  valid_until_ = c->valid_until;
  signers_.clear();
  for (const auto& s : c->signatures) signers_.push_back(s.v3ident);
  certs_.clear();
  for (const auto& k : cache.certs) certs_.push_back({k.v3ident(), k.signing_key_digest(), k.text});
  return true;
}

DirReply TorDirMirror::consensus(std::uint64_t now, const std::vector<std::string>& wanted) const {
  if (consensus_.empty()) return text_reply(404, "Not found");
  if (valid_after_ > now + kReasonablyLive) return text_reply(404, "Consensus is too new");
  if (valid_until_ + kReasonablyLive < now) return text_reply(404, "Consensus is too old");
  if (!wanted.empty() && !dir::signed_by_enough(signers_, wanted))
    return text_reply(404, "Consensus not signed by sufficient number of requested authorities");
  return document_reply(consensus_);
}

std::string TorDirMirror::key_certs() const {
  std::string out;
  for (const auto& c : certs_) out += c.text;
  return out;
}

std::string TorDirMirror::key_certs_for(const std::vector<crypto::RsaFingerprint>& v3idents) const {
  std::string out;
  for (const auto& c : certs_)
    if (std::find(v3idents.begin(), v3idents.end(), c.v3ident) != v3idents.end()) out += c.text;
  return out;
}

std::string TorDirMirror::key_certs_for(const std::vector<dir::FpSk>& keys) const {
  std::string out;
  for (const auto& c : certs_)
    if (std::find(keys.begin(), keys.end(), dir::FpSk{c.v3ident, c.signing}) != keys.end()) out += c.text;
  return out;
}

std::string TorDirMirror::microdescs(const std::vector<std::string>& digests) const {
  std::string out;
  for (const auto& d : digests) {
    if (auto it = mds_.find(d); it != mds_.end()) out += it->second;
    else if (auto jt = previous_mds_.find(d); jt != previous_mds_.end()) out += jt->second;
  }
  return out;
}

}  // namespace conflux::dirnet
