// No SOCKS stream waits without end: a request that no circuit or set can
// serve is answered with an error at SocksTimeout, counted, and the log says
// why (issue 13). One session on loopback, over a pool that never serves.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "conflux/client/socks_session.hpp"

using namespace conflux;
using namespace std::chrono_literals;

namespace {

// Every slot taken and nothing freed: acquire returns at the deadline.
struct NeverPool final : client::StreamPool {
  unsigned acquires = 0;
  net::awaitable<client::StreamCarrier*> acquire(client::StreamNeeds, Clock::time_point deadline, bool*) override {
    ++acquires;
    net::asio::steady_timer t(co_await net::asio::this_coro::executor);
    t.expires_at(deadline);
    (void)co_await t.async_wait(net::use_nothrow);
    co_return nullptr;
  }
  void claim(client::StreamCarrier&, const std::string&) override {}
  void stream_done(client::StreamCarrier&) override {}
  void retire(client::StreamCarrier&) override {}
};

// One SOCKS session, for the first connection `acceptor` takes.
void serve_one_session(net::asio::io_context& io, net::tcp::acceptor& acceptor, client::SocksContext& ctx) {
  net::asio::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        auto [ec, s] = co_await acceptor.async_accept(net::use_nothrow);
        REQUIRE_FALSE(ec);
        co_await client::run_socks_session(std::move(s), ctx, client::SocksIsolation{});
      },
      net::asio::detached);
}

}  // namespace

TEST_CASE("socks: a stream nothing can serve gets an error at SocksTimeout, and the log says why", "[proxy]") {
  net::asio::io_context io;
  net::SystemClock clock;
  NeverPool pool;
  client::ProxyCounters counters;
  std::vector<std::string> lines;
  std::vector<std::string> reports;  // what a controller sees (STREAM events)
  client::SocksContext ctx{&pool, clock, counters,
                           [&](net::LogLevel, std::string_view line) { lines.emplace_back(line); },
                           client::SocksLimits{},
                           [&](const client::StreamReport& r) {
                             reports.push_back(std::to_string(r.id) + " " + std::string(r.status) + " " +
                                               std::to_string(r.circuit) + " " + r.target + " " +
                                               std::string(r.reason));
                           },
                           1};
  ctx.limits.socks_timeout = 1s;

  net::tcp::acceptor acceptor(io, net::tcp::endpoint(net::asio::ip::address_v4::loopback(), 0));
  serve_one_session(io, acceptor, ctx);

  std::vector<std::uint8_t> reply;
  std::chrono::steady_clock::duration waited{};
  net::asio::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        net::tcp::socket c(io);
        auto [cec] = co_await c.async_connect(acceptor.local_endpoint(), net::use_nothrow);
        REQUIRE_FALSE(cec);
        const std::vector<std::uint8_t> hello{5, 1, 0};
        (void)co_await net::asio::async_write(c, net::asio::buffer(hello), net::use_nothrow);
        std::array<std::uint8_t, 2> method{};
        (void)co_await net::asio::async_read(c, net::asio::buffer(method), net::use_nothrow);
        REQUIRE(method == std::array<std::uint8_t, 2>{5, 0});
        const std::string host = "example.com";
        std::vector<std::uint8_t> connect{5, 1, 0, 3, static_cast<std::uint8_t>(host.size())};
        connect.insert(connect.end(), host.begin(), host.end());
        connect.insert(connect.end(), {0, 80});
        const auto asked = std::chrono::steady_clock::now();
        (void)co_await net::asio::async_write(c, net::asio::buffer(connect), net::use_nothrow);
        std::array<std::uint8_t, 64> buf{};
        auto [rec, n] = co_await net::asio::async_read(c, net::asio::buffer(buf), net::use_nothrow);
        waited = std::chrono::steady_clock::now() - asked;
        reply.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
      },
      net::asio::detached);
  io.run_for(10s);

  REQUIRE(reply.size() >= 2);
  CHECK(reply[0] == 5);
  CHECK(reply[1] == 1);  // general SOCKS server failure
  CHECK(waited >= 1s);
  CHECK(waited < 1500ms);
  CHECK(pool.acquires == 1);
  CHECK(counters.streams_failed == 1);
  CHECK(counters.streams_socks_timeout == 1);
  CHECK(std::count(lines.begin(), lines.end(),
                   "Stream failed: SocksTimeout (1 s) reached: no circuit (or Conflux set) could be had in time") == 1);
  CHECK(reports == std::vector<std::string>{"1 NEW 0 example.com:80 ", "1 FAILED 0 example.com:80 TIMEOUT",
                                            "1 CLOSED 0 example.com:80 DONE"});
}

