#pragma once
// What one directory authority holds between intervals, sans-I/O: the
// descriptors relays uploaded (newest per identity, bounded; ours and
// tor's server descriptors, tor_uploads()), its own
// reachability tests, the consensus it is collecting signatures for, and
// the latest consensus a majority signed (the one it serves). The network
// side (AuthorityService, DirServer) feeds it bytes and times.
//
// Determinism: every authority must compute the same body from the same
// facts, so the body for valid-after VA uses, per relay, the newest
// descriptor published at or before VA. A relay that republished just
// after VA is therefore listed with its previous descriptor by everyone,
// whichever of its uploads happened to arrive before the authority built.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
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

namespace conflux::keys {
class RelayKeys;
}

namespace conflux::dirnet {

// The authority's choices that come from its configuration.
struct AuthorityOptions {
  dir::AuthorityParams params;               // interval, thresholds, descriptor window
  std::size_t max_relays = dir::kMaxRouters; // identities held at once
  dir::ConsensusCheck consensus_check;       // skew tolerated when publishing/adopting
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

enum class SignatureStatus : std::uint8_t {
  Added,      // counted on the body we are collecting for (or already there)
  OtherBody,  // not for our current body (or we have none yet): kept for later
  Invalid,    // does not parse, unknown authority, bad certificate or signature
};

class AuthorityState {
 public:
  // `authorities`: every configured authority's identity, this one included.
  // `keys` must outlive the state (its signing key may be renewed in place).
  AuthorityState(const keys::RelayKeys& keys, std::vector<crypto::Ed25519Public> authorities,
                 AuthorityOptions options);

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
  // from) and holds it as current(), unsigned: tor's document alone is then
  // signed (TorAuthorityState), and no JSON consensus is published.
  const dir::ConsensusBody& compute(std::uint64_t va);

  // JSON form (retires with our form of DirAuthority, issue 15): computes
  // and signs the body for valid-after `va`, starts collecting
  // signatures on it (signatures that arrived early are applied) and
  // publishes if that already makes a majority. Returns our signature.
  dir::DetachedSignature build(std::uint64_t va, std::uint64_t now);

  // JSON form (to be removed with it): another authority's signature on our body.
  [[nodiscard]] SignatureStatus add_signature(std::string_view text, std::uint64_t now);

  // JSON form (to be removed with it; tor's: TorAuthorityState::adopt).
  // Takes a consensus fetched elsewhere (another authority published one we
  // could not, because our view differed) if it verifies and is newer than
  // ours. Returns whether it was taken.
  bool adopt(dir::Consensus c, std::uint64_t now);

  // The consensus we are collecting for, if built.
  [[nodiscard]] const std::optional<dir::Consensus>& current() const noexcept { return current_; }
  [[nodiscard]] std::optional<std::uint64_t> current_valid_after() const;
  // The latest majority-signed consensus, and its text, while valid at `now`.
  [[nodiscard]] const dir::Consensus* published(std::uint64_t now) const;
  [[nodiscard]] std::optional<std::string> published_text(std::uint64_t now) const;
  [[nodiscard]] std::optional<std::string> current_body_text() const;

  [[nodiscard]] std::span<const crypto::Ed25519Public> authorities() const noexcept { return authorities_; }
  [[nodiscard]] const crypto::Ed25519Public& identity() const noexcept;
  [[nodiscard]] const AuthorityOptions& options() const noexcept { return options_; }

 private:
  struct Held {
    // Newest last; at most two: the newest, and the newest published before
    // it (still needed for a VA between their publication times).
    std::vector<dir::Descriptor> descriptors;
    dir::ReachabilityHistory history;
  };
  [[nodiscard]] dir::ConsensusBody make_body_at(std::uint64_t va) const;
  void try_publish(std::uint64_t now);

  const keys::RelayKeys& keys_;
  std::vector<crypto::Ed25519Public> authorities_;
  AuthorityOptions options_;
  std::map<crypto::Ed25519Public, Held> relays_;
  TorDescriptorStore tor_uploads_;
  std::optional<dir::Consensus> current_;
  std::array<std::uint8_t, 32> current_digest_{};
  // Signatures for a body we have not built (yet): one per other authority.
  std::map<crypto::Ed25519Public, dir::DetachedSignature> early_;
  std::optional<dir::Consensus> published_;
  std::string published_text_;
};

}  // namespace conflux::dirnet
