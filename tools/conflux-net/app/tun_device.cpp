#include "tun_device.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace conflux::netapp {

TunDevice::TunDevice(const std::string& name) {
  if (name.empty() || name.size() >= IFNAMSIZ) {
    error_ = "a TUN device name has 1 to " + std::to_string(IFNAMSIZ - 1) + " bytes";
    return;
  }
  const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error_ = std::string("/dev/net/tun: ") + std::strerror(errno);
    return;
  }
  ifreq ifr{};
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::memcpy(ifr.ifr_name, name.data(), name.size());
  if (::ioctl(fd, TUNSETIFF, &ifr) != 0) {
    error_ = "TUNSETIFF " + name + ": " + std::strerror(errno);
    ::close(fd);
    return;
  }
  fd_ = fd;
}

TunDevice::~TunDevice() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace conflux::netapp
