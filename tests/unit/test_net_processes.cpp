// Issue 3's integration test with real processes: one directory authority,
// three relays, an exit and a bridge, each a conflux-relay process on
// 127.0.0.1 with its own torrc, keys and log. A client in this process
// (ClientLink + ClientCircuit + the client StreamMachine) downloads 5 MiB
// from a local HTTP server over 3-hop circuits built from the verified
// consensus, and through the bridge; then the middle relay is killed under a
// transfer; then the exit policy, a CREATE2 for the wrong onion key and bad
// bytes on an ORPort. One network serves every check, to keep within budget.
// The network runs on tor's directory: tor-form DirAuthority lines (v3ident=
// and the RSA fingerprint), the authority signing tor's microdesc consensus
// alone, the bridge's tor server descriptor.
#include <cstdio>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"
#include "conflux/keys/fingerprint.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "test_net_processes_client.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test::procs;

namespace {

constexpr std::size_t kFileSize = 5 * 1024 * 1024;

struct Node {
  std::string name;
  fs::path data_dir;
  crypto::Ed25519Public identity{};
  crypto::RsaFingerprint rsa_fingerprint{};  // tor's name for it
  crypto::X25519Public onion_key{};
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  std::unique_ptr<Child> proc;
  fs::path log_path;  // its torrc's "Log notice file"

  [[nodiscard]] std::string log_text() const { return read_text(log_path); }
  // The log and what went to stdout/stderr, for failure reports.
  [[nodiscard]] std::string report() const {
    return "---- " + name + " log ----\n" + log_text() + "---- " + name + " stdout/stderr ----\n" +
           (proc ? proc->output_text() : std::string());
  }

