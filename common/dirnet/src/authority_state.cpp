#include "conflux/dirnet/authority_state.hpp"

#include <utility>

namespace conflux::dirnet {

dir::AuthorityParams authority_params(std::uint64_t interval_seconds, bool testing_network,
                                     const dir::TestingVotes& votes) {
  dir::AuthorityParams p;
  p.interval = interval_seconds == 0 ? 1 : interval_seconds;
  if (testing_network) {
    p.thresholds = dir::FlagThresholds::testing_network();
    p.testing_votes = votes;
  }
  return p;
}

AuthorityState::AuthorityState(AuthorityOptions options) : options_(std::move(options)) {}

void AuthorityState::observe(const crypto::Ed25519Public& identity, std::uint64_t now, bool reachable) {
  tor_uploads_.observe(identity, now, reachable);
}

std::vector<ProbeTarget> AuthorityState::probe_targets() const { return tor_uploads_.probe_targets(); }

void AuthorityState::expire(std::uint64_t now) {
  tor_uploads_.expire(now, options_.params.descriptor_check.max_age);
}

const dir::ConsensusBody& AuthorityState::compute(std::uint64_t va, const dir::MeasuredBandwidths& measured) {
  current_ = make_body_at(va, measured);
  return *current_;
}

dir::ConsensusBody AuthorityState::make_body_at(std::uint64_t va, const dir::MeasuredBandwidths& measured) const {
  return dir::make_body(tor_uploads_.records_at(va), va, options_.params, measured);
}

std::optional<std::uint64_t> AuthorityState::current_valid_after() const {
  if (!current_) return std::nullopt;
  return current_->valid_after;
}

}  // namespace conflux::dirnet
