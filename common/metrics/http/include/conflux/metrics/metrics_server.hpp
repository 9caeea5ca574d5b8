#pragma once
// The metrics endpoint: plain HTTP/1.1 over TCP (Boost.Beast inside
// metrics_server.cpp), GET /metrics answered with the text exposition
// format 0.0.4. HEAD /metrics gets the headers only; any other path is 404,
// another method on /metrics 405, a request that does not parse 400. One
// request per connection ("Connection: close"), like the DirServer.
//
// Bounded everywhere: connections at once (more are closed at accept), the
// request (header; a request with a body is refused unread: GET has none),
// and one deadline per connection for reading the request and writing the
// reply, so a slow client costs one connection slot for at most `timeout`.
//
// Listen on loopback unless the network is trusted: the counters say how
// busy the program is (never which addresses it talks to, but still).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "conflux/bytes/result.hpp"
#include "conflux/metrics/registry.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::metrics {

using net::asio::ip::tcp;

struct MetricsServerLimits {
  std::size_t max_connections = 16;
  std::size_t max_request = 8192;  // request line and header fields
  std::chrono::milliseconds timeout{10000};
};

class MetricsServer : public std::enable_shared_from_this<MetricsServer> {
 public:
  // Produces the body of one scrape; runs on the server's executor.
  using Render = std::function<std::string()>;

  // Binds and listens at `listen` (port 0: an ephemeral port). `render`
  // runs on the executor's thread for each GET /metrics.
  static Result<std::shared_ptr<MetricsServer>, boost::system::error_code> create(
      net::asio::any_io_executor ex, const tcp::endpoint& listen, Render render, MetricsServerLimits limits = {});
  // Serves `registry.render()`; the registry must outlive the server's
  // coroutines (stop() and run the io_context, or destroy the io_context).
  static Result<std::shared_ptr<MetricsServer>, boost::system::error_code> create(
      net::asio::any_io_executor ex, const tcp::endpoint& listen, const Registry& registry,
      MetricsServerLimits limits = {});

  void start();
  // Stops accepting; connections in progress finish within their deadline.
  void stop();

  [[nodiscard]] tcp::endpoint local_endpoint() const;
  [[nodiscard]] std::size_t active_connections() const noexcept { return active_; }
  [[nodiscard]] std::uint64_t refused_connections() const noexcept { return refused_; }
  [[nodiscard]] std::uint64_t scrapes() const noexcept { return scrapes_; }        // 200 to GET /metrics
  [[nodiscard]] std::uint64_t bad_requests() const noexcept { return bad_requests_; }  // 4xx answers

  // Use create().
  MetricsServer(tcp::acceptor acceptor, Render render, MetricsServerLimits limits);

 private:
  net::awaitable<void> accept_loop();
  net::awaitable<void> serve(tcp::socket socket);

  tcp::acceptor acceptor_;
  Render render_;
  MetricsServerLimits limits_;
  std::size_t active_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t scrapes_ = 0;
  std::uint64_t bad_requests_ = 0;
  bool stopped_ = false;
};

}  // namespace conflux::metrics
