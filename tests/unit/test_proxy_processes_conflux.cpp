// Conflux through a whole conflux-net network: a 50 MiB download over a
// linked set with cells on every leg, and a leg's middle relay killed in the
// middle of a download (nothing lost, the surviving leg relinked to carry the
// dead leg's cells, a new leg linked).
#include <signal.h>

#include <catch2/catch.hpp>
#include <future>
#include <map>
#include <set>

#include "proxy_network_support.hpp"
#include "proxy_set_log.hpp"

using namespace conflux::test::proxynet;

TEST_CASE("ConfluxEnabled 1: 50 MiB through a linked set, with cells on every leg") {
  Network net;
  TestProxy proxy(net, "conflux", "ConfluxEnabled 1\n");
  REQUIRE(proxy.bootstrapped());
  REQUIRE(wait_for_log(proxy.log(), "Conflux set \\d+ linked leg \\d+ \\(2 of 2 legs\\)", 30s));

  const auto got = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("50MiB.bin"), 180);
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file_sha("50MiB.bin"));

  const auto page = scrape(proxy.metrics_url());
  const auto sets = read_set_log(proxy);
  REQUIRE(!sets.last_stream_set.empty());
  const std::string set = sets.last_stream_set;
  INFO("the download used Conflux set " << set << "\n" << page);
  // Both legs of that set carried cells toward us.
  const auto received = per_leg(page, "conflux_proxy_conflux_leg_cells_received_total");
  std::size_t busy = 0;
  for (const auto& [labels, cells] : received)
    if (labels.find("set=\"" + set + "\"") != std::string::npos && cells > 100) ++busy;
  CHECK(busy == 2);
  // Its legs end at the same exit, through different guards and middles.
  const auto& legs = sets.linked.at(set);
  REQUIRE(legs.size() == 2);
  const auto a = leg_path(sets, set, legs[0]);
  const auto b = leg_path(sets, set, legs[1]);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  CHECK(a[2] == b[2]);
  CHECK(a[0] != b[0]);
  CHECK(a[1] != b[1]);
}

TEST_CASE("Conflux: killing one leg's middle relay mid-download loses nothing, the surviving leg is relinked and a new leg is linked") {
  Network net;
  TestProxy proxy(net, "conflux-kill", "ConfluxEnabled 1\n");
  REQUIRE(proxy.bootstrapped());
  REQUIRE(wait_for_log(proxy.log(), "Conflux set \\d+ linked leg \\d+ \\(2 of 2 legs\\)", 30s));

  // A first download on the set: its 2000 stream SENDMEs, which no circuit
  // SENDME acknowledges, must not leave the client without the history to
  // resend when a leg dies during the next one.
  const auto first = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("50MiB.bin"), 240);
  REQUIRE(first.sha256 == net.file_sha("50MiB.bin"));
  const auto first_set = read_set_log(proxy).last_stream_set;
  const double before_bytes = received_bytes(proxy);

  auto download = std::async(std::launch::async, [&] {
    return curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("50MiB.bin"), 240);
  });
  const auto started = std::chrono::steady_clock::now();
  while (received_bytes(proxy) < before_bytes + (5 << 20) && std::chrono::steady_clock::now() - started < 60s)
    std::this_thread::sleep_for(20ms);
  REQUIRE(received_bytes(proxy) >= before_bytes + (5 << 20));

  const auto before = read_set_log(proxy);
  REQUIRE(!before.last_stream_set.empty());
  const std::string set = before.last_stream_set;
  CHECK(set == first_set);  // the same set carried both downloads
  const auto& legs = before.linked.at(set);
  REQUIRE(legs.size() == 2);
  const auto victim_leg = leg_path(before, set, legs[0]);
  const auto other_leg = leg_path(before, set, legs[1]);
  REQUIRE(victim_leg.size() == 3);
  REQUIRE(other_leg.size() == 3);
  const std::string victim = victim_leg[1];
  INFO("set " << set << ": killing " << victim << ", the middle of " << victim_leg[0] << " -> " << victim_leg[1]
              << " -> " << victim_leg[2] << "; the other leg is " << other_leg[0] << " -> " << other_leg[1] << " -> "
              << other_leg[2]);
  REQUIRE(std::find(other_leg.begin(), other_leg.end(), victim) == other_leg.end());
  const auto pid = net.process(victim)["pid"].get<pid_t>();
  REQUIRE(pid > 1);
  REQUIRE(::kill(pid, SIGKILL) == 0);

  const auto got = download.get();
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file_sha("50MiB.bin"));
  // The surviving leg was relinked at once (both ends resend on it what the
  // dead leg lost), and the set linked a replacement leg that avoids the
  // dead relay.
  REQUIRE(wait_for_log(proxy.log(), "Conflux set " + set + " lost leg", 10s));
  CHECK(wait_for_log(proxy.log(), "Conflux set " + set + " leg " + legs[1] + " relinked", 10s));
  SetLog after = read_set_log(proxy);
  for (int i = 0; i < 300 && after.linked[set].size() < 3; ++i) {
    std::this_thread::sleep_for(100ms);
    after = read_set_log(proxy);
  }
  const auto& legs_after = after.linked.at(set);
  REQUIRE(legs_after.size() >= 3);
  const auto replacement = leg_path(after, set, legs_after.back());
  REQUIRE(replacement.size() == 3);
  CHECK(std::find(replacement.begin(), replacement.end(), victim) == replacement.end());
  CHECK(replacement.back() == other_leg.back());
}
