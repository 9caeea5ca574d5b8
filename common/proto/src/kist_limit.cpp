#include "conflux/proto/kist_limit.hpp"

#include <algorithm>
#include <cmath>

namespace conflux::proto {

namespace {
// Products of 32-bit kernel values fit in 64 bits; the factor is clamped so
// a huge configured value cannot overflow the conversion either.
std::int64_t clamp_to_int64(double v) noexcept {
  if (!(v > 0.0)) return 0;
  if (v >= 9.0e18) return static_cast<std::int64_t>(9.0e18);
  return static_cast<std::int64_t>(v);
}
std::int64_t clamp_bytes(std::uint64_t v) noexcept {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(v, 1ULL << 62));
}
}  // namespace

std::uint64_t kist_limit(const TcpSocketInfo& info, std::uint64_t outbuf_bytes, double factor) noexcept {
  const auto cwnd = static_cast<std::int64_t>(info.cwnd);
  const auto unacked = static_cast<std::int64_t>(info.unacked);
  const auto mss = static_cast<std::int64_t>(info.mss);
  std::int64_t tcp_space = unacked >= cwnd ? 0 : (cwnd - unacked) * mss;
  std::int64_t extra = clamp_to_int64(static_cast<double>(cwnd * mss) * std::max(0.0, factor)) -
                       clamp_bytes(info.notsent) - clamp_bytes(outbuf_bytes);
  std::int64_t limit = tcp_space + extra;
  return limit > 0 ? static_cast<std::uint64_t>(limit) : 0;
}

std::uint64_t kist_lite_limit(std::uint64_t outbuf_bytes) noexcept {
  if (outbuf_bytes >= kOrConnHighWater) return 0;
  std::uint64_t cells = (kOrConnHighWater - outbuf_bytes + 514 - 1) / 514;
  return cells * kKistCellCost;
}

}  // namespace conflux::proto
