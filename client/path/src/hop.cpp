#include "conflux/path/hop.hpp"

namespace conflux::path {

Hop hop_from(const dir::RouterEntry& r) {
  Hop h;
  h.identity = r.identity;
  h.nickname = r.nickname;
  h.ntor_onion_key = r.ntor_onion_key;
  h.ipv4 = r.ipv4;
  h.ipv6 = r.ipv6;
  h.or_port = r.or_port;
  h.exit_policy = r.exit_policy;
  h.protocols = r.protocols;
  h.family = r.family;
  h.rsa_identity = r.rsa_identity;
  return h;
}

Hop hop_from(const dir::TorServerDescriptor& d, const std::optional<BridgeAddress>& configured) {
  Hop h;
  h.identity = d.ed25519_identity;
  h.nickname = d.nickname;
  h.ntor_onion_key = d.ntor_onion_key;
  if (configured) {
    h.ipv4 = configured->ipv4;
    h.ipv6 = configured->ipv6;
    h.or_port = configured->or_port;
  } else {
    h.ipv4 = d.ipv4;
    h.ipv6 = d.facts.ipv6;
    h.or_port = d.or_port;
  }
  h.exit_policy = d.facts.exit_policy;
  h.protocols = d.protocols;
  h.is_bridge = true;
  h.rsa_identity = d.rsa_identity;
  return h;
}

}  // namespace conflux::path
