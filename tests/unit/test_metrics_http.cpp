// The metrics endpoint over a real socket on 127.0.0.1: scrapes, the wrong
// path or method, junk, an oversized header, slow and idle clients, and the
// connection cap. The server keeps serving after each.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <optional>
#include <random>
#include <string>

#include "conflux/metrics/metrics_server.hpp"
#include "conflux/metrics/text_format.hpp"

using namespace conflux;
using namespace conflux::metrics;
using namespace std::chrono_literals;
namespace asio = net::asio;
using net::use_nothrow;

namespace {

const tcp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);

struct Loop {
  asio::io_context io;

  // Runs the loop until `done` holds or `bound` passes; no fixed sleeps.
  template <class Pred>
  bool run_until(Pred done, std::chrono::milliseconds bound) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      io.restart();
      io.run_for(20ms);
    }
    return true;
  }

  std::string await(net::awaitable<std::string> a, std::chrono::milliseconds bound = 10s) {
    std::optional<std::string> out;
    asio::co_spawn(
        io, [](net::awaitable<std::string> inner, std::optional<std::string>& slot) -> net::awaitable<void> {
          slot.emplace(co_await std::move(inner));
        }(std::move(a), out),
        [](std::exception_ptr e) {
          if (e) std::rethrow_exception(e);
        });
    REQUIRE(run_until([&] { return out.has_value(); }, bound));
    return std::move(*out);
  }
};

// Raw bytes to the server; everything it answers until it closes.
net::awaitable<std::string> exchange(tcp::endpoint to, std::string request) {
  tcp::socket s(co_await asio::this_coro::executor);
  auto [cec] = co_await s.async_connect(to, use_nothrow);
  if (cec) co_return "connect failed";
  (void)co_await asio::async_write(s, asio::buffer(request), use_nothrow);
  std::string out;
  std::array<char, 4096> buf{};
  while (out.size() < (1U << 20)) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), use_nothrow);
    if (ec) break;
    out.append(buf.data(), n);
  }
  co_return out;
}

std::string body_of(const std::string& reply) {
  const auto at = reply.find("\r\n\r\n");
  return at == std::string::npos ? std::string() : reply.substr(at + 4);
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

struct Fixture {
  Loop loop;
  Registry registry;
  std::shared_ptr<MetricsServer> server;
  tcp::endpoint at;

  explicit Fixture(MetricsServerLimits limits = {}) {
    registry.counter("conflux_test_total", "Test \"counter\".", {{"kind", "a\nb"}}).inc(7);
    auto created = MetricsServer::create(loop.io.get_executor(), kLoopback, registry, limits);
    REQUIRE(created);
    server = std::move(*created);
    server->start();
    at = server->local_endpoint();
  }
  ~Fixture() { server->stop(); }
  std::string send(std::string request) { return loop.await(exchange(at, std::move(request))); }
};

constexpr std::string_view kExpected =
    "# HELP conflux_test_total Test \"counter\".\n"
    "# TYPE conflux_test_total counter\n"
    "conflux_test_total{kind=\"a\\nb\"} 7\n";

}  // namespace

