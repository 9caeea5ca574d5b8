// Our client circuit (proto::ClientCircuit, driven by net::ClientCircuit over
// a ClientLink) against stock tor 0.4.9 relays that none of us wrote: the
// link handshake with a tor relay, CREATE2 with ntor-v3, EXTEND2 (with the
// RSA identity tor requires), relay crypto and SENDMEs both ways over a
// three-hop circuit to a stock exit, and DESTROY / TRUNCATED in both
// directions. And conflux-proxy as a tor user runs it: bootstrapped from the
// stock authorities (tor's DirAuthority lines, its microdesc consensus and
// microdescriptors), carrying downloads through stock relays, also over a
// Conflux set linked at a stock exit. One stock network for the whole binary
// (stock_tor_network.hpp); the last case stops one of its relays.
#include <future>

#include "conflux/crypto/digest.hpp"
#include "proxy_network_support.hpp"
#include "proxy_set_log.hpp"
#include "stock_tor_network.hpp"
#include "test_net_processes_client.hpp"
#include "tor_control.hpp"

using namespace conflux;
using namespace conflux::test::procs;
using conflux::test::stocktor::StockTorNetwork;
using conflux::test::stocktor::TorControl;

namespace {

constexpr StreamId kStream{1};

// A client with an open link to `first`.
std::unique_ptr<Client> connect_client(asio::io_context& io, const net::Clock& clock, const StockTorNetwork& net,
                                       const std::string& first) {
  auto client = std::make_unique<Client>(io, clock);
  client->connect(net.or_endpoint(first), net.relay(first).ed_id);
  REQUIRE(run_until(io, [&] { return client->opened() || client->closed(); }, 20s));
  INFO("link to stock " << first << ": " << client->closed().value_or("open"));
  REQUIRE(client->opened());
  return client;
}

// Congestion control as a tor client runs it: tor's parameters, our clock.
proto::ClientCircuitConfig cc_config(const net::Clock& clock) {
  proto::ClientCircuitConfig c;
  c.now = [&clock] { return clock.now(); };
  return c;
}

// Reads `expect` bytes from the one connection it accepts, answers with
// their SHA-256 in hex and closes: where an upload through the exit lands.
class UploadSink {
 public:
  UploadSink(asio::io_context& io, std::size_t expect) : acceptor_(io, net::tcp::endpoint(kLoopback, 0)) {
    asio::co_spawn(io, serve(expect), asio::detached);
  }
  [[nodiscard]] std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  [[nodiscard]] std::size_t received() const noexcept { return received_; }

 private:
  net::awaitable<void> serve(std::size_t expect) {
    auto [ec, s] = co_await acceptor_.async_accept(net::use_nothrow);
    if (ec) co_return;
    crypto::Sha256 h;
    std::array<std::uint8_t, 16384> buf{};
    while (received_ < expect) {
      auto [rec, n] = co_await s.async_read_some(asio::buffer(buf), net::use_nothrow);
      if (rec) co_return;
      h.update(bytes::ByteSpan(buf.data(), n));
      received_ += n;
    }
    const std::string hex = bytes::to_hex(h.peek());
    (void)co_await asio::async_write(s, asio::buffer(hex), net::use_nothrow);
    boost::system::error_code ignored;
    s.shutdown(net::tcp::socket::shutdown_send, ignored);
  }

