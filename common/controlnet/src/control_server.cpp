#include "conflux/controlnet/control_server.hpp"

#include <sys/socket.h>

#include <array>
#include <cstring>
#include <vector>

#include "conflux/net/bounded_accept.hpp"

namespace conflux::controlnet {
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

struct ControlServer::Conn {
  Conn(StreamProtocol::socket s, std::unique_ptr<control::ControlSession> sess)
      : socket(std::move(s)), session(std::move(sess)) {}
  StreamProtocol::socket socket;
  std::unique_ptr<control::ControlSession> session;
  std::deque<std::string> out;
  std::size_t queued = 0;
  bool writing = false;
  bool close_after = false;  // close once `out` is written
  bool dead = false;

  void shut() {
    dead = true;
    boost::system::error_code ignored;
    socket.shutdown(StreamProtocol::socket::shutdown_both, ignored);
    socket.close(ignored);
  }
};

namespace {

Result<StreamAcceptor, boost::system::error_code> open_stream_listener(const asio::any_io_executor& ex,
                                                                                const StreamProtocol::endpoint& at,
                                                                                bool reuse_address) {
  StreamAcceptor acceptor(ex);
  boost::system::error_code ec;
  acceptor.open(at.protocol(), ec);
  if (!ec && reuse_address) acceptor.set_option(StreamAcceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(at, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Unexpected{ec};
  return acceptor;
}

}  // namespace

Result<std::shared_ptr<ControlServer>, boost::system::error_code> ControlServer::create(
    asio::any_io_executor ex, const tcp::endpoint& listen, SessionFactory factory, ControlServerLimits limits) {
  auto acceptor = open_stream_listener(ex, StreamProtocol::endpoint(listen), true);
  if (!acceptor) return Unexpected{acceptor.error()};
  return std::make_shared<ControlServer>(std::move(*acceptor), std::move(factory), limits);
}

Result<std::shared_ptr<ControlServer>, boost::system::error_code> ControlServer::create_local(
    asio::any_io_executor ex, const std::string& path, SessionFactory factory, ControlServerLimits limits) {
  auto acceptor = open_stream_listener(ex, StreamProtocol::endpoint(asio::local::stream_protocol::endpoint(path)), false);
  if (!acceptor) return Unexpected{acceptor.error()};
  return std::make_shared<ControlServer>(std::move(*acceptor), std::move(factory), limits);
}

ControlServer::ControlServer(StreamAcceptor acceptor, SessionFactory factory, ControlServerLimits limits)
    : acceptor_(std::move(acceptor)), factory_(std::move(factory)), limits_(limits) {}

// The loop holds the server from here: a server dropped before the loop first
// ran (a later ControlPort failed to open) is not freed under it.
void ControlServer::start() { asio::co_spawn(acceptor_.get_executor(), accept_loop(shared_from_this()), asio::detached); }

void ControlServer::stop() {
  stopped_ = true;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  auto conns = std::move(conns_);
  conns_.clear();
  for (const auto& c : conns) c->shut();
}

tcp::endpoint ControlServer::local_endpoint() const {
  boost::system::error_code ec;
  const StreamProtocol::endpoint g = acceptor_.local_endpoint(ec);
  tcp::endpoint out;
  if (ec || is_local() || g.size() > out.capacity()) return out;
  std::memcpy(out.data(), g.data(), g.size());
  out.resize(g.size());
  return out;
}

bool ControlServer::is_local() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec).protocol().family() == AF_UNIX;
}

void ControlServer::publish(std::string_view event, const std::string& line) {
  // enqueue may close (and forget) a connection: not while walking conns_.
  std::vector<std::shared_ptr<Conn>> to;
  for (const auto& c : conns_)
    if (!c->dead && c->session->wants(event)) to.push_back(c);
  for (const auto& c : to) enqueue(c, line);
}

awaitable<void> ControlServer::accept_loop(std::shared_ptr<ControlServer> self) {
  (void)self;  // held by this frame until the loop ends
  co_await net::bounded_accept(acceptor_, stopped_, active_, limits_.max_connections, refused_,
                               [this](StreamProtocol::socket socket) { return serve(std::move(socket)); });
}

void ControlServer::enqueue(const std::shared_ptr<Conn>& c, std::string bytes) {
  if (c->dead || bytes.empty()) return;
  if (c->queued + bytes.size() > limits_.max_queued_bytes) {
    // It does not read what it asked for: it goes, nobody else does.
    ++overflowed_;
    drop(c);
    return;
  }
  c->queued += bytes.size();
  c->out.push_back(std::move(bytes));
  if (!c->writing) {
    c->writing = true;
    asio::co_spawn(acceptor_.get_executor(), write_loop(c), asio::detached);
  }
}

awaitable<void> ControlServer::write_loop(std::shared_ptr<Conn> c) {
  auto self = shared_from_this();
  while (!c->dead && !c->out.empty()) {
    std::string chunk = std::move(c->out.front());
    c->out.pop_front();
    auto [ec, n] = co_await asio::async_write(c->socket, asio::buffer(chunk), use_nothrow);
    c->queued -= chunk.size();
    if (ec) drop(c);
  }
  c->writing = false;
  if (c->close_after && !c->dead) drop(c);
}

void ControlServer::drop(const std::shared_ptr<Conn>& c) {
  conns_.erase(c);
  if (c->dead) return;
  c->shut();
  if (c->session->owner() && !stopped_ && owner_closed_) owner_closed_();
}

awaitable<void> ControlServer::serve(StreamProtocol::socket socket) {
  auto self = shared_from_this();
  ++active_;
  struct Release {
    ControlServer* s;
    ~Release() { --s->active_; }
  } release{this};
  auto c = std::make_shared<Conn>(std::move(socket), factory_());
  conns_.insert(c);
  std::array<std::uint8_t, 4096> buf{};
  while (!c->dead && !c->close_after && !stopped_) {
    auto [ec, n] = co_await c->socket.async_read_some(asio::buffer(buf), use_nothrow);
    if (ec) break;
    control::ControlOutput out = c->session->on_bytes(std::span<const std::uint8_t>(buf.data(), n));
    if (out.close) c->close_after = true;
    enqueue(c, std::move(out.bytes));
  }
  if (c->close_after && c->writing && !c->dead) co_return;  // write_loop closes it once its reply is out
  drop(c);
}

}  // namespace conflux::controlnet
