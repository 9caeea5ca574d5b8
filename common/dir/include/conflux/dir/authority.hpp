#pragma once
// A directory authority's decisions, as pure functions: which relays to
// list and with which flags, the bandwidth weights, and the consensus body.
//
// No votes, unlike tor: at each interval boundary VA every authority
// computes make_body(records, VA, params) from the tor server descriptors
// uploaded to it and its own reachability tests, writes tor's consensus
// from that body and signs it (tor_consensus_make.hpp); the authorities
// exchange their signatures. Bodies are identical whenever the inputs are
// (routers sorted by identity, everything evaluated at VA rather than at the
// moment of computing), so authorities that agree write the same document
// and their signatures combine; when views differ (a descriptor one
// authority lacks, a relay one of them cannot reach) the documents differ
// and only a majority that agrees yields a usable consensus.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/dir/bandwidth_file.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/reachability.hpp"
#include "conflux/dir/testing_votes.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"

namespace conflux::dir {

// dir-spec 3.4.2 "Assigning flags in a vote", with tor's default numbers.
// The "X or above a guarantee" rules make every threshold the smaller of a
// rank among the listed relays and a fixed value.
struct FlagThresholds {
  std::uint64_t running_window = 45 * 60;          // Running: reachable within the last 45 min
  std::uint64_t fast_guarantee = 100'000;          // Fast at >= 100 KB/s whatever the rank
  std::uint64_t fast_minimum = 20'000;             // never Fast below this (tor has such a floor too)
  std::uint64_t stable_guarantee = 7 * 86400;      // Stable with a 7-day run whatever the median
  std::uint64_t guard_bw_guarantee = 2'000'000;    // AuthDirGuardBWGuarantee (2 MB/s)
  std::uint64_t guard_familiar_after = 8 * 86400;  // "familiar": known for 8 days
  std::uint32_t guard_wfu_ppm = 980'000;           // Guard with WFU >= 98% whatever the median

  // As tor's TestingTorNetwork: a network that starts from zero gets Guard
  // and Stable at once (no familiarity, WFU or uptime requirement, no floor).
  static FlagThresholds testing_network();
};

// When a descriptor may be listed: published within [now - max_age,
// now + max_future].
struct DescriptorCheck {
  std::uint64_t max_age = 48 * 3600;    // tor drops descriptors older than 48 h
  std::uint64_t max_future = 3600;      // clock skew tolerated on "published"
};

// tor's defaults for measured bandwidths: the weight of an unmeasured relay
// once others are measured (consensus parameter "maxunmeasuredbw", KB/s),
// and how many measured relays make advertised bandwidths not count for the
// flags (MinMeasuredBWsForAuthToIgnoreAdvertised).
inline constexpr std::uint64_t kDefaultMaxUnmeasuredKb = 20;
inline constexpr std::size_t kMinMeasuredToIgnoreAdvertised = 500;

struct AuthorityParams {
  FlagThresholds thresholds;
  DescriptorCheck descriptor_check;
  std::uint64_t interval = 3600;       // VA..FU; a new consensus every interval
  std::uint64_t valid_intervals = 3;   // VU = VA + valid_intervals * interval
  std::int64_t weight_scale = kDefaultWeightScale;
  std::map<std::string, std::int32_t> consensus_params;  // copied into the body
  // TestingDirAuthVote*: set only at a test network's authority, as tor
  // applies them only with TestingTorNetwork (dirnet's authority_params).
  std::optional<TestingVotes> testing_votes;
};

// What the authority holds about one relay: a tor server descriptor it
// uploaded (POST /tor/: ours, or a stock tor relay's) and the authority's
// own reachability tests.
struct TorRelayRecord {
  TorServerDescriptor descriptor;
  ReachabilityHistory history;
};

// Exit flag, simplified from dir-spec ("allows at least two of 80, 443,
// 6667 to at least one /8"): the policy summary allows both 80 and 443. The
// summary has no addresses, so the /8 part cannot be checked here.
[[nodiscard]] bool exit_flag(std::string_view policy_summary) noexcept;

// The listed relays with their flags, evaluated at time `at`: those whose
// descriptor verifies again at `at` (both signatures, the certificates,
// published within the descriptor window: Valid) and that were reachable
// within running_window (Running), as tor lists only Running and Valid
// relays. One entry per Ed25519 identity (the latest published descriptor;
// ties broken by the larger digest) and per RSA identity, sorted by Ed25519
// identity. Each entry is made from what the descriptor says: bandwidth
// min(average, observed), the IPv4 exit policy's summary, proto, the first
// IPv6 or-address, the SHA-256 of its text as the digest, and the members of
// its declared family ("$FINGERPRINT" ones) that are listed too, by Ed25519
// identity. The flag thresholds are computed over all listed relays; then
// params.testing_votes, if any, force Guard and Exit.
//
// With `measured` (a bandwidth file, V3BandwidthsFile), as tor's authorities
// use measurements: a measured relay's weight is its measurement (and the
// flag thresholds use it); an unmeasured relay's weight is capped at the
// "maxunmeasuredbw" parameter (default 20 KB/s) once any listed relay is
// measured, and with more than 500 measured relays (tor's
// MinMeasuredBWsForAuthToIgnoreAdvertised) its advertised bandwidth no longer
// counts for the flags. Unlike tor, which takes the median of three or more
// authorities' measurements, each of ours uses its own file: there is no
// vote, so authorities need the same file to agree on a body.
[[nodiscard]] std::vector<RouterEntry> compute_router_entries(std::span<const TorRelayRecord> records,
                                                              std::uint64_t at, const AuthorityParams& params,
                                                              const MeasuredBandwidths& measured = {});

// The weights for `routers` (G/M/E/D summed from their flags and bandwidth).
[[nodiscard]] std::optional<BandwidthWeights> weights_for(std::span<const RouterEntry> routers,
                                                          std::int64_t scale = kDefaultWeightScale);

// The valid-after time of the consensus due at `now`: the last interval
// boundary (a multiple of `interval` seconds since the epoch).
[[nodiscard]] std::uint64_t valid_after_for(std::uint64_t now, std::uint64_t interval) noexcept;

// The consensus body for valid-after `va`; deterministic in its inputs.
[[nodiscard]] ConsensusBody make_body(std::span<const TorRelayRecord> records, std::uint64_t va,
                                      const AuthorityParams& params, const MeasuredBandwidths& measured = {});

}  // namespace conflux::dir
