#include "conflux/config/consensus_params.hpp"

#include <algorithm>
#include <cctype>

namespace conflux::config {
namespace {

bool is_param_name(std::string_view k) noexcept {
  return !k.empty() && k.size() <= kMaxConsensusParamName &&
         std::all_of(k.begin(), k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

ValueResult<ConsensusParamMap> parse_consensus_params(std::string_view text) {
  ConsensusParamMap out;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    if (at == text.size()) break;
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    const std::string_view pair = text.substr(at, end - at);
    at = end;
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) return Unexpected{"'" + std::string(pair.substr(0, 40)) + "' is not K=V"};
    const std::string_view key = pair.substr(0, eq);
    if (!is_param_name(key)) return Unexpected{"'" + std::string(key.substr(0, 40)) + "' is not a parameter name"};
    auto v = parse_int(pair.substr(eq + 1), INT32_MIN, INT32_MAX);
    if (!v) return Unexpected{std::string(key) + ": " + v.error()};
    if (!out.emplace(std::string(key), static_cast<std::int32_t>(*v)).second)
      return Unexpected{std::string(key) + " is given twice"};
    if (out.size() > kMaxConsensusParams)
      return Unexpected{"more than " + std::to_string(kMaxConsensusParams) + " parameters"};
  }
  return out;
}

ConsensusParamMap merge_consensus_params(ConsensusParamMap base, const ConsensusParamMap& overrides) {
  for (const auto& [k, v] : overrides) base[k] = v;
  return base;
}

}  // namespace conflux::config
