// conflux-proxy end to end: a whole network from `conflux-net up`, and curl
// fetching every test file through it with SOCKS5 (names resolved at the
// exit) and SOCKS4a, through guards and through bridges, the SHA-256 of
// every body checked against network.json.
#include <catch2/catch.hpp>

#include "proxy_network_support.hpp"

using namespace conflux::test::proxynet;

namespace {

// What a network on tor's directory (the default) shows: tor-form
// DirAuthority lines, the exits' uploads of tor's server descriptor
// accepted, and a proxy whose consensus came from tor's documents.
void check_on_tor_directory(const Network& net) {
  for (const auto& name : {std::string("proxy"), std::string("relay1"), std::string("exit1")}) {
    INFO(name);
    const auto torrc = conflux::test::procs::read_text(net.process(name)["torrc"].get<std::string>());
    CHECK(std::regex_search(torrc, std::regex("\nDirAuthority auth1 orport=\\d+ v3ident=[0-9A-F]{40} "
                                              "127\\.0\\.0\\.1:\\d+ [0-9A-F]{40}\n")));
  }
  for (const auto& name : net.names_with_role("exit")) {
    const auto log = conflux::test::procs::read_text(net.process(name)["log"].get<std::string>());
    INFO(name << ": " << log);
    CHECK(std::regex_search(log, std::regex("Descriptor upload to authority 127\\.0\\.0\\.1:\\d+: 200 Descriptor accepted")));
  }
  const auto page = scrape(net.metrics_url());
  CHECK(metric(page, "conflux_proxy_dir_consensus_fetches_total{via=\"begin_dir\"}").value_or(0) +
            metric(page, "conflux_proxy_dir_consensus_fetches_total{via=\"dir_port\"}").value_or(0) >=
        1);
}

}  // namespace

TEST_CASE("curl fetches every test file through the network's proxy with SOCKS5 and SOCKS4a") {
  Network net;  // on tor's directory documents alone (the default)
  check_on_tor_directory(net);
  const auto before = scrape(net.metrics_url());
  REQUIRE(metric(before, "conflux_proxy_bootstrap_percent") == 100);
  std::size_t fetched = 0;
  double streams = 0;
  for (const auto& name : net.file_names()) {
    INFO(name);
    ++streams;
    auto f5 = curl_fetch("--socks5-hostname", net.socks(), net.file_url(name));
    CHECK(f5.curl_status == 0);
    CHECK(f5.sha256 == net.file_sha(name));
    fetched += f5.size;
    // The 50 MiB file once is enough: twice only costs CI minutes under ASan.
    if (name.find("50MiB") != std::string::npos) continue;
    // SOCKS4a with a host name the exit resolves (localhost), never this process.
    std::string url = net.file_url(name);
    url.replace(url.find("127.0.0.1"), 9, "localhost");
    ++streams;
    auto f4 = curl_fetch("--socks4a", net.socks(), url);
    CHECK(f4.curl_status == 0);
    CHECK(f4.sha256 == net.file_sha(name));
    fetched += f4.size;
  }
  const auto after = scrape(net.metrics_url());
  CHECK(metric(after, "conflux_proxy_streams_total{outcome=\"opened\"}").value_or(0) >= streams);
  CHECK(metric(after, "conflux_proxy_bytes_total{direction=\"received\"}").value_or(0) >= static_cast<double>(fetched));
  CHECK(metric(after, "conflux_proxy_circuit_build_seconds_count").value_or(0) >= 1);
}

TEST_CASE("with UseBridges the proxy reaches the network through a bridge it fetched the descriptor of") {
  Network net;
  SECTION("the fast bridge carries every test file but the 50 MiB one") {
    TestProxy proxy(net, "fast-bridge", "UseBridges 1\n" + net.bridge_line("bridge1m") + "\n");
    REQUIRE(proxy.bootstrapped());
    CHECK(wait_for_log(proxy.log(), "Bridge bridge1m .*descriptor fetched and verified", 1s));
    for (const auto& name : net.file_names()) {
      // The bridge is rate-limited to 1 MiB/s: the 50 MiB file would only measure that limit, for minutes.
      if (name.find("50MiB") != std::string::npos) continue;
      INFO(name);
      auto f = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url(name));
      CHECK(f.curl_status == 0);
      CHECK(f.sha256 == net.file_sha(name));
      std::string url = net.file_url(name);
      url.replace(url.find("127.0.0.1"), 9, "localhost");
      auto f4 = curl_fetch("--socks4a", proxy.socks(), url);
      CHECK(f4.curl_status == 0);
      CHECK(f4.sha256 == net.file_sha(name));
    }
    // Every circuit started at the bridge.
    const auto log = conflux::test::procs::read_text(proxy.log());
    const std::regex launched("Circuit \\d+ launched: (\\S+) ->");
    std::size_t circuits = 0;
    for (std::sregex_iterator it(log.begin(), log.end(), launched), end; it != end; ++it, ++circuits)
      CHECK((*it)[1] == "bridge1m");
    CHECK(circuits >= 1);
  }
  // (A Bridge line naming a bridge by its Ed25519 identity, our former form,
  // is a configuration error since issue 15: test_config_proxy_lines.)
  SECTION("the slow bridge works too") {
    TestProxy proxy(net, "slow-bridge", "UseBridges 1\n" + net.bridge_line("bridge100k") + "\n");
    REQUIRE(proxy.bootstrapped());
    auto f = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("320KiB.bin"));
    CHECK(f.curl_status == 0);
    CHECK(f.sha256 == net.file_sha("320KiB.bin"));
  }
  SECTION("bridges that cannot be reached are named in the log") {
    // Two closed ports on loopback, with fingerprints that exist nowhere.
    TestProxy proxy(net, "dead-bridges",
                    "UseBridges 1\nBridge 127.0.0.1:9 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
                    "Bridge 127.0.0.1:7 BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n");
    auto warned = wait_for_log(proxy.log(), "Cannot build circuits yet: none of the configured bridges is usable", 30s);
    REQUIRE(warned);
    const auto log = conflux::test::procs::read_text(proxy.log());
    CHECK(log.find("127.0.0.1:9") != std::string::npos);
    CHECK(log.find("127.0.0.1:7") != std::string::npos);
    CHECK(log.find("Bootstrapped 100%") == std::string::npos);
  }
}
