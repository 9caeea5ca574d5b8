// conflux-proxy fetching tor's directory as a tor client does: over
// BEGIN_DIR on a one-hop circuit to an authority's ORPort, from the first
// fetch on (the link proves the RSA fingerprint of the DirAuthority line),
// with the DirPort only as a fallback. Against a
// stock tor 0.4.9 network (stock_tor_network.hpp); the answer parser is
// tested without one. Also the proxy through a stock tor bridge named by a
// Bridge line in tor's form (RSA fingerprint), plain and behind obfs4: the
// bridge's own tor descriptor fetched from it over BEGIN_DIR, verified, and
// used to build circuits into the stock network.
#include "conflux/client/begin_dir.hpp"
#include "proxy_network_support.hpp"
#include "stock_tor_bridge.hpp"
#include "stock_tor_network.hpp"

using namespace conflux;
using namespace conflux::test::procs;
using conflux::test::stocktor::StockBridge;
using conflux::test::stocktor::StockTorNetwork;

namespace {

// 1 MiB and 5 MiB through `proxy`, each with its SHA-256 checked.
void fetch_intact(const StockTorNetwork& net, const std::string& socks) {
  for (const char* name : {"1MiB", "5MiB"}) {
    INFO(name);
    const auto& f = net.file(name);
    auto got = test::proxynet::curl_fetch("--socks5-hostname", socks,
                                          "http://127.0.0.1:" + std::to_string(net.http_port()) + f.path);
    CHECK(got.curl_status == 0);
    CHECK(got.sha256 == f.sha256_hex);
  }
}

// A proxy whose only first hop is `bridge_line`: its descriptor verified
// (named as tor names it), bootstrapped, and downloading through it; with
// the bridge stopped, nothing goes through any more.
void through_stock_bridge(const StockTorNetwork& net, StockBridge& bridge, const std::string& name,
                          const std::string& bridge_line, const std::string& extra) {
  using namespace conflux::test::proxynet;
  TestProxy proxy(net.work(), net.dir_authority_lines(), name,
                  "ConfluxEnabled 0\nUseBridges 1\n" + extra + bridge_line);
  auto verified = wait_for_log(proxy.log(), "Bridge ([A-Za-z0-9]+) \\(127\\.0\\.0\\.1:[0-9]+\\): descriptor fetched and verified", 120s);
  if (!verified) FAIL("no bridge descriptor; the proxy's log:\n" << read_text(proxy.log()));
  if (!proxy.bootstrapped(90s)) FAIL("no bootstrap; the proxy's log:\n" << read_text(proxy.log()));
  fetch_intact(net, proxy.socks());
  // Nothing but the bridge was ever a first hop.
  CHECK_FALSE(wait_for_log(proxy.log(), "Could not open a channel to a first hop", 0s));
  REQUIRE(bridge.stop());
  const auto& f = net.file("1MiB");
  auto got = curl_fetch("--socks5-hostname", proxy.socks(),
                        "http://127.0.0.1:" + std::to_string(net.http_port()) + f.path, 20);
  CHECK(got.curl_status != 0);
}

}  // namespace

TEST_CASE("a BEGIN_DIR answer: status line, headers, body to the end of the stream", "[stocktor][dir]") {
  using client::parse_begin_dir_answer;
  auto ok = parse_begin_dir_answer("HTTP/1.0 200 OK\r\nDate: x\r\nContent-Type: text/plain\r\n\r\nnetwork-status");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  CHECK(ok->body == "network-status");
  auto missing = parse_begin_dir_answer("HTTP/1.0 404 Not found\r\n\r\n");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  CHECK(missing->body.empty());
  CHECK_FALSE(parse_begin_dir_answer("HTTP/1.0 200 OK\r\nno blank line"));
  CHECK_FALSE(parse_begin_dir_answer("SMTP 200 OK\r\n\r\n"));
  CHECK_FALSE(parse_begin_dir_answer("HTTP/1.0 2x0 OK\r\n\r\n"));
  CHECK_FALSE(parse_begin_dir_answer(""));
}

