#pragma once
// The relay's server descriptor in tor's form (dir-spec 2.1.1), from what it
// says in our JSON descriptor (RelayInfo), its options and its keys: what it
// uploads to a tor network's authorities (tor-syntax DirAuthority lines) and
// serves at /tor/server/authority. The TAP onion key tor 0.4.9 still
// requires is made at each start and used for nothing else: no handshake of
// ours or of a 0.4.9 client uses TAP.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/config/relay_options.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/dirnet/descriptor_publisher.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/proto/exit_policy.hpp"

namespace conflux::relay {

struct TorDescriptorSource {
  const config::RelayOptions& options;
  const proto::ExitPolicy& exit_policy;
  const keys::RelayKeys& keys;
  const crypto::RsaPrivateKey& tap_onion_key;
  dirnet::RelayInfo info;
  std::uint64_t started = 0;         // seconds since the epoch, for "uptime"
  bool tunnelled_dir_server = false;  // BEGIN_DIR answers tor's directory documents
};

// The IPv4 rules as tor writes them in a descriptor ("accept *:80",
// "reject 10.0.0.0/8:*", ..., "reject *:*"): IPv6 rules are left out, as
// tor leaves them out of the accept/reject lines.
[[nodiscard]] std::vector<std::string> tor_policy_lines(const proto::ExitPolicy& policy);

[[nodiscard]] std::string build_tor_descriptor(const TorDescriptorSource& s, std::uint64_t now);

}  // namespace conflux::relay
