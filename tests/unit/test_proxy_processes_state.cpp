// What conflux-proxy keeps and retires: the consensus cache and guard state
// across a restart, and circuits past MaxCircuitDirtiness.
#include <signal.h>

#include <catch2/catch.hpp>

#include "proxy_network_support.hpp"

using namespace conflux::test::proxynet;

namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// First hops of every circuit launched, in log order.
std::vector<std::string> first_hops(const std::string& log) {
  std::vector<std::string> out;
  const std::regex launched("Circuit \\d+ launched: (\\S+) ->");
  for (std::sregex_iterator it(log.begin(), log.end(), launched), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

std::string last_circuit_used(const std::string& log) {
  const std::regex attached("Stream \\d+ attached to circuit (\\d+)");
  std::string last;
  for (std::sregex_iterator it(log.begin(), log.end(), attached), end; it != end; ++it) last = (*it)[1];
  return last;
}

}  // namespace

TEST_CASE("a restarted proxy uses its cached consensus and keeps its guard") {
  Network net;
  std::vector<std::string> guards_before;
  path log;
  {
    TestProxy first(net, "restart", "");
    REQUIRE(first.bootstrapped());
    CHECK(curl_fetch("--socks5-hostname", first.socks(), net.file_url("320KiB.bin")).sha256 ==
          net.file_sha("320KiB.bin"));
    log = first.log();
    guards_before = first_hops(conflux::test::procs::read_text(log));
    REQUIRE(!guards_before.empty());
    // On tor's directory (conflux-net's default) the cache is tor's three files.
    for (const char* file : {"cached-microdesc-consensus", "cached-certs", "cached-microdescs"}) {
      INFO(file);
      CHECK(std::filesystem::exists(net.dir() / "test-restart" / "data" / file));
    }
    CHECK(std::filesystem::exists(net.dir() / "test-restart" / "data" / "guard-state"));
    first.child().signal(SIGTERM);
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (first.child().running() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(50ms);
    CHECK_FALSE(first.child().running());
  }
  const auto before_restart = conflux::test::procs::read_text(log);
  TestProxy second(net, "restart", "");
  REQUIRE(wait_for_log(second.log(), "(?:[\\s\\S]*Bootstrapped 100%){2}", 30s));
  const auto text = conflux::test::procs::read_text(second.log());
  const auto after = text.substr(before_restart.size());
  CHECK(count(after, "Loaded the cached consensus") == 1);
  const auto guards_after = first_hops(after);
  REQUIRE(!guards_after.empty());
  CHECK(guards_after.front() == guards_before.front());
  CHECK(curl_fetch("--socks5-hostname", second.socks(), net.file_url("320KiB.bin")).sha256 ==
        net.file_sha("320KiB.bin"));
}

TEST_CASE("circuits take no new streams after MaxCircuitDirtiness and are closed when idle") {
  Network net;
  // Idle dirty circuits are closed by the expiry pass, once per NewCircuitPeriod.
  TestProxy proxy(net, "dirty", "MaxCircuitDirtiness 10 seconds\nNewCircuitPeriod 1 second\n");
  REQUIRE(proxy.bootstrapped());
  auto fetch = [&] {
    CHECK(curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("320KiB.bin")).sha256 ==
          net.file_sha("320KiB.bin"));
    return last_circuit_used(conflux::test::procs::read_text(proxy.log()));
  };
  const auto first = fetch();
  CHECK(fetch() == first);  // reused while fresh
  // Past the dirtiness limit (a real wait: the limit is the behaviour under test).
  std::this_thread::sleep_for(11s);
  const auto later = fetch();
  CHECK(later != first);
  const auto closed = metric(scrape(proxy.metrics_url()), "conflux_proxy_circuit_events_total{event=\"closed\"}");
  CHECK(closed.value_or(0) >= 1);
}

TEST_CASE("stream isolation: SOCKS credentials and SocksPorts keep streams on separate circuits") {
  Network net;
  conflux::test::procs::asio::io_context io;
  const auto second_port = conflux::test::procs::free_ports(io, 1)[0];
  const std::string second = "127.0.0.1:" + std::to_string(second_port);
  TestProxy proxy(net, "isolation", "SocksPort " + second + "\n");
  REQUIRE(proxy.bootstrapped());
  auto circuit_for = [&](const std::string& socks, const std::string& credentials) {
    const auto r = run_command("curl -s --max-time 60 --socks5-hostname " + socks +
                               (credentials.empty() ? std::string() : " --proxy-user " + credentials) + " '" +
                               net.file_url("320KiB.bin") + "'");
    CHECK(r.status == 0);
    CHECK(sha256_hex(r.output) == net.file_sha("320KiB.bin"));
    return last_circuit_used(conflux::test::procs::read_text(proxy.log()));
  };
  const auto alice = circuit_for(proxy.socks(), "alice:x");
  CHECK(circuit_for(proxy.socks(), "alice:x") == alice);   // same key: same circuit
  const auto bob = circuit_for(proxy.socks(), "bob:x");
  CHECK(bob != alice);                                     // IsolateSOCKSAuth, on by default
  const auto anonymous = circuit_for(proxy.socks(), "");
  CHECK(anonymous != alice);
  CHECK(anonymous != bob);
  const auto other_port = circuit_for(second, "alice:x");  // another SocksPort: another circuit
  CHECK(other_port != alice);
}
