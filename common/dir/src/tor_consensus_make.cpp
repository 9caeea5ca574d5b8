#include "conflux/dir/tor_consensus_make.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/pem.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {
namespace {

// tor 0.4.9's authorities' defaults (what tests/data/tor's consensus lists).
constexpr std::string_view kProtocolLines =
    "recommended-client-protocols Cons=2 Desc=2 DirCache=2 FlowCtrl=1-2 HSDir=2 HSIntro=4 HSRend=2 Link=4-5 "
    "Microdesc=2 Relay=2-4\n"
    "recommended-relay-protocols Cons=2 Desc=2 DirCache=2 FlowCtrl=1-2 HSDir=2 HSIntro=4-5 HSRend=2 Link=4-5 "
    "LinkAuth=3 Microdesc=2 Relay=2-4\n"
    "required-client-protocols Cons=2 Desc=2 FlowCtrl=1 Link=4 Microdesc=2 Relay=2\n"
    "required-relay-protocols Cons=2 Desc=2 DirCache=2 FlowCtrl=1-2 HSDir=2 HSIntro=4-5 HSRend=2 Link=4-5 "
    "LinkAuth=3 Microdesc=2 Relay=2-4\n";
// Consensus methods >= 32 write this instead of each descriptor's time.
constexpr std::string_view kFixedPublished = "2038-01-01 00:00:00";

std::string hex(const crypto::RsaFingerprint& f) { return bytes::to_hex(f, true); }

std::string flags_of(const RouterEntry& r) {
  const Flags& f = r.flags;
  std::string s = "s";
  for (auto [on, name] : {std::pair{f.exit, "Exit"}, {f.fast, "Fast"}, {f.guard, "Guard"}, {f.running, "Running"},
                          {f.stable, "Stable"}, {f.v2dir, "V2Dir"}, {f.valid, "Valid"}})
    if (on) s += std::string(" ") + name;
  return s + "\n";
}

// "Name=ranges" entries sorted by name, as tor writes a "pr" line.
std::string sorted_protocols(const std::string& protocols) {
  std::istringstream in(protocols);
  std::vector<std::string> entries;
  for (std::string e; in >> e;) entries.push_back(e);
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : " ") + e;
  return out;
}

std::string microdesc_of(const RouterEntry& r, const std::map<crypto::Ed25519Public, crypto::RsaFingerprint>& fps) {
  std::string m = "onion-key\n";
  m += "ntor-onion-key " + bytes::base64_encode(r.ntor_onion_key) + "\n";
  if (r.ipv6) m += "a [" + format_ipv6(*r.ipv6) + "]:" + std::to_string(r.or_port) + "\n";
  std::vector<std::string> family;
  for (const auto& k : r.family) {
    auto it = fps.find(k);
    if (it != fps.end() && k != r.identity) family.push_back("$" + hex(it->second));
  }
  std::sort(family.begin(), family.end());
  if (!family.empty()) {
    m += "family";
    for (const auto& f : family) m += " " + f;
    m += "\n";
  }
  if (r.exit_policy != "reject 1-65535") m += "p " + r.exit_policy + "\n";
  m += "id ed25519 " + bytes::base64_encode(r.identity) + "\n";
  return m;
}

std::string preamble(const ConsensusBody& body, ConsensusFlavor flavor) {
  std::string t = flavor == ConsensusFlavor::Microdesc ? "network-status-version 3 microdesc\n"
                                                       : "network-status-version 3\n";
  t += "vote-status consensus\n";
  t += "consensus-method " + std::to_string(kTorConsensusMethod) + "\n";
  t += "valid-after " + tordoc::format_time(body.valid_after) + "\n";
  t += "fresh-until " + tordoc::format_time(body.fresh_until) + "\n";
  t += "valid-until " + tordoc::format_time(body.valid_until) + "\n";
  t += "voting-delay 2 2\nclient-versions \nserver-versions \n";
  t += "known-flags Exit Fast Guard Running Stable V2Dir Valid\n";
  t += kProtocolLines;
  if (!body.params.empty()) {
    t += "params";
    for (const auto& [k, v] : body.params) t += " " + k + "=" + std::to_string(v);
    t += "\n";
  }
  return t;
}

// dir-spec's vote-digest names the vote each dir-source's signature came
// from. No votes are exchanged: each names the document every authority
// that computed the same body writes, by the SHA-1 of this flavor's text
// without its dir-source lines.
std::string dir_sources(std::vector<TorVoter> voters, std::string_view without_sources) {
  std::sort(voters.begin(), voters.end(), [](const TorVoter& a, const TorVoter& b) { return a.v3ident < b.v3ident; });
  const std::string vote_digest = bytes::to_hex(
      crypto::sha1({reinterpret_cast<const std::uint8_t*>(without_sources.data()), without_sources.size()}), true);
  std::string t;
  for (const auto& v : voters) {
    t += "dir-source " + v.nickname + " " + hex(v.v3ident) + " " + v.address + " " + v.address + " " +
         std::to_string(v.dir_port) + " " + std::to_string(v.or_port) + "\n";
    t += "contact " + v.contact + "\n";
    t += "vote-digest " + vote_digest + "\n";
  }
  return t;
}

