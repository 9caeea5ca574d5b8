// obfs4 bridges end to end (issue 19): conflux-net starts two conflux-relay
// bridges behind obfs4proxy (ServerTransportPlugin) and writes the proxy's
// Bridge obfs4 lines from what the bridges printed; a conflux-proxy with
// ClientTransportPlugin obfs4 reaches both through its own obfs4proxy.
// Needs Debian's obfs4proxy (scripts/install-deps.sh).
#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <list>
#include <mutex>
#include <set>
#include <thread>

#include "proxy_network_support.hpp"
#include "proxy_set_log.hpp"

using namespace conflux::test::proxynet;
namespace asio = conflux::net::asio;

namespace {

constexpr const char* kObfs4proxy = "/usr/bin/obfs4proxy";

const std::string kSpec = R"({
  "relays": 4, "exits": 2,
  "bridges": [{"name": "obfsA", "transport": "obfs4"}, {"name": "obfsB", "transport": "obfs4"}],
  "proxies": [{"name": "proxy", "start": false, "use_bridges": true, "conflux": true}]
})";

// The lines of the (bridge-using, not started) proxy's torrc conflux-net
// wrote that start with `prefix`.
std::vector<std::string> torrc_lines(const Network& net, const std::string& prefix) {
  std::istringstream in(conflux::test::procs::read_text(net.process("proxy")["torrc"].get<std::string>()));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

// The proxy's obfs4proxy child (its only child process), or -1.
pid_t transport_pid(pid_t proxy) {
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto stat = conflux::test::procs::read_text(e.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == proxy && stat.find("(obfs4proxy)") != std::string::npos) return std::stoi(name);
  }
  return -1;
}

// A TCP relay in front of a bridge's obfs4 listener that keeps the first
// bytes each way of every connection and counts the bytes it carried.
struct Tap {
  explicit Tap(asio::ip::tcp::endpoint target_) : acceptor(io, {asio::ip::make_address("127.0.0.1"), 0}), target(target_) {
    asio::co_spawn(io, serve(), asio::detached);
    thread = std::thread([this] { io.run(); });
  }
  ~Tap() {
    io.stop();
    thread.join();
  }
  conflux::net::awaitable<void> pipe(std::shared_ptr<asio::ip::tcp::socket> from,
                                     std::shared_ptr<asio::ip::tcp::socket> to, std::string* first) {
    std::array<char, 16384> b{};
    for (;;) {
      auto [rec, n] = co_await from->async_read_some(asio::buffer(b), conflux::net::use_nothrow);
      if (rec) break;
      {
        std::lock_guard lock(mutex);
        if (first->size() < 64) first->append(b.data(), std::min<std::size_t>(n, 64 - first->size()));
        carried += n;
      }
      auto [wec, w] = co_await asio::async_write(*to, asio::buffer(b.data(), n), conflux::net::use_nothrow);
      if (wec) break;
    }
    boost::system::error_code ignored;
    to->shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  }
  conflux::net::awaitable<void> serve() {
    for (;;) {
      auto [ec, s] = co_await acceptor.async_accept(conflux::net::use_nothrow);
      if (ec) co_return;
      auto client = std::make_shared<asio::ip::tcp::socket>(std::move(s));
      auto server = std::make_shared<asio::ip::tcp::socket>(io);
      auto [cec] = co_await server->async_connect(target, conflux::net::use_nothrow);
      if (cec) continue;
      std::string *up = nullptr, *down = nullptr;
      {
        std::lock_guard lock(mutex);
        firsts.emplace_back();
        up = &firsts.back().first;
        down = &firsts.back().second;
      }
      asio::co_spawn(io, pipe(client, server, up), asio::detached);
      asio::co_spawn(io, pipe(server, client, down), asio::detached);
    }
  }
  [[nodiscard]] std::uint16_t port() const { return acceptor.local_endpoint().port(); }

  asio::io_context io;
  asio::ip::tcp::acceptor acceptor;
  asio::ip::tcp::endpoint target;
  std::thread thread;
  std::mutex mutex;
  std::list<std::pair<std::string, std::string>> firsts;  // per connection: client's, bridge's first bytes
  std::size_t carried = 0;
};

bool tls_record_start(const std::string& bytes) {
  // A TLS record: content type 20-23, then version 3.x.
  return bytes.size() >= 3 && bytes[0] >= 0x14 && bytes[0] <= 0x17 && bytes[1] == 0x03;
}

}  // namespace

TEST_CASE("conflux-net obfs4 bridges: the bridge-using proxy's torrc has their obfs4 lines and the transport plugin") {
  REQUIRE(std::filesystem::exists(kObfs4proxy));
  Network net(kSpec);
  const auto bridges = torrc_lines(net, "Bridge ");
  REQUIRE(bridges.size() == 2);
  for (const auto& name : {std::string("obfsA"), std::string("obfsB")}) {
    const auto& p = net.process(name);
    const std::string expected = "Bridge obfs4 127.0.0.1:" + std::to_string(p["ports"]["pt"].get<int>()) + " " +
                                 p["rsa_fingerprint"].get<std::string>() + " cert=";
    INFO(name << ": " << bridges[0] << " | " << bridges[1]);
    CHECK(std::count_if(bridges.begin(), bridges.end(),
                        [&](const std::string& l) { return l.rfind(expected, 0) == 0 && l.ends_with(" iat-mode=0"); }) == 1);
    // The bridge wrote the same line to its DataDirectory, and only that one
    // (tor's form; the line with its Ed25519 identity retired, issue 15).
    const auto data = std::filesystem::path(p["torrc"].get<std::string>()).parent_path() / "data" / "bridgelines";
    const auto written = conflux::test::procs::read_text(data);
    CHECK(written.rfind(expected, 0) == 0);
    CHECK(std::count(written.begin(), written.end(), '\n') == 1);
  }
  CHECK(torrc_lines(net, "ClientTransportPlugin ") ==
        std::vector<std::string>{std::string("ClientTransportPlugin obfs4 exec ") + kObfs4proxy});
}

