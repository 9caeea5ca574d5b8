#include "conflux/dirnet/tor_descriptor_store.hpp"

namespace conflux::dirnet {
namespace {

// tor's ROUTER_ALLOW_SKEW and ROUTER_MAX_AGE_TO_PUBLISH.
constexpr std::uint64_t kAllowSkew = 12 * 60 * 60;
constexpr std::uint64_t kMaxAgeToPublish = 24 * 60 * 60;

TorUploadAnswer refused(std::string reason) { return {400, std::move(reason), false, false}; }

}  // namespace

TorUploadAnswer TorDescriptorStore::accept(std::string_view body, std::uint64_t now) {
  if (body.size() > dir::kMaxTorServerDescriptorSize) return refused("Router descriptor was too large.");
  if (body.find("router ") == std::string_view::npos) return refused("No descriptors found in your POST.");
  auto d = dir::parse_tor_server_descriptor(body, now);
  if (!d) return refused("Couldn't parse router descriptor: " + std::string(dir::to_string(d.error().code)) + ".");
  if (d->published > now + kAllowSkew)
    return refused("Rejected: Your clock is set too far in the future, or your timezone is not correct.");
  if (d->published + kMaxAgeToPublish < now)
    return refused("Rejected: Server is expired, or your clock is too far in the past, or your timezone is not "
                   "correct.");
  auto it = held_.find(d->rsa_identity);
  if (it != held_.end()) {
    if (it->second.ed25519_identity != d->ed25519_identity)
      return refused("Ed25519 identity key or RSA identity key has changed.");
    if (d->published <= it->second.published)
      return {200, "Not replacing router descriptor; no information has changed since the last one with this identity.",
              true, false};
    it->second = std::move(*d);
    return {200, "Descriptor accepted", false, true};
  }
  if (held_.size() >= capacity_) return {503, "Too many relays", false, false};
  held_.emplace(d->rsa_identity, std::move(*d));
  return {200, "Descriptor accepted", false, true};
}

std::string TorDescriptorStore::all() const {
  std::string out;
  for (const auto& [fp, d] : held_) out += d.text;
  return out;
}

}  // namespace conflux::dirnet