namespace {

// A pool whose streams wait until refused, as the proxy's pools wait for a
// carrier until DisableNetwork 1 wakes them (refuse_waiting).
struct RefusingPool final : client::StreamPool {
  explicit RefusingPool(net::asio::io_context& io) : refusal(io) {}
  net::asio::steady_timer refusal;
  unsigned acquires = 0;
  net::awaitable<client::StreamCarrier*> acquire(client::StreamNeeds, Clock::time_point deadline, bool*) override {
    ++acquires;
    refusal.expires_at(deadline);
    (void)co_await refusal.async_wait(net::use_nothrow);
    co_return nullptr;
  }
  void claim(client::StreamCarrier&, const std::string&) override {}
  void stream_done(client::StreamCarrier&) override {}
  void retire(client::StreamCarrier&) override {}
};

}  // namespace

TEST_CASE("socks: DisableNetwork 1 answers a stream waiting for a circuit at once, as tor (HIBERNATING)", "[proxy]") {
  net::asio::io_context io;
  net::SystemClock clock;
  RefusingPool pool(io);
  client::ProxyCounters counters;
  std::vector<std::string> lines;
  std::vector<std::string> reports;
  bool network_disabled = false;
  client::SocksContext ctx{&pool, clock, counters,
                           [&](net::LogLevel, std::string_view line) { lines.emplace_back(line); },
                           client::SocksLimits{},
                           [&](const client::StreamReport& r) {
                             reports.push_back(std::string(r.status) + " " + std::string(r.reason));
                           },
                           1, &network_disabled};
  ctx.limits.socks_timeout = 30s;

  net::tcp::acceptor acceptor(io, net::tcp::endpoint(net::asio::ip::address_v4::loopback(), 0));
  serve_one_session(io, acceptor, ctx);
  std::vector<std::uint8_t> reply;
  std::chrono::steady_clock::duration waited{};
  net::asio::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        net::tcp::socket c(io);
        auto [cec] = co_await c.async_connect(acceptor.local_endpoint(), net::use_nothrow);
        REQUIRE_FALSE(cec);
        // SOCKS5 without authentication, CONNECT 10.0.0.1:80.
        const std::vector<std::uint8_t> request{5, 1, 0, 5, 1, 0, 1, 10, 0, 0, 1, 0, 80};
        (void)co_await net::asio::async_write(c, net::asio::buffer(request), net::use_nothrow);
        std::array<std::uint8_t, 2> method{};
        (void)co_await net::asio::async_read(c, net::asio::buffer(method), net::use_nothrow);
        // The stream waits for a circuit; then the network is disabled.
        net::asio::steady_timer t(io, 300ms);
        (void)co_await t.async_wait(net::use_nothrow);
        const auto disabled = std::chrono::steady_clock::now();
        network_disabled = true;
        pool.refusal.cancel();
        std::array<std::uint8_t, 64> buf{};
        auto [rec, n] = co_await net::asio::async_read(c, net::asio::buffer(buf), net::use_nothrow);
        waited = std::chrono::steady_clock::now() - disabled;
        reply.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
      },
      net::asio::detached);
  io.run_for(5s);

  REQUIRE(reply.size() >= 2);
  CHECK(reply[0] == 5);
  CHECK(reply[1] == 1);  // general SOCKS server failure: tor's answer to END_STREAM_REASON_HIBERNATING
  CHECK(waited < 1s);
  CHECK(pool.acquires == 1);  // no second attempt
  CHECK(counters.streams_failed == 1);
  CHECK(counters.streams_socks_timeout == 0);
  CHECK(std::count(lines.begin(), lines.end(), "Stream failed: DisableNetwork is set") == 1);
  CHECK(reports == std::vector<std::string>{"NEW ", "FAILED HIBERNATING", "CLOSED HIBERNATING"});
}
