#pragma once
// The DirPort: plain HTTP/1.1 over TCP (tor's DirPort is plain HTTP too;
// every document is signed, so the transport needs no integrity of its
// own), Boost.Beast inside dir_server.cpp. One request per connection,
// answered with "Connection: close". Bounded everywhere: connections at
// once (more are closed at accept), the request header, the body (the cap
// of the path asked for, checked before the body is read), and one deadline
// per connection. Garbage gets a 400 and costs only its own connection.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "conflux/bytes/result.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"

namespace conflux::dirnet {

using net::asio::ip::tcp;

struct DirServerLimits {
  std::size_t max_connections = 64;
  std::size_t max_header = 8192;
  std::chrono::milliseconds timeout{30000};  // whole request and reply (a 5 MiB consensus at ~200 KB/s)
};

class DirServer : public std::enable_shared_from_this<DirServer> {
 public:
  // Binds and listens at `listen` (port 0: an ephemeral port). `routes` and
  // `clock` must outlive the server's coroutines (stop() and run the
  // io_context before destroying them, or destroy the io_context first).
  static Result<std::shared_ptr<DirServer>, boost::system::error_code> create(
      net::asio::any_io_executor ex, const tcp::endpoint& listen, DirRoutes& routes, const net::Clock& clock,
      DirServerLimits limits = {});

  void start();
  void stop();

  [[nodiscard]] tcp::endpoint local_endpoint() const;
  [[nodiscard]] std::size_t active_connections() const noexcept { return active_; }
  [[nodiscard]] std::uint64_t refused_connections() const noexcept { return refused_; }

  // Use create().
  DirServer(tcp::acceptor acceptor, DirRoutes& routes, const net::Clock& clock, DirServerLimits limits);

 private:
  net::awaitable<void> accept_loop();
  net::awaitable<void> serve(tcp::socket socket);

  tcp::acceptor acceptor_;
  DirRoutes& routes_;
  const net::Clock& clock_;
  DirServerLimits limits_;
  std::size_t active_ = 0;
  std::uint64_t refused_ = 0;
  bool stopped_ = false;
};

}  // namespace conflux::dirnet
