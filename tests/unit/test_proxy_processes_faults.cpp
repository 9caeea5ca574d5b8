// A relay in use dies: the stream on it ends, and the next request
// succeeds on a new circuit that avoids it.
#include <signal.h>

#include <catch2/catch.hpp>
#include <future>

#include "proxy_network_support.hpp"

using namespace conflux::test::proxynet;

namespace {

// The path of the circuit the last stream attached to, from the proxy's info log.
std::vector<std::string> path_of_last_stream(const TestProxy& proxy) {
  auto attached = wait_for_log(proxy.log(), "Stream \\d+ attached to circuit (\\d+)", 30s);
  REQUIRE(attached);
  const auto log = conflux::test::procs::read_text(proxy.log());
  const std::regex all("Stream \\d+ attached to circuit (\\d+)");
  std::string circuit;
  for (std::sregex_iterator it(log.begin(), log.end(), all), end; it != end; ++it) circuit = (*it)[1];
  std::smatch m;
  REQUIRE(std::regex_search(log, m, std::regex("Circuit " + circuit + " launched: ([^\\n]+)")));
  std::vector<std::string> hops;
  const std::string text = m[1];
  std::size_t at = 0;
  for (;;) {
    const auto arrow = text.find(" -> ", at);
    hops.push_back(text.substr(at, arrow - at));
    if (arrow == std::string::npos) break;
    at = arrow + 4;
  }
  return hops;
}

void kill_relay(const Network& net, const std::string& name) {
  const auto pid = net.process(name)["pid"].get<pid_t>();
  REQUIRE(pid > 1);
  REQUIRE(::kill(pid, SIGKILL) == 0);
}

}  // namespace

TEST_CASE("killing a relay in use: the next request succeeds on a new circuit") {
  Network net;
  TestProxy proxy(net, "faults", "");
  REQUIRE(proxy.bootstrapped());
  // A long download, so that the circuit is in use when the relay dies.
  auto download = std::async(std::launch::async, [&] {
    return curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("50MiB.bin"), 120);
  });
  const auto path = path_of_last_stream(proxy);
  REQUIRE(path.size() == 3);
  const auto started = std::chrono::steady_clock::now();
  while (metric(scrape(proxy.metrics_url()), "conflux_proxy_bytes_total{direction=\"received\"}").value_or(0) < 1 << 20 &&
         std::chrono::steady_clock::now() - started < 60s)
    std::this_thread::sleep_for(50ms);

  std::string victim;
  SECTION("the middle relay") { victim = path[1]; }
  SECTION("the guard") { victim = path[0]; }
  INFO("path " << path[0] << " -> " << path[1] << " -> " << path[2] << "; killing " << victim);
  kill_relay(net, victim);

  // The interrupted download ends (short), it does not hang.
  const auto cut = download.get();
  CHECK(cut.sha256 != net.file_sha("50MiB.bin"));

  const auto next = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("1MiB.bin"), 120);
  CHECK(next.curl_status == 0);
  CHECK(next.sha256 == net.file_sha("1MiB.bin"));
  const auto after = path_of_last_stream(proxy);
  CHECK(std::find(after.begin(), after.end(), victim) == after.end());
}
