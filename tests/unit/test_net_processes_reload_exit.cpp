// SIGHUP on a conflux-relay exit on 127.0.0.1, with a client circuit open
// across it: ExitPolicy, the resolver's nameservers (ServerDNSResolvConfFile),
// BandwidthRate/Burst and Log change on the running relay, and the circuit
// built before the reload carries streams under the new settings after it.
// The relay's only nameservers are DNS servers this test runs on 127.0.0.1;
// with ServerDNSResolvConfFile unset, its /etc/resolv.conf is a test file
// bound over the real one in a mount namespace of the relay's own (root only).
#include <csignal>

#include "conflux/keys/relay_keys.hpp"
#include "one_hop_client.hpp"
#include "test_exit_streams_support.hpp"
#include "test_net_processes_client.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test;
using namespace conflux::test::procs;

namespace {

// BEGIN on `circ`'s only hop; the stream's answer: CONNECTED, or END's reason.
std::variant<cell::ConnectedMsg, cell::EndReason, std::monostate> begin_stream(asio::io_context& io,
                                                                              net::ClientCircuit& circ, StreamId id,
                                                                              const std::string& host,
                                                                              std::uint16_t port) {
  cell::BeginMsg m;
  m.kind = host == "127.0.0.1" ? cell::BeginAddrKind::Ipv4 : cell::BeginAddrKind::Hostname;
  m.host = host;
  m.port = port;
  REQUIRE(circ.send(HopNum{1}, id, m));
  std::variant<cell::ConnectedMsg, cell::EndReason, std::monostate> answer = std::monostate{};
  (void)run_until(io, [&] {
    auto& inbox = circ.inbox();
    while (!inbox.empty()) {
      const auto msg = inbox.front();
      inbox.pop_front();
      if (msg.stream != id) continue;
      if (const auto* c = std::get_if<cell::ConnectedMsg>(&msg.msg)) answer = *c;
      if (const auto* e = std::get_if<cell::EndMsg>(&msg.msg)) answer = e->reason;
    }
    return !std::holds_alternative<std::monostate>(answer);
  }, 10s);
  return answer;
}

// One control-port command (after AUTHENTICATE on a port without
// authentication); the reply's last line.
net::awaitable<std::string> control_command(net::tcp::endpoint to, std::string command) {
  net::tcp::socket s(co_await asio::this_coro::executor);
  auto [cec] = co_await s.async_connect(to, net::use_nothrow);
  if (cec) co_return "connect failed";
  const std::string request = "AUTHENTICATE\r\n" + command + "\r\n";
  (void)co_await asio::async_write(s, asio::buffer(request), net::use_nothrow);
  std::string in;
  std::array<char, 1024> buf{};
  int finals = 0;
  std::string last;
  while (finals < 2) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), net::use_nothrow);
    if (ec) co_return "closed: " + in;
    in.append(buf.data(), n);
    for (auto eol = in.find("\r\n"); eol != std::string::npos; eol = in.find("\r\n")) {
      const std::string line = in.substr(0, eol);
      in.erase(0, eol + 2);
      if (line.size() >= 4 && line[3] == ' ') {
        ++finals;
        last = line;
      }
    }
  }
  co_return last;
}

// Our relay's own tor-form descriptor over BEGIN_DIR on `circ`; empty on failure.
std::string own_descriptor(asio::io_context& io, net::ClientCircuit& circ, StreamId id) {
  HttpFetch fetch(circ, id, "/tor/server/authority");
  REQUIRE(circ.send(HopNum{1}, id, cell::BeginDirMsg{}));
  (void)run_until(io, [&] {
    // A previous fetch's END can arrive after its body was complete: HttpFetch
    // takes any other stream's message for an error, so it is dropped here.
    std::erase_if(circ.inbox(), [id](const auto& m) { return m.stream != id; });
    fetch.pump();
    return fetch.finished();
  }, 10s);
  if (!fetch.finished() || fetch.status_line().find(" 200 ") == std::string::npos) return {};
  const auto body = fetch.body();
  return body ? std::string(body->begin(), body->end()) : std::string();
}

}  // namespace