  net::tcp::acceptor acceptor_;
  std::size_t received_ = 0;
};

std::string body_sha256(const HttpFetch& fetch) {
  auto body = fetch.body();
  REQUIRE(body.has_value());
  return bytes::to_hex(crypto::sha256(*body));
}

// Fetches `file` from the network's file server over a new stream on
// `circ` and checks it arrived whole with its SHA-256.
void fetch_intact(asio::io_context& io, const StockTorNetwork& net, net::ClientCircuit& circ,
                  const test::stocktor::StockFile& file, HttpFetch& fetch) {
  REQUIRE(fetch.begin(net.http_port()));
  REQUIRE(run_until(
      io,
      [&] {
        fetch.pump();
        return fetch.finished();
      },
      120s));
  INFO("status " << fetch.status_line() << ", error " << fetch.error().value_or("none") << ", circuit "
                 << circ.error().value_or("ok") << ", END reason "
                 << (fetch.end() ? std::to_string(static_cast<int>(*fetch.end())) : std::string("none")));
  REQUIRE(fetch.complete());
  CHECK(fetch.status_line() == "HTTP/1.0 200 OK");
  CHECK(body_sha256(fetch) == file.sha256_hex);
}

// Until `at`'s own consensus lists `who` (GETINFO ns/id/FP: 552 before).
void wait_until_known(const StockTorNetwork& net, const std::string& at, const std::string& who) {
  const auto& r = net.relay(at);
  conflux::test::stocktor::TorControl control(r.control_port, r.cookie_path);
  const std::string ask = "GETINFO ns/id/" + bytes::to_hex(net.relay(who).rsa_id, true);
  std::string reply;
  for (int i = 0; i < 120; ++i) {
    reply = control.command(ask);
    if (reply.rfind("250", 0) == 0) return;
    std::this_thread::sleep_for(500ms);
  }
  FAIL(at << " does not list " << who << " after 60 s: " << reply);
}

}  // namespace

TEST_CASE("a three-hop circuit through stock tor relays carries a download intact", "[stocktor]") {
  auto& net = StockTorNetwork::shared();
  asio::io_context io;
  net::SystemClock clock;
  auto client = connect_client(io, clock, net, "guard0");

  auto& circ = build_circuit(io, *client, {net.hop("guard0"), net.hop("middle0"), net.hop("exit0")});
  // A stock exit ends every stream from a previous hop it knows neither from
  // its consensus nor by descriptor with reason MISC (tor's
  // RefuseUnknownExits: connection_exit_begin_conn, "open a stream from
  // unknown relay"), and a freshly started one may not have fetched a
  // consensus listing middle0 yet. So the stream waits until it has; then
  // it must not be ended.
  wait_until_known(net, "exit0", "middle0");
  const auto& file = net.file("1MiB");
  HttpFetch fetch(circ, kStream, file.path);
  fetch_intact(io, net, circ, file, fetch);
  // 1 MiB is about 2100 DATA cells: past the exit's 1000-cell circuit window
  // and its 500-cell stream window, so both kinds of SENDME were accepted.
  CHECK(fetch.sendmes_sent() >= 40);
  CHECK_FALSE(circ.destroyed());

  // We tear it down; the link stays open and carries the next circuit.
  circ.destroy(cell::DestroyReason::Finished);
  auto& again = build_circuit(io, *client, {net.hop("guard0"), net.hop("middle1"), net.hop("exit1")});
  CHECK(again.hops() == 3);
  CHECK_FALSE(client->closed());
}

TEST_CASE("stock tor tears down a circuit we ask to extend where it cannot", "[stocktor]") {
  auto& net = StockTorNetwork::shared();
  asio::io_context io;
  net::SystemClock clock;
  auto client = connect_client(io, clock, net, "guard1");
  auto& circ = build_circuit(io, *client, {net.hop("guard1"), net.hop("middle0")});

  // A relay no one runs, at an ORPort where nothing listens: the middle's
  // connection fails and it answers TRUNCATED (or DESTROY), which closes the
  // circuit. (The identities must be new: for a relay it already has a
  // channel to, at the same IP address, tor uses that channel, port or not.)
  proto::HopTarget nowhere = net.hop("exit0");
  nowhere.identity[0] ^= 0xff;
  nowhere.link_specs = {cell::LinkSpecIpv4{{127, 0, 0, 1}, static_cast<std::uint16_t>(net.http_port() + 9)},
                        cell::LinkSpecLegacyId{{0x5a, 0x5a, 0x5a}}};
  REQUIRE(circ.extend(nowhere));
  REQUIRE(run_until(io, [&] { return circ.state() == net::ClientCircuit::State::Closed; }, 30s));
  CHECK(circ.destroyed().has_value());
  CHECK(circ.hops() == 2);
  CHECK_FALSE(client->closed());

  // An onion key that is not the relay's: the handshake cannot complete,
  // and tor destroys the circuit rather than answer with EXTENDED2.
  auto& second = build_circuit(io, *client, {net.hop("guard1"), net.hop("middle1")});
  proto::HopTarget wrong_key = net.hop("exit1");
  wrong_key.onion_key = net.relay("exit0").ntor_key;
  REQUIRE(second.extend(wrong_key));
  REQUIRE(run_until(io, [&] { return second.state() == net::ClientCircuit::State::Closed; }, 30s));
  CHECK(second.destroyed().has_value());
  CHECK_FALSE(client->closed());
}

