#include "conflux/proto/cc_params.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace conflux::proto {

namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt16Max = std::numeric_limits<std::int16_t>::max();
constexpr std::int64_t kCellPayloadSize = 509;

// tor's networkstatus_get_param(): the default when absent, else the value
// clamped into [lo, hi].
class Reader {
 public:
  Reader(const std::map<std::string, std::int32_t>& kv, std::vector<CcParamAdjustment>& adjusted)
      : kv_(kv), adjusted_(adjusted) {}

  std::int64_t get(const std::string& name, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
    const auto it = kv_.find(name);
    if (it == kv_.end()) return dflt;
    const std::int64_t used = std::clamp<std::int64_t>(it->second, lo, hi);
    if (used != it->second) adjusted_.push_back({name, it->second, used});
    return used;
  }

  void note(const std::string& name, std::int64_t used) {
    const auto it = kv_.find(name);
    if (it != kv_.end()) adjusted_.push_back({name, it->second, used});
  }

 private:
  const std::map<std::string, std::int32_t>& kv_;
  std::vector<CcParamAdjustment>& adjusted_;
};

// Narrowing exactly as tor's assignment into a narrower field does (modulo
// 2^N); see the header for why this is kept.
template <class T>
T as_tor_field(std::int64_t v) {
  return static_cast<T>(static_cast<std::uint64_t>(v));
}

VegasParams read_vegas(Reader& r, const std::string& suffix, const VegasParams& d) {
  VegasParams v;
  v.ss_cwnd_cap = as_tor_field<std::uint32_t>(r.get("cc_sscap_" + suffix, d.ss_cwnd_cap, 100, kInt32Max));
  v.alpha = as_tor_field<std::uint16_t>(r.get("cc_vegas_alpha_" + suffix, d.alpha, 0, 1000));
  v.beta = as_tor_field<std::uint16_t>(r.get("cc_vegas_beta_" + suffix, d.beta, 0, 1000));
  v.gamma = as_tor_field<std::uint16_t>(r.get("cc_vegas_gamma_" + suffix, d.gamma, 0, 1000));
  v.delta = as_tor_field<std::uint16_t>(r.get("cc_vegas_delta_" + suffix, d.delta, 0, kInt32Max));
  return v;
}

void read_common(Reader& r, CcParams& p, const CcParams& d) {
  // cc_alg: 0..NUM_CC_ALGS-1, then anything but SENDME and Vegas is
  // "unsupported" and replaced by the default.
  const std::int64_t alg = r.get("cc_alg", static_cast<std::int64_t>(d.alg), 0, 3);
  if (alg == static_cast<std::int64_t>(CcAlg::FixedWindow)) {
    p.alg = CcAlg::FixedWindow;
  } else {
    p.alg = CcAlg::Vegas;
    if (alg != static_cast<std::int64_t>(CcAlg::Vegas)) r.note("cc_alg", static_cast<std::int64_t>(CcAlg::Vegas));
  }
  p.sendme_inc = as_tor_field<std::uint8_t>(r.get("cc_sendme_inc", d.sendme_inc, 1, 254));
  p.cwnd_init = as_tor_field<std::uint64_t>(r.get("cc_cwnd_init", static_cast<std::int64_t>(d.cwnd_init),
                                                  kTlsRecordMaxCells, 10000));
  p.cwnd_min = as_tor_field<std::uint16_t>(r.get("cc_cwnd_min", d.cwnd_min, kTlsRecordMaxCells, 1000));
  p.cwnd_max = as_tor_field<std::uint32_t>(r.get("cc_cwnd_max", d.cwnd_max, 500, kInt32Max));
  p.cwnd_inc = as_tor_field<std::uint16_t>(r.get("cc_cwnd_inc", d.cwnd_inc, 1, 1000));
  p.cwnd_inc_pct_ss = as_tor_field<std::uint16_t>(r.get("cc_cwnd_inc_pct_ss", d.cwnd_inc_pct_ss, 1, 500));
  p.cwnd_inc_rate = as_tor_field<std::uint8_t>(r.get("cc_cwnd_inc_rate", d.cwnd_inc_rate, 1, 250));
  p.ewma_cwnd_pct = as_tor_field<std::uint8_t>(r.get("cc_ewma_cwnd_pct", d.ewma_cwnd_pct, 1, 255));
  p.ewma_max = as_tor_field<std::uint8_t>(r.get("cc_ewma_max", d.ewma_max, 2, kInt32Max));
  p.ewma_ss = as_tor_field<std::uint8_t>(r.get("cc_ewma_ss", d.ewma_ss, 2, kInt32Max));
  p.rtt_reset_pct = as_tor_field<std::uint8_t>(r.get("cc_rtt_reset_pct", d.rtt_reset_pct, 0, 100));
  p.bwe_min = as_tor_field<std::uint8_t>(r.get("cc_bwe_min", d.bwe_min, 2, 20));
  p.ss_cwnd_max = as_tor_field<std::uint32_t>(r.get("cc_ss_max", d.ss_cwnd_max, 500, kInt32Max));
  p.cwnd_full_gap = static_cast<std::int32_t>(r.get("cc_cwnd_full_gap", d.cwnd_full_gap, 0, kInt16Max));
  p.cwnd_full_minpct = static_cast<std::int32_t>(r.get("cc_cwnd_full_minpct", d.cwnd_full_minpct, 0, 100));
  p.cwnd_full_per_cwnd = static_cast<std::int32_t>(r.get("cc_cwnd_full_per_cwnd", d.cwnd_full_per_cwnd, 0, 1));
}

