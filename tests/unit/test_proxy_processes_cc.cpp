// Congestion control (prop 324) between conflux-proxy and our exits, end to
// end on a conflux-net network: the proxy asks the exit hop of its single
// circuits, the exit agrees, and files arrive whole; and the two ways a
// pair falls back to fixed windows, each still carrying every file: a proxy
// that does not ask (OverrideConsensusParams cc_alg=0), and exits that do
// not offer it (the same override on every relay). The proxy's metrics say
// which mode its circuits ran. Relays read cc_* from the consensus their
// authority publishes (ConsensusParams), as tor's do.
#include <catch2/catch.hpp>

#include "proxy_network_support.hpp"

using namespace conflux::test::proxynet;

namespace {

const char* const kAgreed = "conflux_proxy_cc_circuits_total{mode=\"congestion_control\"}";
const char* const kFixed = "conflux_proxy_cc_circuits_total{mode=\"fixed_windows\"}";

// Every file of the network through `proxy`, each intact; `largest`: the
// 50 MiB one too. The fallbacks cross their fixed windows thousands of times
// with the 5 MiB file already; 50 MiB more under ASan only costs CI minutes.
// Returns how many files it fetched.
int fetch_all(const Network& net, const TestProxy& proxy, bool largest = false) {
  int fetched = 0;
  for (const auto& name : net.file_names()) {
    if (!largest && name.find("50MiB") != std::string::npos) continue;
    ++fetched;
    INFO(name);
    auto f = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url(name));
    CHECK(f.curl_status == 0);
    CHECK(f.sha256 == net.file_sha(name));
  }
  return fetched;
}

}  // namespace

TEST_CASE("single circuits: the proxy and our exits agree to congestion control, or fall back") {
  SECTION("both offer it: congestion control, files intact") {
    Network net;
    TestProxy proxy(net, "cc", "ConfluxEnabled 0\n");
    REQUIRE(proxy.bootstrapped());
    fetch_all(net, proxy, true);
    const auto page = scrape(proxy.metrics_url());
    CHECK(metric(page, kAgreed).value_or(0) >= 1);
    CHECK(metric(page, kFixed).value_or(-1) == 0);
  }
  SECTION("the proxy does not ask: fixed windows, files intact") {
    Network net;
    TestProxy proxy(net, "nocc", "ConfluxEnabled 0\nOverrideConsensusParams cc_alg=0\n");
    REQUIRE(proxy.bootstrapped());
    const int fetched = fetch_all(net, proxy);
    REQUIRE(fetched >= 3);
    const auto page = scrape(proxy.metrics_url());
    CHECK(metric(page, kAgreed).value_or(-1) == 0);
    CHECK(metric(page, kFixed).value_or(-1) == 0);  // nothing asked
    CHECK(metric(page, "conflux_proxy_streams_total{outcome=\"opened\"}").value_or(0) >= fetched);
  }
  SECTION("the exits do not offer it: the proxy asks, runs fixed windows, files intact") {
    Network net(R"({"proxies": [{"name": "proxy", "start": false}],)"
                R"( "relay_options": ["OverrideConsensusParams cc_alg=0"]})");
    TestProxy proxy(net, "asks", "ConfluxEnabled 0\n");
    REQUIRE(proxy.bootstrapped());
    fetch_all(net, proxy);
    const auto page = scrape(proxy.metrics_url());
    CHECK(metric(page, kAgreed).value_or(-1) == 0);
    CHECK(metric(page, kFixed).value_or(0) >= 1);
  }
  SECTION("the consensus says cc_alg=0: the relays follow it, the proxy asks anyway, fixed windows, files intact") {
    // ConsensusParams matters at the authority only; the relays run no
    // override, so what they answer comes from the consensus they fetched.
    Network net(R"({"proxies": [{"name": "proxy", "start": false}],)"
                R"( "relay_options": ["ConsensusParams cc_alg=0"]})");
    for (const auto& name : net.names_with_role("exit")) {
      INFO(name);
      REQUIRE(wait_for_log(net.process(name)["log"].get<std::string>(),
                           "Congestion control now follows the consensus valid after [0-9]+: cc_alg=0", 60s));
    }
    TestProxy proxy(net, "asks", "ConfluxEnabled 0\nOverrideConsensusParams cc_alg=2\n");
    REQUIRE(proxy.bootstrapped());
    fetch_all(net, proxy);
    const auto page = scrape(proxy.metrics_url());
    CHECK(metric(page, kAgreed).value_or(-1) == 0);
    CHECK(metric(page, kFixed).value_or(0) >= 1);
  }
}
