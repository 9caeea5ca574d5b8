// More isolation groups than the proxy has Conflux set slots (32), through a
// whole conflux-net network (issue 13: after 32 groups, new streams waited
// for nothing until curl gave up). Each download has its own SOCKS username,
// hence its own isolation group, as Tor Browser gives each first-party site.
#include <catch2/catch.hpp>

#include "proxy_network_support.hpp"

using namespace conflux::test::proxynet;

namespace {

// Downloads 320KiB.bin `n` times through the network's proxy, download i as
// SOCKS user `prefix`i, all at once or one after another; how many arrived whole.
long downloads(const Network& net, int n, bool at_once, const std::string& prefix) {
  const path dir = net.dir() / ("downloads-" + prefix);
  conflux::test::procs::fs::create_directories(dir);
  const std::string curl = "curl -s --max-time 150 --socks5-hostname " + net.socks() + " --proxy-user " + prefix +
                           "$i:x -o f$i '" + net.file_url("320KiB.bin") + "'";
  const auto r = run_command("cd '" + dir.string() + "' && for i in $(seq 1 " + std::to_string(n) + "); do " + curl +
                             (at_once ? " & " : "; ") + "done; wait; sha256sum f* | grep -c " +
                             net.file_sha("320KiB.bin"));
  return std::stol(r.output.empty() ? "0" : r.output);
}

}  // namespace

TEST_CASE("ConfluxEnabled 1: 40 isolation groups at once, then 40 one after another, all get their download") {
  Network net;
  CHECK(downloads(net, 40, true, "together") == 40);
  CHECK(downloads(net, 40, false, "inturn") == 40);
  const auto page = scrape(net.metrics_url());
  CHECK(metric(page, "conflux_proxy_streams_total{outcome=\"failed\"}") == 0);
  CHECK(metric(page, "conflux_proxy_stream_socks_timeouts_total") == 0);
  CHECK(metric(page, "conflux_proxy_conflux_sets_limit") == 32);
  CHECK(metric(page, "conflux_proxy_conflux_sets{state=\"open\"}").value_or(99) <= 32);
  // The second round alone needs 40 sets and 32 fit: at least 8 of them took
  // the place of the least recently used idle set.
  CHECK(metric(page, "conflux_proxy_conflux_set_events_total{event=\"evicted\"}").value_or(0) >= 8);
  CHECK(metric(page, "conflux_proxy_streams_waiting{for=\"set\"}") == 0);
  CHECK(metric(page, "conflux_proxy_streams_waiting{for=\"circuit\"}") == 0);
}
