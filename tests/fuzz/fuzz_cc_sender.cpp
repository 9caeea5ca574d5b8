// The congestion-control machines (proto/cc_sendme.hpp, cc_vegas.hpp,
// cc_stream_flow.hpp) driven by arbitrary parameters and event sequences,
// under the sanitizers. Checks after every event:
//  - cwnd never exceeds cc_cwnd_max, and the pending-SENDME queue never
//    exceeds its bound; can_send() implies a non-zero package window;
//  - a SENDME is accepted only with a cell pending, and a wrong tag never;
//  - a peer that echoes every sendme_inc-th cell's digest is never refused.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "conflux/proto/cc_sendme.hpp"
#include "conflux/proto/cc_stream_flow.hpp"
#include "fuzz_input.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

using fuzz::Input;

const char* const kKeys[] = {"cc_cwnd_init",     "cc_cwnd_min",        "cc_cwnd_max",         "cc_cwnd_inc",
                             "cc_cwnd_inc_pct_ss", "cc_cwnd_inc_rate", "cc_ewma_cwnd_pct",    "cc_ewma_max",
                             "cc_ewma_ss",       "cc_rtt_reset_pct",   "cc_ss_max",           "cc_cwnd_full_gap",
                             "cc_cwnd_full_minpct", "cc_cwnd_full_per_cwnd", "cc_vegas_alpha_exit",
                             "cc_vegas_beta_exit", "cc_vegas_gamma_exit", "cc_vegas_delta_exit", "cc_sscap_exit",
                             "cc_xoff_client",   "cc_xon_rate",        "cc_xon_change_pct",   "cc_xon_ewma_cnt"};

crypto::SendmeDigest digest_for(std::uint64_t n) {
  crypto::SendmeDigest d{};
  for (std::size_t i = 0; i < 8; ++i) d[i] = static_cast<std::uint8_t>(n >> (8 * i));
  return d;
}

cell::SendmeMsg v1(const crypto::SendmeDigest& d) {
  cell::SendmeTag t;
  std::copy(d.begin(), d.end(), t.bytes.begin());
  t.len = 20;
  return cell::SendmeMsg{t};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  std::map<std::string, std::int32_t> kv;
  for (unsigned k = in.u8() % 6; k > 0; --k) {
    const char* key = kKeys[in.u8() % (sizeof(kKeys) / sizeof(kKeys[0]))];
    kv[key] = static_cast<std::int32_t>(in.u32());
  }
  const CcParams params = cc_params_from(kv).params;
  const std::uint8_t inc = static_cast<std::uint8_t>(in.u8() % 254 + 1);
  ClockHealth clock;
  CcSendmeSender tx(params, static_cast<CcPathType>(in.u8() % 3), CcAgreement{inc}, clock);
  StreamDeliverFlow deliver(params, StreamEdge::ClientToExit, clock);
  StreamPackageFlow package(params, StreamEdge::ClientToExit);

  std::deque<crypto::SendmeDigest> owed;  // the honest peer's SENDMEs, in order
  std::uint64_t sent = 0, now_us = 1'000'000, buffered = 0;
  while (!in.empty()) {
    const std::uint8_t op = in.u8();
    const auto now = CcClock::time_point{} + std::chrono::microseconds{static_cast<std::int64_t>(now_us)};
    switch (op % 8) {
      case 0:
      case 1: {  // package up to 64 cells
        for (unsigned k = in.u8() % 64; k > 0 && tx.can_send(); --k) {
          ++sent;
          if (!tx.on_data_sent(now, digest_for(sent))) __builtin_trap();
          if (sent % inc == 0) owed.push_back(digest_for(sent));
        }
        break;
      }
      case 2: {  // the honest peer's next SENDME
        const bool blocked = (op & 0x80) != 0;
        const std::uint64_t had = tx.pending_sendmes();
        if (owed.empty()) {
          if (tx.on_sendme(now, v1(digest_for(0))).has_value()) __builtin_trap();
          break;
        }
        if (had == 0 || !tx.on_sendme(now, v1(owed.front()), CcChannelState{blocked, in.u8()})) __builtin_trap();
        owed.pop_front();
        break;
      }
      case 3:  // time passes (possibly not at all: a stall)
        now_us += std::uint64_t{in.u8()} << (in.u8() % 20);
        break;
      case 4: {  // a forged SENDME ends the honest run
        const bool had = tx.pending_sendmes() > 0;
        if (tx.on_sendme(now, v1(digest_for(sent + 1))).has_value()) __builtin_trap();
        if (had) return 0;
        break;
      }
      case 5:  // DATA for the stream's edge
        buffered += in.u8() * 8u;
        (void)deliver.on_data_buffered(now, buffered);
        break;
      case 6: {  // the edge writes
        const std::uint64_t w = std::min<std::uint64_t>(buffered, in.u8() * 8u);
        buffered -= w;
        (void)deliver.on_drained(now, w, buffered);
        break;
      }
      default:  // the packaging edge hears XOFF/XON and sends
        if (op & 0x10) (void)package.on_xoff();
        else (void)package.on_xon(cell::XonMsg{in.u32()}, now);
        if (package.read_allowance(now, 1u << 20) > (1u << 20)) __builtin_trap();
        package.on_data_packaged(in.u8());
        break;
    }
    const Vegas& v = tx.vegas();
    if (v.cwnd() > params.cwnd_max) __builtin_trap();
    if (tx.pending_sendmes() > kMaxPendingCcSendmes) __builtin_trap();
    if (tx.can_send() && tx.package_window() == 0) __builtin_trap();
  }
  return 0;
}
