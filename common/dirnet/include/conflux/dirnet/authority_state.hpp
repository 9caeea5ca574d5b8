#pragma once
// What one directory authority holds between intervals, sans-I/O: the tor
// server descriptors relays uploaded (tor_uploads(): newest per identity,
// bounded), its own reachability tests, and the body computed for the
// current interval, from which tor's consensus is written and signed
// (TorAuthorityState). The network side (AuthorityService, DirServer) feeds
// it bytes and times.
//
// Determinism: every authority must compute the same body from the same
// facts, so the body for valid-after VA uses, per relay, the newest
// descriptor published at or before VA. A relay that republished just
// after VA is therefore listed with its previous descriptor by everyone,
// whichever of its uploads happened to arrive before the authority built.
#include <cstdint>
#include <optional>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dirnet/tor_descriptor_store.hpp"

namespace conflux::dirnet {

// The authority's choices that come from its configuration.
struct AuthorityOptions {
  dir::AuthorityParams params;               // interval, thresholds, descriptor window
};

// AuthorityParams from conflux-relay's options: ConsensusInterval, whether
// this is a test network (FlagThresholds::testing_network()), and the
// TestingDirAuthVote* options, which count only in a test network (as tor's).
[[nodiscard]] dir::AuthorityParams authority_params(std::uint64_t interval_seconds, bool testing_network,
                                                   const dir::TestingVotes& votes = {});

class AuthorityState {
 public:
  explicit AuthorityState(AuthorityOptions options);

  // Tor server descriptors POSTed to /tor/ (stock relays and ours), listed
  // in the body (dir::make_body), tested and expired.
  [[nodiscard]] TorDescriptorStore& tor_uploads() noexcept { return tor_uploads_; }
  [[nodiscard]] const TorDescriptorStore& tor_uploads() const noexcept { return tor_uploads_; }

  // One reachability test of `identity` at `now` (ignored if not held).
  void observe(const crypto::Ed25519Public& identity, std::uint64_t now, bool reachable);
  // Every relay to test.
  [[nodiscard]] std::vector<ProbeTarget> probe_targets() const;

  // Drops descriptors older than the descriptor window at `now`, and relays
  // left with none.
  void expire(std::uint64_t now);

  // Computes the body for valid-after `va` (what tor's consensus is written
  // from), with the bandwidth file's measurements if any, and holds it as
  // current().
  const dir::ConsensusBody& compute(std::uint64_t va, const dir::MeasuredBandwidths& measured = {});

  // The body computed for the current interval, if any.
  [[nodiscard]] const std::optional<dir::ConsensusBody>& current() const noexcept { return current_; }
  [[nodiscard]] std::optional<std::uint64_t> current_valid_after() const;

  [[nodiscard]] const AuthorityOptions& options() const noexcept { return options_; }

 private:
  [[nodiscard]] dir::ConsensusBody make_body_at(std::uint64_t va, const dir::MeasuredBandwidths& measured) const;

  AuthorityOptions options_;
  TorDescriptorStore tor_uploads_;
  std::optional<dir::ConsensusBody> current_;
};

}  // namespace conflux::dirnet
