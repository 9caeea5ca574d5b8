// A relay of ours joins a stock tor 0.4.9 network (issue 16):
//  - conflux-relay, given the network's authorities as tor's DirAuthority
//    lines, uploads tor's server descriptor (POST /tor/) to each; every
//    stock authority answers 200 and logs "Descriptor accepted";
//  - each authority tests its reachability: a stock relay opening a link to
//    ours, our CERTS and AUTH0003 checked as tor checks them; it then lists
//    our relay Running and Valid (Exit and Guard as voted with tornet's
//    --vote-exit/--vote-guard) in its consensus;
//  - a stock tor client builds circuits through it and downloads intact:
//    our relay as the exit (ExitNodes), and as the middle (MiddleNodes), our
//    relay then extending to a stock exit over a link it opened (an outbound
//    channel in its counters: its AUTH0003 as the initiator, checked by tor).
// The relay has no DirPort and says no tunnelled-dir-server: it serves no
// directory documents but its own, so a stock client must not take it as
// a directory guard. (Stock clients sample guards only among V2Dir relays,
// so it is not used as a guard yet: docs/DIRECTORY.md.)
#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <functional>
#include <sstream>
#include <regex>
#include <string>
#include <thread>

#include "conflux/bytes/hex.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "proxy_network_support.hpp"
#include "stock_tor_network.hpp"
#include "tor_control.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name conflux-relay (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test;
using namespace std::chrono_literals;
using stocktor::StockTorNetwork;
using stocktor::TorControl;
using proxynet::curl_fetch;

namespace {

// Our relay: keys made before the network starts, so that tornet's
// authorities can be told to vote it Exit and Guard.
struct OurRelay {
  procs::TempDir dir;
  std::string fingerprint;  // RSA, 40 upper-case hex digits
  std::uint16_t or_port = 0;
  std::unique_ptr<procs::Child> process;

  OurRelay() {
    const auto data = dir.path() / "data";
    std::filesystem::create_directories(data);
    std::filesystem::permissions(data, std::filesystem::perms::owner_all);
    auto keys = keys::load_or_create_relay_keys(data, static_cast<std::uint64_t>(std::time(nullptr)));
    REQUIRE(keys);
    fingerprint = bytes::to_hex(keys->rsa_fingerprint(), true);
    boost::asio::io_context io;
    or_port = procs::free_ports(io, 1).at(0);
  }

  void start(const std::string& dir_authority_lines) {
    const auto torrc = dir.path() / "torrc";
    procs::write_text(torrc, "Nickname ours1\nDataDirectory " + (dir.path() / "data").string() +
                                 "\nORPort 127.0.0.1:" + std::to_string(or_port) +
                                 "\nAddress 127.0.0.1\nExitRelay 1\nExitPolicy accept *:*\n"
                                 "ExitPolicyRejectPrivate 0\n" + dir_authority_lines);
    process = std::make_unique<procs::Child>("conflux-relay", CONFLUX_RELAY_BINARY,
                                             std::vector<std::string>{"-f", torrc.string()}, log(), SIGTERM);
    process->start();
  }
  [[nodiscard]] std::filesystem::path log() const { return dir.path() / "relay.log"; }
};

OurRelay& our_relay() {
  static OurRelay r;
  return r;
}

StockTorNetwork& network() {
  const auto& fp = our_relay().fingerprint;
  return StockTorNetwork::shared({"--vote-exit", fp, "--vote-guard", fp});
}

// The relay's status entry in what `control` has ("" while it has none).
std::string status_of(TorControl& control, const std::string& fp) {
  const std::string r = control.reply("GETINFO ns/id/" + fp);
  return r.rfind("250+", 0) == 0 ? r : std::string();
}

bool wait_for(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1s);
  }
  return true;
}

// The hops of the client's BUILT circuit for SOCKS username `user`.
std::string path_of(TorControl& client, const std::string& user) {
  std::istringstream in(client.reply("GETINFO circuit-status"));
  std::string line;
  while (std::getline(in, line))
    if (line.find(" BUILT ") != std::string::npos && line.find("SOCKS_USERNAME=\"" + user + "\"") != std::string::npos)
      return line;
  return "";
}

}  // namespace