TEST_CASE("obfs4 bridges: 50 MiB through a Conflux set whose two legs start at the two obfs4 bridges") {
  Network net(kSpec);
  std::string extra = "UseBridges 1\nConfluxEnabled 1\n";
  for (const auto& l : torrc_lines(net, "Bridge ")) extra += l + "\n";
  for (const auto& l : torrc_lines(net, "ClientTransportPlugin ")) extra += l + "\n";
  TestProxy proxy(net, "obfs4-conflux", extra);
  REQUIRE(proxy.bootstrapped(90s));
  REQUIRE(wait_for_log(proxy.log(), "Conflux set \\d+ linked leg \\d+ \\(2 of 2 legs\\)", 60s));

  const auto got = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("50MiB.bin"), 300);
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file_sha("50MiB.bin"));

  const auto page = scrape(proxy.metrics_url());
  const auto sets = read_set_log(proxy);
  REQUIRE(!sets.last_stream_set.empty());
  const std::string set = sets.last_stream_set;
  INFO("the download used Conflux set " << set << "\n" << page);
  const auto received = per_leg(page, "conflux_proxy_conflux_leg_cells_received_total");
  std::size_t busy = 0;
  for (const auto& [labels, cells] : received)
    if (labels.find("set=\"" + set + "\"") != std::string::npos && cells > 100) ++busy;
  CHECK(busy == 2);
  const auto& legs = sets.linked.at(set);
  REQUIRE(legs.size() == 2);
  const auto a = leg_path(sets, set, legs[0]);
  const auto b = leg_path(sets, set, legs[1]);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  CHECK(std::set<std::string>{a[0], b[0]} == std::set<std::string>{"obfsA", "obfsB"});
  CHECK(a[2] == b[2]);
}

TEST_CASE("obfs4 bridge: on the wire to its obfs4 port there is no TLS record, and the download is intact") {
  Network net(kSpec);
  const auto& bridge = net.process("obfsA");
  Tap tap({asio::ip::make_address("127.0.0.1"), static_cast<std::uint16_t>(bridge["ports"]["pt"].get<int>())});
  // Bridge obfsA's own line, pointed at the tap instead of its port.
  std::string line;
  for (const auto& l : torrc_lines(net, "Bridge "))
    if (l.find(" " + bridge["rsa_fingerprint"].get<std::string>() + " ") != std::string::npos) line = l;
  REQUIRE(!line.empty());
  const std::string at = "127.0.0.1:" + std::to_string(bridge["ports"]["pt"].get<int>());
  line.replace(line.find(at), at.size(), "127.0.0.1:" + std::to_string(tap.port()));
  TestProxy proxy(net, "obfs4-wire",
                  "UseBridges 1\nConfluxEnabled 0\n" + line + "\nClientTransportPlugin obfs4 exec " + kObfs4proxy + "\n");
  REQUIRE(proxy.bootstrapped(90s));
  const auto got = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("1MiB.bin"), 120);
  CHECK(got.curl_status == 0);
  CHECK(got.sha256 == net.file_sha("1MiB.bin"));

  std::lock_guard lock(tap.mutex);
  REQUIRE(!tap.firsts.empty());
  CHECK(tap.carried > (1u << 20));  // the download went through the tap
  for (const auto& [up, down] : tap.firsts) {
    REQUIRE(up.size() >= 3);
    CHECK_FALSE(tls_record_start(up));
    if (!down.empty()) CHECK_FALSE(tls_record_start(down));
  }
}

TEST_CASE("obfs4: the proxy's transport killed is launched again, and downloads work again") {
  Network net(kSpec);
  std::string extra = "UseBridges 1\nConfluxEnabled 1\n";
  for (const auto& l : torrc_lines(net, "Bridge ")) extra += l + "\n";
  for (const auto& l : torrc_lines(net, "ClientTransportPlugin ")) extra += l + "\n";
  TestProxy proxy(net, "obfs4-kill", extra);
  REQUIRE(proxy.bootstrapped(90s));
  const auto first = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("1MiB.bin"), 120);
  REQUIRE(first.sha256 == net.file_sha("1MiB.bin"));

  const pid_t before = transport_pid(proxy.child().pid());
  REQUIRE(before > 1);
  REQUIRE(::kill(before, SIGKILL) == 0);
  REQUIRE(wait_for_log(proxy.log(), "Managed proxy \"" + std::string(kObfs4proxy) + "\" killed by signal 9", 10s));
  pid_t after = -1;
  for (int i = 0; i < 100 && (after <= 1 || after == before); ++i) {
    std::this_thread::sleep_for(100ms);
    after = transport_pid(proxy.child().pid());
  }
  CHECK(after > 1);
  CHECK(after != before);

  // The links through the dead transport closed; new ones go through the new
  // one (a retry or two while circuits are rebuilt is allowed).
  Fetch again;
  for (int attempt = 0; attempt < 6 && again.sha256 != net.file_sha("5MiB.bin"); ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(5s);
    again = curl_fetch("--socks5-hostname", proxy.socks(), net.file_url("5MiB.bin"), 120);
  }
  CHECK(again.curl_status == 0);
  CHECK(again.sha256 == net.file_sha("5MiB.bin"));
}