TEST_CASE("relay process: SIGHUP applies ExitPolicy, nameservers, bandwidth and Log, circuits stay",
          "[processes][dns]") {
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
  REQUIRE(k.has_value());
  DnsTestServer dns_a(io);  // knows no names
  DnsTestServer dns_b(io);
  EchoServer echo(io);
  DnsRecord echo_name;
  echo_name.v4 = {cell::Ipv4Bytes{127, 0, 0, 1}};
  dns_b.add("echo.test", echo_name);
  const auto rc_a = tmp.path() / "resolv-a.conf";
  const auto rc_b = tmp.path() / "resolv-b.conf";
  write_text(rc_a, "nameserver 127.0.0.1:" + std::to_string(dns_a.port()) + "\n");
  write_text(rc_b, "# the test's second server\nnameserver 127.0.0.1:" + std::to_string(dns_b.port()) + "\n");

  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_a = tmp.path() / "relay-a.log";
  const auto log_b = tmp.path() / "relay-b.log";
  const auto port = free_ports(io, 1)[0];
  const std::string base = "Nickname exitreload\nDataDirectory " + (tmp.path() / "data").string() +
                           "\nORPort 127.0.0.1:" + std::to_string(port) +
                           "\nTestingTorNetwork 1\nExitRelay 1\nExitPolicyRejectPrivate 0\n";
  write_text(torrc, base + "ExitPolicy reject *:*\nServerDNSResolvConfFile " + rc_a.string() + "\nLog notice file " +
                        log_a.string() + "\n");
  Child proc("relay", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, tmp.path() / "relay.out");
  proc.start();
  auto logged = [&](const fs::path& p, const std::string& text) { return read_text(p).find(text) != std::string::npos; };
  INFO(read_text(log_a) << read_text(log_b) << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(log_a, " is up as ") || !proc.running(); }, 30s));
  REQUIRE(proc.running());

  OneHopClient client(io, clock, {kLoopback, port}, k->identity());
  auto& circ = client.circuit();

  // Before: the policy refuses everything, and nameserver A knows no names.
  auto before = begin_stream(io, circ, StreamId{1}, "127.0.0.1", echo.port());
  REQUIRE(std::holds_alternative<cell::EndReason>(before));
  CHECK(std::get<cell::EndReason>(before) == cell::EndReason::ExitPolicy);
  CHECK(dns_a.total_questions() == 0);

  write_text(torrc, base + "ExitPolicy accept 127.0.0.1:*\nServerDNSResolvConfFile " + rc_b.string() +
                        "\nBandwidthRate 10 MB\nBandwidthBurst 20 MB\nLog notice file " + log_b.string() + "\n");
  proc.signal(SIGHUP);
  REQUIRE(run_until(io, [&] { return logged(log_b, "Resolver configuration changed."); }, 10s));
  CHECK(logged(log_b, "Exit policy changed"));
  // Bandwidth changes before the log does: its line is the old file's last.
  CHECK(logged(log_a, "Bandwidth is now 10485760 bytes/s, burst 20971520 bytes."));
  CHECK(logged(log_b, "Log destinations changed."));
  CHECK_FALSE(logged(log_a, "Log destinations changed."));
  CHECK_FALSE(logged(log_a, "Exit policy changed"));

  // After, on the same circuit: the new policy and the new nameserver.
  auto literal = begin_stream(io, circ, StreamId{2}, "127.0.0.1", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(literal));
  auto named = begin_stream(io, circ, StreamId{3}, "echo.test", echo.port());
  REQUIRE(std::holds_alternative<cell::ConnectedMsg>(named));
  CHECK(std::get<cell::ConnectedMsg>(named).addr->ttl == 300);
  CHECK(dns_b.questions("echo.test") == 2);
  CHECK(dns_a.total_questions() == 0);
  CHECK(circ.state() != net::ClientCircuit::State::Closed);
  CHECK(echo.accepted == 2);
  CHECK(proc.running());
}