TEST_CASE("conflux-proxy refreshes tor's directory over BEGIN_DIR at the authorities' ORPorts", "[stocktor][proxy][dir]") {
  auto& net = StockTorNetwork::shared();
  using namespace conflux::test::proxynet;
  TestProxy proxy(net.work(), net.dir_authority_lines(), "dirproxy", "ConfluxEnabled 0\n");
  if (!proxy.bootstrapped(90s)) FAIL("no bootstrap; the proxy's log:\n" << read_text(proxy.log()));
  // The first consensus too: over BEGIN_DIR at an authority named only by
  // its line's RSA fingerprint, with no cache and no DirPort.
  auto first = wait_for_log(proxy.log(), "New consensus: 9 relays, valid after [0-9]+, from ([A-Za-z_]+)", 1s);
  REQUIRE(first);
  CHECK((*first)[1] == "BEGIN_DIR");
  // The next ones (a test network makes one every few tens of seconds) too:
  // certificates, consensus and microdescriptors.
  auto begin_dir = wait_for_log(proxy.log(), "New consensus: 9 relays, valid after [0-9]+, from BEGIN_DIR (auth[0-9]+)[\\s\\S]*"
                                             "New consensus: 9 relays, valid after [0-9]+, from BEGIN_DIR (auth[0-9]+)", 120s);
  if (!begin_dir) FAIL("no second consensus over BEGIN_DIR; the proxy's log:\n" << read_text(proxy.log()));
  const auto page = scrape(proxy.metrics_url());
  CHECK(metric(page, "conflux_proxy_dir_consensus_fetches_total{via=\"begin_dir\"}").value_or(0) >= 2);
  CHECK(metric(page, "conflux_proxy_dir_consensus_fetches_total{via=\"dir_port\"}").value_or(-1) == 0);
  // Still a working client on what it fetched that way.
  const auto& f = net.file("1MiB");
  auto got = curl_fetch("--socks5-hostname", proxy.socks(), "http://127.0.0.1:" + std::to_string(net.http_port()) + f.path);
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == f.sha256_hex);

  // Restarted on its cache, it knows the identities at once: no DirPort.
  proxy.child().signal(SIGTERM);
  CHECK(proxy.child().wait_exit(std::chrono::seconds(20)));
  TestProxy again(net.work(), net.dir_authority_lines(), "dirproxy", "ConfluxEnabled 0\n");
  CHECK(wait_for_log(again.log(), "Loaded the cached consensus \\(9 relays\\)", 20s));
  CHECK(wait_for_log(again.log(), "New consensus: 9 relays, valid after [0-9]+, from BEGIN_DIR", 120s));
  const auto again_page = scrape(again.metrics_url());
  CHECK(metric(again_page, "conflux_proxy_dir_consensus_fetches_total{via=\"dir_port\"}").value_or(-1) == 0);
  CHECK(again.bootstrapped(60s));
}

TEST_CASE("conflux-proxy through a stock tor bridge named by its RSA fingerprint", "[stocktor][proxy][bridge]") {
  auto& net = StockTorNetwork::shared();
  StockBridge bridge(net, "stockbridge", false);
  if (!bridge.ready()) FAIL("the stock bridge did not start; its log:\n" << read_text(bridge.log()));
  INFO(bridge.bridge_line());
  {
    // A line whose fingerprint is another relay's: the link is refused as
    // tor refuses it ("identity mismatch"), and the bridge is never used.
    auto wrong = bridge.bridge_line();
    wrong.replace(wrong.find(bridge.fingerprint()), 40, std::string(40, '7'));
    using namespace conflux::test::proxynet;
    TestProxy proxy(net.work(), net.dir_authority_lines(), "wrongbridge", "ConfluxEnabled 0\nUseBridges 1\n" + wrong);
    CHECK(wait_for_log(proxy.log(), "Bridge 127\\.0\\.0\\.1:[0-9]+: could not reach it: .*identity is not the expected one", 60s));
    CHECK(wait_for_log(proxy.log(), "bridge \\(\\$77777777\\) at 127\\.0\\.0\\.1:[0-9]+: no descriptor", 10s));
    CHECK_FALSE(wait_for_log(proxy.log(), "descriptor fetched and verified", 0s));
  }
  through_stock_bridge(net, bridge, "bridgeproxy", bridge.bridge_line(), "");
}

TEST_CASE("conflux-proxy through a stock tor obfs4 bridge (tor's Bridge obfs4 line)", "[stocktor][proxy][bridge][obfs4]") {
  auto& net = StockTorNetwork::shared();
  StockBridge bridge(net, "stockobfs4", true);
  if (!bridge.ready()) FAIL("the stock bridge did not start; its log:\n" << read_text(bridge.log()));
  const auto line = bridge.obfs4_bridge_line();
  if (line.empty()) FAIL("no obfs4 bridge line from tor; its log:\n" << read_text(bridge.log()));
  INFO(line);
  through_stock_bridge(net, bridge, "obfs4proxy", line, "ClientTransportPlugin obfs4 exec /usr/bin/obfs4proxy\n");
}