TEST_CASE("a stock exit agrees to congestion control and both ends run it", "[stocktor][cc]") {
  auto& net = StockTorNetwork::shared();
  asio::io_context io;
  net::SystemClock clock;
  auto client = connect_client(io, clock, net, "guard1");
  const std::vector<proto::HopTarget> path{net.hop("guard1"), net.hop("middle1"), net.hop("exit1")};

  // Download: the exit packages with Vegas, we answer every sendme_inc cells
  // and send no stream SENDMEs (tor closes a CC circuit that gets one).
  auto& down = build_circuit(io, *client, path, cc_config(clock), proto::HopOptions{true});
  REQUIRE(down.machine().congestion_control().has_value());
  CHECK(down.machine().congestion_control()->sendme_inc == 31);  // tor's cc_sendme_inc
  const auto& file = net.file("5MiB");
  HttpFetch fetch(down, kStream, file.path);
  fetch_intact(io, net, down, file, fetch);
  CHECK(fetch.sendmes_sent() == 0);
  CHECK_FALSE(down.destroyed());

  // Upload: our Vegas packages, the stock exit answers every 31 cells with a
  // v1 SENDME whose tag we check; cwnd leaves its initial 124 in slow start.
  constexpr std::size_t kUpload = 2 * 1024 * 1024;
  UploadSink sink(io, kUpload);
  auto& up = build_circuit(io, *client, path, cc_config(clock), proto::HopOptions{true});
  REQUIRE(up.send(HopNum{3}, kStream, cell::BeginMsg{"127.0.0.1", cell::BeginAddrKind::Ipv4, sink.port(), 0}));
  bool connected = false;
  std::string answer;
  std::size_t sent = 0;
  std::uint64_t max_inflight = 0;
  REQUIRE(run_until(
      io,
      [&] {
        for (auto& m : up.inbox()) {
          if (std::holds_alternative<cell::ConnectedMsg>(m.msg)) connected = true;
          if (auto* d = std::get_if<cell::DataMsg>(&m.msg)) answer.append(d->data.begin(), d->data.end());
        }
        up.inbox().clear();
        while (connected && sent < kUpload && up.can_send_data()) {
          const std::size_t n = std::min(cell::kRelayBodyMaxLen, kUpload - sent);
          std::vector<std::uint8_t> chunk(n);
          for (std::size_t i = 0; i < n; ++i) chunk[i] = static_cast<std::uint8_t>((sent + i) * 7919 >> 5);
          REQUIRE(up.send(HopNum{3}, kStream, cell::DataMsg{std::move(chunk)}));
          sent += n;
          max_inflight = std::max(max_inflight, up.machine().vegas()->inflight());
        }
        return answer.size() >= 64 || up.state() == net::ClientCircuit::State::Closed;
      },
      120s));
  INFO("circuit " << up.error().value_or("ok") << ", sink got " << sink.received());
  std::vector<std::uint8_t> expected(kUpload);
  for (std::size_t i = 0; i < kUpload; ++i) expected[i] = static_cast<std::uint8_t>(i * 7919 >> 5);
  CHECK(answer == bytes::to_hex(crypto::sha256(expected)));
  const proto::Vegas& vegas = *up.machine().vegas();
  CHECK(vegas.cwnd() > 124);
  CHECK(max_inflight > 124);
  CHECK(vegas.rtt().min_usec() > 0);
  CHECK_FALSE(up.destroyed());
}

