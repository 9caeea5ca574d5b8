#pragma once
// The listening socket and the accept loop every listener of ours shares
// (DirPort, MetricsPort, ControlPort). The loop:
// runs until `stopped`, backs off 100 ms on accept errors such as EMFILE
// instead of spinning, closes connections beyond `max_connections` (counted
// in `refused`), and spawns `serve(socket)` for the rest. The caller owns
// the counters and keeps itself alive across the loop.
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "conflux/bytes/result.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::net {

// An acceptor listening at `at` (port 0: an ephemeral port), with
// SO_REUSEADDR so a restart can bind again at once.
inline Result<tcp::acceptor, boost::system::error_code> open_listener(const asio::any_io_executor& ex,
                                                                     const tcp::endpoint& at) {
  tcp::acceptor acceptor(ex);
  boost::system::error_code ec;
  acceptor.open(at.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(at, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Unexpected{ec};
  return acceptor;
}

// Any stream acceptor: TCP, or the ControlSocket's (asio's generic protocol).
template <class Acceptor, class Serve>
awaitable<void> bounded_accept(Acceptor& acceptor, const bool& stopped, const std::size_t& active,
                               std::size_t max_connections, std::uint64_t& refused, Serve serve) {
  asio::steady_timer pause(acceptor.get_executor());
  while (!stopped) {
    auto [ec, socket] = co_await acceptor.async_accept(use_nothrow);
    if (stopped || ec == asio::error::operation_aborted) co_return;
    if (ec) {
      pause.expires_after(std::chrono::milliseconds(100));
      co_await pause.async_wait(use_nothrow);
      continue;
    }
    if (active >= max_connections) {
      ++refused;
      boost::system::error_code ignored;
      socket.close(ignored);
      continue;
    }
    asio::co_spawn(acceptor.get_executor(), serve(std::move(socket)), asio::detached);
  }
}

}  // namespace conflux::net
