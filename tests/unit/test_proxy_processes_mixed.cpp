// conflux-net networks that mix implementations (issue 16): relays run by
// Debian's stock tor (spec "implementation": "tor") join our authority,
// which lists them, and conflux-proxy's circuits go through them, on single
// circuits and in Conflux sets, with every file intact.
//
// The topology leaves the proxy no other path. Our authority is the only
// Guard (a new stock relay has measured no bandwidth, so it is below the
// Guard threshold); the exits are the spec's; and every other relay, which
// is where a middle comes from, is stock. Two stock middles, because the
// legs of a Conflux set share no middle.
//  - "through stock tor": our guard -> stock middle -> stock exit (our
//    relay extends to stock, stock extends to stock; Conflux links at a
//    stock exit);
//  - "between ours": our guard -> stock middle -> our exit (a stock relay
//    extends to ours).
// Each circuit's path is read from the proxy's info log, and the stock
// relays' own byte counters (ControlPort, GETINFO traffic/written) show they
// carried the files. The stock relays, as directory caches, hold our
// authority's ns consensus and the server descriptors it names.
#include <signal.h>

#include <catch2/catch.hpp>

#include "conflux/bytes/base64.hpp"
#include "proxy_network_support.hpp"
#include "tor_control.hpp"

using namespace conflux::test::proxynet;

namespace {

constexpr const char* kStockTor = "/usr/sbin/tor";
constexpr const char* kFile = "5MiB.bin";

std::string spec_with(const std::string& implementation) {
  return R"({"authorities": 1, "relays": 3, "exits": 1, "bridges": [], "proxies": [],
    "files": [{"name": "5MiB.bin", "size": "5 MB"}], "implementation": )" +
         implementation + "}";
}

std::string tor_dir_authorities(const Network& net) {
  std::string out;
  for (const auto& l : net.json()["tor_dir_authorities"]) out += l.get<std::string>() + "\n";
  return out;
}

conflux::test::stocktor::TorControl control_of(const Network& net, const std::string& name) {
  const auto& p = net.process(name);
  REQUIRE(p["implementation"] == "tor");
  return {p["ports"]["control"].get<std::uint16_t>(), p["data_dir"].get<std::string>() + "/control_auth_cookie"};
}

// What a stock relay lacks of the ns flavour: its consensus (GETINFO
// dir/status-vote/current/consensus), a relay that consensus does not list,
// or a relay whose server descriptor it has not fetched (GETINFO desc/id/).
// Empty when it has all.
std::string ns_missing_at(const Network& net, const std::string& name, const std::vector<std::string>& fps) {
  auto control = control_of(net, name);
  const auto consensus = control.reply("GETINFO dir/status-vote/current/consensus");
  if (consensus.find("\nnetwork-status-version 3\n") == std::string::npos) return "no ns consensus: " + consensus;
  for (const auto& fp : fps) {
    auto id = conflux::bytes::from_hex(fp);
    REQUIRE(id);
    const std::string r_prefix = " " + conflux::bytes::base64_encode(*id) + " ";
    if (consensus.find(r_prefix) == std::string::npos) return "its ns consensus does not list " + fp;
    if (control.reply("GETINFO desc/id/" + fp).rfind("250+", 0) != 0) return "no server descriptor of " + fp;
  }
  return "";
}

// Bytes a stock relay has written since it started.
std::uint64_t written_by(const Network& net, const std::string& name) {
  auto control = control_of(net, name);
  const auto reply = control.command("GETINFO traffic/written");
  std::smatch m;
  INFO(reply);
  REQUIRE(std::regex_search(reply, m, std::regex("traffic/written=(\\d+)")));
  return std::stoull(m[1]);
}

// The path of every circuit the proxy launched, from its info log.
std::vector<std::vector<std::string>> launched_paths(const path& file) {
  const auto log = conflux::test::procs::read_text(file);
  std::vector<std::vector<std::string>> out;
  const std::regex launched("[Cc]ircuit \\d+ launched: ([^\\n]+)");  // "Circuit 1", "Conflux leg circuit 1"
  for (std::sregex_iterator it(log.begin(), log.end(), launched), end; it != end; ++it)
    out.push_back(split_path((*it)[1]));
  return out;
}

// The file through `proxy`, intact, on the network's first request: `up`
// waited until every stock relay's own consensus lists every relay (a stock
// exit ends a stream from a relay it does not know with MISC:
// docs/CONFLUX-NET.md).
void fetch_through(const Network& net, const TestProxy& proxy) {
  const auto f = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url(kFile), 120);
  CHECK(f.curl_status == 0);
  CHECK(f.size == 5u * 1024 * 1024);
  CHECK(f.sha256 == net.file_sha(kFile));
}

// Stops a proxy with SIGTERM, so that its log is written to the end.
void stop(TestProxy& proxy) {
  proxy.child().signal(SIGTERM);
  CHECK(proxy.child().wait_exit(10s).has_value());
}