void read_queues(Reader& r, CcParams& p, const CcParams& d) {
  p.circwindow = static_cast<std::int32_t>(r.get("circwindow", d.circwindow, 100, 1000));
  p.cellq_high = static_cast<std::int32_t>(r.get("cellq_high", d.cellq_high, 1, 1000));
  p.cellq_low = static_cast<std::int32_t>(r.get("cellq_low", d.cellq_low, 1, 1000));
  p.orconn_high = as_tor_field<std::uint32_t>(r.get("orconn_high", d.orconn_high, kCellPayloadSize, kInt32Max));
  p.orconn_low = as_tor_field<std::uint32_t>(r.get("orconn_low", d.orconn_low, kCellPayloadSize, kInt32Max));
}

void read_flow(Reader& r, CcParams& p) {
  p.xoff_client_bytes = as_tor_field<std::uint32_t>(r.get("cc_xoff_client", 500, 1, 10000) * kRelayPayloadSizeMin);
  p.xoff_exit_bytes = as_tor_field<std::uint32_t>(r.get("cc_xoff_exit", 500, 1, 10000) * kRelayPayloadSizeMin);
  p.xon_change_pct = as_tor_field<std::uint32_t>(r.get("cc_xon_change_pct", 25, 1, 99));
  p.xon_rate_bytes = as_tor_field<std::uint32_t>(r.get("cc_xon_rate", 500, 1, 5000) * kRelayPayloadSizeMax);
  p.xon_ewma_cnt = as_tor_field<std::uint32_t>(r.get("cc_xon_ewma_cnt", 2, 2, 100));
}

}  // namespace

const VegasParams& CcParams::vegas(CcPathType path) const noexcept {
  switch (path) {
    case CcPathType::Onion: return vegas_onion;
    case CcPathType::Sbws: return vegas_sbws;
    case CcPathType::Exit: break;
  }
  return vegas_exit;
}

CcParamsBuilt cc_params_from(const std::map<std::string, std::int32_t>& kv) {
  CcParamsBuilt out;
  const CcParams d;
  Reader r(kv, out.adjusted);
  read_common(r, out.params, d);
  out.params.vegas_exit = read_vegas(r, "exit", d.vegas_exit);
  out.params.vegas_onion = read_vegas(r, "onion", d.vegas_onion);
  out.params.vegas_sbws = read_vegas(r, "sbws", d.vegas_sbws);
  read_queues(r, out.params, d);
  read_flow(r, out.params);
  return out;
}

}  // namespace conflux::proto