TEST_CASE("conflux-proxy bootstraps from stock tor's authorities and downloads through stock relays", "[stocktor][proxy]") {
  auto& net = StockTorNetwork::shared();
  using namespace conflux::test::proxynet;
  TestProxy proxy(net.work(), net.dir_authority_lines(), "proxy", "ConfluxEnabled 0\n");
  if (!proxy.bootstrapped(90s)) FAIL("no bootstrap; the proxy's log:\n" << read_text(proxy.log()));
  CHECK(wait_for_log(proxy.log(), "Loaded the consensus: 9 relays", 1s));
  for (const std::string name : {"1MiB", "50MiB"}) {
    INFO(name);
    const auto& f = net.file(name);
    auto got = curl_fetch("--socks5-hostname", proxy.socks(), "http://127.0.0.1:" + std::to_string(net.http_port()) + f.path);
    CHECK(got.curl_status == 0);
    CHECK(got.sha256 == f.sha256_hex);
  }
  // Stock exits run congestion control with us (prop 324), as with a tor client.
  const auto page = scrape(proxy.metrics_url());
  CHECK(metric(page, "conflux_proxy_cc_circuits_total{mode=\"congestion_control\"}").value_or(0) >= 1);
  CHECK(metric(page, "conflux_proxy_streams_total{outcome=\"failed\"}").value_or(-1) == 0);

  // Restarted, it starts from tor's documents in its DataDirectory (while
  // they are valid: a test network's consensus lives 40 s).
  proxy.child().signal(SIGTERM);
  CHECK(proxy.child().wait_exit(std::chrono::seconds(20)));
  TestProxy again(net.work(), net.dir_authority_lines(), "proxy", "ConfluxEnabled 0\n");
  CHECK(wait_for_log(again.log(), "Loaded the cached consensus \\(9 relays\\)", 20s));
  CHECK(again.bootstrapped(60s));
}

namespace {

// Both stock exits' info-level log, as their control ports give it
// whatever their Log lines say: what they do with Conflux sets.
struct ExitWatch {
  explicit ExitWatch(const StockTorNetwork& net) {
    for (const std::string nick : {"exit0", "exit1"}) {
      const auto& r = net.relay(nick);
      auto c = std::make_unique<TorControl>(r.control_port, r.cookie_path);
      c->listen("INFO");
      by_nick.emplace(nick, std::move(c));
    }
  }
  TorControl& at(const std::string& nick) { return *by_nick.at(nick); }
  std::map<std::string, std::unique_ptr<TorControl>> by_nick;
};

std::string file_url(const StockTorNetwork& net, const std::string& name) {
  return "http://127.0.0.1:" + std::to_string(net.http_port()) + net.file(name).path;
}

}  // namespace

TEST_CASE("conflux-proxy links a Conflux set at a stock exit and downloads over both legs", "[stocktor][proxy][conflux]") {
  auto& net = StockTorNetwork::shared();
  using namespace conflux::test::proxynet;
  ExitWatch exits(net);
  TestProxy proxy(net.work(), net.dir_authority_lines(), "cfx", "ConfluxEnabled 1\n");
  if (!proxy.bootstrapped(90s)) FAIL("no bootstrap; the proxy's log:\n" << read_text(proxy.log()));
  REQUIRE(wait_for_log(proxy.log(), "Conflux set \\d+ linked leg \\d+ \\(2 of 2 legs\\)", 60s));
  for (const std::string name : {"1MiB", "50MiB"}) {
    INFO(name);
    const auto got = curl_fetch("--socks5-hostname", proxy.socks(), file_url(net, name), 240);
    CHECK(got.curl_status == 0);
    CHECK(got.sha256 == net.file(name).sha256_hex);
  }
  const SetLog log = read_set_log(proxy);
  const std::string set = log.last_stream_set;
  REQUIRE_FALSE(set.empty());
  REQUIRE(log.linked.at(set).size() == 2);
  const auto path = leg_path(log, set, log.linked.at(set)[0]);
  REQUIRE(path.size() == 3);
  const std::string exit = path.back();
  INFO("set " << set << " ends at " << exit);

  // The proxy: both legs linked at a tor exit (no resumption offered), and
  // both carried the download (the exit sends with LowRTT for our
  // throughput UX and spills to the other leg when one leg's cwnd is full).
  const auto page = scrape(proxy.metrics_url());
  CHECK(metric(page, "conflux_proxy_conflux_set_legs_linked{set=\"" + set + "\",exit=\"tor\"}") == 2);
  int busy_legs = 0;
  for (const auto& [labels, cells] : per_leg(page, "conflux_proxy_conflux_leg_cells_received_total"))
    if (labels.rfind("set=\"" + set + "\",", 0) == 0 && cells > 1000) ++busy_legs;
  CHECK(busy_legs == 2);
  CHECK(metric(page, "conflux_proxy_streams_total{outcome=\"failed\"}").value_or(-1) == 0);

  // The exit: a LINK on each of two circuits for one set, each answered
  // and acknowledged (its info log names the set by a nonce prefix).
  std::map<std::string, int> links;
  for (const auto& id : exits.at(exit).matches("Processing a CONFLUX_LINK for set ([0-9A-Fa-f]+)")) ++links[id];
  CHECK(std::any_of(links.begin(), links.end(), [](const auto& kv) { return kv.second == 2; }));
  CHECK(exits.at(exit).matches("Processing a CONFLUX_LINKED_ACK for set").size() >= 2);
}

