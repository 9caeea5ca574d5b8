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

// Our signature on the new draft, with those that came before it.
std::string TorAuthorityState::sign_draft(Flavored& f, dir::TorConsensusDraft draft, std::uint64_t now) {
  f.draft = std::move(draft);
  f.items.clear();
  const std::string own = dir::make_tor_signature_item(*f.draft, keys_.v3ident(), keys_.signing);
  f.items.emplace(keys_.v3ident(), own);
  for (auto it = f.early.begin(); it != f.early.end();) {
    if (it->second.digest == f.draft->signed_digest) {
      f.items.emplace(it->first, it->second.item);
      it = f.early.erase(it);
    } else {
      ++it;
    }
  }
  if (try_publish(f, now) && &f == &md_) published_mds_ = draft_mds_;
  return dir::encode_tor_signature_message(f.draft->signed_digest, keys_.certificate, own);
}

std::string TorAuthorityState::build(const dir::ConsensusBody& body, std::uint64_t now) {
  auto draft = dir::make_tor_microdesc_consensus(body, voters_);
  draft_mds_ = microdesc_map(draft);
  return sign_draft(md_, std::move(draft), now);
}

std::string TorAuthorityState::build_ns(const dir::ConsensusBody& body, const dir::TorRouterDigests& digests,
                                        std::uint64_t now) {
  return sign_draft(ns_, dir::make_tor_ns_consensus(body, voters_, digests), now);
}

TorSignatureStatus TorAuthorityState::add_signature(std::string_view message, std::uint64_t now) {
  auto m = dir::parse_tor_signature_message(message);
  if (!m) return TorSignatureStatus::Invalid;
  const auto id = m->cert.v3ident();
  if (id == keys_.v3ident() || !known_voter(id) || !dir::key_cert_current(m->cert, now) || !m->signature_valid())
    return TorSignatureStatus::Invalid;
  certs_.insert_or_assign(id, m->cert);
  Flavored& f = m->digest.size() == 20 ? ns_ : md_;
  if (f.draft && m->digest == f.draft->signed_digest) {
    f.items.insert_or_assign(id, std::move(m->item));
    if (try_publish(f, now) && &f == &md_) published_mds_ = draft_mds_;
    return TorSignatureStatus::Added;
  }
  f.early.insert_or_assign(id, Pending{std::move(m->digest), std::move(m->item)});  // one per known voter
  return TorSignatureStatus::OtherBody;
}

bool TorAuthorityState::try_publish(Flavored& f, std::uint64_t now) {
  if (!f.draft || 2 * f.items.size() <= voters_.size()) return false;
  std::vector<std::pair<crypto::RsaFingerprint, std::string>> items(f.items.begin(), f.items.end());
  std::string text = dir::assemble_tor_consensus(*f.draft, std::move(items));
  // What we serve must be what a client accepts: check it as one would.
  auto parsed = dir::parse_tor_consensus(text);
  if (!parsed || !dir::verify_tor_consensus(*parsed, certs(), trusted(), now, 60)) return false;
  if (parsed->valid_after < f.published_valid_after) return false;  // an adopted newer one stays
  f.published = std::move(text);
  f.published_valid_after = parsed->valid_after;
  f.published_valid_until = parsed->valid_until;
  return true;
}

bool TorAuthorityState::adopt(const TorDirCache& fetched, std::uint64_t now) {
  auto parsed = dir::parse_tor_consensus(fetched.consensus_text);
  if (!parsed || parsed->flavor != dir::ConsensusFlavor::Microdesc || parsed->valid_after <= md_.published_valid_after)
    return false;
  if (!dir::verify_tor_consensus(*parsed, fetched.certs, trusted(), now, 60)) return false;
  for (const auto& c : fetched.certs)
    if (known_voter(c.v3ident()) && c.v3ident() != keys_.v3ident()) certs_.insert_or_assign(c.v3ident(), c);
  md_.published = fetched.consensus_text;
  md_.published_valid_after = parsed->valid_after;
  md_.published_valid_until = parsed->valid_until;
  published_mds_.clear();
  for (const auto& [digest, md] : fetched.microdescs) published_mds_.emplace(bytes::base64_encode(digest), md.text);
  return true;
}

bool TorAuthorityState::adopt_ns(std::string_view text, std::uint64_t now) {
  auto parsed = dir::parse_tor_consensus(text);
  if (!parsed || parsed->flavor != dir::ConsensusFlavor::Ns || parsed->valid_after <= ns_.published_valid_after)
    return false;
  if (!dir::verify_tor_consensus(*parsed, certs(), trusted(), now, 60)) return false;
  ns_.published = std::string(text);
  ns_.published_valid_after = parsed->valid_after;
  ns_.published_valid_until = parsed->valid_until;
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
  if (md_.published.empty() || now > md_.published_valid_until) return std::nullopt;
  return md_.published;
}

std::optional<std::string> TorAuthorityState::ns_consensus(std::uint64_t now) const {
  if (ns_.published.empty() || now > ns_.published_valid_until) return std::nullopt;
  return ns_.published;
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
