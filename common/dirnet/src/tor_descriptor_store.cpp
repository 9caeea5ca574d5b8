#include "conflux/dirnet/tor_descriptor_store.hpp"

#include "conflux/crypto/digest.hpp"

namespace conflux::dirnet {
namespace {

// tor's ROUTER_ALLOW_SKEW and ROUTER_MAX_AGE_TO_PUBLISH.
constexpr std::uint64_t kAllowSkew = 12 * 60 * 60;
constexpr std::uint64_t kMaxAgeToPublish = 24 * 60 * 60;

TorUploadAnswer refused(std::string reason) { return {400, std::move(reason), false, false, false, {}}; }

TorUploadAnswer accepted(const crypto::Ed25519Public& id, bool new_relay) {
  return {200, "Descriptor accepted", false, true, new_relay, id};
}

}  // namespace

TorUploadAnswer TorDescriptorStore::accept(std::string_view body, std::uint64_t now) {
  // The extra-info descriptor that follows the server descriptor.
  if (auto extra = body.find("\nextra-info "); extra != std::string_view::npos) body = body.substr(0, extra + 1);
  if (body.size() > dir::kMaxTorServerDescriptorSize) return refused("Router descriptor was too large.");
  if (body.find("router ") == std::string_view::npos) return refused("No descriptors found in your POST.");
  auto d = dir::parse_tor_server_descriptor(body, now);
  if (!d) return refused("Couldn't parse router descriptor: " + std::string(dir::to_string(d.error().code)) + ".");
  if (d->published > now + kAllowSkew)
    return refused("Rejected: Your clock is set too far in the future, or your timezone is not correct.");
  if (d->published + kMaxAgeToPublish < now)
    return refused("Rejected: Server is expired, or your clock is too far in the past, or your timezone is not "
                   "correct.");
  const crypto::Ed25519Public id = d->ed25519_identity;
  auto rsa = by_rsa_.find(d->rsa_identity);
  auto it = held_.find(id);
  const bool rsa_moved = it != held_.end() && it->second.descriptors.back().rsa_identity != d->rsa_identity;
  if ((rsa != by_rsa_.end() && rsa->second != id) || rsa_moved)
    return refused("Ed25519 identity key or RSA identity key has changed.");
  if (it == held_.end()) {
    if (held_.size() >= capacity_) return {503, "Too many relays", false, false, false, {}};
    by_rsa_.emplace(d->rsa_identity, id);
    held_.emplace(id, Held{{std::move(*d)}, {}});
    return accepted(id, true);
  }
  auto& v = it->second.descriptors;
  if (d->published <= v.back().published)
    return {200, "Not replacing router descriptor; no information has changed since the last one with this identity.",
            true, false, false, {}};
  // The old newest stays as the previous one, for a valid-after before d->published.
  if (v.size() == 2) v.erase(v.begin());
  v.push_back(std::move(*d));
  return accepted(id, false);
}

std::string TorDescriptorStore::all() const {
  std::string out;
  for (const auto& [id, h] : held_) out += h.descriptors.back().text;
  return out;
}

std::string TorDescriptorStore::by_digest(const std::vector<crypto::RsaFingerprint>& digests) const {
  std::string out;
  for (const auto& want : digests)
    for (const auto& [id, h] : held_)
      for (const auto& d : h.descriptors)
        if (d.router_digest == want) out += d.text;
  return out;
}

std::string TorDescriptorStore::by_fingerprint(const std::vector<crypto::RsaFingerprint>& fingerprints) const {
  std::string out;
  for (const auto& fp : fingerprints)
    if (auto it = by_rsa_.find(fp); it != by_rsa_.end()) out += held_.at(it->second).descriptors.back().text;
  return out;
}

dir::TorRouterDigests TorDescriptorStore::router_digests() const {
  dir::TorRouterDigests out;
  for (const auto& [id, h] : held_)
    for (const auto& d : h.descriptors)
      out.emplace(crypto::sha256({reinterpret_cast<const std::uint8_t*>(d.text.data()), d.text.size()}), d.router_digest);
  return out;
}

void TorDescriptorStore::observe(const crypto::Ed25519Public& identity, std::uint64_t now, bool reachable) {
  auto it = held_.find(identity);
  if (it != held_.end()) it->second.history = dir::observe(it->second.history, now, reachable);
}

std::vector<ProbeTarget> TorDescriptorStore::probe_targets() const {
  std::vector<ProbeTarget> out;
  out.reserve(held_.size());
  for (const auto& [id, h] : held_) out.push_back({id, h.descriptors.back().ipv4, h.descriptors.back().or_port});
  return out;
}

std::vector<dir::TorRelayRecord> TorDescriptorStore::records_at(std::uint64_t va) const {
  std::vector<dir::TorRelayRecord> out;
  for (const auto& [id, h] : held_) {
    for (auto d = h.descriptors.rbegin(); d != h.descriptors.rend(); ++d) {
      if (d->published <= va) {
        out.push_back({*d, h.history});
        break;
      }
    }
  }
  return out;
}

void TorDescriptorStore::expire(std::uint64_t now, std::uint64_t max_age) {
  for (auto it = held_.begin(); it != held_.end();) {
    auto& v = it->second.descriptors;
    std::erase_if(v, [&](const dir::TorServerDescriptor& d) { return d.published + max_age < now; });
    if (!v.empty()) {
      ++it;
      continue;
    }
    std::erase_if(by_rsa_, [&](const auto& kv) { return kv.second == it->first; });
    it = held_.erase(it);
  }
}

}  // namespace conflux::dirnet
