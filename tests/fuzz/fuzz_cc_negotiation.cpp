// Congestion-control negotiation (proto/cc_negotiation.hpp) and parameter
// building (proto/cc_params.hpp) on arbitrary bytes. Checks, on every input:
//  - the exit's answer to the bytes as a CM: refused only as MalformedList;
//    when it agrees, its reply encodes to 01 02 01 <inc> and a client with
//    the same cc_sendme_inc accepts exactly that agreement;
//  - the client's reading of the bytes as an SM: an agreement it accepts is
//    within 1 of its own sendme_inc and non-zero; refusals are typed; an
//    answer it did not ask for is never accepted as congestion control;
//  - parameters built from (key, value) pairs cut from the bytes lie in
//    tor's ranges.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/cc_params.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

void check_exit(std::span<const std::uint8_t> cm, std::uint8_t our_inc) {
  CcParams ours;
  ours.sendme_inc = our_inc == 0 ? 1 : our_inc;
  auto ans = cc_exit_answer(cm, ours);
  if (!ans) {
    if (ans.error() != CcNegotiationError::MalformedList) __builtin_trap();
    return;
  }
  if (!ans->agreement) {
    if (!ans->reply.empty()) __builtin_trap();
    return;
  }
  auto sm = crypto::encode_ntor_v3_extensions(ans->reply);
  if (!sm || *sm != std::vector<std::uint8_t>{0x01, 0x02, 0x01, ours.sendme_inc}) __builtin_trap();
  auto back = cc_client_accept(std::span<const std::uint8_t>(*sm), true, ours.sendme_inc);
  if (!back || *back != ans->agreement) __builtin_trap();
}

void check_client(std::span<const std::uint8_t> sm, std::uint8_t our_inc, bool requested) {
  auto r = cc_client_accept(sm, requested, our_inc);
  if (!r) return;  // every refusal is a typed error
  if (!r->has_value()) return;
  if (!requested) __builtin_trap();
  const std::uint8_t inc = (*r)->sendme_inc;
  if (inc == 0 || inc > our_inc + 1 || inc + 1 < our_inc) __builtin_trap();
}

const char* const kKeys[] = {
    "cc_alg", "cc_sendme_inc", "cc_cwnd_init", "cc_cwnd_min", "cc_cwnd_max", "cc_cwnd_inc", "cc_cwnd_inc_pct_ss",
    "cc_cwnd_inc_rate", "cc_ewma_cwnd_pct", "cc_ewma_max", "cc_ewma_ss", "cc_rtt_reset_pct", "cc_bwe_min",
    "cc_ss_max", "cc_cwnd_full_gap", "cc_cwnd_full_minpct", "cc_cwnd_full_per_cwnd", "cc_vegas_alpha_exit",
    "cc_vegas_delta_exit", "cc_sscap_exit", "cc_xoff_client", "cc_xoff_exit", "cc_xon_rate",
    "cc_xon_change_pct", "cc_xon_ewma_cnt", "circwindow"};

void check_params(std::span<const std::uint8_t> in) {
  std::map<std::string, std::int32_t> kv;
  for (std::size_t i = 0; i + 5 <= in.size(); i += 5) {
    const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(in[i + 1]) << 24 |
                                             static_cast<std::uint32_t>(in[i + 2]) << 16 |
                                             static_cast<std::uint32_t>(in[i + 3]) << 8 | in[i + 4]);
    kv[kKeys[in[i] % (sizeof(kKeys) / sizeof(kKeys[0]))]] = v;
  }
  const CcParams p = cc_params_from(kv).params;
  if (p.alg != CcAlg::FixedWindow && p.alg != CcAlg::Vegas) __builtin_trap();
  if (p.sendme_inc < 1 || p.sendme_inc > 254) __builtin_trap();
  if (p.cwnd_init < 31 || p.cwnd_init > 10000) __builtin_trap();
  if (p.cwnd_min < 31 || p.cwnd_min > 1000) __builtin_trap();
  if (p.cwnd_max < 500 || p.cwnd_inc_rate < 1 || p.cwnd_inc_rate > 250) __builtin_trap();
  if (p.cwnd_full_per_cwnd < 0 || p.cwnd_full_per_cwnd > 1) __builtin_trap();
  if (p.xoff_client_bytes < 488 || p.xoff_client_bytes > 10000 * 488) __builtin_trap();
  if (p.xon_change_pct < 1 || p.xon_change_pct > 99) __builtin_trap();
  if (p.circwindow < 100 || p.circwindow > 1000) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t our_inc = data[0];
  const bool requested = (data[1] & 1) != 0;
  std::span<const std::uint8_t> rest(data + 2, size - 2);
  check_exit(rest, our_inc);
  check_client(rest, our_inc, requested);
  check_params(rest);
  return 0;
}
