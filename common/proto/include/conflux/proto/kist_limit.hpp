#pragma once
// KIST's per-socket write limit for one scheduler run, as a pure function of
// what the kernel reports (Jansen & Traudt, "Tor's Been KIST", Algorithm 1;
// tor's scheduler_kist.c today):
//
//   tcp_space = (cwnd - unacked) * mss            (0 if unacked >= cwnd)
//   extra     = cwnd * mss * factor - notsent - outbuf
//   limit     = max(0, tcp_space + extra)
//
// With factor 1 and an empty outbuf this is the paper's
// 2*cwnd*mss - unacked*mss - notsent: what the congestion window lets the
// kernel send now, plus one more window so it can answer ACKs with data
// before the next run. `outbuf` (bytes we already hold for the socket but the
// kernel has not taken) counts against the limit (tor bug 29168).
//
// The original limit (Jansen et al., "Never Been KIST", 2014, §5.2 Eq. 1),
// an option (KISTLimit Original): what the socket buffer has room for and
// what the congestion window lets TCP send now, whichever is smaller:
//
//   socket_space = sndbuf - outq             (0 if outq >= sndbuf)
//   tcp_space    = (cwnd - unacked) * mss    (0 if unacked >= cwnd)
//   limit        = max(0, min(socket_space, tcp_space) - outbuf)
//
// The outbuf counts against it as in the deployed form: those bytes reach
// the kernel before any cell this run adds. It costs three kernel calls per
// socket (SO_SNDBUF, SIOCOUTQ, TCP_INFO) where the deployed form needs
// TCP_INFO and the not-sent count.
//
// KISTLite, where the kernel does not report TCP_INFO: as many cells as fit
// below the connection's 32 KiB high-water mark.
#include <cstdint>

namespace conflux::proto {

// A cell on the wire: 514 bytes plus tor's estimate of its TLS framing.
inline constexpr std::uint64_t kTlsPerCellOverhead = 29;
inline constexpr std::uint64_t kKistCellCost = 514 + kTlsPerCellOverhead;
inline constexpr std::uint64_t kOrConnHighWater = 32 * 1024;

// TCP_INFO fields (segments, except mss) and SIOCOUTQNSD (bytes).
struct TcpSocketInfo {
  std::uint32_t cwnd = 0;     // tcpi_snd_cwnd, segments
  std::uint32_t unacked = 0;  // tcpi_unacked, segments
  std::uint32_t mss = 0;      // tcpi_snd_mss, bytes
  std::uint64_t notsent = 0;  // written to the kernel, not yet sent, bytes
};

// getsockopt(SO_SNDBUF) and ioctl(SIOCOUTQ), bytes. SIOCOUTQ counts sent
// but unacknowledged bytes as well as unsent ones: everything still using
// the buffer.
struct SocketSendBuffer {
  std::uint64_t capacity = 0;  // sndbufcap
  std::uint64_t queued = 0;    // sndbuflen
};

// KISTSockBufSizeFactor (tor's default 1.0; must be >= 0).
[[nodiscard]] std::uint64_t kist_limit(const TcpSocketInfo& info, std::uint64_t outbuf_bytes,
                                       double factor = 1.0) noexcept;
// Eq. 1; `tcp.notsent` is not used (SIOCOUTQ already counts those bytes).
[[nodiscard]] std::uint64_t kist_original_limit(const TcpSocketInfo& tcp, const SocketSendBuffer& buffer,
                                                std::uint64_t outbuf_bytes) noexcept;
[[nodiscard]] std::uint64_t kist_lite_limit(std::uint64_t outbuf_bytes) noexcept;

}  // namespace conflux::proto
