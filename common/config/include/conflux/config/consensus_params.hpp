#pragma once
// The value of ConsensusParams (tor's authority option: the params line an
// authority votes for) and of OverrideConsensusParams (ours: experiments
// that run a relay or a client with other values than the consensus gives):
// "K=V K=V ...", K of [A-Za-z0-9_], at most 32 characters, V a 32-bit signed
// integer, each K once, at most 64 pairs (the directory's own limits).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "conflux/config/values.hpp"

namespace conflux::config {

using ConsensusParamMap = std::map<std::string, std::int32_t>;

inline constexpr std::size_t kMaxConsensusParams = 64;
inline constexpr std::size_t kMaxConsensusParamName = 32;

[[nodiscard]] ValueResult<ConsensusParamMap> parse_consensus_params(std::string_view text);

// `base` with every key of `overrides` set to its value.
[[nodiscard]] ConsensusParamMap merge_consensus_params(ConsensusParamMap base, const ConsensusParamMap& overrides);

}  // namespace conflux::config
