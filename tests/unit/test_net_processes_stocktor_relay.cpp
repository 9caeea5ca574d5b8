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
// Then, as a directory cache (tor's default for relays): it fetches the
// network's microdesc consensus, certificates and microdescriptors from the
// stock authorities and serves them over BEGIN_DIR (it has no DirPort),
// says tunnelled-dir-server, and every authority votes it V2Dir; a stock
// client pinned to it with EntryNodes (stock clients sample guards only
// among V2Dir relays) builds its circuits through it as the guard and
// fetches directory documents from it.
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

  // `role`: the torrc lines that make it an exit (the default) or a bridge.
  void start(const std::string& dir_authority_lines, const std::string& nickname = "ours1",
             const std::string& role = "ExitRelay 1\nExitPolicy accept *:*\nExitPolicyRejectPrivate 0\n") {
    const auto torrc = dir.path() / "torrc";
    procs::write_text(torrc, "Nickname " + nickname + "\nDataDirectory " + (dir.path() / "data").string() +
                                 "\nORPort 127.0.0.1:" + std::to_string(or_port) + "\nAddress 127.0.0.1\n" + role +
                                 dir_authority_lines);
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

// The "directory requests N answered, ... BEGIN_DIR M" counters the relay
// logs on SIGUSR1 (the last such line), as {N, M}.
// The line `pattern` matches in the heartbeat our relay logs on SIGUSR1: the
// newest one, and only once it is newer than every line before the signal
// (an earlier case's heartbeat, or a periodic one, is already in the log).
std::string fresh_heartbeat(OurRelay& relay, const std::regex& pattern) {
  auto matches = [&](std::string* newest) {
    const std::string log = procs::read_text(relay.log());
    std::size_t n = 0;
    for (std::sregex_iterator it(log.begin(), log.end(), pattern), end; it != end; ++it, ++n)
      if (newest != nullptr) *newest = (*it)[0].str();
    return n;
  };
  const std::size_t before = matches(nullptr);
  relay.process->signal(SIGUSR1);
  std::string newest;
  if (!wait_for([&] { return matches(&newest) > before; }, 10s)) return {};
  return newest;
}

std::pair<unsigned long, unsigned long> served_counts(OurRelay& relay) {
  const std::regex served(R"(directory requests (\d+) answered, \d+ not found, \d+ refused; BEGIN_DIR (\d+))");
  const std::string last = fresh_heartbeat(relay, served);
  std::smatch m;
  if (!std::regex_search(last, m, served)) return {0, 0};
  return {std::stoul(m[1].str()), std::stoul(m[2].str())};
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
  // As the middle, the exit must be a stock one (ours is Exit-flagged too):
  // one with no OR connection to ours yet, when there is one, so that ours
  // must open a channel to it itself (outbound, AUTH0003; checked below).
  // An EXTEND reuses a channel either side opened first, as tor's does.
  std::string stock_exits, unlinked_exit;
  for (const auto& r : net.relays()) {
    if (r.role != "exit") continue;
    const std::string hex = bytes::to_hex(r.rsa_id, true);
    stock_exits += (stock_exits.empty() ? "$" : ",$") + hex;
    TorControl exit_ctl(r.control_port, r.cookie_path);
    const std::string conns = exit_ctl.reply("GETINFO orconn-status");
    INFO(r.nick << ": " << conns);
    if (unlinked_exit.empty() && conns.find(fp) == std::string::npos &&
        conns.find(":" + std::to_string(ours.or_port) + " ") == std::string::npos)
      unlinked_exit = "$" + hex;
  }
  const std::string middle_exits = unlinked_exit.empty() ? stock_exits : unlinked_exit;
  for (const Case& c : {Case{"ExitNodes=$" + fp, "ours-exit", "5MiB", 3},
                        Case{"ExitNodes=" + middle_exits + " MiddleNodes=$" + fp, "ours-middle", "1MiB", 2}}) {
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

  // Ours opened a link to a stock relay itself: an outbound channel,
  // authenticated with AUTH0003 (a stock responder closes a link whose
  // AUTHENTICATE fails). Counted since start, not open now. When every stock
  // exit had a connection to ours already (their own circuits through ours),
  // no outbound channel was needed and this run cannot show one. Its
  // counters, logged on SIGUSR1.
  const std::regex channels(R"(Heartbeat: .*channels (\d+) in / (\d+) out \((\d+) out opened since start\))");
  const std::string last = fresh_heartbeat(ours, channels);
  INFO(last);
  std::smatch m;
  REQUIRE(std::regex_search(last, m, channels));
  if (unlinked_exit.empty()) {
    WARN("every stock exit had a connection to ours: no outbound channel was needed (" << m[1].str() << " in)");
  } else {
    CHECK(std::stoul(m[3].str()) >= 1);
  }
}

TEST_CASE("our relay as a directory cache: V2Dir, a stock client's guard, its directory fetched through it",
          "[stocktor][relay][dircache]") {
  auto& ours = our_relay();
  auto& net = network();
  const auto& fp = ours.fingerprint;
  if (!ours.process) ours.start(net.dir_authority_lines());  // this case run alone
  INFO("relay log:\n" << procs::read_text(ours.log()));
  REQUIRE(wait_for([&] {
    return procs::read_text(ours.log()).find("Directory cache: serving the microdesc consensus") != std::string::npos;
  }, 120s));
  // The ns flavour too, from the stock authorities, for the same period,
  // with the server descriptor of every relay it lists.
  std::string ns_count, listed;
  REQUIRE(wait_for([&] {
    const std::string log = procs::read_text(ours.log());
    const std::regex md_line(R"(serving the microdesc consensus valid after (\d+) with (\d+) microdescriptors)");
    const std::regex ns_line(R"(serving the ns consensus valid after (\d+) with the server descriptors of (\d+) of its (\d+) relays)");
    std::string md_va, ns_va;
    for (std::sregex_iterator it(log.begin(), log.end(), md_line), end; it != end; ++it)
      md_va = (*it)[1];
    for (std::sregex_iterator it(log.begin(), log.end(), ns_line), end; it != end; ++it)
      ns_va = (*it)[1], ns_count = (*it)[2], listed = (*it)[3];
    return !ns_va.empty() && ns_va == md_va;
  }, 120s));
  CHECK(ns_count == listed);
  CHECK(listed != "0");

  for (const std::string nick : {"auth0", "auth1", "auth2"}) {
    TorControl auth(net.relay(nick).control_port, net.relay(nick).cookie_path);
    std::string entry;
    const bool v2dir = wait_for([&] {
      entry = status_of(auth, fp);
      return entry.find(" V2Dir") != std::string::npos;
    }, 120s);
    INFO(nick << ": " << entry);
    CHECK(v2dir);
  }

  const auto& client = net.client("clientcfx0");
  TorControl ctl(client.control_port, client.cookie_path);
  TorControl events(client.control_port, client.cookie_path);
  events.listen("INFO");
  REQUIRE(wait_for([&] {
    const auto e = status_of(ctl, fp);
    return e.find(" Guard") != std::string::npos && e.find(" V2Dir") != std::string::npos;
  }, 120s));
  // Its microdescriptor too: without it tor cannot build through the relay,
  // and with StrictNodes a stream would fail at once (seen once under load).
  REQUIRE(wait_for([&] { return ctl.reply("GETINFO md/id/" + fp).rfind("250+", 0) == 0; }, 120s));
  // Ours as the only guard (for circuits and directory fetches alike).
  REQUIRE(ctl.command("SETCONF EntryNodes=$" + fp + " StrictNodes=1") == "250 OK");
  const auto url = "http://127.0.0.1:" + std::to_string(net.http_port());
  const auto got = curl_fetch("--proxy-user ours-guard:x --socks5-hostname", client.socks, url + "/1MiB", 180);
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file("1MiB").sha256_hex);
  const std::string path = path_of(ctl, "ours-guard");
  INFO(path);
  CHECK(path.find(" BUILT $" + fp + "~ours1,") != std::string::npos);

  // A directory document from our relay, as the client logs it: its next
  // consensus (a new one every 20 s here) comes from its directory guard.
  const std::string from_ours = "from server 127.0.0.1:" + std::to_string(ours.or_port);
  std::vector<std::string> fetched;
  const bool through_ours = wait_for([&] {
    fetched = events.matches("(Received (consensus directory|authority certificates|answer to microdescriptor "
                             "request)[^\\r\\n]*" + from_ours + ")");
    return !fetched.empty();
  }, 120s);
  if (!through_ours) {
    for (const auto& e : events.matches("(Received [^\\r\\n]*from server[^\\r\\n]*)")) UNSCOPED_INFO(e);
  }
  REQUIRE(through_ours);
  WARN("the stock client on a directory document from our relay: " << fetched.front());
  // Our side of it: BEGIN_DIR streams answered (its counters, on SIGUSR1).
  const auto [answered, begin_dirs] = served_counts(ours);
  CHECK(answered >= 1);
  CHECK(begin_dirs >= 1);
  std::string stock_guards;  // tornet's own EntryNodes back
  for (const auto& r : net.relays())
    if (r.role == "guard") stock_guards += (stock_guards.empty() ? "" : ",") + bytes::to_hex(r.rsa_id, true);
  CHECK(ctl.command("SETCONF EntryNodes=" + stock_guards + " StrictNodes=0") == "250 OK");
}

TEST_CASE("a stock tor client through our obfs4 bridge: its descriptor and directory from the bridge, 1 MiB intact",
          "[stocktor][relay][bridge][obfs4]") {
  auto& net = network();
  OurRelay bridge;
  boost::asio::io_context io;
  const auto ports = procs::free_ports(io, 2);  // obfs4, the client's SocksPort
  bridge.start(net.dir_authority_lines(), "oursobfs4",
               "BridgeRelay 1\nExitRelay 0\nExitPolicy reject *:*\nServerTransportPlugin obfs4 exec "
               "/usr/bin/obfs4proxy\nServerTransportListenAddr obfs4 127.0.0.1:" + std::to_string(ports[0]) + "\n");
  INFO("bridge log:\n" << procs::read_text(bridge.log()));
  // The line for tor clients, with our RSA fingerprint, as the bridge wrote it.
  const std::regex tor_line("Bridge obfs4 127\\.0\\.0\\.1:" + std::to_string(ports[0]) + " " + bridge.fingerprint +
                            " cert=[^ \\n]+ iat-mode=0");
  std::string line;
  REQUIRE(wait_for([&] {
    const std::string lines = procs::read_text(bridge.dir.path() / "data" / "bridgelines");
    std::smatch m;
    if (std::regex_search(lines, m, tor_line)) line = m[0].str();
    return !line.empty();
  }, 60s));
  REQUIRE(wait_for([&] {
    return procs::read_text(bridge.log()).find("Directory cache: serving the microdesc consensus") != std::string::npos;
  }, 120s));

  // A stock client that knows the authorities but may only use the bridge.
  const auto cdir = bridge.dir.path() / "client";
  std::filesystem::create_directories(cdir);
  const auto notice = cdir / "notice.log", info = cdir / "info.log";
  procs::write_text(cdir / "torrc", "TestingTorNetwork 1\nDataDirectory " + (cdir / "data").string() +
                                        "\nRunAsDaemon 0\nSandbox 0\nShutdownWaitLength 0\nSafeLogging 0\n"
                                        "Log notice file " + notice.string() + "\nLog info file " + info.string() +
                                        "\nSocksPort 127.0.0.1:" + std::to_string(ports[1]) +
                                        "\nConfluxEnabled 0\nUseBridges 1\n"
                                        "ClientTransportPlugin obfs4 exec /usr/bin/obfs4proxy\n" + line + "\n" +
                                        net.dir_authority_lines());
  procs::Child client("stockclient", "/usr/sbin/tor", std::vector<std::string>{"-f", (cdir / "torrc").string()},
                      cdir / "output.log", SIGTERM);
  client.start();
  INFO("stock client log:\n" << procs::read_text(notice));
  REQUIRE(proxynet::wait_for_log(notice, "Bootstrapped 100%", 180s));
  const auto url = "http://127.0.0.1:" + std::to_string(net.http_port());
  const auto got = curl_fetch("--socks5-hostname", "127.0.0.1:" + std::to_string(ports[1]), url + "/1MiB", 180);
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file("1MiB").sha256_hex);

  // The client had the bridge's descriptor, and the consensus, from the bridge.
  const std::string log = procs::read_text(info);
  CHECK(log.find("new bridge descriptor 'oursobfs4'") != std::string::npos);
  std::smatch m;
  const bool consensus = std::regex_search(log, m, std::regex("Received consensus directory \\(body size \\d+\\) from server "
                                                              "127\\.0\\.0\\.1:" + std::to_string(ports[0])));
  CHECK(consensus);
  const auto [answered, begin_dirs] = served_counts(bridge);
  CHECK(answered >= 3);  // its descriptor, the consensus, certificates, microdescriptors
  CHECK(begin_dirs >= 3);
}
