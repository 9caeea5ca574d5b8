#pragma once
// A Linux TUN device (layer 3, no packet-information header), opened
// non-blocking. The device lives as long as the descriptor: it disappears when
// the delay line exits, which is what cleans an emulated link up.
#include <string>

namespace conflux::netapp {

class TunDevice {
 public:
  // Creates (or attaches to) the TUN device `name` (at most 15 bytes) in the
  // caller's network namespace. On failure fd() is -1 and error() says why.
  explicit TunDevice(const std::string& name);
  ~TunDevice();
  TunDevice(const TunDevice&) = delete;
  TunDevice& operator=(const TunDevice&) = delete;

  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
};

}  // namespace conflux::netapp