namespace {

// The relay in a mount namespace of its own where `resolv_conf` is bound
// over /etc/resolv.conf: the relay reads the default path it reads in
// service, and this machine's file is never touched. Needs root (unshare).
Child relay_with_resolv_conf(const fs::path& resolv_conf, const fs::path& torrc, const fs::path& output) {
  return Child("relay", "/usr/bin/unshare",
               {"--mount", "--propagation", "private", "/bin/sh", "-c",
                "mount --bind \"$1\" /etc/resolv.conf && exec \"$2\" -f \"$3\"", "sh", resolv_conf.string(),
                CONFLUX_RELAY_BINARY, torrc.string()},
               output);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("relay process: ServerDNSResolvConfFile unset, SIGHUP reads /etc/resolv.conf again", "[processes][dns]") {
  if (::geteuid() != 0 || !fs::exists("/usr/bin/unshare")) {
    WARN("needs root and unshare(1) to bind a test file over /etc/resolv.conf in a mount namespace; not run");
    return;
  }
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
  REQUIRE(k.has_value());
  DnsTestServer dns_a(io);
  DnsTestServer dns_b(io);
  EchoServer echo(io);
  DnsRecord echo_name;
  echo_name.v4 = {cell::Ipv4Bytes{127, 0, 0, 1}};
  dns_a.add("echo.test", echo_name);
  dns_b.add("echo.test", echo_name);
  // Rewritten in place (write_text truncates): the bind mount follows the file, not its name.
  const auto resolv = tmp.path() / "resolv.conf";
  const std::string server_a = "127.0.0.1:" + std::to_string(dns_a.port());
  const std::string server_b = "127.0.0.1:" + std::to_string(dns_b.port());
  write_text(resolv, "nameserver " + server_a + "\n");

  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_path = tmp.path() / "relay.log";
  const auto port = free_ports(io, 1)[0];
  write_text(torrc, "Nickname exitsysresolv\nDataDirectory " + (tmp.path() / "data").string() +
                        "\nORPort 127.0.0.1:" + std::to_string(port) +
                        "\nTestingTorNetwork 1\nExitRelay 1\nExitPolicyRejectPrivate 0\n"
                        "ExitPolicy accept 127.0.0.1:*\nLog info file " + log_path.string() + "\n");
  Child proc = relay_with_resolv_conf(resolv, torrc, tmp.path() / "relay.out");
  proc.start();
  auto log_text = [&] { return read_text(log_path); };
  auto logged = [&](const std::string& text) { return log_text().find(text) != std::string::npos; };
  INFO(log_text() << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(" is up as ") || !proc.running(); }, 30s));
  REQUIRE(proc.running());

  OneHopClient client(io, clock, {kLoopback, port}, k->identity());
  auto& circ = client.circuit();
  auto first = begin_stream(io, circ, StreamId{1}, "echo.test", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(first));
  CHECK(dns_a.questions("echo.test") == 2);

  // A comment is no change: the resolver (and its cache) stays.
  write_text(resolv, "# same server\nnameserver " + server_a + "\n");
  proc.signal(SIGHUP);
  REQUIRE(run_until(io, [&] { return count_of(log_text(), "Config reloaded") == 1; }, 10s));
  CHECK(logged("No change to the nameservers in '/etc/resolv.conf'."));
  CHECK_FALSE(logged("Resolver configuration changed."));
  auto cached = begin_stream(io, circ, StreamId{2}, "echo.test", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(cached));
  CHECK(dns_a.questions("echo.test") == 2);

  write_text(resolv, "nameserver " + server_b + "\n");
  proc.signal(SIGHUP);
  REQUIRE(run_until(io, [&] { return count_of(log_text(), "Config reloaded") == 2; }, 10s));
  CHECK(logged("Nameservers in '/etc/resolv.conf' changed: 1 now, 1 before."));
  CHECK(count_of(log_text(), "Resolver configuration changed.") == 1);
  auto second = begin_stream(io, circ, StreamId{3}, "echo.test", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(second));
  CHECK(dns_b.questions("echo.test") == 2);
  CHECK(dns_a.questions("echo.test") == 2);
  CHECK(echo.accepted == 3);
  // Which resolver the operator uses is not logged above debug.
  CHECK_FALSE(logged(server_a));
  CHECK_FALSE(logged(server_b));
  CHECK(proc.running());
}

