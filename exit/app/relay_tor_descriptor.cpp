#include "relay_tor_descriptor.hpp"

#include <algorithm>

#include "conflux/dir/tor_server_descriptor_make.hpp"

namespace conflux::relay {

std::vector<std::string> tor_policy_lines(const proto::ExitPolicy& policy) {
  std::vector<std::string> out;
  for (const auto& rule : policy.rules()) {
    if (rule.family != proto::AddrFamily::Ipv4) continue;
    std::string line = rule.to_string();
    // Our "*4" (every IPv4 address) is tor's "*" in a descriptor.
    if (const auto at = line.find(" *4:"); at != std::string::npos) line.replace(at, 4, " *:");
    out.push_back(std::move(line));
  }
  // tor ends every policy with a catch-all; ours (built) do too. An empty
  // one accepts everything.
  if (out.empty()) out.emplace_back(policy.rules().empty() ? "accept *:*" : "reject *:*");
  return out;
}

std::string build_tor_descriptor(const TorDescriptorSource& s, std::uint64_t now) {
  dir::TorDescriptorFacts f;
  f.nickname = s.info.nickname;
  f.ipv4 = s.info.ipv4;
  f.or_port = s.info.or_port;
  f.dir_port = s.info.dir_port;
  f.platform = "conflux " + s.info.version + " on Linux";
  f.protocols = s.info.protocols;
  f.published = now;
  f.uptime = now > s.started ? now - s.started : 0;
  f.bandwidth_rate = s.info.bandwidth.rate;
  f.bandwidth_burst = s.info.bandwidth.burst;
  f.bandwidth_observed = s.info.bandwidth.observed;
  // tor's family line takes "$HEX40" ("=nick"/"~nick" dropped); our
  // Ed25519 members and nicknames are left out.
  for (const auto& m : s.options.my_family)
    if (m.starts_with("$") && m.size() >= 41) f.family.push_back(m.substr(0, 41));
  f.contact = s.options.contact_info;
  f.exit_policy = s.options.is_exit() ? tor_policy_lines(s.exit_policy) : std::vector<std::string>{"reject *:*"};
  f.tunnelled_dir_server = s.tunnelled_dir_server;
  const dir::TorDescriptorKeys k{s.keys.rsa_identity(),  s.keys.identity(),        s.keys.signing_key(),
                                 s.keys.signing_cert_bytes(), s.keys.onion_key().key, s.tap_onion_key,
                                 s.keys.signing_cert_expires_at()};
  return dir::make_tor_server_descriptor(f, k);
}

}  // namespace conflux::relay