// Every circuit a proxy launched went auth1 -> one of `middles` -> `exit`,
// from its info log (read once the proxy has stopped and written it all).
void check_paths(const path& log, const std::vector<std::string>& middles,
                 const std::string& exit) {
  const auto paths = launched_paths(log);
  REQUIRE_FALSE(paths.empty());
  for (const auto& path : paths) {
    INFO(path.front() << " -> ...");
    REQUIRE(path.size() == 3);
    CHECK(path[0] == "auth1");
    CHECK(std::find(middles.begin(), middles.end(), path[1]) != middles.end());
    CHECK(path[2] == exit);
  }
}

// A Conflux proxy's stream went over a set of at least two legs linked at
// the exit, none of them a fallback single circuit.
void check_conflux(const TestProxy& proxy, const std::string& exit_kind) {
  const auto page = scrape(proxy.metrics_url());
  INFO(page);
  CHECK(metric(page, "conflux_proxy_conflux_streams_fallback_total").value_or(-1) == 0);
  CHECK(metric(page, "conflux_proxy_conflux_legs_linked_total").value_or(0) >= 2);
  const std::regex legs("conflux_proxy_conflux_set_legs_linked\\{set=\"\\d+\",exit=\"" + exit_kind + "\"\\} (\\d+)");
  std::smatch m;
  REQUIRE(std::regex_search(page, m, legs));
  CHECK(std::stoi(m[1]) >= 2);
}

// The file through a single-circuit proxy, then through a Conflux proxy whose
// sets link at an exit of `exit_kind`; every circuit of both went auth1 ->
// relay1 or relay2 -> exit1.
void single_then_conflux(const Network& net, const std::string& authorities, const std::string& exit_kind) {
  path single_log, cfx_log;
  {
    TestProxy single(net.dir(), authorities, "single", "ConfluxEnabled 0\n");
    REQUIRE(single.bootstrapped());
    fetch_through(net, single);
    single_log = single.log();
    stop(single);
  }
  {
    TestProxy cfx(net.dir(), authorities, "cfx", "ConfluxEnabled 1\n");
    REQUIRE(cfx.bootstrapped());
    fetch_through(net, cfx);
    check_conflux(cfx, exit_kind);
    cfx_log = cfx.log();
    stop(cfx);
  }
  check_paths(single_log, {"relay1", "relay2"}, "exit1");
  check_paths(cfx_log, {"relay1", "relay2"}, "exit1");
}

}  // namespace

TEST_CASE("our proxy through stock tor middles and a stock tor exit", "[stocktor]") {
  if (!conflux::test::procs::fs::exists(kStockTor)) {
    WARN("no " << kStockTor << ": nothing to test against");
    return;
  }
  Network net(spec_with(R"({"relay1": "tor", "relay2": "tor", "exit1": "tor"})"));
  const auto authorities = tor_dir_authorities(net);
  REQUIRE_FALSE(authorities.empty());
  const auto before = written_by(net, "exit1");
  single_then_conflux(net, authorities, "tor");
  // Both files left the stock exit towards the proxies.
  CHECK(written_by(net, "exit1") - before >= 2u * 5 * 1024 * 1024);
  CHECK(written_by(net, "relay1") + written_by(net, "relay2") >= 2u * 5 * 1024 * 1024);
}

TEST_CASE("our proxy through a stock tor middle between our guard and our exit", "[stocktor]") {
  if (!conflux::test::procs::fs::exists(kStockTor)) {
    WARN("no " << kStockTor << ": nothing to test against");
    return;
  }
  Network net(spec_with(R"({"relay1": "tor", "relay2": "tor"})"));
  const auto authorities = tor_dir_authorities(net);
  single_then_conflux(net, authorities, "resumes");  // our exit offers resumption; a stock one does not
  CHECK(written_by(net, "relay1") + written_by(net, "relay2") >= 2u * 5 * 1024 * 1024);
}

TEST_CASE("stock tor relays in our network hold our ns consensus and the descriptors it names", "[stocktor]") {
  if (!conflux::test::procs::fs::exists(kStockTor)) {
    WARN("no " << kStockTor << ": nothing to test against");
    return;
  }
  Network net(spec_with(R"({"relay1": "tor", "exit1": "tor"})"));
  std::vector<std::string> fps;
  for (const auto& p : net.json()["processes"])
    if (p["role"] == "authority" || p["role"] == "relay" || p["role"] == "exit") fps.push_back(p["rsa_fingerprint"]);
  REQUIRE(fps.size() == 4);  // auth1, relay1, relay2, exit1
  for (const std::string name : {"relay1", "exit1"}) {
    // As directory caches they fetch the ns flavour, then the descriptors it
    // names (/tor/server/d/), from our authority: every relay, ours and stock.
    std::string missing;
    for (int i = 0; i < 120; ++i) {
      missing = ns_missing_at(net, name, fps);
      if (missing.empty()) break;
      std::this_thread::sleep_for(500ms);
    }
    INFO(name);
    CHECK(missing == "");
  }
}