  [[nodiscard]] net::tcp::endpoint or_endpoint() const { return {kLoopback, or_port}; }
  [[nodiscard]] net::tcp::endpoint dir_endpoint() const { return {kLoopback, dir_port}; }
  // From our own copy of its keys, for the checks that need no directory.
  [[nodiscard]] net::HopTarget target() const {
    return {identity, onion_key, {cell::LinkSpecIpv4{{127, 0, 0, 1}, or_port}}};
  }
};

net::HopTarget target_of(const dir::RouterEntry& e) {
  return {e.identity, e.ntor_onion_key, {cell::LinkSpecIpv4{e.ipv4, e.or_port}}};
}
net::HopTarget target_of(const dir::TorServerDescriptor& d) {
  return {d.ed25519_identity, d.ntor_onion_key, {cell::LinkSpecIpv4{d.ipv4, d.or_port}}};
}

const dir::RouterEntry* find_router(const dir::Consensus& c, const crypto::Ed25519Public& id) {
  for (const auto& r : c.body.routers)
    if (r.identity == id) return &r;
  return nullptr;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Network {
  TempDir tmp;  // first member: removed only after every process is gone
  net::SystemClock clock;  // before the loop: coroutines left in it refer to it
  asio::io_context io;
  std::vector<std::uint8_t> file = std::vector<std::uint8_t>(kFileSize);
  std::unique_ptr<HttpServer> http;
  std::unique_ptr<CountingListener> rejected;
  Node auth{"auth", {}, {}, {}, {}, 0, 0, nullptr, {}};
  Node guard{"guard", {}, {}, {}, {}, 0, 0, nullptr, {}};
  Node middle{"middle", {}, {}, {}, {}, 0, 0, nullptr, {}};
  Node middle2{"middle2", {}, {}, {}, {}, 0, 0, nullptr, {}};
  Node exit{"exit", {}, {}, {}, {}, 0, 0, nullptr, {}};
  Node bridge{"bridge", {}, {}, {}, {}, 0, 0, nullptr, {}};

  crypto::RsaFingerprint v3ident{};  // the authority's

  std::vector<Node*> nodes() { return {&auth, &guard, &middle, &middle2, &exit, &bridge}; }

  Network() {
    crypto::random_bytes(file);
    http = std::make_unique<HttpServer>(io, file);
    rejected = std::make_unique<CountingListener>(io);

    // Keys made here first, so that we know every identity (the authority's
    // goes into everyone's DirAuthority line) before anything starts.
    for (auto* n : nodes()) {
      n->data_dir = tmp.path() / n->name;
      n->log_path = tmp.path() / (n->name + ".log");
      auto k = keys::load_or_create_relay_keys(n->data_dir, clock.unix_seconds());
      REQUIRE(k.has_value());
      n->identity = k->identity();
      n->rsa_fingerprint = k->rsa_fingerprint();
      n->onion_key = k->onion_key().key.public_key();
    }
    // The authority's tor keys too: its v3ident names it in the lines.
    auto tk = dirnet::load_or_create_tor_authority_keys(auth.data_dir, clock.unix_seconds());
    REQUIRE(tk.has_value());
    v3ident = tk->v3ident();
    // A port found free may be taken by someone else before the relay binds
    // it: then the whole network starts again on other ports.
    for (int attempt = 1;; ++attempt) {
      if (start_all()) break;
      bool port_taken = false;
      for (auto* n : nodes()) port_taken = port_taken || n->report().find("Could not bind") != std::string::npos;
      std::string logs;
      for (auto* n : nodes()) logs += n->report();
      INFO(logs);
      REQUIRE((port_taken && attempt < 3));
      for (auto* n : nodes()) n->proc.reset();
      std::printf("test_net_processes: a port was taken; starting again on other ports\n");
    }
  }

  // Picks ports, writes the torrcs and starts every process; true when all
  // of them say they are up.
  bool start_all() {
    auto ports = free_ports(io, 8);
    auth.or_port = ports[0];
    auth.dir_port = ports[1];
    guard.or_port = ports[2];
    middle.or_port = ports[3];
    middle2.or_port = ports[4];
    exit.or_port = ports[5];
    bridge.or_port = ports[6];
    bridge.dir_port = ports[7];

    const std::string dir_authority = "DirAuthority auth orport=" + std::to_string(auth.or_port) +
                                      " v3ident=" + bytes::to_hex(v3ident, true) + " 127.0.0.1:" +
                                      std::to_string(auth.dir_port) + " " +
                                      bytes::to_hex(auth.rsa_fingerprint, true) + "\n";
    auto common = [&](const Node& n) {
      return "Nickname " + n.name + "\nDataDirectory " + n.data_dir.string() + "\nORPort 127.0.0.1:" +
             std::to_string(n.or_port) + "\nLog notice file " + n.log_path.string() + "\nTestingTorNetwork 1\n";
    };
    std::map<std::string, std::string> torrc;
    torrc["auth"] = common(auth) + "DirPort 127.0.0.1:" + std::to_string(auth.dir_port) +
                    "\nAuthoritativeDirectory 1\nConsensusInterval 10 seconds\n" + dir_authority;
    torrc["guard"] = common(guard) + dir_authority;
    torrc["middle"] = common(middle) + dir_authority;
    torrc["middle2"] = common(middle2) + dir_authority;
    torrc["exit"] = common(exit) + dir_authority +
                    "ExitRelay 1\nExitPolicyRejectPrivate 0\n"
                    "ExitPolicy accept 127.0.0.1:" + std::to_string(http->port()) +
                    "\nExitPolicy reject 127.0.0.1:" + std::to_string(rejected->port()) +
                    "\nExitPolicy reject *:*\n";
    torrc["bridge"] = common(bridge) + "BridgeRelay 1\nDirPort 127.0.0.1:" + std::to_string(bridge.dir_port) + "\n";

    for (auto* n : nodes()) {
      const auto path = tmp.path() / (n->name + ".torrc");
      write_text(path, torrc[n->name]);
      std::error_code ignored;
      fs::remove(n->log_path, ignored);  // the relay appends; an earlier attempt's lines must not count
      n->proc = std::make_unique<Child>(n->name, CONFLUX_RELAY_BINARY, std::vector<std::string>{"-f", path.string()},
                                        tmp.path() / (n->name + ".out"));
      n->proc->start();
    }
    // Each one says it is up once its listeners are open.
    (void)run_until(
        io,
        [&] {
          for (auto* n : nodes())
            if (n->log_text().find(" is up as ") == std::string::npos && n->proc->running()) return false;
          return true;
        },
        30s);
    for (auto* n : nodes())
      if (!n->proc->running() || n->log_text().find(" is up as ") == std::string::npos) return false;
    return true;
  }

  ~Network() {
    // A failed REQUIRE unwinds through here: show what the relays said.
    if (std::uncaught_exceptions() > 0) {
      for (auto* n : nodes()) {
        if (!n->proc) continue;
        auto text = n->report();
        if (text.size() > 8000) text = "..." + text.substr(text.size() - 8000);
        std::fprintf(stderr, "%s\n", text.c_str());
      }
    }
    for (auto* n : nodes()) n->proc.reset();  // SIGKILL and reap before the directory goes
  }

  // SIGUSR1, then the new "Heartbeat:" line from the log.
  Heartbeat heartbeat(Node& n) {
    const auto before = heartbeats(n.log_text()).size();
    n.proc->signal(SIGUSR1);
    std::vector<Heartbeat> all;
    REQUIRE(run_until(
        io,
        [&] {
          all = heartbeats(n.log_text());
          return all.size() > before;
        },
        5s));
    return all.back();
  }

  // Heartbeats until the relay has no circuit open (what DESTROYs are still
  // in flight arrive), at most a few seconds; the last one.
  Heartbeat settled_heartbeat(Node& n) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    for (;;) {
      auto h = heartbeat(n);
      if (h.open == 0 || std::chrono::steady_clock::now() > deadline) return h;
      idle_for(io, 200ms);
    }
  }
};

// Fetches tor's consensus until one lists every relay in `wanted`, or `bound`.
net::awaitable<void> wait_for_consensus(dirnet::ConsensusQuery query, const net::Clock& clock,
                                        std::vector<crypto::Ed25519Public> wanted, std::chrono::seconds bound,
                                        std::shared_ptr<std::optional<dir::Consensus>> out,
                                        std::shared_ptr<std::string> last_error) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (std::chrono::steady_clock::now() < deadline) {
    dirnet::TorDirCache cache;
    auto got = co_await dirnet::fetch_tor_consensus(query, clock, 0, cache);
    if (got) {
      bool all = true;
      for (const auto& id : wanted) all = all && find_router(*got, id) != nullptr;
      if (all) {
        *out = std::move(*got);
        co_return;
      }
      *last_error = "a consensus with " + std::to_string(got->body.routers.size()) + " relays";
    } else {
      *last_error = std::string(dirnet::to_string(got.error()));
    }
    timer.expires_after(500ms);
    (void)co_await timer.async_wait(net::use_nothrow);
  }
}

