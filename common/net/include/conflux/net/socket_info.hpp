#pragma once
// What the kernel says about a TCP socket's send side, for KIST. The pure
// limit computations are in proto/kist_limit.hpp and kist_global_limit.hpp;
// only the system calls live here, and each query reports how many it made.
//
//   - Deployed limit (tor's): getsockopt(TCP_INFO) for the congestion
//     window, unacked segments and MSS, and ioctl(SIOCOUTQNSD) for the bytes
//     written but not yet sent.
//   - Original limit (KISTLimit Original, "Never Been KIST" Eq. 1):
//     getsockopt(SO_SNDBUF), ioctl(SIOCOUTQ), getsockopt(TCP_INFO).
//
// Both also return TCP_INFO's acknowledged-bytes counter, from the same
// call, for the global limit.
#include <chrono>
#include <cstdint>
#include <optional>

#include "conflux/proto/kist_limit.hpp"

namespace conflux::net {

// Built on a kernel interface that has TCP_INFO and SIOCOUTQNSD (Linux).
[[nodiscard]] bool kist_supported_at_build() noexcept;

struct TcpInfoResult {
  std::optional<proto::TcpSocketInfo> info;
  std::optional<std::uint64_t> bytes_acked;  // tcpi_bytes_acked (Linux >= 4.1)
  // The kernel has no such interface (EINVAL, ENOPROTOOPT, ENOTTY): KIST
  // falls back to KISTLite for good, as tor does.
  bool unsupported = false;
  std::uint32_t syscalls = 0;  // made by this query, failed ones included
};
[[nodiscard]] TcpInfoResult query_tcp_info(int fd) noexcept;

struct KistOriginalInfo {
  std::optional<proto::TcpSocketInfo> tcp;  // notsent left 0: not asked
  std::optional<proto::SocketSendBuffer> buffer;
  std::optional<std::uint64_t> bytes_acked;
  bool unsupported = false;
  std::uint32_t syscalls = 0;
};
[[nodiscard]] KistOriginalInfo query_kist_original(int fd) noexcept;

// TCP_INFO's tcpi_bytes_acked: bytes the peer has acknowledged so far.
[[nodiscard]] std::optional<std::uint64_t> tcp_bytes_acked(int fd) noexcept;

// Both from one TCP_INFO call: the acknowledged bytes, and tcpi_min_rtt, the
// smallest round trip the kernel saw (over its last 5 minutes; 0 unknown).
struct TcpAckState {
  std::uint64_t bytes_acked = 0;
  std::chrono::microseconds min_rtt{0};
};
[[nodiscard]] std::optional<TcpAckState> tcp_ack_state(int fd) noexcept;

// ioctl(SIOCOUTQ): bytes in the send queue, sent-but-unacked included.
[[nodiscard]] std::optional<std::uint64_t> socket_outq_bytes(int fd) noexcept;

}  // namespace conflux::net
