// A managed pluggable transport process (ptnet::ManagedTransport) with
// Debian's obfs4proxy (scripts/install-deps.sh): launched with pt-spec's
// environment it reports its obfs4 listener, which takes connections; killed,
// it is launched again and reports a new one; stopped, it is gone. In bridge
// mode it reports the obfs4 arguments a bridge line hands out.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "conflux/pt/pt_env.hpp"
#include "conflux/ptnet/managed_transport.hpp"
#include "conflux/socks/client.hpp"
#include "test_net_relay_support.hpp"
#include "test_net_processes_support.hpp"

using namespace conflux;
using namespace conflux::test;
namespace asio = boost::asio;

namespace {

constexpr const char* kObfs4proxy = "/usr/bin/obfs4proxy";

bool accepts(asio::io_context& io, const pt::PtMethod& m) {
  asio::ip::tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({asio::ip::make_address(m.host), m.port}, ec);
  return !ec;
}

}  // namespace

TEST_CASE("obfs4proxy as a managed client transport: listener, relaunch after a kill, stop", "[ptnet]") {
  REQUIRE(std::filesystem::exists(kObfs4proxy));
  procs::TempDir dir;
  asio::io_context io;
  std::vector<std::string> log;
  ptnet::ManagedTransportOptions o;
  o.binary = kObfs4proxy;
  o.env = pt::pt_client_env(pt::PtClientLaunch{{"obfs4"}, (dir.path() / "pt_state").string(), std::nullopt});
  o.transports = {"obfs4"};
  o.retry_initial = std::chrono::milliseconds(100);
  auto t = std::make_unique<ptnet::ManagedTransport>(io, o, [&](net::LogLevel, std::string_view l) { log.emplace_back(l); });
  int changes = 0;
  t->on_change = [&] { ++changes; };
  t->start();
  REQUIRE(run_until(io, [&] { return t->ready(); }, 20s));
  auto first = t->method("obfs4");
  REQUIRE(first);
  CHECK(first->protocol == "socks5");
  CHECK(first->host == "127.0.0.1");
  CHECK(accepts(io, *first));
  CHECK_FALSE(t->method("meek_lite"));
  CHECK(t->launches() == 1);

  const pid_t pid = t->pid();
  REQUIRE(::kill(pid, SIGKILL) == 0);
  REQUIRE(run_until(io, [&] { return !t->ready(); }, 10s));
  CHECK(t->last_failure() == "killed by signal 9");
  REQUIRE(run_until(io, [&] { return t->ready(); }, 20s));
  CHECK(t->launches() == 2);
  CHECK(t->pid() != pid);
  REQUIRE(t->method("obfs4"));
  CHECK(accepts(io, *t->method("obfs4")));
  CHECK(changes >= 3);

  const pid_t second = t->pid();
  t.reset();  // stops it
  CHECK(::kill(second, 0) != 0);  // gone (and reaped)
}

TEST_CASE("obfs4proxy as a managed bridge transport: its listener and the bridge line's arguments", "[ptnet]") {
  REQUIRE(std::filesystem::exists(kObfs4proxy));
  procs::TempDir dir;
  asio::io_context io;
  pt::PtServerLaunch l;
  l.transports = {"obfs4"};
  l.state_dir = (dir.path() / "pt_state").string();
  l.orport = "127.0.0.1:9";  // nothing listens: only the listener is checked here
  l.bind = {{"obfs4", "127.0.0.1:0"}};
  ptnet::ManagedTransportOptions o;
  o.binary = kObfs4proxy;
  o.env = pt::pt_server_env(l);
  o.mode = pt::PtMode::Server;
  o.transports = {"obfs4"};
  ptnet::ManagedTransport t(io, o, {});
  t.start();
  REQUIRE(run_until(io, [&] { return t.ready(); }, 20s));
  auto m = t.method("obfs4");
  REQUIRE(m);
  CHECK(m->host == "127.0.0.1");
  CHECK(m->port != 0);
  CHECK(m->args.find("cert=") != std::string::npos);
  CHECK(m->args.find("iat-mode=0") != std::string::npos);
  CHECK(accepts(io, *m));
}

