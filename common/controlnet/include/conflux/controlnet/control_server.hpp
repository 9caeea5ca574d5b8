#pragma once
// The ControlPort: controllers on TCP (127.0.0.1 by default, as tor's) or on
// a unix socket (ControlSocket: the caller made the path), one
// ControlSession each from the factory. What a session returns is written in
// order; a session that says close is closed once its reply is out. Async
// events go to every authenticated session subscribed to them (publish).
// Bounded: connections at once (more are closed at accept), and the bytes
// queued for one controller (one that stops reading is closed alone, its
// output dropped; tor closes such controllers too).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include "conflux/bytes/result.hpp"
#include "conflux/control/control_session.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::controlnet {

using net::asio::ip::tcp;
using StreamProtocol = net::asio::generic::stream_protocol;
using StreamAcceptor = net::asio::basic_socket_acceptor<StreamProtocol>;

struct ControlServerLimits {
  std::size_t max_connections = 16;
  std::size_t max_queued_bytes = 4 << 20;
};

class ControlServer : public std::enable_shared_from_this<ControlServer> {
 public:
  using SessionFactory = std::function<std::unique_ptr<control::ControlSession>()>;

  static Result<std::shared_ptr<ControlServer>, boost::system::error_code> create(
      net::asio::any_io_executor ex, const tcp::endpoint& listen, SessionFactory factory,
      ControlServerLimits limits = {});
  // A unix socket at `path` (which must not exist; the caller removes a
  // stale one and sets the file's mode).
  static Result<std::shared_ptr<ControlServer>, boost::system::error_code> create_local(
      net::asio::any_io_executor ex, const std::string& path, SessionFactory factory, ControlServerLimits limits = {});

  void start();
  // Stops accepting and closes every controller.
  void stop();
  // `line` is a whole event ("650 ...\r\n", or several lines).
  void publish(std::string_view event, const std::string& line);

  // Called when a connection that took ownership (TAKEOWNERSHIP) closes,
  // other than by stop().
  void set_owner_closed(std::function<void()> f) { owner_closed_ = std::move(f); }

  // The TCP address listened on (a unix socket's is the unspecified one).
  [[nodiscard]] tcp::endpoint local_endpoint() const;
  [[nodiscard]] bool is_local() const;
  [[nodiscard]] std::size_t active_connections() const noexcept { return active_; }
  [[nodiscard]] std::uint64_t refused_connections() const noexcept { return refused_; }
  [[nodiscard]] std::uint64_t overflowed_connections() const noexcept { return overflowed_; }

  // Use create().
  ControlServer(StreamAcceptor acceptor, SessionFactory factory, ControlServerLimits limits);

 private:
  struct Conn;
  net::awaitable<void> accept_loop(std::shared_ptr<ControlServer> self);
  net::awaitable<void> serve(StreamProtocol::socket socket);
  net::awaitable<void> write_loop(std::shared_ptr<Conn> c);
  void enqueue(const std::shared_ptr<Conn>& c, std::string bytes);
  // Forgets and closes `c` (the owner hook when it was the owner).
  void drop(const std::shared_ptr<Conn>& c);

  StreamAcceptor acceptor_;
  SessionFactory factory_;
  ControlServerLimits limits_;
  std::set<std::shared_ptr<Conn>> conns_;
  std::size_t active_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t overflowed_ = 0;
  bool stopped_ = false;
  std::function<void()> owner_closed_;
};

}  // namespace conflux::controlnet
