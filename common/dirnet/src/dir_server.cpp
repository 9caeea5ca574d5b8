#include "conflux/dirnet/dir_server.hpp"

#include "conflux/net/bounded_accept.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace conflux::dirnet {
namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

namespace {

constexpr std::size_t kDrainLimit = 64 * 1024;
constexpr std::chrono::milliseconds kDrainTime{1000};

HttpMethod method_of(http::verb v) {
  if (v == http::verb::get) return HttpMethod::Get;
  if (v == http::verb::post) return HttpMethod::Post;
  return HttpMethod::Other;
}

// A read error the peer caused by what it sent (answered), as opposed to a
// connection that broke or timed out (just closed).
std::optional<DirReply> reply_for_read_error(const boost::system::error_code& ec) {
  if (ec == http::error::body_limit) return text_reply(413, "body too large");
  if (ec == http::error::header_limit) return text_reply(431, "header too large");
  if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message)
    return text_reply(400, "bad request");
  return std::nullopt;
}

awaitable<void> send_reply(beast::tcp_stream& stream, DirReply reply) {
  http::response<http::string_body> res;
  res.version(11);
  res.result(reply.status);
  if (!reply.reason.empty()) res.reason(reply.reason);
  if (reply.descriptor_not_new) res.set("X-Descriptor-Not-New", "Yes");
  res.set(http::field::content_type, "text/plain");
  res.keep_alive(false);
  res.body() = std::move(reply.body);
  res.prepare_payload();
  auto [ec, n] = co_await http::async_write(stream, res, use_nothrow);
  if (ec) co_return;
  // Half-close, then read what the client may still be sending (a body we
  // refused unread), bounded in bytes and time: closing with unread data
  // would reset the connection and could destroy the reply in flight.
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream.expires_after(kDrainTime);
  std::array<char, 4096> sink{};
  std::size_t drained = 0;
  while (drained < kDrainLimit) {
    auto [rec, got] = co_await stream.async_read_some(asio::buffer(sink), use_nothrow);
    if (rec) break;
    drained += got;
  }
}

}  // namespace

Result<std::shared_ptr<DirServer>, boost::system::error_code> DirServer::create(asio::any_io_executor ex,
                                                                               const tcp::endpoint& listen,
                                                                               DirRoutes& routes,
                                                                               const net::Clock& clock,
                                                                               DirServerLimits limits) {
  auto acceptor = net::open_listener(ex, listen);
  if (!acceptor) return Unexpected{acceptor.error()};
  return std::make_shared<DirServer>(std::move(*acceptor), routes, clock, limits);
}

DirServer::DirServer(tcp::acceptor acceptor, DirRoutes& routes, const net::Clock& clock, DirServerLimits limits)
    : acceptor_(std::move(acceptor)), routes_(routes), clock_(clock), limits_(limits) {}

void DirServer::start() { asio::co_spawn(acceptor_.get_executor(), accept_loop(), asio::detached); }

void DirServer::stop() {
  stopped_ = true;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

tcp::endpoint DirServer::local_endpoint() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec);
}

awaitable<void> DirServer::accept_loop() {
  auto self = shared_from_this();
  co_await net::bounded_accept(acceptor_, stopped_, active_, limits_.max_connections, refused_,
                               [this](tcp::socket socket) { return serve(std::move(socket)); });
}

awaitable<void> DirServer::serve(tcp::socket socket) {
  auto self = shared_from_this();
  ++active_;
  struct Release {
    DirServer* s;
    ~Release() { --s->active_; }  // `self` keeps the server alive until then
  } release{this};

  beast::tcp_stream stream(std::move(socket));
  stream.expires_after(limits_.timeout);
  beast::flat_buffer buffer(limits_.max_header + kDrainLimit);
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits_.max_header));
  // No body cap until the path is known (then that path's cap, before any
  // body byte is parsed): a cap set now would refuse before routing.
  parser.body_limit(boost::none);

  auto [hec, hn] = co_await http::async_read_header(stream, buffer, parser, use_nothrow);
  if (hec) {
    if (auto r = reply_for_read_error(hec)) co_await send_reply(stream, std::move(*r));
    co_return;
  }
  const HttpMethod method = method_of(parser.get().method());
  const std::string target(parser.get().target());
  RouteCheck check = routes_.check(method, target);
  if (check.early) {
    co_await send_reply(stream, std::move(*check.early));
    co_return;
  }
  if (auto len = parser.content_length(); len && *len > check.body_limit) {
    co_await send_reply(stream, text_reply(413, "body too large"));
    co_return;
  }
  parser.body_limit(std::uint64_t{check.body_limit});
  if (parser.get()[http::field::expect] == "100-continue") {
    http::response<http::empty_body> cont{http::status::continue_, 11};
    auto [cec, cn] = co_await http::async_write(stream, cont, use_nothrow);
    if (cec) co_return;
  }
  auto [bec, bn] = co_await http::async_read(stream, buffer, parser, use_nothrow);
  if (bec) {
    if (auto r = reply_for_read_error(bec)) co_await send_reply(stream, std::move(*r));
    co_return;
  }
  if (stopped_) co_return;
  DirReply reply = routes_.handle(method, target, parser.get().body(), clock_.unix_seconds());
  co_await send_reply(stream, std::move(reply));
}

}  // namespace conflux::dirnet
