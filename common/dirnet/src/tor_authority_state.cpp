#include "conflux/dirnet/tor_authority_state.hpp"

#include <algorithm>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_signature_message.hpp"

namespace conflux::dirnet {
namespace {

std::map<std::string, std::string> microdesc_map(const dir::TorConsensusDraft& d) {
  std::map<std::string, std::string> m;
  for (const auto& md : d.microdescs)
    m.emplace(bytes::base64_encode(crypto::sha256({reinterpret_cast<const std::uint8_t*>(md.data()), md.size()})), md);
  return m;
}

}  // namespace

TorAuthorityState::TorAuthorityState(const TorAuthorityKeys& keys, std::vector<dir::TorVoter> voters)
    : keys_(keys), voters_(std::move(voters)) {
  if (auto own = dir::parse_key_certs(keys_.certificate); own && own->size() == 1)
    certs_.emplace(keys_.v3ident(), std::move((*own)[0]));
}

bool TorAuthorityState::known_voter(const crypto::RsaFingerprint& id) const {
  return std::any_of(voters_.begin(), voters_.end(), [&](const dir::TorVoter& v) { return v.v3ident == id; });
}

std::string TorAuthorityState::build(const dir::ConsensusBody& body, std::uint64_t now) {
  draft_ = dir::make_tor_microdesc_consensus(body, voters_);
  draft_mds_ = microdesc_map(*draft_);
  items_.clear();
  const std::string own = dir::make_tor_signature_item(*draft_, keys_.v3ident(), keys_.signing);
  items_.emplace(keys_.v3ident(), own);
  for (auto it = early_.begin(); it != early_.end();) {
    if (it->second.digest == draft_->signed_digest) {
      items_.emplace(it->first, it->second.item);
      it = early_.erase(it);
    } else {
      ++it;
    }
  }
  try_publish(now);
  return dir::encode_tor_signature_message(draft_->signed_digest, keys_.certificate, own);
}

TorSignatureStatus TorAuthorityState::add_signature(std::string_view message, std::uint64_t now) {
  auto m = dir::parse_tor_signature_message(message);
  if (!m) return TorSignatureStatus::Invalid;
  const auto id = m->cert.v3ident();
  if (id == keys_.v3ident() || !known_voter(id) || !dir::key_cert_current(m->cert, now) || !m->signature_valid())
    return TorSignatureStatus::Invalid;
  certs_.insert_or_assign(id, m->cert);
  if (draft_ && m->digest == draft_->signed_digest) {
    items_.insert_or_assign(id, std::move(m->item));
    try_publish(now);
    return TorSignatureStatus::Added;
  }
  early_.insert_or_assign(id, Pending{m->digest, std::move(m->item)});  // one per known voter
  return TorSignatureStatus::OtherBody;
}

void TorAuthorityState::try_publish(std::uint64_t now) {
  if (!draft_ || 2 * items_.size() <= voters_.size()) return;
  std::vector<std::pair<crypto::RsaFingerprint, std::string>> items(items_.begin(), items_.end());
  std::string text = dir::assemble_tor_consensus(*draft_, std::move(items));
  // What we serve must be what a client accepts: check it as one would.
  auto parsed = dir::parse_tor_consensus(text);
  if (!parsed) return;
  std::vector<dir::AuthorityKeyCert> certs;
  for (const auto& [id, c] : certs_) certs.push_back(c);
  if (!dir::verify_tor_consensus(*parsed, certs, trusted(), now, 60)) return;
  if (parsed->valid_after < published_valid_after_) return;  // an adopted newer one stays
  published_ = std::move(text);
  published_valid_after_ = parsed->valid_after;
  published_valid_until_ = parsed->valid_until;
  published_mds_ = draft_mds_;
}

bool TorAuthorityState::adopt(const TorDirCache& fetched, std::uint64_t now) {
  auto parsed = dir::parse_tor_consensus(fetched.consensus_text);
  if (!parsed || parsed->valid_after <= published_valid_after_) return false;
  if (!dir::verify_tor_consensus(*parsed, fetched.certs, trusted(), now, 60)) return false;
  for (const auto& c : fetched.certs)
    if (known_voter(c.v3ident()) && c.v3ident() != keys_.v3ident()) certs_.insert_or_assign(c.v3ident(), c);
  published_ = fetched.consensus_text;
  published_valid_after_ = parsed->valid_after;
  published_valid_until_ = parsed->valid_until;
  published_mds_.clear();
  for (const auto& [digest, md] : fetched.microdescs) published_mds_.emplace(bytes::base64_encode(digest), md.text);
  return true;
}

std::vector<crypto::RsaFingerprint> TorAuthorityState::trusted() const {
  std::vector<crypto::RsaFingerprint> out;
  for (const auto& v : voters_) out.push_back(v.v3ident);
  return out;
}

std::vector<dir::AuthorityKeyCert> TorAuthorityState::certs() const {
  std::vector<dir::AuthorityKeyCert> out;
  for (const auto& [id, c] : certs_) out.push_back(c);
  return out;
}

std::optional<std::string> TorAuthorityState::consensus(std::uint64_t now) const {
  if (published_.empty() || now > published_valid_until_) return std::nullopt;
  return published_;
}

std::string TorAuthorityState::microdescs(const std::vector<std::string>& digests) const {
  std::string out;
  for (const auto& d : digests) {
    if (auto it = published_mds_.find(d); it != published_mds_.end()) out += it->second;
    else if (auto jt = draft_mds_.find(d); jt != draft_mds_.end()) out += jt->second;
  }
  return out;
}

std::string TorAuthorityState::key_certs() const {
  std::string out = keys_.certificate;
  for (const auto& [id, c] : certs_)
    if (id != keys_.v3ident()) out += c.text;
  return out;
}

std::string TorAuthorityState::key_certs_for(const std::vector<crypto::RsaFingerprint>& v3idents) const {
  std::string out;
  for (const auto& id : v3idents)
    if (auto it = certs_.find(id); it != certs_.end()) out += it->second.text;
  return out;
}

}  // namespace conflux::dirnet
