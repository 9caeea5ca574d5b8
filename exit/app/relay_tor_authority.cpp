// The authority's tor-format side: its RSA identity and signing keys with
// tor's key certificate (DataDirectory/keys/authority_*), and the voters of
// the tor consensus: every DirAuthority line (tor's form, which names a
// v3ident: the configuration refuses ours at an authority). Tor's consensus
// is all an authority signs, so this authority's v3ident must be among
// them: every authority writes the same dir-source lines.
#include <algorithm>

#include "conflux/bytes/hex.hpp"
#include "relay_process.hpp"

namespace conflux::relay {

bool RelayProcess::start_tor_authority() {
  const auto& o = config_.options;
  std::vector<dir::TorVoter> voters;
  for (const auto& a : o.dir_authorities) {
    dir::TorVoter v;
    v.nickname = a.nickname;
    std::copy(a.v3ident.begin(), a.v3ident.end(), v.v3ident.begin());
    v.address = a.dir.addr.to_string();
    v.dir_port = a.dir.port;
    v.or_port = a.or_port.value_or(0);
    v.contact = a.nickname + "@conflux.invalid";
    voters.push_back(std::move(v));
  }
  if (voters.empty()) {
    log::write(log::Severity::Err, "A directory authority needs DirAuthority lines, its own among them");
    return false;
  }
  auto keys = dirnet::load_or_create_tor_authority_keys(o.data_directory, clock_.unix_seconds());
  if (!keys) {
    log::write(log::Severity::Err, "Cannot load the authority's tor keys: " + keys.error().message());
    return false;
  }
  tor_keys_.emplace(std::move(*keys));
  const auto& id = tor_keys_->v3ident();
  if (std::none_of(voters.begin(), voters.end(), [&](const dir::TorVoter& v) { return v.v3ident == id; })) {
    // Tor's consensus is all it would sign: nothing to do.
    log::write(log::Severity::Err, "This authority's v3ident " + bytes::to_hex(id, true) +
                                       " is in no DirAuthority line: not writing tor's consensus");
    return false;
  }
  tor_authority_ = std::make_unique<dirnet::TorAuthorityState>(*tor_keys_, std::move(voters));
  routes_.set_tor_authority(tor_authority_.get());
  log::write(log::Severity::Notice, "Serving tor's directory formats; v3ident " + bytes::to_hex(id, true));
  return true;
}

}  // namespace conflux::relay
