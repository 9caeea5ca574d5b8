#include "conflux/dirnet/reachability_probe.hpp"

#include <boost/beast/core/tcp_stream.hpp>
#include <memory>

#include "conflux/net/tls.hpp"

namespace conflux::dirnet {
namespace beast = boost::beast;
namespace asio = net::asio;
using net::use_nothrow;

namespace {

// Everything by value: a coroutine must not refer to the closure that
// started it, which may be gone before it resumes.
net::awaitable<bool> tls_probe(std::shared_ptr<asio::ssl::context> ctx, std::chrono::milliseconds timeout,
                               dir::Ipv4 ip, std::uint16_t port) {
  asio::ssl::stream<beast::tcp_stream> tls(co_await asio::this_coro::executor, *ctx);
  auto& tcp_layer = beast::get_lowest_layer(tls);
  tcp_layer.expires_after(timeout);
  auto [cec] = co_await tcp_layer.async_connect(net::tcp::endpoint(asio::ip::address_v4(ip), port), use_nothrow);
  if (cec) co_return false;
  auto [hec] = co_await tls.async_handshake(asio::ssl::stream_base::client, use_nothrow);
  boost::system::error_code ignored;
  tcp_layer.socket().close(ignored);
  co_return !hec;
}

}  // namespace

ReachabilityProbe make_tls_probe(std::chrono::milliseconds timeout) {
  auto ctx = std::make_shared<asio::ssl::context>(net::make_tls_client_context());
  return [ctx, timeout](const ProbeTarget& t) { return tls_probe(ctx, timeout, t.ipv4, t.or_port); };
}

}  // namespace conflux::dirnet