// Downloads /file over `circ` and checks it is the server's file, byte for byte.
void download_and_check(Network& net, net::ClientCircuit& circ, StreamId stream, const char* what) {
  HttpFetch fetch(circ, stream, "/file");
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(fetch.begin(net.http->port()));
  REQUIRE(run_until(
      net.io,
      [&] {
        fetch.pump();
        return fetch.finished();
      },
      90s));
  const double secs = seconds_since(start);
  INFO(what << ": " << (fetch.error() ? *fetch.error() : "") << (circ.error() ? *circ.error() : ""));
  REQUIRE_FALSE(fetch.error());
  REQUIRE_FALSE(circ.destroyed());
  REQUIRE(fetch.complete());
  CHECK(fetch.status_line() == "HTTP/1.0 200 OK");
  REQUIRE(fetch.body()->size() == kFileSize);
  CHECK(crypto::sha256(*fetch.body()) == crypto::sha256(net.file));
  // 10,531 DATA cells: a stream SENDME per 50.
  CHECK(fetch.sendmes_sent() >= kFileSize / 498 / 50 - 1);
  // The server closed: the exit ends the stream with DONE.
  REQUIRE(run_until(
      net.io,
      [&] {
        fetch.pump();
        return fetch.end().has_value();
      },
      10s));
  CHECK(*fetch.end() == cell::EndReason::Done);
  std::printf("test_net_processes: %s: 5 MiB in %.2f s (%.1f MiB/s)\n", what, secs, 5.0 / secs);
}

