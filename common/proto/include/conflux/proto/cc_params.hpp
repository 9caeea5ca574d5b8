#pragma once
// Congestion-control parameters (prop 324 section 6.5) as tor 0.4.9 reads
// them from a consensus: the same names, code defaults and allowed ranges.
//
// A value present in the map is clamped into its range, as tor's
// networkstatus_get_param() does; an absent one takes the default. Two
// details follow tor on purpose, so that a relay of ours and a tor relay
// reading one consensus run the same arithmetic:
//   - cc_alg outside {0, 2} (1 Westwood and 3 NOLA were removed) falls back
//     to the default, Vegas;
//   - tor stores cc_ewma_max and cc_ewma_ss in a uint8_t and the Vegas delta
//     in a uint16_t although their ranges reach INT32_MAX, so larger values
//     wrap (cc_ewma_max 300 acts as 44). Nothing here saturates them instead.
//
// Byte thresholds of XON/XOFF are cells times tor 0.4.9's relay payload
// sizes: the XOFF limits use the smallest payload (488, a v1 relay cell
// with a stream ID), the XON rate the largest (498, v0).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace conflux::proto {

enum class CcAlg : std::uint8_t {
  FixedWindow = 0,  // classic 1000/100 SENDME windows: no congestion control
  Vegas = 2,
};

// Which Vegas parameter set a circuit uses, by its length (tor's cc_path_t):
// Exit for 3-hop exit circuits (and onion-service SOS), Onion for 6-hop
// rendezvous circuits (and vanguards), Sbws for 2-hop bandwidth scanners.
enum class CcPathType : std::uint8_t { Exit, Onion, Sbws };

// Field widths are tor's (congestion_control_st.h): see the header comment.
struct VegasParams {
  std::uint16_t alpha = 0;        // queue below this and cwnd full: grow
  std::uint16_t beta = 0;         // queue above this: shrink by cwnd_inc
  std::uint16_t gamma = 0;        // slow start ends when the queue reaches it
  std::uint16_t delta = 0;        // queue above this: cut to bdp + delta
  std::uint32_t ss_cwnd_cap = 0;  // RFC 3742 limited slow start beyond this cwnd

  friend bool operator==(const VegasParams&, const VegasParams&) = default;
};

inline constexpr std::uint32_t kTlsRecordMaxCells = 16 * 1024 / 514;        // 31
inline constexpr std::uint32_t kCcOutbufCells = 2 * kTlsRecordMaxCells;     // 62
inline constexpr std::uint32_t kRelayPayloadSizeMin = 509 - 21;             // 488
inline constexpr std::uint32_t kRelayPayloadSizeMax = 509 - 11;             // 498

struct CcParams {
  CcAlg alg = CcAlg::Vegas;                         // cc_alg 0..3
  std::uint8_t sendme_inc = kTlsRecordMaxCells;     // cc_sendme_inc 1..254
  std::uint64_t cwnd_init = 4 * kTlsRecordMaxCells; // cc_cwnd_init 31..10000
  std::uint16_t cwnd_min = 4 * kTlsRecordMaxCells;  // cc_cwnd_min 31..1000
  std::uint32_t cwnd_max = 0x7fffffff;              // cc_cwnd_max 500..INT32_MAX
  std::uint16_t cwnd_inc = 1;                       // cc_cwnd_inc 1..1000
  std::uint16_t cwnd_inc_pct_ss = 100;              // cc_cwnd_inc_pct_ss 1..500
  std::uint8_t cwnd_inc_rate = kTlsRecordMaxCells;  // cc_cwnd_inc_rate 1..250
  std::uint8_t ewma_cwnd_pct = 50;                  // cc_ewma_cwnd_pct 1..255
  std::uint8_t ewma_max = 10;                       // cc_ewma_max 2..INT32_MAX (wraps)
  std::uint8_t ewma_ss = 2;                         // cc_ewma_ss 2..INT32_MAX (wraps)
  std::uint8_t rtt_reset_pct = 100;                 // cc_rtt_reset_pct 0..100
  std::uint8_t bwe_min = 5;                         // cc_bwe_min 2..20, unused by 0.4.9
  std::uint32_t ss_cwnd_max = 5000;                 // cc_ss_max 500..INT32_MAX
  std::int32_t cwnd_full_gap = 4;                   // cc_cwnd_full_gap 0..INT16_MAX
  std::int32_t cwnd_full_minpct = 25;               // cc_cwnd_full_minpct 0..100
  std::int32_t cwnd_full_per_cwnd = 1;              // cc_cwnd_full_per_cwnd 0..1

  // cc_vegas_{alpha,beta,gamma,delta}_{exit,onion,sbws}, cc_sscap_{...}
  VegasParams vegas_exit{3 * kCcOutbufCells, 4 * kCcOutbufCells, 3 * kCcOutbufCells, 5 * kCcOutbufCells, 600};
  VegasParams vegas_onion{3 * kCcOutbufCells, 6 * kCcOutbufCells, 4 * kCcOutbufCells, 7 * kCcOutbufCells, 475};
  VegasParams vegas_sbws{2 * kCcOutbufCells - kTlsRecordMaxCells, 2 * kCcOutbufCells + kTlsRecordMaxCells,
                         2 * kCcOutbufCells, 4 * kCcOutbufCells, 400};

  // Fixed windows and queue watermarks read beside them.
  std::int32_t circwindow = 1000;       // circwindow 100..1000: initial fixed package window
  std::int32_t cellq_high = 256;        // cellq_high 1..1000
  std::int32_t cellq_low = 10;          // cellq_low 1..1000
  std::uint32_t orconn_high = 32 * 1024;  // orconn_high 509..INT32_MAX bytes
  std::uint32_t orconn_low = 16 * 1024;   // orconn_low 509..INT32_MAX bytes

  // XON/XOFF stream flow control, in bytes as tor keeps them.
  std::uint32_t xoff_client_bytes = 500 * kRelayPayloadSizeMin;  // cc_xoff_client 1..10000 cells
  std::uint32_t xoff_exit_bytes = 500 * kRelayPayloadSizeMin;    // cc_xoff_exit 1..10000 cells
  std::uint32_t xon_rate_bytes = 500 * kRelayPayloadSizeMax;     // cc_xon_rate 1..5000 cells
  std::uint32_t xon_change_pct = 25;                             // cc_xon_change_pct 1..99
  std::uint32_t xon_ewma_cnt = 2;                                // cc_xon_ewma_cnt 2..100

  [[nodiscard]] bool enabled() const noexcept { return alg != CcAlg::FixedWindow; }
  [[nodiscard]] const VegasParams& vegas(CcPathType path) const noexcept;

  friend bool operator==(const CcParams&, const CcParams&) = default;
};

// A parameter the map gave that was not used as given, for the caller to log.
struct CcParamAdjustment {
  std::string name;
  std::int32_t given = 0;
  std::int64_t used = 0;  // after clamping (before any storage wrap)

  friend bool operator==(const CcParamAdjustment&, const CcParamAdjustment&) = default;
};

struct CcParamsBuilt {
  CcParams params;
  std::vector<CcParamAdjustment> adjusted;  // in the order they were read
};

// From a consensus's params line (dir::ConsensusBody::params), with any torrc
// overrides already merged into the map. Unknown keys are ignored.
[[nodiscard]] CcParamsBuilt cc_params_from(const std::map<std::string, std::int32_t>& kv);

}  // namespace conflux::proto
