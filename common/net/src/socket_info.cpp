#include "conflux/net/socket_info.hpp"

#include <cerrno>
#include <cstddef>

// The kernel's own struct tcp_info (glibc's lacks tcpi_bytes_acked); this
// file is built without the runtime's precompiled header, which includes
// glibc's <netinet/tcp.h>.
#if defined(__linux__)
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#endif

namespace conflux::net {

#if defined(__linux__) && defined(TCP_INFO) && defined(SIOCOUTQNSD)
#define CONFLUX_HAVE_KIST 1
#endif

bool kist_supported_at_build() noexcept {
#ifdef CONFLUX_HAVE_KIST
  return true;
#else
  return false;
#endif
}

#ifdef CONFLUX_HAVE_KIST
namespace {

struct TcpInfoCall {
  struct tcp_info ti {};
  socklen_t len = sizeof(ti);
  int error = 0;  // errno, or 0
};

TcpInfoCall get_tcp_info(int fd) noexcept {
  TcpInfoCall c;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &c.ti, &c.len) != 0) c.error = errno;
  return c;
}

// Kernels before 4.1 return a shorter struct without the counter.
std::optional<std::uint64_t> bytes_acked_of(const TcpInfoCall& c) noexcept {
  if (c.error != 0 || c.len < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof(c.ti.tcpi_bytes_acked)) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(c.ti.tcpi_bytes_acked);
}

proto::TcpSocketInfo window_of(const TcpInfoCall& c, std::uint64_t notsent) noexcept {
  return proto::TcpSocketInfo{c.ti.tcpi_snd_cwnd, c.ti.tcpi_unacked, c.ti.tcpi_snd_mss, notsent};
}

bool no_such_option(int error) noexcept { return error == EINVAL || error == ENOPROTOOPT; }
bool no_such_ioctl(int error) noexcept { return error == EINVAL || error == ENOTTY; }

}  // namespace
#endif

TcpInfoResult query_tcp_info(int fd) noexcept {
  TcpInfoResult r;
#ifdef CONFLUX_HAVE_KIST
  if (fd < 0) return r;
  ++r.syscalls;
  TcpInfoCall c = get_tcp_info(fd);
  if (c.error != 0) {
    r.unsupported = no_such_option(c.error);
    return r;
  }
  int notsent = 0;
  ++r.syscalls;
  if (ioctl(fd, SIOCOUTQNSD, &notsent) != 0) {
    r.unsupported = no_such_ioctl(errno);
    return r;
  }
  r.info = window_of(c, static_cast<std::uint64_t>(notsent < 0 ? 0 : notsent));
  r.bytes_acked = bytes_acked_of(c);
#else
  (void)fd;
  r.unsupported = true;
#endif
  return r;
}

KistOriginalInfo query_kist_original(int fd) noexcept {
  KistOriginalInfo r;
#ifdef CONFLUX_HAVE_KIST
  if (fd < 0) return r;
  int sndbuf = 0;
  socklen_t sndbuf_len = sizeof(sndbuf);
  ++r.syscalls;
  if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sndbuf_len) != 0) {
    r.unsupported = no_such_option(errno);
    return r;
  }
  int outq = 0;
  ++r.syscalls;
  if (ioctl(fd, SIOCOUTQ, &outq) != 0) {
    r.unsupported = no_such_ioctl(errno);
    return r;
  }
  ++r.syscalls;
  TcpInfoCall c = get_tcp_info(fd);
  if (c.error != 0) {
    r.unsupported = no_such_option(c.error);
    return r;
  }
  r.buffer = proto::SocketSendBuffer{static_cast<std::uint64_t>(sndbuf < 0 ? 0 : sndbuf),
                                     static_cast<std::uint64_t>(outq < 0 ? 0 : outq)};
  r.tcp = window_of(c, 0);
  r.bytes_acked = bytes_acked_of(c);
#else
  (void)fd;
  r.unsupported = true;
#endif
  return r;
}

std::optional<std::uint64_t> tcp_bytes_acked(int fd) noexcept {
#ifdef CONFLUX_HAVE_KIST
  if (fd < 0) return std::nullopt;
  return bytes_acked_of(get_tcp_info(fd));
#else
  (void)fd;
  return std::nullopt;
#endif
}

std::optional<TcpAckState> tcp_ack_state(int fd) noexcept {
#ifdef CONFLUX_HAVE_KIST
  if (fd < 0) return std::nullopt;
  TcpInfoCall c = get_tcp_info(fd);
  auto acked = bytes_acked_of(c);
  if (!acked) return std::nullopt;
  TcpAckState s{*acked, std::chrono::microseconds(0)};
  // Kernels before 4.10 return a shorter struct without it: 0, unknown.
  if (c.len >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof(c.ti.tcpi_min_rtt)) {
    s.min_rtt = std::chrono::microseconds(c.ti.tcpi_min_rtt);
  }
  return s;
#else
  (void)fd;
  return std::nullopt;
#endif
}

std::optional<std::uint64_t> socket_outq_bytes(int fd) noexcept {
#if defined(__linux__) && defined(SIOCOUTQ)
  if (fd < 0) return std::nullopt;
  int q = 0;
  if (ioctl(fd, SIOCOUTQ, &q) != 0 || q < 0) return std::nullopt;
  return static_cast<std::uint64_t>(q);
#else
  (void)fd;
  return std::nullopt;
#endif
}

}  // namespace conflux::net
