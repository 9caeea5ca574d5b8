#pragma once
// What the kernel says about a TCP socket's send side, for KIST: one
// getsockopt(TCP_INFO) for the congestion window, unacked segments and MSS,
// one ioctl(SIOCOUTQNSD) for the bytes written but not yet sent. The pure
// limit computation is in proto/kist_limit.hpp; only the syscalls live here.
#include <cstdint>
#include <optional>

#include "conflux/proto/kist_limit.hpp"

namespace conflux::net {

// Built on a kernel interface that has TCP_INFO and SIOCOUTQNSD (Linux).
[[nodiscard]] bool kist_supported_at_build() noexcept;

struct TcpInfoResult {
  std::optional<proto::TcpSocketInfo> info;
  // The kernel has no such interface (EINVAL, ENOPROTOOPT, ENOTTY): KIST
  // falls back to KISTLite for good, as tor does.
  bool unsupported = false;
};
[[nodiscard]] TcpInfoResult query_tcp_info(int fd) noexcept;

// TCP_INFO's tcpi_bytes_acked: bytes the peer has acknowledged so far.
[[nodiscard]] std::optional<std::uint64_t> tcp_bytes_acked(int fd) noexcept;

// ioctl(SIOCOUTQ): bytes in the send queue, sent-but-unacked included.
[[nodiscard]] std::optional<std::uint64_t> socket_outq_bytes(int fd) noexcept;

}  // namespace conflux::net
