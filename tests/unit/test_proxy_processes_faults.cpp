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
  return split_path(m[1]);
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

TEST_CASE("every exit down: the proxy backs off instead of launching circuits without pause") {
  Network net;
  TestProxy proxy(net, "backoff", "");
  REQUIRE(proxy.bootstrapped());
  REQUIRE(wait_for_log(proxy.log(), "Circuit \\d+ built", 30s));
  const auto events = [&](const char* event) {
    return metric(scrape(proxy.metrics_url()), std::string("conflux_proxy_circuit_events_total{event=\"") + event + "\"}")
        .value_or(0);
  };
  for (const auto& exit : net.names_with_role("exit")) kill_relay(net, exit);
  const double launched_before = events("launched");
  const auto started = std::chrono::steady_clock::now();
  // Every path now fails at its last extend. The request waits for a circuit
  // until curl gives up.
  const auto r = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("1MiB.bin"), 8);
  CHECK(r.curl_status != 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double launched = events("launched") - launched_before;
  INFO("launched " << launched << " circuits in " << seconds << " s");
  CHECK(events("failed") >= 5);
  // Five quick failures, then one launch a second (a few more may have been
  // on their way): without the back-off this was hundreds a second.
  CHECK(launched <= 10 + 2 * seconds);
}

TEST_CASE("an exit that refuses a stream: the stream is retried on another exit and succeeds") {
  Network net;
  // exit1 comes back refusing 127.0.0.2 (its policy summary, which is per
  // port, is unchanged, so clients still choose it for the port).
  const auto& exit1 = net.process("exit1");
  ::kill(exit1["pid"].get<pid_t>(), SIGKILL);
  const path torrc = exit1["torrc"].get<std::string>();
  auto text = conflux::test::procs::read_text(torrc);
  const auto first_policy = text.find("ExitPolicy accept");
  REQUIRE(first_policy != std::string::npos);
  text.insert(first_policy, "ExitPolicy reject 127.0.0.2:*\n");
  conflux::test::procs::write_text(torrc, text);
  Child exit1_again("exit1", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, net.dir() / "exit1-again.out");
  exit1_again.start();
  // Back when its ORPort answers again.
  const auto or_port = static_cast<unsigned short>(exit1["ports"]["or"].get<int>());
  bool listening = false;
  for (int i = 0; i < 150 && !listening; ++i) {
    conflux::test::procs::asio::io_context probe;
    conflux::net::tcp::socket s(probe);
    boost::system::error_code ec;
    s.connect({conflux::test::procs::kLoopback, or_port}, ec);
    listening = !ec;
    if (!listening) std::this_thread::sleep_for(100ms);
  }
  REQUIRE(listening);

  // A destination on 127.0.0.2 at the file server's port (which every exit allows).
  conflux::test::procs::asio::io_context io;
  const auto port = static_cast<std::uint16_t>(net.process("fileserver")["ports"]["http"].get<int>());
  conflux::test::procs::HttpServer server(io, std::vector<std::uint8_t>(2000, 'x'),
                                          conflux::net::tcp::endpoint(boost::asio::ip::make_address("127.0.0.2"), port));
  std::atomic<bool> stop{false};
  std::thread serve([&] {
    while (!stop) io.run_for(50ms);
  });

  // Through a bridge, so that the first hop is never exit2 (which would
  // leave no exit for a stream exit1 refused).
  TestProxy proxy(net, "retry", "UseBridges 1\n" + net.bridge_line("bridge1m") + "\n");
  REQUIRE(proxy.bootstrapped());
  // Each request with new SOCKS credentials gets a circuit of its own, with
  // an exit picked at random: within 60 of them exit1 comes up, refuses, and
  // the stream moves to exit2. 60, not 20: on a loaded machine the consensus
  // the proxy starts with may not list exit1 yet (it was down for the
  // authority's last reachability test), and the next one comes a consensus
  // interval later.
  double retries = 0;
  for (int i = 0; i < 60 && retries == 0; ++i) {
    const std::string url = "http://127.0.0.2:" + std::to_string(port) + "/file";
    auto r = run_command("curl -s --max-time 60 --socks5-hostname " + proxy.socks() + " --proxy-user u" +
                         std::to_string(i) + ":p '" + url + "'");
    CHECK(r.status == 0);
    CHECK(r.output == std::string(2000, 'x'));
    retries = metric(scrape(proxy.metrics_url()), "conflux_proxy_stream_retries_total").value_or(0);
  }
  CHECK(retries >= 1);
  CHECK(metric(scrape(proxy.metrics_url()), "conflux_proxy_stream_end_reasons_total{reason=\"4\"}").value_or(0) >= 1);
  stop = true;
  serve.join();
}

TEST_CASE("a circuit that does not build in time is abandoned and the stream waits for a new one") {
  Network net;
  TestProxy proxy(net, "timeout", "LearnCircuitBuildTimeout 0\nCircuitBuildTimeout 2 seconds\n");
  REQUIRE(proxy.bootstrapped());
  // Freeze every relay: TCP still connects (the kernel accepts), nothing answers.
  std::vector<pid_t> frozen;
  for (const auto& role : {"relay", "exit", "authority"})
    for (const auto& name : net.names_with_role(role)) frozen.push_back(net.process(name)["pid"].get<pid_t>());
  for (auto pid : frozen) REQUIRE(::kill(pid, SIGSTOP) == 0);
  struct Thaw {
    std::vector<pid_t>& pids;
    ~Thaw() {
      for (auto pid : pids) ::kill(pid, SIGCONT);
    }
  } thaw{frozen};

  // New credentials need a new circuit, which cannot build now.
  auto fetch = std::async(std::launch::async, [&] {
    auto r = run_command("curl -s --max-time 90 --socks5-hostname " + proxy.socks() + " --proxy-user fresh:x '" +
                         net.file_url("320KiB.bin") + "'");
    return Fetch{r.status, sha256_hex(r.output), r.output.size()};
  });
  double timed_out = 0;
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (timed_out < 1 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(200ms);
    timed_out = metric(scrape(proxy.metrics_url()), "conflux_proxy_circuit_events_total{event=\"timed_out\"}").value_or(0);
  }
  CHECK(timed_out >= 1);
  CHECK(wait_for_log(proxy.log(), "timed out after 2000 ms while building", 1s));
  for (auto pid : frozen) ::kill(pid, SIGCONT);

  const auto got = fetch.get();
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file_sha("320KiB.bin"));
}