TEST_CASE("GET /metrics answers the exposition format", "[metrics_http]") {
  Fixture f;
  const auto reply = f.send("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n");
  REQUIRE(starts_with(reply, "HTTP/1.1 200 OK\r\n"));
  CHECK(reply.find("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n") != std::string::npos);
  CHECK(reply.find("\r\nConnection: close\r\n") != std::string::npos);
  CHECK(reply.find("\r\nContent-Length: " + std::to_string(kExpected.size()) + "\r\n") != std::string::npos);
  CHECK(body_of(reply) == kExpected);

  // Values are read at each scrape.
  f.registry.counter("conflux_test_total", "", {{"kind", "a\nb"}}).inc();
  CHECK(body_of(f.send("GET /metrics?name[]=x HTTP/1.0\r\n\r\n")).find("} 8\n") != std::string::npos);

  // HEAD: the same headers, no body.
  const auto head = f.send("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(starts_with(head, "HTTP/1.1 200 OK\r\n"));
  CHECK(head.find("Content-Length: " + std::to_string(kExpected.size())) != std::string::npos);
  CHECK(body_of(head).empty());
  CHECK(f.server->scrapes() == 3);
  CHECK(f.server->bad_requests() == 0);
}

TEST_CASE("other paths, methods and bodies get their 4xx", "[metrics_http]") {
  Fixture f;
  CHECK(starts_with(f.send("GET / HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 "));
  CHECK(starts_with(f.send("GET /metricsx HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 "));
  const auto post = f.send("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
  CHECK(starts_with(post, "HTTP/1.1 405 "));
  CHECK(post.find("\r\nAllow: GET, HEAD\r\n") != std::string::npos);
  CHECK(starts_with(f.send("DELETE /metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 405 "));
  CHECK(starts_with(f.send("GET /metrics HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody"), "HTTP/1.1 400 "));
  CHECK(starts_with(f.send("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                    "HTTP/1.1 400 "));
  CHECK(f.server->scrapes() == 0);
  CHECK(f.server->bad_requests() == 6);
  CHECK(body_of(f.send("GET /metrics HTTP/1.1\r\n\r\n")) == kExpected);
}

TEST_CASE("junk requests are answered 400 or closed, and serving goes on", "[metrics_http]") {
  MetricsServerLimits lim;
  lim.max_request = 1024;
  lim.timeout = 500ms;
  Fixture f(lim);
  CHECK(starts_with(f.send(std::string(300, '\xff') + "\r\n\r\n"), "HTTP/1.1 400 "));
  CHECK(starts_with(f.send("GET /metrics HTTP/9.9\r\n\r\n"), "HTTP/1.1 400 "));
  CHECK(starts_with(f.send("GET /metrics HTTP/1.1\r\nBad Header\r\n\r\n"), "HTTP/1.1 400 "));
  CHECK(starts_with(f.send("GET /metrics HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n"), "HTTP/1.1 431 "));
  CHECK(f.send("").empty());                      // connect and close
  CHECK(f.send("GET /metrics HTTP/1.1\r\n").empty());  // half a request, then EOF
  std::mt19937 rng(1234);  // fixed seed: the same junk every run
  for (int i = 0; i < 40; ++i) {
    std::string junk(static_cast<std::size_t>(rng() % 600), '\0');
    for (auto& c : junk) c = static_cast<char>(rng() % 256);
    if (i % 2 == 0) junk = "GET /metrics HTTP/1.1\r\n" + junk + "\r\n\r\n";
    const auto reply = f.send(junk);
    CHECK((reply.empty() || starts_with(reply, "HTTP/1.1 4") || starts_with(reply, "HTTP/1.1 200 ")));
  }
  REQUIRE(f.loop.run_until([&] { return f.server->active_connections() == 0; }, 5s));
  CHECK(body_of(f.send("GET /metrics HTTP/1.1\r\n\r\n")) == kExpected);
}

TEST_CASE("slow and idle clients are cut at the deadline, the cap holds", "[metrics_http]") {
  MetricsServerLimits lim;
  lim.max_connections = 2;
  lim.timeout = 300ms;
  Fixture f(lim);

  // A client that trickles half a request line and then stalls.
  tcp::socket slow(f.loop.io);
  slow.connect(f.at);
  asio::write(slow, asio::buffer(std::string_view("GET /met")));
  tcp::socket idle(f.loop.io);
  idle.connect(f.at);
  REQUIRE(f.loop.run_until([&] { return f.server->active_connections() == 2; }, 2s));

  // Both slots taken: a third connection is closed at once, unanswered.
  CHECK(f.send("GET /metrics HTTP/1.1\r\n\r\n").empty());
  CHECK(f.server->refused_connections() == 1);

  // The slow client's socket is closed by the server at the deadline.
  bool slow_closed = false;
  std::array<char, 64> buf{};
  slow.async_read_some(asio::buffer(buf), [&](boost::system::error_code ec, std::size_t) { slow_closed = bool(ec); });
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(f.loop.run_until([&] { return slow_closed && f.server->active_connections() == 0; }, 5s));
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
  CHECK(body_of(f.send("GET /metrics HTTP/1.1\r\n\r\n")) == kExpected);
}

TEST_CASE("a stopped server accepts nothing more", "[metrics_http]") {
  Fixture f;
  CHECK(f.server->active_connections() == 0);
  f.server->stop();
  CHECK(f.send("GET /metrics HTTP/1.1\r\n\r\n") == "connect failed");
}

TEST_CASE("a render function and an address in use", "[metrics_http]") {
  Loop loop;
  auto a = MetricsServer::create(loop.io.get_executor(), kLoopback, [] { return std::string("x 1\n"); });
  REQUIRE(a);
  (*a)->start();
  CHECK(body_of(loop.await(exchange((*a)->local_endpoint(), "GET /metrics HTTP/1.1\r\n\r\n"))) == "x 1\n");
  // Binding the same port again fails with an error, not an exception.
  auto b = MetricsServer::create(loop.io.get_executor(), (*a)->local_endpoint(), [] { return std::string(); });
  CHECK_FALSE(b);
  (*a)->stop();
}
