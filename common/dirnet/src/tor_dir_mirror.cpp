#include "conflux/dirnet/tor_dir_mirror.hpp"

#include <algorithm>

#include "conflux/bytes/base64.hpp"
#include "conflux/dir/tor_consensus.hpp"

namespace conflux::dirnet {
namespace {

// tor's REASONABLY_LIVE_TIME: how far outside its validity a consensus is
// still served (and used by clients).
constexpr std::uint64_t kReasonablyLive = 24 * 60 * 60;

template <class F>
void take(F& into, const dir::TorConsensus& c, const std::string& text) {
  into.text = text;
  into.valid_after = c.valid_after;
  into.valid_until = c.valid_until;
  into.signers.clear();
  for (const auto& s : c.signatures) into.signers.push_back(s.v3ident);
}

// As tor's handle_get_current_consensus answers, for either flavour.
template <class F>
DirReply serve(const F& f, std::uint64_t now, const std::vector<std::string>& wanted) {
  if (f.text.empty()) return text_reply(404, "Not found");
  if (f.valid_after > now + kReasonablyLive) return text_reply(404, "Consensus is too new");
  if (f.valid_until + kReasonablyLive < now) return text_reply(404, "Consensus is too old");
  if (!wanted.empty() && !dir::signed_by_enough(f.signers, wanted))
    return text_reply(404, "Consensus not signed by sufficient number of requested authorities");
  return document_reply(f.text);
}

}  // namespace

bool TorDirMirror::update(const TorDirCache& cache) {
  auto c = dir::parse_tor_consensus(cache.consensus_text);
  if (!c) return false;
  if (cache.consensus_text != md_.text) {
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
  take(md_, *c, cache.consensus_text);
  certs_.clear();
  for (const auto& k : cache.certs) certs_.push_back({k.v3ident(), k.signing_key_digest(), k.text});
  update_ns(cache);
  return true;
}

// The ns flavour and its descriptors, with the same two generations as the
// microdescriptors; an ns text that does not parse changes nothing of it.
void TorDirMirror::update_ns(const TorDirCache& cache) {
  if (cache.ns_consensus_text.empty()) return;
  auto c = dir::parse_tor_consensus(cache.ns_consensus_text);
  if (!c || c->flavor != dir::ConsensusFlavor::Ns) return;
  Descs fresh;
  for (const auto& [digest, d] : cache.server_descriptors) fresh.emplace(digest, Desc{d.rsa_identity, d.published, d.text});
  if (cache.ns_consensus_text != ns_.text) {
    previous_descs_.clear();
    for (auto& [d, desc] : descs_)
      if (!fresh.contains(d)) previous_descs_.emplace(d, std::move(desc));
    descs_ = std::move(fresh);
  } else {
    descs_.merge(fresh);
  }
  take(ns_, *c, cache.ns_consensus_text);
}

DirReply TorDirMirror::consensus(std::uint64_t now, const std::vector<std::string>& wanted) const {
  return serve(md_, now, wanted);
}

DirReply TorDirMirror::ns_consensus(std::uint64_t now, const std::vector<std::string>& wanted) const {
  return serve(ns_, now, wanted);
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

std::string TorDirMirror::descriptors_by_digest(const std::vector<crypto::RsaFingerprint>& digests) const {
  std::string out;
  for (const auto& d : digests) {
    if (auto it = descs_.find(d); it != descs_.end()) out += it->second.text;
    else if (auto jt = previous_descs_.find(d); jt != previous_descs_.end()) out += jt->second.text;
  }
  return out;
}

std::string TorDirMirror::descriptors_by_fingerprint(const std::vector<crypto::RsaFingerprint>& fps) const {
  std::string out;
  for (const auto& fp : fps) {
    const Desc* newest = nullptr;
    for (const Descs* gen : {&descs_, &previous_descs_})
      for (const auto& [d, desc] : *gen)
        if (desc.identity == fp && (newest == nullptr || desc.published > newest->published)) newest = &desc;
    if (newest != nullptr) out += newest->text;
  }
  return out;
}

std::string TorDirMirror::all_descriptors() const {
  std::string out;
  for (const auto& [d, desc] : descs_) out += desc.text;
  return out;
}

}  // namespace conflux::dirnet
