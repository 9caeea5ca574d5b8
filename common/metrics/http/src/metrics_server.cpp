#include "conflux/metrics/metrics_server.hpp"

#include "conflux/net/bounded_accept.hpp"

#include <array>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "conflux/metrics/text_format.hpp"

namespace conflux::metrics {
namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

namespace {

// The structure follows dirnet::DirServer (one request per connection, a
// deadline per connection, drain before close); what differs is that no
// request here has a body, so none is ever read.
constexpr std::size_t kDrainLimit = 16 * 1024;
constexpr std::chrono::milliseconds kDrainTime{500};
constexpr std::string_view kPath = "/metrics";

struct Reply {
  http::status status = http::status::ok;
  std::string body;
  bool metrics = false;  // the exposition format, else a short text reason
  bool head = false;     // headers only
};

Reply text(http::status status, std::string_view reason) {
  Reply r;
  r.status = status;
  r.body = std::string(reason);
  r.body += '\n';
  return r;
}

// The path without a query string (Prometheus may add ?name[]=... filters,
// which we ignore: a scrape always gets everything).
std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

awaitable<void> send_reply(beast::tcp_stream& stream, Reply reply) {
  http::response<http::string_body> res;
  res.version(11);
  res.result(reply.status);
  res.set(http::field::content_type, reply.metrics ? kContentType : std::string_view("text/plain; charset=utf-8"));
  if (reply.status == http::status::method_not_allowed) res.set(http::field::allow, "GET, HEAD");
  res.keep_alive(false);
  res.body() = std::move(reply.body);
  res.prepare_payload();
  boost::system::error_code ec;
  if (reply.head) {
    http::response_serializer<http::string_body> sr(res);
    sr.split(true);
    std::tie(ec, std::ignore) = co_await http::async_write_header(stream, sr, use_nothrow);
  } else {
    std::tie(ec, std::ignore) = co_await http::async_write(stream, res, use_nothrow);
  }
  if (ec) co_return;
  // Half-close, then read what the client may still send, bounded in bytes
  // and time: closing with unread data resets the connection and can
  // destroy the reply in flight.
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

Result<std::shared_ptr<MetricsServer>, boost::system::error_code> MetricsServer::create(asio::any_io_executor ex,
                                                                                       const tcp::endpoint& listen,
                                                                                       Render render,
                                                                                       MetricsServerLimits limits) {
  auto acceptor = net::open_listener(ex, listen);
  if (!acceptor) return Unexpected{acceptor.error()};
  return std::make_shared<MetricsServer>(std::move(*acceptor), std::move(render), limits);
}

Result<std::shared_ptr<MetricsServer>, boost::system::error_code> MetricsServer::create(asio::any_io_executor ex,
                                                                                       const tcp::endpoint& listen,
                                                                                       const Registry& registry,
                                                                                       MetricsServerLimits limits) {
  return create(std::move(ex), listen, Render([&registry] { return registry.render(); }), limits);
}

MetricsServer::MetricsServer(tcp::acceptor acceptor, Render render, MetricsServerLimits limits)
    : acceptor_(std::move(acceptor)), render_(std::move(render)), limits_(limits) {}

void MetricsServer::start() { asio::co_spawn(acceptor_.get_executor(), accept_loop(), asio::detached); }

void MetricsServer::stop() {
  stopped_ = true;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

tcp::endpoint MetricsServer::local_endpoint() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec);
}

awaitable<void> MetricsServer::accept_loop() {
  auto self = shared_from_this();
  co_await net::bounded_accept(acceptor_, stopped_, active_, limits_.max_connections, refused_,
                               [this](tcp::socket socket) { return serve(std::move(socket)); });
}

awaitable<void> MetricsServer::serve(tcp::socket socket) {
  auto self = shared_from_this();
  ++active_;
  struct Release {
    MetricsServer* s;
    ~Release() { --s->active_; }  // `self` keeps the server alive until then
  } release{this};

  beast::tcp_stream stream(std::move(socket));
  stream.expires_after(limits_.timeout);
  beast::flat_buffer buffer(limits_.max_request);
  http::request_parser<http::empty_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits_.max_request));

  auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, use_nothrow);
  if (ec) {
    // A request that broke the rules gets its answer; a connection that
    // closed or timed out is just dropped.
    if (ec == http::error::header_limit) {
      ++bad_requests_;
      co_await send_reply(stream, text(http::status::request_header_fields_too_large, "header too large"));
    } else if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message) {
      ++bad_requests_;
      co_await send_reply(stream, text(http::status::bad_request, "bad request"));
    }
    co_return;
  }
  const auto& req = parser.get();
  const http::verb method = req.method();
  Reply reply;
  if (path_of(req.target()) != kPath) {
    reply = text(http::status::not_found, "not found");
  } else if (method != http::verb::get && method != http::verb::head) {
    reply = text(http::status::method_not_allowed, "method not allowed");
  } else if (!parser.is_done()) {
    // A GET with a body: not something a scraper sends.
    reply = text(http::status::bad_request, "unexpected body");
  } else if (stopped_) {
    co_return;
  } else {
    reply.body = render_ ? render_() : std::string();
    reply.metrics = true;
    reply.head = method == http::verb::head;
    ++scrapes_;
  }
  if (reply.status != http::status::ok) ++bad_requests_;
  co_await send_reply(stream, std::move(reply));
}

}  // namespace conflux::metrics
