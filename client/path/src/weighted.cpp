#include "conflux/path/weighted.hpp"

#include <algorithm>
#include <vector>

namespace conflux::path {
namespace {

__extension__ typedef unsigned __int128 U128;  // NOLINT: GCC/Clang extension, kept out of headers

// Consensus bandwidths are at most 2^40/1000 (the parser's cap); a hand-made
// entry is clamped to 2^48 so that 2^48 * 2^31 * 10^4 relays stays in 128 bits.
constexpr std::uint64_t kMaxBw = std::uint64_t{1} << 48;
constexpr U128 kMaxTotal = U128{1} << 62;

}  // namespace

std::optional<std::size_t> choose_by_bandwidth(std::span<const dir::RouterEntry* const> candidates, Position pos,
                                               const std::optional<dir::BandwidthWeights>& w, const Rng& rng) {
  if (candidates.empty()) return std::nullopt;
  std::vector<U128> wide(candidates.size());
  U128 total = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto bw = std::min(candidates[i]->bandwidth, kMaxBw);
    wide[i] = U128{bw} * static_cast<std::uint64_t>(position_weight(candidates[i]->flags, pos, w));
    total += wide[i];
  }
  // Scale into 63 bits as tor's scale_array_elements_to_u64 does; the
  // proportions change by at most one unit in 2^62.
  unsigned shift = 0;
  while ((total >> shift) > kMaxTotal) ++shift;
  std::vector<std::uint64_t> narrow(candidates.size());
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    narrow[i] = static_cast<std::uint64_t>(wide[i] >> shift);
    sum += narrow[i];
  }
  if (sum == 0) return static_cast<std::size_t>(uniform_below(rng, candidates.size()));
  std::uint64_t r = uniform_below(rng, sum);
  for (std::size_t i = 0; i < narrow.size(); ++i) {
    if (r < narrow[i]) return i;
    r -= narrow[i];
  }
  return narrow.size() - 1;  // unreachable: r < sum
}

}  // namespace conflux::path