// Last: it stops one of the network's relays.
TEST_CASE("a leg of a set at a stock exit loses its middle mid-download: the stream ends with an error, no hang",
          "[stocktor][proxy][conflux]") {
  auto& net = StockTorNetwork::shared();
  using namespace conflux::test::proxynet;
  ExitWatch exits(net);
  TestProxy proxy(net.work(), net.dir_authority_lines(), "cfxkill", "ConfluxEnabled 1\n");
  REQUIRE(proxy.bootstrapped(90s));
  REQUIRE(wait_for_log(proxy.log(), "Conflux set \\d+ linked leg \\d+ \\(2 of 2 legs\\)", 60s));
  auto download = std::async(std::launch::async, [&] {
    return curl_fetch("--socks5-hostname", proxy.socks(), file_url(net, "50MiB"), 180);
  });
  const auto started = std::chrono::steady_clock::now();
  while (received_bytes(proxy) < (5 << 20) && std::chrono::steady_clock::now() - started < 60s)
    std::this_thread::sleep_for(20ms);
  REQUIRE(received_bytes(proxy) >= (5 << 20));

  const SetLog log = read_set_log(proxy);
  const std::string set = log.last_stream_set;
  REQUIRE_FALSE(set.empty());
  const auto victim_leg = leg_path(log, set, log.linked.at(set).at(0));
  REQUIRE(victim_leg.size() == 3);
  const std::string victim = victim_leg[1];
  const std::string exit = victim_leg[2];
  INFO("set " << set << ": stopping " << victim << ", the middle of " << victim_leg[0] << " -> " << victim << " -> "
              << exit);
  const auto seen_before = exits.at(exit).events().size();
  {
    TorControl middle(net.relay(victim).control_port, net.relay(victim).cookie_path);
    CHECK(middle.command("SIGNAL HALT") == "250 OK");
  }
  const auto halted = std::chrono::steady_clock::now();
  const auto got = download.get();
  const auto took = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - halted);
  // Whatever the exit did, curl heard the end at once: no stall to its
  // --max-time (28).
  CHECK(got.curl_status != 28);
  CHECK(took < 60s);
  if (got.curl_status == 0) {
    CHECK(got.sha256 == net.file("50MiB").sha256_hex);
  } else {
    // The set closed and told its stream: tor's exit resends nothing.
    CHECK(wait_for_log(proxy.log(), "Conflux set " + set + " closed: .*tor exit cannot resend", 10s));
  }
  // What the stock exit did, for the record (CONFLUX.md).
  std::this_thread::sleep_for(2s);
  const auto after = exits.at(exit).events();
  std::string said;
  for (std::size_t i = seen_before; i < after.size(); ++i)
    if (after[i].find("onflux") != std::string::npos) said += "\n  " + after[i];
  WARN("curl " << got.curl_status << " after " << took.count() << " s, " << got.size << " bytes; " << exit
               << " said:" << said);
}