TEST_CASE("relay process: SETCONF applies ExitPolicy, BandwidthRate/Burst and Log, circuits stay",
          "[processes][control]") {
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
  REQUIRE(k.has_value());
  EchoServer echo(io);
  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_a = tmp.path() / "relay-a.log";
  const auto log_b = tmp.path() / "relay-b.log";
  const auto ports = free_ports(io, 2);
  write_text(torrc, "Nickname exitsetconf\nDataDirectory " + (tmp.path() / "data").string() + "\nORPort 127.0.0.1:" +
                        std::to_string(ports[0]) + "\nControlPort " + std::to_string(ports[1]) +
                        "\nTestingTorNetwork 1\nExitRelay 1\nExitPolicyRejectPrivate 0\nExitPolicy reject *:*\n"
                        "Log notice file " + log_a.string() + "\n");
  Child proc("relay", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, tmp.path() / "relay.out");
  proc.start();
  auto logged = [&](const fs::path& p, const std::string& text) { return read_text(p).find(text) != std::string::npos; };
  INFO(read_text(log_a) << read_text(log_b) << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(log_a, " is up as ") || !proc.running(); }, 30s));
  auto control = [&](const std::string& command) {
    auto r = await_in(io, control_command({kLoopback, ports[1]}, command), 10s);
    REQUIRE(r.has_value());
    return *r;
  };

  OneHopClient client(io, clock, {kLoopback, ports[0]}, k->identity());
  auto& circ = client.circuit();
  auto before = begin_stream(io, circ, StreamId{1}, "127.0.0.1", echo.port());
  REQUIRE(std::holds_alternative<cell::EndReason>(before));
  CHECK(std::get<cell::EndReason>(before) == cell::EndReason::ExitPolicy);

  CHECK(control("SETCONF BandwidthRate=\"5 MB\" BandwidthBurst=\"6 MB\"") == "250 OK");
  CHECK(run_until(io, [&] { return logged(log_a, "Bandwidth is now 5242880 bytes/s, burst 6291456 bytes."); }, 5s));
  CHECK(own_descriptor(io, circ, StreamId{10}).find("\nreject *:*\n") != std::string::npos);
  CHECK(control("SETCONF ExitPolicy=\"accept 127.0.0.1:*\"") == "250 OK");
  CHECK(run_until(io, [&] { return logged(log_a, "Exit policy changed"); }, 5s));
  // The descriptor is published again at once, with the new policy.
  std::uint16_t fetches = 10;
  CHECK(run_until(io, [&] {
    return own_descriptor(io, circ, StreamId{++fetches}).find("\naccept 127.0.0.1:*\n") != std::string::npos;
  }, 10s));
  CHECK(control("SETCONF ExitPolicy=\"accept 127.0.0.1:99999\"").rfind("513 ", 0) == 0);
  CHECK(control("SETCONF Log=\"notice file " + log_b.string() + "\"") == "250 OK");
  CHECK(run_until(io, [&] { return logged(log_b, "Log destinations changed."); }, 5s));

  auto after = begin_stream(io, circ, StreamId{2}, "127.0.0.1", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(after));
  CHECK(circ.state() != net::ClientCircuit::State::Closed);
  CHECK(proc.running());
}

