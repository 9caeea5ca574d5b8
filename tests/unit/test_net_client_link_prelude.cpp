// ClientLink's prelude: what runs on the connected socket before TLS (a
// pluggable transport's SOCKS5 CONNECT, for conflux-proxy). Here a front on
// 127.0.0.1 stands in for the transport: it waits for "HELLO\n", answers
// "OK\n" and then relays bytes to a relay's ORPort.
#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <string>

#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;
namespace asio = boost::asio;

namespace {

struct Front {
  asio::io_context& io;
  net::tcp::acceptor acceptor;
  net::tcp::endpoint target;
  std::size_t carried = 0;  // bytes relayed after the greeting, both ways

  Front(asio::io_context& io_, net::tcp::endpoint target_)
      : io(io_), acceptor(io_, {asio::ip::make_address("127.0.0.1"), 0}), target(target_) {
    asio::co_spawn(io, serve(), asio::detached);
  }
  net::awaitable<void> pipe(std::shared_ptr<net::tcp::socket> from, std::shared_ptr<net::tcp::socket> to) {
    std::array<char, 4096> b{};
    for (;;) {
      auto [rec, n] = co_await from->async_read_some(asio::buffer(b), net::use_nothrow);
      if (rec) break;
      carried += n;
      auto [wec, w] = co_await asio::async_write(*to, asio::buffer(b.data(), n), net::use_nothrow);
      if (wec) break;
    }
    boost::system::error_code ignored;
    to->close(ignored);
  }
  net::awaitable<void> serve() {
    auto [ec, s] = co_await acceptor.async_accept(net::use_nothrow);
    if (ec) co_return;
    auto client = std::make_shared<net::tcp::socket>(std::move(s));
    std::array<char, 6> hello{};
    auto [rec, n] = co_await asio::async_read(*client, asio::buffer(hello), net::use_nothrow);
    if (rec || std::string(hello.data(), n) != "HELLO\n") co_return;
    auto server = std::make_shared<net::tcp::socket>(io);
    auto [cec] = co_await server->async_connect(target, net::use_nothrow);
    if (cec) co_return;
    auto [wec, w] = co_await asio::async_write(*client, asio::buffer(std::string("OK\n")), net::use_nothrow);
    if (wec) co_return;
    asio::co_spawn(io, pipe(client, server), asio::detached);
    asio::co_spawn(io, pipe(server, client), asio::detached);
  }
};

net::awaitable<net::ClientLink::PreludeResult> greet(net::tcp::socket& s) {
  auto [wec, w] = co_await asio::async_write(s, asio::buffer(std::string("HELLO\n")), net::use_nothrow);
  if (wec) co_return net::ClientLink::PreludeResult{wec, "greeting not sent"};
  std::array<char, 3> ok{};
  auto [rec, n] = co_await asio::async_read(s, asio::buffer(ok), net::use_nothrow);
  if (rec || std::string(ok.data(), n) != "OK\n") co_return net::ClientLink::PreludeResult{asio::error::fault, "no OK"};
  co_return net::ClientLink::PreludeResult{};
}

}  // namespace

TEST_CASE("a prelude runs before TLS, and the link opens through what it set up", "[net][prelude]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  Front front(io, relay.endpoint);
  TestClient client(io, clock);
  client.link->connect({front.acceptor.local_endpoint()}, relay.keys.identity(), greet);
  REQUIRE(run_until(io, [&] { return client.opened || client.link->state() == net::ClientLink::State::Closed; }));
  INFO(client.link->close_reason());
  CHECK(client.link->is_open());
  CHECK(client.link->tcp_connected());
  CHECK(front.carried > 1000);  // TLS and the link handshake went through the front
  // The relay counts the channel once it has our NETINFO, a moment later.
  CHECK(run_until(io, [&] { return relay.counters().channels_inbound == 1; }));
}

TEST_CASE("a prelude that fails closes the link with its reason, nothing reaches TLS", "[net][prelude]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  TestClient client(io, clock);
  // Straight at the ORPort: the relay waits for a ClientHello, so no "OK".
  client.link->connect({relay.endpoint}, relay.keys.identity(), [](net::tcp::socket&) -> net::awaitable<net::ClientLink::PreludeResult> {
    co_return net::ClientLink::PreludeResult{asio::error::connection_refused, "transport SOCKS: general failure"};
  });
  REQUIRE(run_until(io, [&] { return client.link->state() == net::ClientLink::State::Closed; }));
  CHECK(client.link->close_reason() == "connect failed: transport SOCKS: general failure");
  CHECK(client.link->tcp_connected());
  CHECK_FALSE(client.opened);
}

TEST_CASE("a prelude that never ends is cut at the connect timeout", "[net][prelude]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  boost::asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler(io, clock, nullptr);
  net::ClientLink::Options options;
  options.connect_timeout = std::chrono::milliseconds(300);
  std::string reason;
  net::ClientLink::Callbacks cb;
  cb.on_closed = [&](std::string_view why) { reason = std::string(why); };
  net::ClientLink link(io, tls, scheduler, clock, std::move(cb), options);
  const auto started = std::chrono::steady_clock::now();
  // Waits for a byte the relay never sends before our ClientHello.
  link.connect({relay.endpoint}, relay.keys.identity(), [](net::tcp::socket& s) -> net::awaitable<net::ClientLink::PreludeResult> {
    std::array<char, 1> b{};
    auto [ec, n] = co_await asio::async_read(s, asio::buffer(b), net::use_nothrow);
    co_return net::ClientLink::PreludeResult{ec ? ec : asio::error::fault, "read ended"};
  });
  REQUIRE(run_until(io, [&] { return link.state() == net::ClientLink::State::Closed; }, 5s));
  CHECK(reason == "connect failed: timed out");
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(300));
}

TEST_CASE("nothing listening: the link closes before any prelude, tcp_connected() is false", "[net][prelude]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  net::tcp::endpoint closed_port;
  {
    net::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    closed_port = a.local_endpoint();
  }
  TestClient client(io, clock);
  bool ran = false;
  client.link->connect({closed_port}, relay.keys.identity(), [&ran](net::tcp::socket&) -> net::awaitable<net::ClientLink::PreludeResult> {
    ran = true;
    co_return net::ClientLink::PreludeResult{};
  });
  REQUIRE(run_until(io, [&] { return client.link->state() == net::ClientLink::State::Closed; }));
  CHECK_FALSE(ran);
  CHECK_FALSE(client.link->tcp_connected());
  CHECK(client.link->close_reason().rfind("connect failed: ", 0) == 0);
}
