#include "conflux/proto/kist_limit.hpp"

#include <algorithm>
#include <cmath>

namespace conflux::proto {

namespace {
// Every term saturates at 2^61: products of two 32-bit kernel values fit in
// 64 unsigned bits but not always in signed ones, and a huge configured
// factor must not overflow the conversion either.
constexpr std::uint64_t kCap = 1ULL << 61;
std::int64_t cap(std::uint64_t v) noexcept { return static_cast<std::int64_t>(std::min(v, kCap)); }
std::int64_t cap(double v) noexcept {
  if (!(v > 0.0)) return 0;
  if (v >= static_cast<double>(kCap)) return static_cast<std::int64_t>(kCap);
  return static_cast<std::int64_t>(v);
}
}  // namespace

std::uint64_t kist_limit(const TcpSocketInfo& info, std::uint64_t outbuf_bytes, double factor) noexcept {
  const std::uint64_t window = std::uint64_t{info.cwnd} * info.mss;
  const std::int64_t tcp_space =
      info.unacked >= info.cwnd ? 0 : cap(std::uint64_t{info.cwnd - info.unacked} * info.mss);
  const std::int64_t extra = cap(static_cast<double>(window) * std::max(0.0, factor)) - cap(info.notsent) -
                             cap(outbuf_bytes);
  const std::int64_t limit = tcp_space + extra;  // each term within 2^61: the sum fits
  return limit > 0 ? static_cast<std::uint64_t>(limit) : 0;
}

std::uint64_t kist_original_limit(const TcpSocketInfo& tcp, const SocketSendBuffer& buffer,
                                  std::uint64_t outbuf_bytes) noexcept {
  // Unsigned throughout: a 32-bit by 32-bit product fits in 64 bits, and
  // every subtraction is guarded, so nothing wraps.
  const std::uint64_t socket_space = buffer.queued >= buffer.capacity ? 0 : buffer.capacity - buffer.queued;
  const std::uint64_t tcp_space = tcp.unacked >= tcp.cwnd ? 0 : std::uint64_t{tcp.cwnd - tcp.unacked} * tcp.mss;
  const std::uint64_t limit = std::min(socket_space, tcp_space);
  return limit > outbuf_bytes ? limit - outbuf_bytes : 0;
}

std::uint64_t kist_lite_limit(std::uint64_t outbuf_bytes) noexcept {
  if (outbuf_bytes >= kOrConnHighWater) return 0;
  std::uint64_t cells = (kOrConnHighWater - outbuf_bytes + 514 - 1) / 514;
  return cells * kKistCellCost;
}

}  // namespace conflux::proto
