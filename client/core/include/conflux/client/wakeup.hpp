#pragma once
// A level-free wake-up for coroutines on one io_context: wait() suspends
// until notify() or the deadline. Waiters re-check their condition after
// every wake, so a spurious or coalesced wake-up is harmless.
#include <chrono>

#include "conflux/net/asio.hpp"

namespace conflux::client {

class Wakeup {
 public:
  explicit Wakeup(const net::asio::any_io_executor& ex) : timer_(ex) {}

  // Returns when notified, or at `deadline`.
  net::awaitable<void> wait_until(std::chrono::steady_clock::time_point deadline) {
    timer_.expires_at(deadline);
    (void)co_await timer_.async_wait(net::use_nothrow);
  }
  net::awaitable<void> wait_for(std::chrono::milliseconds d) {
    return wait_until(std::chrono::steady_clock::now() + d);
  }
  void notify() { timer_.cancel(); }

 private:
  net::asio::steady_timer timer_;
};

}  // namespace conflux::client
