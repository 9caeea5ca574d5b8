#pragma once
// What one directory authority holds between intervals, sans-I/O: the
// descriptors relays uploaded (newest per identity, bounded; ours and
// tor's server descriptors, tor_uploads()), its own reachability tests,
// and the body computed for the current interval, from which tor's
// consensus is written and signed (TorAuthorityState). The network side
// (AuthorityService, DirServer) feeds it bytes and times.
//
// Determinism: every authority must compute the same body from the same
// facts, so the body for valid-after VA uses, per relay, the newest
// descriptor published at or before VA. A relay that republished just
// after VA is therefore listed with its previous descriptor by everyone,
// whichever of its uploads happened to arrive before the authority built.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/descriptor.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/reachability.hpp"
#include "conflux/dirnet/tor_descriptor_store.hpp"

namespace conflux::dirnet {

// The authority's choices that come from its configuration.
struct AuthorityOptions {
  dir::AuthorityParams params;               // interval, thresholds, descriptor window
  std::size_t max_relays = dir::kMaxRouters; // identities held at once
};

// AuthorityParams from the two options conflux-relay has: ConsensusInterval,
// and whether this is a test network (FlagThresholds::testing_network()).
[[nodiscard]] dir::AuthorityParams authority_params(std::uint64_t interval_seconds, bool testing_network);

enum class UploadStatus : std::uint8_t {
  Accepted,   // new identity, or newer than what was held
  Kept,       // valid, but not newer than what is held (a repeat)
  Rejected,   // does not parse or verify, or is a bridge's
  Full,       // a new identity while max_relays are held
};

struct UploadOutcome {
  UploadStatus status = UploadStatus::Rejected;
  std::optional<dir::DirError> error;     // for Rejected
  crypto::Ed25519Public identity{};       // for Accepted and Kept
  bool new_identity = false;              // Accepted for an identity not held before
};

class AuthorityState {
 public:
  explicit AuthorityState(AuthorityOptions options);

  [[nodiscard]] UploadOutcome upload(std::string_view text, std::uint64_t now);

  // Tor server descriptors POSTed to /tor/ (stock relays): listed in the
  // same body as ours (dir::make_body), tested and expired alike.
  [[nodiscard]] TorDescriptorStore& tor_uploads() noexcept { return tor_uploads_; }
  [[nodiscard]] const TorDescriptorStore& tor_uploads() const noexcept { return tor_uploads_; }

  // One reachability test of `identity` at `now` (ignored if not held),
  // ours or a tor descriptor's.
  void observe(const crypto::Ed25519Public& identity, std::uint64_t now, bool reachable);

  // The newest descriptor of every relay held.
  [[nodiscard]] std::vector<dir::Descriptor> relays() const;
  // Every relay to test, ours and tor's.
  [[nodiscard]] std::vector<ProbeTarget> probe_targets() const;
  [[nodiscard]] std::size_t relay_count() const noexcept { return relays_.size(); }

  // Drops descriptors older than the descriptor window at `now` (ours and
  // tor's), and relays left with none.
  void expire(std::uint64_t now);

  // Computes the body for valid-after `va` (what tor's consensus is written
  // from) and holds it as current().
  const dir::ConsensusBody& compute(std::uint64_t va);

  // The body computed for the current interval, if any.
  [[nodiscard]] const std::optional<dir::ConsensusBody>& current() const noexcept { return current_; }
  [[nodiscard]] std::optional<std::uint64_t> current_valid_after() const;

  [[nodiscard]] const AuthorityOptions& options() const noexcept { return options_; }

 private:
  struct Held {
    // Newest last; at most two: the newest, and the newest published before
    // it (still needed for a VA between their publication times).
    std::vector<dir::Descriptor> descriptors;
    dir::ReachabilityHistory history;
  };
  [[nodiscard]] dir::ConsensusBody make_body_at(std::uint64_t va) const;

  AuthorityOptions options_;
  std::map<crypto::Ed25519Public, Held> relays_;
  TorDescriptorStore tor_uploads_;
  std::optional<dir::ConsensusBody> current_;
};

}  // namespace conflux::dirnet
