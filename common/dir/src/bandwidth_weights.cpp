#include "conflux/dir/bandwidth_weights.hpp"

namespace conflux::dir {
namespace {

// Inputs are bounded so that every product below fits in int64:
// scale * 4 * T <= 1e5 * 4 * 2^47 < 2^63.
constexpr std::int64_t kMaxClassBandwidth = std::int64_t{1} << 45;
constexpr std::int64_t kMaxScale = 100000;

enum class Check { Ok, Range, SumG, SumE, SumD, BalanceMid, BalanceEg };

struct W {
  std::int64_t gg = -1, gd = -1, mg = -1, me = -1, md = -1, ee = -1, ed = -1;
};

bool near(std::int64_t a, std::int64_t b, std::int64_t margin) {
  return a >= b ? a - b <= margin : b - a <= margin;
}

// The consistency check tor applies to a candidate solution: the three
// "sums to one" constraints within a margin of 10/scale, every weight in
// [0, scale], then the two balance equations within margin*T/3.
Check check(const W& w, std::int64_t s, std::int64_t g, std::int64_t m, std::int64_t e,
            std::int64_t d, std::int64_t t) {
  constexpr std::int64_t margin = 10;
  if (!near(w.ed + w.md + w.gd, s, margin)) return Check::SumD;
  if (!near(w.mg + w.gg, s, margin)) return Check::SumG;
  if (!near(w.me + w.ee, s, margin)) return Check::SumE;
  for (std::int64_t v : {w.gg, w.gd, w.mg, w.me, w.md, w.ed, w.ee})
    if (v < 0 || v > s) return Check::Range;
  const std::int64_t guard_bw = w.gg * g + w.gd * d;
  if (!near(guard_bw, w.ee * e + w.ed * d, (margin * t) / 3)) return Check::BalanceEg;
  if (!near(guard_bw, m * s + w.md * d + w.me * e + w.mg * g, (margin * t) / 3))
    return Check::BalanceMid;
  return Check::Ok;
}

BandwidthWeights expand(const W& w, std::int64_t s) {
  BandwidthWeights out;
  out.scale = s;
  out.wbd = w.md;
  out.wbe = w.me;
  out.wbg = w.mg;
  out.wbm = s;
  out.wdb = s;
  out.web = s;
  out.wed = w.ed;
  out.wee = w.ee;
  out.weg = w.ed;
  out.wem = w.ee;
  out.wgb = s;
  out.wgd = w.gd;
  out.wgg = w.gg;
  out.wgm = w.gg;
  out.wmb = s;
  out.wmd = w.md;
  out.wme = w.me;
  out.wmg = w.mg;
  out.wmm = s;
  return out;
}

}  // namespace

std::optional<WeightResult> compute_bandwidth_weights(std::int64_t g0, std::int64_t m0, std::int64_t e0,
                                                      std::int64_t d0, std::int64_t s) {
  if (s < 1 || s > kMaxScale) return std::nullopt;
  for (std::int64_t v : {g0, m0, e0, d0})
    if (v < 0 || v > kMaxClassBandwidth) return std::nullopt;
  // Consensus method 26: every class starts at 1, so no class is empty.
  const std::int64_t g = g0 + 1, m = m0 + 1, e = e0 + 1, d = d0 + 1;
  const std::int64_t t = g + m + e + d;
  W w;
  WeightCase which{};

  if (3 * e >= t && 3 * g >= t) {
    which = WeightCase::Case1;
    w.gd = s / 3;
    w.ed = s / 3;
    w.md = s / 3;
    w.ee = (s * (e + g + m)) / (3 * e);
    w.me = s - w.ee;
    w.mg = (s * (2 * g - e - m)) / (3 * g);
    w.gg = s - w.mg;
    if (check(w, s, g, m, e, d, t) != Check::Ok) return std::nullopt;
  } else if (3 * e < t && 3 * g < t) {
    const std::int64_t rare = e < g ? e : g;
    const std::int64_t plenty = e < g ? g : e;
    if (rare + d < plenty) {
      which = WeightCase::Case2a;
      w.gg = s;
      w.ee = s;
      w.mg = 0;
      w.me = 0;
      w.md = 0;
      // All of D goes to the scarcer position.
      w.ed = e < g ? s : 0;
      w.gd = e < g ? 0 : s;
    } else {
      which = WeightCase::Case2b1;
      w.ee = (s * (e - g + m)) / e;
      w.ed = (s * (d - 2 * e + 4 * g - 2 * m)) / (3 * d);
      w.me = (s * (g - m)) / e;
      w.mg = 0;
      w.gg = s;
      w.md = (s - w.ed) / 2;
      w.gd = (s - w.ed) / 2;
      Check c = check(w, s, g, m, e, d, t);
      if (c != Check::Ok) {
        which = WeightCase::Case2b2;
        w.gg = s;
        w.ee = s;
        w.ed = (s * (d - 2 * e + g + m)) / (3 * d);
        w.md = (s * (d - 2 * m + g + e)) / (3 * d);
        w.me = 0;
        w.mg = 0;
        if (w.md < 0) {  // M > T/3
          which = WeightCase::Case2b3;
          w.md = 0;
        }
        w.gd = s - w.ed - w.md;
        c = check(w, s, g, m, e, d, t);
      }
      // An unbalanced middle is tolerated here: both ends are scarce.
      if (c != Check::Ok && c != Check::BalanceMid) return std::nullopt;
    }
  } else {
    const std::int64_t scarce = e < g ? e : g;
    if (3 * (scarce + d) < t) {
      which = WeightCase::Case3a;
      if (g < e) {
        w.gg = s;
        w.gd = s;
        w.md = 0;
        w.ed = 0;
        w.mg = 0;
        w.me = e < m ? 0 : (s * (e - m)) / (2 * e);
        w.ee = s - w.me;
      } else {
        w.ee = s;
        w.ed = s;
        w.md = 0;
        w.gd = 0;
        w.me = 0;
        w.mg = g < m ? 0 : (s * (g - m)) / (2 * g);
        w.gg = s - w.mg;
      }
    } else if (g < e) {
      which = WeightCase::Case3bg;
      w.gg = s;
      w.gd = (s * (d - 2 * g + e + m)) / (3 * d);
      w.mg = 0;
      w.ee = (s * (e + m)) / (2 * e);
      w.me = s - w.ee;
      w.md = (s - w.gd) / 2;
      w.ed = (s - w.gd) / 2;
      if (check(w, s, g, m, e, d, t) != Check::Ok) return std::nullopt;
    } else {
      which = WeightCase::Case3be;
      w.ee = s;
      w.ed = (s * (d - 2 * e + g + m)) / (3 * d);
      w.me = 0;
      w.gg = (s * (g + m)) / (2 * g);
      w.mg = s - w.gg;
      w.md = (s - w.ed) / 2;
      w.gd = (s - w.ed) / 2;
      if (check(w, s, g, m, e, d, t) != Check::Ok) return std::nullopt;
    }
  }
  return WeightResult{expand(w, s), which};
}

}  // namespace conflux::dir
