#pragma once
// Bandwidth weights (dir-spec "Computing Bandwidth Weights", the section
// numbered 3.8.3 in the text dir-spec): how much a client should favour a
// Guard, Exit, Guard+Exit or plain relay for each position in a path so that
// the guard, middle and exit positions end up with balanced bandwidth.
//
// Implemented as tor's consensus method >= 26 computes it (case analysis of
// consensus method 10, integer arithmetic, G/M/E/D starting at 1 and T at 4
// so that small and new test networks still get weights, and the same
// consistency check that makes tor drop weights it cannot balance).
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace conflux::dir {

inline constexpr std::int64_t kDefaultWeightScale = 10000;

// W<position><class>: position g(uard), m(iddle), e(xit), b (directory
// requests) or d; class g = Guard only, e = Exit only, d = Guard+Exit,
// m = neither, b = bridge. Values are in units of 1/scale.
struct BandwidthWeights {
  std::int64_t scale = kDefaultWeightScale;
  std::int64_t wbd = 0, wbe = 0, wbg = 0, wbm = 0, wdb = 0, web = 0, wed = 0, wee = 0, weg = 0,
               wem = 0, wgb = 0, wgd = 0, wgg = 0, wgm = 0, wmb = 0, wmd = 0, wme = 0, wmg = 0,
               wmm = 0;
  friend bool operator==(const BandwidthWeights&, const BandwidthWeights&) = default;
};

// The 19 weights by their tor names, in tor's (sorted) order, for the codec.
inline constexpr std::array<std::pair<std::string_view, std::int64_t BandwidthWeights::*>, 19>
    kWeightFields{{{"Wbd", &BandwidthWeights::wbd}, {"Wbe", &BandwidthWeights::wbe},
                   {"Wbg", &BandwidthWeights::wbg}, {"Wbm", &BandwidthWeights::wbm},
                   {"Wdb", &BandwidthWeights::wdb}, {"Web", &BandwidthWeights::web},
                   {"Wed", &BandwidthWeights::wed}, {"Wee", &BandwidthWeights::wee},
                   {"Weg", &BandwidthWeights::weg}, {"Wem", &BandwidthWeights::wem},
                   {"Wgb", &BandwidthWeights::wgb}, {"Wgd", &BandwidthWeights::wgd},
                   {"Wgg", &BandwidthWeights::wgg}, {"Wgm", &BandwidthWeights::wgm},
                   {"Wmb", &BandwidthWeights::wmb}, {"Wmd", &BandwidthWeights::wmd},
                   {"Wme", &BandwidthWeights::wme}, {"Wmg", &BandwidthWeights::wmg},
                   {"Wmm", &BandwidthWeights::wmm}}};

// Which branch of the case analysis produced the weights (for tests/logs).
enum class WeightCase : std::uint8_t {
  Case1,      // neither Guard nor Exit scarce
  Case2a,     // both scarce, R + D < S
  Case2b1,    // both scarce, balanced with Wgg = 1, Wmd = Wgd
  Case2b2,    // both scarce, Wgg = Wee = 1
  Case2b3,    // as 2b2 with Wmd clamped to 0 (too much middle bandwidth)
  Case3a,     // one scarce, S + D < T/3
  Case3bg,    // Guard scarce, S + D >= T/3
  Case3be,    // Exit scarce, S + D >= T/3
};

struct WeightResult {
  BandwidthWeights weights;
  WeightCase which{};
};

// g, m, e, d: summed consensus bandwidth (kilobytes/s) of the relays flagged
// Guard only, neither, Exit only, and Guard+Exit. The +1 initialisation of
// method 26 is applied here. nullopt when tor would omit the weights (the
// solution fails its range/sum check), or when scale is not in 1..INT32_MAX.
[[nodiscard]] std::optional<WeightResult> compute_bandwidth_weights(
    std::int64_t g, std::int64_t m, std::int64_t e, std::int64_t d,
    std::int64_t scale = kDefaultWeightScale);

}  // namespace conflux::dir