TEST_CASE("a transport that is not there, or breaks the protocol, is retried with back-off", "[ptnet]") {
  procs::TempDir dir;
  asio::io_context io;
  ptnet::ManagedTransportOptions o;
  o.binary = "/bin/sh";
  o.args = {"-c", "echo 'VERSION 2'; sleep 30"};
  o.transports = {"obfs4"};
  o.retry_initial = std::chrono::milliseconds(50);
  o.retry_max = std::chrono::milliseconds(200);
  ptnet::ManagedTransport t(io, o, {});
  t.start();
  REQUIRE(run_until(io, [&] { return t.launches() >= 3; }, 10s));
  CHECK(t.last_failure() == "broke the managed-proxy protocol (VERSION 2 (we speak 1))");
  CHECK_FALSE(t.ready());

  ptnet::ManagedTransportOptions missing = o;
  missing.binary = (dir.path() / "no-such-transport").string();
  ptnet::ManagedTransport gone(io, missing, {});
  gone.start();
  REQUIRE(run_until(io, [&] { return !gone.last_failure().empty(); }, 10s));
  // posix_spawn reports a missing binary either at once or as the child's exit 127.
  CHECK((gone.last_failure().find("could not be started") == 0 || gone.last_failure() == "exited with status 127"));
}

namespace {

// What the bridge's ORPort would be: echoes every byte back.
// And a tap in front of the bridge's obfs4 listener: forwards both ways and
// keeps the first bytes the client side sent, to look at the wire.
struct Wire {
  Wire() : echo(io, {asio::ip::address_v4::loopback(), 0}), tap(io, {asio::ip::address_v4::loopback(), 0}) {}
  ~Wire() {
    io.stop();
    if (thread.joinable()) thread.join();
  }
  void run(asio::ip::tcp::endpoint bridge) {
    asio::co_spawn(io, serve_echo(), asio::detached);
    asio::co_spawn(io, serve_tap(bridge), asio::detached);
    thread = std::thread([this] { io.run(); });
  }
  net::awaitable<void> serve_echo() {
    for (;;) {
      auto [ec, s] = co_await echo.async_accept(net::use_nothrow);
      if (ec) co_return;
      asio::co_spawn(io, [s = std::move(s)]() mutable -> net::awaitable<void> {
        std::array<char, 4096> b{};
        for (;;) {
          auto [rec, n] = co_await s.async_read_some(asio::buffer(b), net::use_nothrow);
          if (rec) co_return;
          auto [wec, w] = co_await asio::async_write(s, asio::buffer(b.data(), n), net::use_nothrow);
          if (wec) co_return;
        }
      }, asio::detached);
    }
  }
  net::awaitable<void> pipe(std::shared_ptr<asio::ip::tcp::socket> from, std::shared_ptr<asio::ip::tcp::socket> to,
                            bool record) {
    std::array<char, 4096> b{};
    for (;;) {
      auto [rec, n] = co_await from->async_read_some(asio::buffer(b), net::use_nothrow);
      if (rec) break;
      if (record && seen.size() < 4096) seen.append(b.data(), std::min<std::size_t>(n, 4096 - seen.size()));
      auto [wec, w] = co_await asio::async_write(*to, asio::buffer(b.data(), n), net::use_nothrow);
      if (wec) break;
    }
    boost::system::error_code ignored;
    to->shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  }
  net::awaitable<void> serve_tap(asio::ip::tcp::endpoint bridge) {
    for (;;) {
      auto [ec, s] = co_await tap.async_accept(net::use_nothrow);
      if (ec) co_return;
      auto client = std::make_shared<asio::ip::tcp::socket>(std::move(s));
      auto server = std::make_shared<asio::ip::tcp::socket>(io);
      auto [cec] = co_await server->async_connect(bridge, net::use_nothrow);
      if (cec) continue;
      asio::co_spawn(io, pipe(client, server, true), asio::detached);
      asio::co_spawn(io, pipe(server, client, false), asio::detached);
    }
  }
  asio::io_context io;
  asio::ip::tcp::acceptor echo;
  asio::ip::tcp::acceptor tap;
  std::thread thread;
  std::string seen;  // written by the wire's thread; read after it stopped
};

}  // namespace