std::string footer(const ConsensusBody& body) {
  std::string t = "directory-footer\n";
  if (body.bandwidth_weights) {
    t += "bandwidth-weights";
    for (const auto& [name, field] : kWeightFields) t += " " + std::string(name) + "=" + std::to_string((*body.bandwidth_weights).*field);
    t += "\n";
  }
  return t;
}

// The routers tor can name (those with an RSA identity), ascending by it.
std::vector<const RouterEntry*> listed_by_rsa(const ConsensusBody& body) {
  std::vector<const RouterEntry*> listed;
  for (const auto& r : body.routers)
    if (r.rsa_identity) listed.push_back(&r);  // tor cannot name one without
  std::sort(listed.begin(), listed.end(),
            [](const RouterEntry* a, const RouterEntry* b) { return *a->rsa_identity < *b->rsa_identity; });
  return listed;
}

std::string r_line(const RouterEntry& r, std::string_view digest_and_published) {
  return "r " + r.nickname + " " + bytes::base64_encode(*r.rsa_identity) + " " + std::string(digest_and_published) +
         " " + format_ipv4(r.ipv4) + " " + std::to_string(r.or_port) + " " + std::to_string(r.dir_port) + "\n";
}

// "s" through "w": what both flavors say of a router after "r", "a" and "m".
std::string status_lines(const RouterEntry& r) {
  return flags_of(r) + "v Conflux\npr " + sorted_protocols(r.protocols) + "\nw Bandwidth=" +
         std::to_string(r.bandwidth) + (r.measured ? "\n" : " Unmeasured=1\n");
}

std::string ipv6_line(const RouterEntry& r) {
  return r.ipv6 ? "a [" + format_ipv6(*r.ipv6) + "]:" + std::to_string(r.or_port) + "\n" : std::string();
}

// The document from its parts (the dir-sources name the rest), and the
// digest its signatures sign.
void finish(TorConsensusDraft& d, const ConsensusBody& body, const std::vector<TorVoter>& voters,
            std::string_view routers) {
  const std::string pre = preamble(body, d.flavor);
  const std::string rest = std::string(routers) + footer(body);
  d.unsigned_text = pre + dir_sources(voters, pre + rest) + rest;
  const std::string signed_part = d.unsigned_text + "directory-signature ";
  const crypto::Bytes b{reinterpret_cast<const std::uint8_t*>(signed_part.data()), signed_part.size()};
  if (d.flavor == ConsensusFlavor::Microdesc) {
    const auto h = crypto::sha256(b);
    d.signed_digest.assign(h.begin(), h.end());
  } else {
    const auto h = crypto::sha1(b);
    d.signed_digest.assign(h.begin(), h.end());
  }
}

}  // namespace

TorConsensusDraft make_tor_microdesc_consensus(const ConsensusBody& body, const std::vector<TorVoter>& voters) {
  const std::vector<const RouterEntry*> listed = listed_by_rsa(body);
  std::map<crypto::Ed25519Public, crypto::RsaFingerprint> fps;
  for (const RouterEntry* r : listed) fps.emplace(r->identity, *r->rsa_identity);
  TorConsensusDraft d;
  std::string routers;
  for (const RouterEntry* r : listed) {
    std::string md = microdesc_of(*r, fps);
    const auto md_digest = crypto::sha256({reinterpret_cast<const std::uint8_t*>(md.data()), md.size()});
    routers += r_line(*r, kFixedPublished) + ipv6_line(*r) + "m " + bytes::base64_encode(md_digest) + "\n" +
                       status_lines(*r);
    d.microdescs.push_back(std::move(md));
  }
  finish(d, body, voters, routers);
  return d;
}

TorConsensusDraft make_tor_ns_consensus(const ConsensusBody& body, const std::vector<TorVoter>& voters,
                                        const TorRouterDigests& digests) {
  TorConsensusDraft d;
  d.flavor = ConsensusFlavor::Ns;
  std::string routers;
  for (const RouterEntry* r : listed_by_rsa(body)) {
    auto it = digests.find(r->descriptor_digest);
    if (it == digests.end()) continue;
    const std::string digest_and_published =
        bytes::base64_encode(it->second) + " " + tordoc::format_time(r->published);
    routers += r_line(*r, digest_and_published) + ipv6_line(*r) + status_lines(*r) + "p " + r->exit_policy + "\n";
  }
  finish(d, body, voters, routers);
  return d;
}

std::string make_tor_signature_item(const TorConsensusDraft& draft, const crypto::RsaFingerprint& v3ident,
                                    const crypto::RsaPrivateKey& signing_key) {
  const std::string algorithm = draft.flavor == ConsensusFlavor::Microdesc ? "sha256 " : "";
  return "directory-signature " + algorithm + hex(v3ident) + " " + hex(signing_key.public_key().fingerprint()) + "\n" +
         crypto::pem_encode(signing_key.sign_digest(draft.signed_digest), "SIGNATURE");
}

std::string assemble_tor_consensus(const TorConsensusDraft& draft,
                                   std::vector<std::pair<crypto::RsaFingerprint, std::string>> items) {
  std::sort(items.begin(), items.end());
  std::string t = draft.unsigned_text;
  for (const auto& [id, item] : items) t += item;
  return t;
}

}  // namespace conflux::dir
