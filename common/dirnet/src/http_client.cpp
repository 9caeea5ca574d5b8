#include "conflux/dirnet/http_client.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
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

HttpErrc transport_error(const boost::system::error_code& ec) {
  return ec == beast::error::timeout ? HttpErrc::Timeout : HttpErrc::Io;
}

awaitable<HttpResult<HttpResponse>> exchange(tcp::endpoint to, http::request<http::string_body> req,
                                             HttpLimits limits) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  // One deadline for the whole exchange: a peer that trickles bytes cannot
  // hold us longer than `timeout`.
  stream.expires_after(limits.timeout);
  auto [cec] = co_await stream.async_connect(to, use_nothrow);
  if (cec) co_return Unexpected{cec == beast::error::timeout ? HttpErrc::Timeout : HttpErrc::Connect};

  req.set(http::field::host, to.address().to_string() + ":" + std::to_string(to.port()));
  req.keep_alive(false);
  req.prepare_payload();
  auto [wec, wn] = co_await http::async_write(stream, req, use_nothrow);
  if (wec) co_return Unexpected{transport_error(wec)};

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header));
  parser.body_limit(std::uint64_t{limits.max_body});
  auto [rec, rn] = co_await http::async_read(stream, buffer, parser, use_nothrow);
  if (rec == http::error::body_limit) co_return Unexpected{HttpErrc::TooLarge};
  if (rec && rec.category() == http::make_error_code(http::error::bad_method).category() &&
      rec != http::error::end_of_stream && rec != http::error::partial_message)
    co_return Unexpected{HttpErrc::BadResponse};
  if (rec) co_return Unexpected{transport_error(rec)};
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return HttpResponse{parser.get().result_int(), std::move(parser.get().body()),
                         std::string(parser.get().reason())};
}

}  // namespace

std::string_view to_string(HttpErrc e) noexcept {
  switch (e) {
    case HttpErrc::Connect: return "connect failed";
    case HttpErrc::Timeout: return "timed out";
    case HttpErrc::Io: return "connection broke";
    case HttpErrc::BadResponse: return "bad HTTP response";
    case HttpErrc::TooLarge: return "response too large";
  }
  return "unknown";
}

awaitable<HttpResult<HttpResponse>> http_get(tcp::endpoint to, std::string target, HttpLimits limits) {
  http::request<http::string_body> req{http::verb::get, target, 11};
  co_return co_await exchange(to, std::move(req), limits);
}

awaitable<HttpResult<HttpResponse>> http_post(tcp::endpoint to, std::string target, std::string body,
                                              HttpLimits limits, std::string content_type) {
  http::request<http::string_body> req{http::verb::post, target, 11};
  req.set(http::field::content_type, content_type);
  req.body() = std::move(body);
  co_return co_await exchange(to, std::move(req), limits);
}

}  // namespace conflux::dirnet
