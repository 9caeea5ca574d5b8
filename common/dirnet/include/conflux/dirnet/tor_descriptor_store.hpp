#pragma once
// What an authority of ours does with a tor server descriptor POSTed to
// /tor/ (a stock relay, or ours in tor's form, uploading as tor's relays
// do), sans-I/O: verified with the tor server descriptor parser (both
// signatures, the certificates, at `now`) and answered as tor's authorities
// answer, the reason in the HTTP status line (dircache.c,
// process_descs.c): 200 "Descriptor accepted"; 200 "Not replacing router
// descriptor; ..." (X-Descriptor-Not-New) when it is not newer than the one
// held; 400 with tor's reason otherwise. Accepted descriptors are kept, at
// most `capacity` relays (503 beyond), and served at /tor/server/all.
// A relay POSTs its extra-info descriptor after its server descriptor in
// the same body, as tor's relays do: it is skipped (not kept, not served).
//
// The store is the tor half of AuthorityState: per relay, like our own
// descriptors there, the newest descriptor and the newest one published
// before it (for a valid-after between the two), and the authority's
// reachability tests; records_at(VA) is what the consensus for VA lists.
// A relay is one Ed25519 identity bound to one RSA identity: an upload that
// pairs either with another key is refused, as tor refuses a changed key.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/dir/authority.hpp"
#include "conflux/dir/reachability.hpp"
#include "conflux/dir/tor_consensus_make.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dirnet/probe_target.hpp"

namespace conflux::dirnet {

struct TorUploadAnswer {
  unsigned status = 400;
  std::string reason;     // tor's message, for the status line
  bool not_new = false;   // tor's "X-Descriptor-Not-New: Yes"
  bool accepted = false;  // stored (new or newer)
  bool new_relay = false; // accepted for a relay not held before (test its ORPort soon)
  crypto::Ed25519Public identity{};  // for an accepted one
};

// A POST body's cap: a server descriptor (20000 bytes, tor's
// MAX_DESCRIPTOR_UPLOAD_SIZE) and an extra-info one (50000, tor's
// MAX_EXTRAINFO_UPLOAD_SIZE).
inline constexpr std::size_t kMaxTorUploadBody = 20000 + 50000;

class TorDescriptorStore {
 public:
  static constexpr std::size_t kDefaultCapacity = 4096;
  explicit TorDescriptorStore(std::size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  [[nodiscard]] TorUploadAnswer accept(std::string_view body, std::uint64_t now);
  // The newest descriptor of every relay, concatenated (empty when none).
  [[nodiscard]] std::string all() const;
  // The descriptors held with these digests (tor's, SHA-1: /tor/server/d/),
  // or the newest of the relays with these RSA fingerprints
  // (/tor/server/fp/), concatenated; unknown ones are left out.
  [[nodiscard]] std::string by_digest(const std::vector<crypto::RsaFingerprint>& digests) const;
  [[nodiscard]] std::string by_fingerprint(const std::vector<crypto::RsaFingerprint>& fingerprints) const;
  // Every descriptor held, SHA-256 of its text -> tor's digest: what the ns
  // consensus names each listed relay's descriptor by.
  [[nodiscard]] dir::TorRouterDigests router_digests() const;
  [[nodiscard]] std::size_t size() const noexcept { return held_.size(); }

  // One reachability test (ignored for a relay not held).
  void observe(const crypto::Ed25519Public& identity, std::uint64_t now, bool reachable);
  [[nodiscard]] bool holds(const crypto::Ed25519Public& identity) const { return held_.contains(identity); }
  [[nodiscard]] std::vector<ProbeTarget> probe_targets() const;
  // Per relay, the newest descriptor published at or before `va`, with the
  // relay's reachability history.
  [[nodiscard]] std::vector<dir::TorRelayRecord> records_at(std::uint64_t va) const;
  // Drops descriptors published more than `max_age` before `now`, and
  // relays left with none.
  void expire(std::uint64_t now, std::uint64_t max_age);

 private:
  struct Held {
    std::vector<dir::TorServerDescriptor> descriptors;  // newest last; at most two
    dir::ReachabilityHistory history;
  };
  std::size_t capacity_;
  std::map<crypto::Ed25519Public, Held> held_;
  std::map<crypto::RsaFingerprint, crypto::Ed25519Public> by_rsa_;
};

}  // namespace conflux::dirnet
