#pragma once
// __OwningControllerProcess: the proxy exits when the process that owns it
// (conflux-gui) is gone, as tor does: a check every 15 seconds with kill(pid, 0).
#include <chrono>
#include <cstdint>
#include <functional>

#include "conflux/net/asio.hpp"

namespace conflux::proxy {

inline constexpr std::chrono::seconds kOwnerPollInterval{15};  // tor's

// Whether a process with this id exists (kill(pid, 0) does not fail with ESRCH).
[[nodiscard]] bool process_exists(std::uint32_t pid) noexcept;

// Checks `pid` every `interval` on `io`; once it is gone, logs tor's notice
// and calls `on_gone` once. Stops with the io_context or its destruction.
class OwningControllerWatch {
 public:
  OwningControllerWatch(net::asio::io_context& io, std::uint32_t pid, std::function<void()> on_gone,
                        std::chrono::milliseconds interval = kOwnerPollInterval);
  OwningControllerWatch(const OwningControllerWatch&) = delete;
  OwningControllerWatch& operator=(const OwningControllerWatch&) = delete;

 private:
  void arm();
  net::asio::steady_timer timer_;
  std::uint32_t pid_;
  std::function<void()> on_gone_;
  std::chrono::milliseconds interval_;
};

}  // namespace conflux::proxy
