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

TcpInfoResult query_tcp_info(int fd) noexcept {
  TcpInfoResult r;
#ifdef CONFLUX_HAVE_KIST
  if (fd < 0) return r;
  struct tcp_info ti {};
  socklen_t len = sizeof(ti);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) {
    r.unsupported = errno == EINVAL || errno == ENOPROTOOPT;
    return r;
  }
  int notsent = 0;
  if (ioctl(fd, SIOCOUTQNSD, &notsent) != 0) {
    r.unsupported = errno == EINVAL || errno == ENOTTY;
    return r;
  }
  r.info = proto::TcpSocketInfo{ti.tcpi_snd_cwnd, ti.tcpi_unacked, ti.tcpi_snd_mss,
                                static_cast<std::uint64_t>(notsent < 0 ? 0 : notsent)};
#else
  (void)fd;
  r.unsupported = true;
#endif
  return r;
}

std::optional<std::uint64_t> tcp_bytes_acked(int fd) noexcept {
#ifdef CONFLUX_HAVE_KIST
  if (fd < 0) return std::nullopt;
  struct tcp_info ti {};
  socklen_t len = sizeof(ti);
  // Kernels before 4.1 return a shorter struct without the counter.
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
      len < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof(ti.tcpi_bytes_acked)) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(ti.tcpi_bytes_acked);
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
