#include "owning_controller.hpp"

#include <signal.h>

#include <cerrno>
#include <string>

#include "conflux/log/log.hpp"

namespace conflux::proxy {

bool process_exists(std::uint32_t pid) noexcept {
  // EPERM: it exists but belongs to someone else (tor counts that as alive too).
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

OwningControllerWatch::OwningControllerWatch(net::asio::io_context& io, std::uint32_t pid,
                                             std::function<void()> on_gone, std::chrono::milliseconds interval)
    : timer_(io), pid_(pid), on_gone_(std::move(on_gone)), interval_(interval) {
  log::write(log::Severity::Notice, "Watching owning controller process " + std::to_string(pid_) + ".");
  arm();
}

void OwningControllerWatch::arm() {
  timer_.expires_after(interval_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    if (process_exists(pid_)) {
      arm();
      return;
    }
    log::write(log::Severity::Notice,
               "Owning controller: process " + std::to_string(pid_) + " has vanished -- exiting now.");
    on_gone_();
  });
}

}  // namespace conflux::proxy