TEST_CASE("our relay joins a stock tor network: its descriptor accepted, Running and Valid, used as exit and middle",
          "[stocktor][relay]") {
  auto& ours = our_relay();
  auto& net = network();
  const auto& fp = ours.fingerprint;
  const auto& auth0 = net.relay("auth0");
  TorControl auth_log(auth0.control_port, auth0.cookie_path);
  auth_log.listen("INFO NOTICE WARN");
  ours.start(net.dir_authority_lines());

  // Three uploads answered 200, each authority's verdict in its log.
  INFO("relay log:\n" << procs::read_text(ours.log()));
  REQUIRE(wait_for([&] {
    const std::string log = procs::read_text(ours.log());
    std::size_t n = 0;
    for (auto at = log.find(": 200 "); at != std::string::npos; at = log.find(": 200 ", at + 1)) ++n;
    return n >= 3;
  }, 60s));
  CHECK(procs::read_text(ours.log()).find("[warn]") == std::string::npos);
  REQUIRE(wait_for([&] { return !auth_log.matches("Found router \\$" + fp + "~ours1 .* to be reachable").empty(); }, 60s));
  const auto added = auth_log.matches("(Added descriptor from 'ours1'[^\"]*)");
  REQUIRE_FALSE(added.empty());
  WARN("auth0 on our descriptor: " << added.front());

  // Every authority lists it in its consensus, Running and Valid, Exit and Guard as voted.
  for (const std::string nick : {"auth0", "auth1", "auth2"}) {
    TorControl auth(net.relay(nick).control_port, net.relay(nick).cookie_path);
    std::string entry;
    REQUIRE(wait_for([&] {
      entry = status_of(auth, fp);
      return entry.find("Running") != std::string::npos;
    }, 120s));
    INFO(nick << ": " << entry);
    for (const char* flag : {" Exit", " Guard", " Running", " Valid"}) CHECK(entry.find(flag) != std::string::npos);
    CHECK(entry.find(" 127.0.0.1 " + std::to_string(ours.or_port) + " 0\n") != std::string::npos);
  }

  // A stock client through it: as the exit, then as the middle.
  const auto& client = net.client("clientcfx0");
  TorControl ctl(client.control_port, client.cookie_path);
  REQUIRE(wait_for([&] { return status_of(ctl, fp).find("Running") != std::string::npos; }, 120s));
  const auto url = "http://127.0.0.1:" + std::to_string(net.http_port());
  struct Case {
    std::string conf, user, file;
    int hop;  // where ours must be: 2 middle, 3 exit
  };
  // As the middle, the exit must be a stock one (ours is Exit-flagged too).
  std::string stock_exits;
  for (const auto& r : net.relays())
    if (r.role == "exit") stock_exits += (stock_exits.empty() ? "$" : ",$") + bytes::to_hex(r.rsa_id, true);
  for (const Case& c : {Case{"ExitNodes=$" + fp, "ours-exit", "5MiB", 3},
                        Case{"ExitNodes=" + stock_exits + " MiddleNodes=$" + fp, "ours-middle", "1MiB", 2}}) {
    REQUIRE(ctl.command("SETCONF " + c.conf + " StrictNodes=1") == "250 OK");
    const auto got = curl_fetch("--proxy-user " + c.user + ":x --socks5-hostname", client.socks, url + "/" + c.file, 180);
    CHECK(got.curl_status == 0);
    CHECK(got.sha256 == net.file(c.file).sha256_hex);
    const std::string path = path_of(ctl, c.user);
    INFO(path);
    const std::regex hops(" BUILT (\\$[0-9A-F]{40}~\\w+),(\\$[0-9A-F]{40}~\\w+),(\\$[0-9A-F]{40}~\\w+) ");
    std::smatch m;
    REQUIRE(std::regex_search(path, m, hops));
    CHECK(m[static_cast<std::size_t>(c.hop)].str() == "$" + fp + "~ours1");
  }
  CHECK(ctl.command("SETCONF ExitNodes= MiddleNodes= StrictNodes=0") == "250 OK");

  // Ours, the middle, opened a link to the stock exit itself: an outbound
  // channel, authenticated with AUTH0003 (a stock responder closes a link
  // whose AUTHENTICATE fails). Its counters, logged on SIGUSR1.
  ours.process->signal(SIGUSR1);
  const std::regex channels(R"(Heartbeat: .*channels (\d+) in / (\d+) out)");
  std::string last, outbound;
  REQUIRE(wait_for([&] {
    const std::string log = procs::read_text(ours.log());
    for (std::sregex_iterator it(log.begin(), log.end(), channels), end; it != end; ++it) {
      last = (*it)[0].str();
      outbound = (*it)[2].str();
    }
    return !outbound.empty();
  }, 10s));
  INFO(last);
  CHECK(std::stoul(outbound) >= 1);
}
