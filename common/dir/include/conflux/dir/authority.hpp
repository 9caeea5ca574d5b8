#pragma once
// A directory authority's decisions, as pure functions: which relays to
// list and with which flags, the bandwidth weights, the consensus body, and
// the exchange of signatures between authorities.
//
// Protocol between authorities (no votes, unlike tor): at each interval
// boundary VA every authority computes make_body(records, VA, params) from
// the descriptors it holds and its own reachability tests, signs it
// (sign_body) and POSTs the DetachedSignature to the others. Each keeps
// Consensus{body, {own signature}} and add_signature()s the signatures whose
// digest matches its body. Bodies are byte-identical whenever the inputs
// are (routers sorted by identity, canonical JSON, everything evaluated at
// VA rather than at the moment of computing), so authorities that agree
// combine their signatures; when views differ (a descriptor one authority
// lacks, a relay one of them cannot reach) the bodies differ and only a
// majority that agrees yields a usable consensus.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dir/descriptor.hpp"
#include "conflux/dir/reachability.hpp"
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

struct AuthorityParams {
  FlagThresholds thresholds;
  DescriptorCheck descriptor_check;
  std::uint64_t interval = 3600;       // VA..FU; a new consensus every interval
  std::uint64_t valid_intervals = 3;   // VU = VA + valid_intervals * interval
  std::int64_t weight_scale = kDefaultWeightScale;
  std::map<std::string, std::int32_t> consensus_params;  // copied into the body
};

// What the authority holds about one relay: its latest accepted descriptor
// and its own reachability tests.
struct RelayRecord {
  Descriptor descriptor;
  ReachabilityHistory history;
};

// The same for a relay that uploaded tor's server descriptor (POST /tor/:
// a stock tor relay). Listed by the same rules; see compute_router_entries.
struct TorRelayRecord {
  TorServerDescriptor descriptor;
  ReachabilityHistory history;
};

// Upload acceptance: parse, verify (certificate, signature, times) and
// refuse bridge descriptors, which authorities never list.
[[nodiscard]] DirResult<Descriptor> accept_upload(std::string_view text, std::uint64_t now,
                                                  const DescriptorCheck& check = {});

// The advertised bandwidth the flag rules and weights use, bytes/s:
// min(rate, observed), as tor's router_get_advertised_bandwidth.
[[nodiscard]] std::uint64_t advertised_bandwidth(const Descriptor& d) noexcept;

// Exit flag, simplified from dir-spec ("allows at least two of 80, 443,
// 6667 to at least one /8"): the policy summary allows both 80 and 443. The
// summary has no addresses, so the /8 part cannot be checked here.
[[nodiscard]] bool exit_flag(std::string_view policy_summary) noexcept;

// The listed relays with their flags, evaluated at time `at`: those whose
// descriptor verifies at `at` and is not a bridge's (Valid) and that were
// reachable within running_window (Running), as tor lists only Running and
// Valid relays. One entry per identity (the latest published descriptor;
// ties broken by the larger digest), sorted by identity.
//
// Tor descriptors (`tor_records`) are checked again at `at` (both
// signatures, the certificates, published within the descriptor window),
// and their entries made from what they say: bandwidth min(average,
// observed), the IPv4 exit policy's summary, proto, the first IPv6
// or-address, the SHA-256 of their text as the digest, and the members of
// their declared family ("$FINGERPRINT" ones) that are listed too, by
// Ed25519 identity. A relay known both ways is listed from our own descriptor, and a
// tor descriptor whose RSA identity one of ours already claims is left out,
// so every identity of either kind appears once. The flag thresholds are
// computed over all listed relays together.
[[nodiscard]] std::vector<RouterEntry> compute_router_entries(std::span<const RelayRecord> records,
                                                              std::uint64_t at,
                                                              const AuthorityParams& params);
[[nodiscard]] std::vector<RouterEntry> compute_router_entries(std::span<const RelayRecord> records,
                                                              std::span<const TorRelayRecord> tor_records,
                                                              std::uint64_t at, const AuthorityParams& params);

// The weights for `routers` (G/M/E/D summed from their flags and bandwidth).
[[nodiscard]] std::optional<BandwidthWeights> weights_for(std::span<const RouterEntry> routers,
                                                          std::int64_t scale = kDefaultWeightScale);

// The valid-after time of the consensus due at `now`: the last interval
// boundary (a multiple of `interval` seconds since the epoch).
[[nodiscard]] std::uint64_t valid_after_for(std::uint64_t now, std::uint64_t interval) noexcept;

// The consensus body for valid-after `va`; deterministic in its inputs.
[[nodiscard]] ConsensusBody make_body(std::span<const RelayRecord> records, std::uint64_t va,
                                      const AuthorityParams& params);
[[nodiscard]] ConsensusBody make_body(std::span<const RelayRecord> records, std::span<const TorRelayRecord> tor_records,
                                      std::uint64_t va, const AuthorityParams& params);

// This authority's signature over `body`.
[[nodiscard]] DetachedSignature sign_body(const ConsensusBody& body, const crypto::Ed25519Public& identity,
                                          std::span<const std::uint8_t> signing_cert,
                                          const crypto::Ed25519Keypair& signing_key);

// Adds `sig` to `c` if it is from a configured authority, for this body
// (digest), and verifies (certificate at `now`, signature). Returns true if
// added, false if that authority's signature was already there (kept once;
// the list stays sorted by identity, so it is bounded by |authorities|).
[[nodiscard]] DirResult<bool> add_signature(Consensus& c, const DetachedSignature& sig,
                                            std::span<const crypto::Ed25519Public> authorities,
                                            std::uint64_t now);

}  // namespace conflux::dir