TEST_CASE("obfs4 end to end: through our SOCKS5 client, two obfs4proxy processes, to the ORPort and back",
          "[ptnet][socks]") {
  REQUIRE(std::filesystem::exists(kObfs4proxy));
  procs::TempDir dir;
  asio::io_context io;
  auto wire = std::make_unique<Wire>();

  pt::PtServerLaunch sl;
  sl.transports = {"obfs4"};
  sl.state_dir = (dir.path() / "bridge_pt").string();
  sl.orport = "127.0.0.1:" + std::to_string(wire->echo.local_endpoint().port());
  sl.bind = {{"obfs4", "127.0.0.1:0"}};
  ptnet::ManagedTransportOptions so{kObfs4proxy, {}, pt::pt_server_env(sl), pt::PtMode::Server, {"obfs4"}};
  ptnet::ManagedTransport bridge(io, so, {});
  ptnet::ManagedTransportOptions co{kObfs4proxy, {},
                                    pt::pt_client_env(pt::PtClientLaunch{{"obfs4"}, (dir.path() / "client_pt").string(), {}}),
                                    pt::PtMode::Client, {"obfs4"}};
  ptnet::ManagedTransport client(io, co, {});
  bridge.start();
  client.start();
  REQUIRE(run_until(io, [&] { return bridge.ready() && client.ready(); }, 20s));
  const auto listener = *bridge.method("obfs4");
  const auto socks = *client.method("obfs4");
  wire->run({asio::ip::make_address(listener.host), listener.port});

  // The bridge line's arguments (cert=...,iat-mode=0) as pt-spec's SOCKS credentials.
  std::vector<std::pair<std::string, std::string>> args;
  std::size_t at = 0;
  while (at < listener.args.size()) {
    auto comma = listener.args.find(',', at);
    if (comma == std::string::npos) comma = listener.args.size();
    const std::string kv = listener.args.substr(at, comma - at);
    args.emplace_back(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
    at = comma + 1;
  }
  auto creds = pt::pt_socks_credentials(args);
  REQUIRE(creds);

  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address(socks.host), socks.port});
  socks::ClientHandshake hs(socks::ClientRequest{socks::Address{socks::Ipv4{127, 0, 0, 1}},
                                                 wire->tap.local_endpoint().port(), creds->username, creds->password});
  auto step = hs.start();
  while (step.status == socks::ClientHandshake::Status::NeedMore) {
    asio::write(s, asio::buffer(step.send));
    std::array<std::uint8_t, 512> b{};
    const std::size_t n = s.read_some(asio::buffer(b));
    step = hs.feed(std::span<const std::uint8_t>(b.data(), n));
  }
  INFO(step.error);
  REQUIRE(step.status == socks::ClientHandshake::Status::Connected);
  const std::string hello = "\x16\x03\x01 this would be a TLS ClientHello, in the clear without obfs4";
  asio::write(s, asio::buffer(hello));
  std::string back(hello.size(), '\0');
  asio::read(s, asio::buffer(back.data(), back.size()));
  CHECK(back == hello);
  s.close();
  wire->io.stop();
  wire->thread.join();  // `seen` is ours to read now
  // On the wire: obfs4's bytes, not a TLS record and not our payload.
  REQUIRE(wire->seen.size() >= 64);
  CHECK_FALSE((wire->seen[0] == '\x16' && wire->seen[1] == '\x03'));
  CHECK(wire->seen.find("this would be a TLS ClientHello") == std::string::npos);
}
