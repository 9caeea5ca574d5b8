// DirRoutes for tor's paths: key certificates, the microdesc consensus and
// microdescriptors from the authority's TorAuthorityState, and the
// authorities' tor-format signature exchange.
#include <algorithm>

#include "conflux/bytes/hex.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"

namespace conflux::dirnet {
namespace {

constexpr std::size_t kMaxListed = 512;  // digests or fingerprints in one request

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (!s.empty() && out.size() <= kMaxListed) {
    const auto at = s.find(sep);
    out.emplace_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

DirReply text_ok(std::string body) {
  DirReply r;
  r.body = std::move(body);
  return r;
}

}  // namespace

DirRoutes::Route DirRoutes::tor_route_for(std::string_view path) const {
  if (tor_ == nullptr) return Route::None;
  if (path == dir::kTorKeysAll) return Route::TorKeysAll;
  if (path == dir::kTorKeysAuthority) return Route::TorKeysAuthority;
  if (path.starts_with(dir::kTorKeysFpPrefix)) return Route::TorKeysFp;
  if (path == dir::kTorConsensusMicrodesc ||
      (path.starts_with(dir::kTorConsensusMicrodesc) && path[dir::kTorConsensusMicrodesc.size()] == '/'))
    return Route::TorConsensus;
  if (path.starts_with(dir::kTorMicrodescPrefix)) return Route::TorMicro;
  if (path == dir::kTorConsensusSignature) return Route::TorSignature;
  return Route::None;
}

DirReply DirRoutes::handle_tor(Route route, std::string_view path, std::string_view body, std::uint64_t now) {
  switch (route) {
    case Route::TorKeysAll:
      return text_ok(tor_->key_certs());
    case Route::TorKeysAuthority:
      return text_ok(tor_->own_key_cert());
    case Route::TorKeysFp: {
      std::vector<crypto::RsaFingerprint> ids;
      for (const auto& hex : split(path.substr(dir::kTorKeysFpPrefix.size()), '+')) {
        auto b = hex.size() == 40 ? bytes::from_hex(hex) : std::nullopt;
        if (!b) return text_reply(400, "bad fingerprint");
        crypto::RsaFingerprint f{};
        std::copy(b->begin(), b->end(), f.begin());
        ids.push_back(f);
      }
      std::string certs = tor_->key_certs_for(ids);
      if (certs.empty()) return text_reply(404, "no such certificate");
      return text_ok(std::move(certs));
    }
    case Route::TorConsensus: {
      auto text = tor_->consensus(now);
      if (!text) return text_reply(404, "no consensus yet");
      return text_ok(std::move(*text));
    }
    case Route::TorMicro: {
      std::string mds = tor_->microdescs(split(path.substr(dir::kTorMicrodescPrefix.size()), '-'));
      if (mds.empty()) return text_reply(404, "no such microdescriptor");
      return text_ok(std::move(mds));
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
  return text_reply(404, "not found");
}

}  // namespace conflux::dirnet
