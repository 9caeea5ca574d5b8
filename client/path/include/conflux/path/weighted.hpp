#pragma once
// Bandwidth-weighted choice: relay i is picked with probability
// bandwidth_i * W(position, flags_i) / sum. Exact integer arithmetic (128-bit
// products and sums, scaled down to 63 bits only when the sum needs it).
#include <cstddef>
#include <optional>
#include <span>

#include "conflux/dir/consensus.hpp"
#include "conflux/path/random.hpp"
#include "conflux/path/relay_rules.hpp"

namespace conflux::path {

// An index into `candidates`, or nullopt when it is empty. When every weight
// is 0 (a new network where all consensus bandwidths are 0) the choice is
// uniform, as tor's.
[[nodiscard]] std::optional<std::size_t> choose_by_bandwidth(std::span<const dir::RouterEntry* const> candidates,
                                                             Position pos,
                                                             const std::optional<dir::BandwidthWeights>& w,
                                                             const Rng& rng);

}  // namespace conflux::path