TEST_CASE("relay process: SETCONF applies ServerDNSResolvConfFile and ServerDNSAllowNonRFC953Hostnames",
          "[processes][control][dns]") {
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
  REQUIRE(k.has_value());
  DnsTestServer dns_a(io);  // knows no names
  DnsTestServer dns_b(io);
  EchoServer echo(io);
  DnsRecord local;
  local.v4 = {cell::Ipv4Bytes{127, 0, 0, 1}};
  dns_b.add("echo.test", local);
  dns_b.add("odd$name.test", local);
  const auto rc_a = tmp.path() / "resolv-a.conf";
  const auto rc_b = tmp.path() / "resolv-b.conf";
  const auto rc_empty = tmp.path() / "resolv-empty.conf";
  write_text(rc_a, "nameserver 127.0.0.1:" + std::to_string(dns_a.port()) + "\n");
  write_text(rc_b, "nameserver 127.0.0.1:" + std::to_string(dns_b.port()) + "\n");
  write_text(rc_empty, "search example.org\n");
  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_path = tmp.path() / "relay.log";
  const auto ports = free_ports(io, 2);
  write_text(torrc, "Nickname exitdnsconf\nDataDirectory " + (tmp.path() / "data").string() + "\nORPort 127.0.0.1:" +
                        std::to_string(ports[0]) + "\nControlPort " + std::to_string(ports[1]) +
                        "\nTestingTorNetwork 1\nExitRelay 1\nExitPolicyRejectPrivate 0\nExitPolicy accept 127.0.0.1:*\n"
                        "ServerDNSResolvConfFile " + rc_a.string() + "\nLog notice file " + log_path.string() + "\n");
  Child proc("relay", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, tmp.path() / "relay.out");
  proc.start();
  auto logged = [&](const std::string& text) { return read_text(log_path).find(text) != std::string::npos; };
  INFO(read_text(log_path) << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(" is up as ") || !proc.running(); }, 30s));
  auto control = [&](const std::string& command) {
    auto r = await_in(io, control_command({kLoopback, ports[1]}, command), 10s);
    REQUIRE(r.has_value());
    return *r;
  };
  OneHopClient client(io, clock, {kLoopback, ports[0]}, k->identity());
  auto& circ = client.circuit();

  // Nameserver A knows no name: the failure is cached, as tor's.
  auto before = begin_stream(io, circ, StreamId{1}, "echo.test", echo.port());
  REQUIRE(std::holds_alternative<cell::EndReason>(before));
  CHECK(std::get<cell::EndReason>(before) == cell::EndReason::ResolveFailed);
  CHECK(dns_a.questions("echo.test") == 2);

  // A file without a nameserver, or none at all: refused, nothing changes.
  CHECK(control("SETCONF ServerDNSResolvConfFile=" + rc_empty.string()).rfind("513 ", 0) == 0);
  CHECK(control("SETCONF ServerDNSResolvConfFile=" + (tmp.path() / "absent.conf").string()).rfind("513 ", 0) == 0);
  CHECK(control("GETCONF ServerDNSResolvConfFile") == "250 ServerDNSResolvConfFile=" + rc_a.string());

  CHECK(control("SETCONF ServerDNSResolvConfFile=" + rc_b.string()) == "250 OK");
  CHECK(run_until(io, [&] { return logged("Resolver configuration changed."); }, 5s));
  // The cache went with the old nameservers: B is asked.
  auto after = begin_stream(io, circ, StreamId{2}, "echo.test", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(after));
  CHECK(dns_b.questions("echo.test") == 2);
  CHECK(dns_a.questions("echo.test") == 2);

  auto strict = begin_stream(io, circ, StreamId{3}, "odd$name.test", echo.port());
  REQUIRE(std::holds_alternative<cell::EndReason>(strict));
  CHECK(std::get<cell::EndReason>(strict) == cell::EndReason::ResolveFailed);
  CHECK(dns_b.questions("odd$name.test") == 0);
  CHECK(control("SETCONF ServerDNSAllowNonRFC953Hostnames=1") == "250 OK");
  auto lax = begin_stream(io, circ, StreamId{4}, "odd$name.test", echo.port());
  CHECK(std::holds_alternative<cell::ConnectedMsg>(lax));
  CHECK(dns_b.questions("odd$name.test") == 2);
  CHECK(echo.accepted == 2);
  CHECK(proc.running());
}
