#pragma once
// The parts of a tor server descriptor an authority lists beyond the keys:
// the "bandwidth" line, the IPv6 ORPort ("or-address"), the summary of
// the IPv4 exit policy ("accept"/"reject" lines, summarized as tor's
// policy_summarize writes a microdescriptor's "p") and the declared family
// ("family"). Nothing here is verified: the descriptor's signatures cover
// these lines.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/error.hpp"
#include "conflux/dir/tor_doc.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxFamily = 64;
inline constexpr std::uint64_t kMaxBandwidth = std::uint64_t{1} << 40;  // bytes/s; keeps sums exact

struct TorRelayFacts {
  // "bandwidth AVERAGE BURST OBSERVED" (required, as in tor), bytes/s, each
  // capped at 2^40 so that sums stay exact.
  std::uint64_t bandwidth_rate = 0;
  std::uint64_t bandwidth_burst = 0;
  std::uint64_t bandwidth_observed = 0;
  // The first "or-address [IPv6]:PORT" whose port is the ORPort (a
  // consensus entry has one ORPort for both families).
  std::optional<std::array<std::uint8_t, 16>> ipv6;
  // "accept 80,443"-style; "reject 1-65535" without policy lines (tor
  // treats an empty policy as rejecting everything).
  std::string exit_policy = "reject 1-65535";
  // "family" members named by fingerprint ("$HEX", "$HEX=nick", "$HEX~nick"),
  // ascending, each once, at most kMaxFamily; members named by nickname
  // alone are left out (an authority cannot tell which relay they mean).
  std::vector<crypto::RsaFingerprint> family;
  friend bool operator==(const TorRelayFacts&, const TorRelayFacts&) = default;
};

// A family member's RSA fingerprint: "$HEX", "$HEX=nick" or "$HEX~nick"
// (as tor writes them); nullopt for a nickname or anything else.
[[nodiscard]] std::optional<crypto::RsaFingerprint> family_member_fingerprint(std::string_view member);

// From a descriptor's items (keywords other than these are ignored). A
// malformed line of these keywords fails, as tor refuses the descriptor.
[[nodiscard]] DirResult<TorRelayFacts> read_tor_relay_facts(std::span<const tordoc::Item> items,
                                                            std::uint16_t or_port);
// The same from text (tokenized first): for tests and the fuzzer.
[[nodiscard]] DirResult<TorRelayFacts> parse_tor_relay_facts(std::string_view text, std::uint16_t or_port);

}  // namespace conflux::dir
