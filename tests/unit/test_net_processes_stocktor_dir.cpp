// conflux-proxy fetching tor's directory as a tor client does: over
// BEGIN_DIR on a one-hop circuit to an authority's ORPort, from the first
// fetch on (the link proves the RSA fingerprint of the DirAuthority line),
// with the DirPort only as a fallback. Against a
// stock tor 0.4.9 network (stock_tor_network.hpp); the answer parser is
// tested without one.
#include "conflux/client/begin_dir.hpp"
#include "proxy_network_support.hpp"
#include "stock_tor_network.hpp"

using namespace conflux;
using namespace conflux::test::procs;
using conflux::test::stocktor::StockTorNetwork;

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
