#include "conflux/dirnet/authority_state.hpp"

#include <algorithm>
#include <utility>


namespace conflux::dirnet {
namespace {

// The order compute_router_entries uses to pick one descriptor per relay.
bool newer_than(const dir::Descriptor& a, const std::array<std::uint8_t, 32>& a_digest, const dir::Descriptor& b) {
  if (a.published != b.published) return a.published > b.published;
  return a_digest > dir::descriptor_digest(b);
}

}  // namespace

dir::AuthorityParams authority_params(std::uint64_t interval_seconds, bool testing_network) {
  dir::AuthorityParams p;
  p.interval = interval_seconds == 0 ? 1 : interval_seconds;
  if (testing_network) p.thresholds = dir::FlagThresholds::testing_network();
  return p;
}

AuthorityState::AuthorityState(AuthorityOptions options) : options_(std::move(options)) {}

UploadOutcome AuthorityState::upload(std::string_view text, std::uint64_t now) {
  UploadOutcome out;
  auto d = dir::accept_upload(text, now, options_.params.descriptor_check);
  if (!d) {
    out.error = d.error();
    return out;
  }
  out.identity = d->identity;
  auto it = relays_.find(d->identity);
  if (it == relays_.end()) {
    if (relays_.size() >= options_.max_relays) {
      out.status = UploadStatus::Full;
      return out;
    }
    relays_.emplace(d->identity, Held{{std::move(*d)}, {}});
    out.status = UploadStatus::Accepted;
    out.new_identity = true;
    return out;
  }
  auto& held = it->second.descriptors;
  const auto digest = dir::descriptor_digest(*d);
  if (!newer_than(*d, digest, held.back())) {
    out.status = UploadStatus::Kept;
    return out;
  }
  if (held.back().published < d->published) {
    // The old newest stays as the previous one, for a VA before d->published.
    dir::Descriptor prev = std::move(held.back());
    held.clear();
    held.push_back(std::move(prev));
    held.push_back(std::move(*d));
  } else {
    held.back() = std::move(*d);  // same time, larger digest: what the body rules pick anyway
  }
  out.status = UploadStatus::Accepted;
  return out;
}

void AuthorityState::observe(const crypto::Ed25519Public& identity, std::uint64_t now, bool reachable) {
  auto it = relays_.find(identity);
  if (it == relays_.end()) {
    tor_uploads_.observe(identity, now, reachable);
    return;
  }
  it->second.history = dir::observe(it->second.history, now, reachable);
}

std::vector<dir::Descriptor> AuthorityState::relays() const {
  std::vector<dir::Descriptor> out;
  out.reserve(relays_.size());
  for (const auto& [id, held] : relays_) out.push_back(held.descriptors.back());
  return out;
}

std::vector<ProbeTarget> AuthorityState::probe_targets() const {
  std::vector<ProbeTarget> out = tor_uploads_.probe_targets();
  out.reserve(out.size() + relays_.size());
  for (const auto& [id, held] : relays_) {
    const dir::Descriptor& d = held.descriptors.back();
    out.push_back({id, d.ipv4, d.or_port});
  }
  return out;
}

void AuthorityState::expire(std::uint64_t now) {
  const std::uint64_t max_age = options_.params.descriptor_check.max_age;
  for (auto it = relays_.begin(); it != relays_.end();) {
    auto& v = it->second.descriptors;
    // Only the time window: the certificate and signature were checked on
    // upload, and the body rules check them again at each VA.
    std::erase_if(v, [&](const dir::Descriptor& d) { return d.published + max_age < now; });
    it = v.empty() ? relays_.erase(it) : std::next(it);
  }
  tor_uploads_.expire(now, max_age);
}

const dir::ConsensusBody& AuthorityState::compute(std::uint64_t va) {
  current_ = make_body_at(va);
  return *current_;
}

dir::ConsensusBody AuthorityState::make_body_at(std::uint64_t va) const {
  std::vector<dir::RelayRecord> records;
  records.reserve(relays_.size());
  for (const auto& [id, held] : relays_) {
    for (auto d = held.descriptors.rbegin(); d != held.descriptors.rend(); ++d) {
      if (d->published <= va) {
        records.push_back(dir::RelayRecord{*d, held.history});
        break;
      }
    }
  }
  const std::vector<dir::TorRelayRecord> tor_records = tor_uploads_.records_at(va);
  return dir::make_body(records, tor_records, va, options_.params);
}

std::optional<std::uint64_t> AuthorityState::current_valid_after() const {
  if (!current_) return std::nullopt;
  return current_->valid_after;
}

}  // namespace conflux::dirnet