// A small exchange over `circ` (404 for an unknown path): the circuit works.
void small_exchange(Network& net, net::ClientCircuit& circ, StreamId stream) {
  HttpFetch fetch(circ, stream, "/missing");
  REQUIRE(fetch.begin(net.http->port()));
  REQUIRE(run_until(
      net.io,
      [&] {
        fetch.pump();
        return fetch.finished();
      },
      10s));
  REQUIRE_FALSE(fetch.error());
  CHECK(fetch.complete());
  CHECK(fetch.status_line() == "HTTP/1.0 404 Not Found");
  // The stream's END too, so that nothing of it is left for the next one.
  REQUIRE(run_until(
      net.io,
      [&] {
        fetch.pump();
        return fetch.end().has_value() || fetch.error();
      },
      10s));
  CHECK(fetch.end() == cell::EndReason::Done);
}

}  // namespace

TEST_CASE("relay processes: 3-hop and bridge downloads, a killed middle, exit policy and bad input",
          "[net][processes]") {
  const auto t0 = std::chrono::steady_clock::now();
  Network net;
  std::printf("test_net_processes: 6 processes up in %.2f s\n", seconds_since(t0));

  // tor's consensus, fetched and verified against the authority's v3ident
  // (with its key certificate and the microdescriptors), in the background
  // while the checks that need no directory run.
  auto consensus = std::make_shared<std::optional<dir::Consensus>>();
  auto consensus_error = std::make_shared<std::string>("none fetched");
  {
    dirnet::ConsensusQuery q;
    q.sources = {net.auth.dir_endpoint()};
    q.tor_authorities = {net.v3ident};
    q.http.timeout = 5s;
    asio::co_spawn(net.io,
                   wait_for_consensus(q, net.clock,
                                      {net.guard.identity, net.middle.identity, net.middle2.identity, net.exit.identity},
                                      60s, consensus, consensus_error),
                   asio::detached);
  }

  // ---- Bad input on the guard's ORPort closes only that connection ----
  // A truncated VERSIONS and silence: the relay's handshake timeout (10 s)
  // closes it, so it starts first and is checked last.
  const auto truncated_start = std::chrono::steady_clock::now();
  RawPeer truncated(net.io, net.clock, net.guard.or_endpoint());
  REQUIRE(run_until(net.io, [&] { return truncated.tls_ready; }, 10s));
  truncated.send({0, 0, 7, 0, 4, 0});

  // Another client's circuit (guard -> exit) that must keep working.
  Client bystander(net.io, net.clock);
  bystander.connect(net.guard.or_endpoint(), net.guard.identity);
  REQUIRE(run_until(net.io, [&] { return bystander.opened(); }, 10s));
  auto& kept = build_circuit(net.io, bystander, {net.guard.target(), net.exit.target()});
  small_exchange(net, kept, StreamId{1});

  {
    INFO("garbage that is not TLS");
    auto hung_up = std::make_shared<bool>(false);
    asio::co_spawn(net.io, send_junk(net.guard.or_endpoint(), hung_up), asio::detached);
    CHECK(run_until(net.io, [&] { return *hung_up; }, 5s));
  }
  {
    INFO("TLS, then a VERSIONS cell claiming 65535 bytes (over-long variable cell)");
    RawPeer peer(net.io, net.clock, net.guard.or_endpoint());
    REQUIRE(run_until(net.io, [&] { return peer.tls_ready; }, 5s));
    peer.send({0, 0, 7, 0xff, 0xff, 0, 4, 0, 5});
    CHECK(run_until(net.io, [&] { return peer.closed.has_value(); }, 5s));
  }
  {
    INFO("TLS, a valid VERSIONS, then a cell with the unknown command 13");
    RawPeer peer(net.io, net.clock, net.guard.or_endpoint());
    REQUIRE(run_until(net.io, [&] { return peer.tls_ready; }, 5s));
    auto bytes = versions_cell_bytes();
    std::vector<std::uint8_t> bad(514, 0);
    bad[4] = 13;
    bytes.insert(bytes.end(), bad.begin(), bad.end());
    peer.send(bytes);
    CHECK(run_until(net.io, [&] { return peer.closed.has_value(); }, 5s));
  }
  {
    INFO("a CREATE2 made for another relay's onion key gets DESTROY; the link stays");
    auto wrong = net.guard.target();
    wrong.onion_key = net.middle.onion_key;
    auto& circ = bystander.new_circuit();
    REQUIRE(circ.create(wrong));
    REQUIRE(run_until(net.io, [&] { return circ.state() == net::ClientCircuit::State::Closed; }, 5s));
    REQUIRE(circ.destroyed().has_value());
    std::printf("test_net_processes: CREATE2 for the wrong onion key: DESTROY reason %u\n",
                static_cast<unsigned>(*circ.destroyed()));
    CHECK(circ.hops() == 0);
    CHECK(bystander.link().is_open());
  }
  {
    INFO("a BEGIN to the port the exit policy rejects gets END EXITPOLICY");
    HttpFetch refused(kept, StreamId{2}, "/file");
    REQUIRE(refused.begin(net.rejected->port()));
    REQUIRE(run_until(
        net.io,
        [&] {
          refused.pump();
          return refused.finished();
        },
        5s));
    CHECK_FALSE(refused.connected());
    REQUIRE(refused.end().has_value());
    CHECK(*refused.end() == cell::EndReason::ExitPolicy);
    CHECK(net.rejected->accepted() == 0);
  }
  {
    INFO("the truncated cell's connection is closed by the handshake timeout");
    CHECK(run_until(net.io, [&] { return truncated.closed.has_value(); }, 15s));
    CHECK(seconds_since(truncated_start) > 5.0);  // the relay waited, as it should, before giving up
  }
  // The bystander never noticed any of it.
  CHECK(bystander.link().is_open());
  CHECK(kept.state() == net::ClientCircuit::State::Ready);
  small_exchange(net, kept, StreamId{3});
  kept.destroy(cell::DestroyReason::Finished);
  std::printf("test_net_processes: bad-input checks done at %.2f s\n", seconds_since(t0));

  // ---- The consensus lists the four public relays, not the bridge ----
  {
    INFO("last consensus fetch: " << *consensus_error);
    REQUIRE(run_until(net.io, [&] { return consensus->has_value(); }, 60s));
  }
  const dir::Consensus& cons = **consensus;
  std::printf("test_net_processes: consensus with %zu relays at %.2f s\n", cons.body.routers.size(), seconds_since(t0));
  CHECK(find_router(cons, net.bridge.identity) == nullptr);
  // The authority signed tor's consensus alone: no JSON consensus was published.
  CHECK(net.auth.log_text().find("Serving tor's microdesc consensus valid after") != std::string::npos);
  CHECK(net.auth.log_text().find("Published a consensus") == std::string::npos);
  for (auto* n : {&net.guard, &net.middle, &net.middle2, &net.exit}) {
    INFO(n->name);
    const auto* e = find_router(cons, n->identity);
    REQUIRE(e != nullptr);
    CHECK(e->flags.running);
    CHECK(e->or_port == n->or_port);
    CHECK(e->ntor_onion_key == n->onion_key);
  }
  const auto guard_t = target_of(*find_router(cons, net.guard.identity));
  const auto middle_t = target_of(*find_router(cons, net.middle.identity));
  const auto middle2_t = target_of(*find_router(cons, net.middle2.identity));
  const auto exit_t = target_of(*find_router(cons, net.exit.identity));

  // ---- 5 MiB over guard -> middle -> exit ----
  Client client(net.io, net.clock);
  client.connect(net.guard.or_endpoint(), net.guard.identity);
  REQUIRE(run_until(net.io, [&] { return client.opened(); }, 10s));
  {
    auto& circ = build_circuit(net.io, client, {guard_t, middle_t, exit_t});
    download_and_check(net, circ, StreamId{1}, "guard -> middle -> exit");
    circ.destroy(cell::DestroyReason::Finished);
  }

  // ---- 5 MiB over bridge -> middle2 -> exit ----
  {
    // The bridge serves tor's descriptor once it has written one, at
    // /tor/server/authority as tor's bridges do: ask until it does.
    std::optional<dir::TorServerDescriptor> bd;
    std::string why;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!bd && std::chrono::steady_clock::now() < deadline) {
      auto got = await_in(net.io,
                          dirnet::http_get(net.bridge.dir_endpoint(), "/tor/server/authority",
                                           dirnet::HttpLimits{5000ms, 8192, 20000}),
                          15s);
      REQUIRE(got.has_value());
      if (*got && (*got)->status == 200) {
        auto parsed = dir::parse_tor_server_descriptor((*got)->body, net.clock.unix_seconds());
        if (parsed) bd = std::move(*parsed);
        else why = "does not verify";
      } else {
        why = *got ? "status " + std::to_string((*got)->status) : "unreachable";
        idle_for(net.io, 200ms);
      }
    }
    INFO(why);
    REQUIRE(bd.has_value());
    CHECK(bd->rsa_identity == net.bridge.rsa_fingerprint);  // what a tor-form Bridge line names
    CHECK(bd->ed25519_identity == net.bridge.identity);
    CHECK(bd->or_port == net.bridge.or_port);
    Client via_bridge(net.io, net.clock);
    via_bridge.connect(net.bridge.or_endpoint(), bd->ed25519_identity);
    REQUIRE(run_until(net.io, [&] { return via_bridge.opened(); }, 10s));
    auto& circ = build_circuit(net.io, via_bridge, {target_of(*bd), middle2_t, exit_t});
    download_and_check(net, circ, StreamId{1}, "bridge -> middle2 -> exit");
    circ.destroy(cell::DestroyReason::Finished);
  }

  // ---- Killing the middle relay under a transfer ----
  constexpr unsigned kChannelClosed = static_cast<unsigned>(cell::DestroyReason::ChannelClosed);
  // Wait until the earlier circuits are gone everywhere, then take the counters.
  const Heartbeat guard_before = net.settled_heartbeat(net.guard);
  const Heartbeat exit_before = net.settled_heartbeat(net.exit);
  REQUIRE(guard_before.open == 0);
  REQUIRE(exit_before.open == 0);
  CHECK(guard_before.created == guard_before.closed);
  CHECK(exit_before.created == exit_before.closed);
  CHECK(exit_before.streams_open == 0);
  {
    auto& circ = build_circuit(net.io, client, {guard_t, middle_t, exit_t});
    HttpFetch fetch(circ, StreamId{7}, "/file");
    REQUIRE(fetch.begin(net.http->port()));
    REQUIRE(run_until(
        net.io,
        [&] {
          fetch.pump();
          return fetch.received() >= 1024 * 1024 || fetch.finished();
        },
        30s));
    REQUIRE_FALSE(fetch.finished());
    net.middle.proc->kill_now();  // SIGKILL, reaped
    const auto killed = std::chrono::steady_clock::now();
    REQUIRE(run_until(
        net.io,
        [&] {
          fetch.pump();
          return circ.destroyed().has_value() || fetch.end().has_value();
        },
        5s));
    const double secs = seconds_since(killed);
    std::printf("test_net_processes: DESTROY %.3f s after SIGKILL of the middle, at %zu bytes\n", secs,
                fetch.received());
    CHECK(secs < 1.0);
    REQUIRE(circ.destroyed().has_value());
    CHECK(*circ.destroyed() == cell::DestroyReason::ChannelClosed);
  }
  // The guard and the exit freed it, and counted it.
  for (auto [node, before] : {std::pair{&net.guard, guard_before}, std::pair{&net.exit, exit_before}}) {
    INFO(node->name);
    CHECK(before.open == 0);
    const Heartbeat after = net.settled_heartbeat(*node);
    CHECK(after.created == before.created + 1);
    CHECK(after.closed == before.closed + 1);
    CHECK(after.destroyed_for(kChannelClosed) == before.destroyed_for(kChannelClosed) + 1);
    CHECK(after.streams_open == 0);
  }
  // The client's link to the guard survived; a circuit avoiding the dead relay works.
  CHECK(client.link().is_open());
  {
    auto& circ = build_circuit(net.io, client, {guard_t, middle2_t, exit_t});
    small_exchange(net, circ, StreamId{1});
    circ.destroy(cell::DestroyReason::Finished);
  }

  // ---- Clean shutdown: SIGTERM, exit status 0 (under ASan this includes LeakSanitizer) ----
  for (auto* n : net.nodes())
    if (n->proc->running()) n->proc->signal(SIGTERM);
  for (auto* n : net.nodes()) {
    if (n == &net.middle) continue;
    INFO(n->report());
    auto status = n->proc->wait_exit(20s);
    REQUIRE(status.has_value());
    CHECK(WIFEXITED(*status));
    CHECK(WEXITSTATUS(*status) == 0);
  }
  std::printf("test_net_processes: whole test %.2f s\n", seconds_since(t0));
}
