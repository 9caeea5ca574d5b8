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
