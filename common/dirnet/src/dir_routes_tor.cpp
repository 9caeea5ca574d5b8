// DirRoutes for tor's paths: key certificates, both consensus flavors,
// microdescriptors and server descriptors, from an authority's TorAuthorityState or a directory
// cache's TorDirMirror, and the authorities' tor-format signature exchange.
#include <algorithm>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_dir_url.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "conflux/dirnet/tor_descriptor_store.hpp"
#include "conflux/dirnet/tor_dir_mirror.hpp"

namespace conflux::dirnet {
namespace {

DirReply certs_reply(std::string certs) {
  if (certs.empty()) return text_reply(404, "Not found");
  return document_reply(std::move(certs));
}

}  // namespace

DirRoutes::Route DirRoutes::tor_route_for(std::string_view path) const {
  if (tor_ == nullptr && mirror_ == nullptr) return Route::None;
  if (path == dir::kTorKeysAll) return Route::TorKeysAll;
  if (path == dir::kTorKeysAuthority && tor_ != nullptr) return Route::TorKeysAuthority;
  if (path.starts_with(dir::kTorKeysFpPrefix)) return Route::TorKeysFp;
  if (path.starts_with(dir::kTorKeysFpSkPrefix)) return Route::TorKeysFpSk;
  if (path == dir::kTorConsensusMicrodesc ||
      (path.starts_with(dir::kTorConsensusMicrodesc) && path[dir::kTorConsensusMicrodesc.size()] == '/'))
    return Route::TorConsensus;
  if (path == dir::kTorConsensusNs ||
      (path.starts_with(dir::kTorConsensusNs) && path[dir::kTorConsensusNs.size()] == '/'))
    return Route::TorConsensusNs;
  if (mirror_ != nullptr && tor_ == nullptr) {  // a cache: the descriptors its ns consensus names
    if (path == dir::kTorServerAll) return Route::TorServerAll;
    if (path.starts_with(dir::kTorServerDPrefix)) return Route::TorServerD;
    if (path.starts_with(dir::kTorServerFpPrefix)) return Route::TorServerFp;
  }
  if (path.starts_with(dir::kTorMicrodescPrefix)) return Route::TorMicro;
  if (path == dir::kTorConsensusSignature && tor_ != nullptr) return Route::TorSignature;
  return Route::None;
}

DirReply DirRoutes::handle_tor_keys(Route route, std::string_view path) const {
  switch (route) {
    case Route::TorKeysAll:
      return certs_reply(tor_ != nullptr ? tor_->key_certs() : mirror_->key_certs());
    case Route::TorKeysAuthority:
      return document_reply(tor_->own_key_cert());
    case Route::TorKeysFp: {
      auto ids = dir::parse_fp_list(path.substr(dir::kTorKeysFpPrefix.size()));
      if (!ids) return text_reply(400, "bad fingerprint");
      return certs_reply(tor_ != nullptr ? tor_->key_certs_for(*ids) : mirror_->key_certs_for(*ids));
    }
    case Route::TorKeysFpSk: {
      auto keys = dir::parse_fp_sk_list(path.substr(dir::kTorKeysFpSkPrefix.size()));
      if (!keys) return text_reply(400, "bad fingerprint");
      if (mirror_ != nullptr && tor_ == nullptr) return certs_reply(mirror_->key_certs_for(*keys));
      // An authority holds one certificate per authority: the v3ident decides.
      std::vector<crypto::RsaFingerprint> ids;
      for (const auto& k : *keys) ids.push_back(k.first);
      return certs_reply(tor_->key_certs_for(ids));
    }
    default:
      break;
  }
  return text_reply(404, "Not found");
}

DirReply DirRoutes::handle_tor_consensus(Route route, std::string_view path, std::uint64_t now) const {
  const bool ns = route == Route::TorConsensusNs;
  const std::size_t base = ns ? dir::kTorConsensusNs.size() : dir::kTorConsensusMicrodesc.size();
  std::vector<std::string> wanted;
  if (path.size() > base) {
    auto w = dir::parse_authority_prefixes(path.substr(base + 1));
    if (!w) return text_reply(404, "Couldn't parse request");
    wanted = std::move(*w);
  }
  if (tor_ == nullptr) return ns ? mirror_->ns_consensus(now, wanted) : mirror_->consensus(now, wanted);
  auto text = ns ? tor_->ns_consensus(now) : tor_->consensus(now);
  if (!text) return text_reply(404, "no consensus yet");
  return document_reply(std::move(*text));
}

// tor's descriptors, uploaded to an authority or held by a cache: by tor's
// digest, as the ns consensus names them (a directory cache fetches those),
// or by RSA fingerprint (a cache's own descriptor is its newest one).
// "Servers unavailable" when none is held, as tor answers.
DirReply DirRoutes::handle_tor_servers(Route route, std::string_view path) const {
  const auto prefix = route == Route::TorServerD ? dir::kTorServerDPrefix : dir::kTorServerFpPrefix;
  auto keys = dir::parse_fp_list(path.substr(prefix.size()));
  if (!keys) return text_reply(400, "bad digest");
  std::string found;
  if (uploads_ != nullptr) {
    found = route == Route::TorServerD ? uploads_->by_digest(*keys) : uploads_->by_fingerprint(*keys);
  } else if (route == Route::TorServerD) {
    found = mirror_->descriptors_by_digest(*keys);
  } else {
    const auto own = std::find_if(keys->begin(), keys->end(),
                                  [&](const crypto::RsaFingerprint& k) { return bytes::to_hex(k, true) == tor_self_fp_; });
    if (own != keys->end() && !tor_self_.empty()) {
      found = tor_self_;
      keys->erase(own);
    }
    found += mirror_->descriptors_by_fingerprint(*keys);
  }
  if (found.empty()) return text_reply(404, "Servers unavailable");
  return document_reply(std::move(found));
}

DirReply DirRoutes::handle_tor(Route route, std::string_view path, std::string_view body, std::uint64_t now) {
  switch (route) {
    case Route::TorKeysAll:
    case Route::TorKeysAuthority:
    case Route::TorKeysFp:
    case Route::TorKeysFpSk:
      return handle_tor_keys(route, path);
    case Route::TorConsensus:
    case Route::TorConsensusNs:
      return handle_tor_consensus(route, path, now);
    case Route::TorServerD:
    case Route::TorServerFp:
      return handle_tor_servers(route, path);
    case Route::TorMicro: {
      auto digests = dir::parse_microdesc_digests(path.substr(dir::kTorMicrodescPrefix.size()));
      if (!digests) return text_reply(400, "bad digest");
      std::string mds = tor_ != nullptr ? tor_->microdescs(*digests) : mirror_->microdescs(*digests);
      if (mds.empty()) return text_reply(404, "Not found");
      return document_reply(std::move(mds));
    }
    case Route::TorUpload: {
      const TorUploadAnswer a = uploads_->accept(body, now);
      if (a.new_relay && on_new_relay) on_new_relay(a.identity);
      DirReply r = text_reply(a.status, a.reason);
      r.reason = a.reason;
      r.descriptor_not_new = a.not_new;
      return r;
    }
    case Route::TorServerAll: {
      std::string all = uploads_ != nullptr ? uploads_->all() : mirror_->all_descriptors();
      if (all.empty()) return text_reply(404, "Not found");
      return document_reply(std::move(all));
    }
    case Route::TorSignature:
      switch (tor_->add_signature(body, now)) {
        case TorSignatureStatus::Added:
          return text_reply(200, "signature added");
        case TorSignatureStatus::OtherBody:
          return text_reply(409, "signature for another document");
        case TorSignatureStatus::Invalid:
          return text_reply(400, "signature rejected");
      }
      break;
    default:
      break;
  }
  return text_reply(404, "Not found");
}

}  // namespace conflux::dirnet
