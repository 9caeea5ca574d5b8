// The directory over real sockets on 127.0.0.1, in one process: three
// authorities, four relays (with TLS listeners on their ORPorts, so the
// default probe has something to reach) and a bridge. Runs until tor's
// consensus, signed by 2 of 3 authorities, lists the relays (which upload
// tor's server descriptor) with their flags, then fetches it as a client
// would; fetches and checks the bridge's tor descriptor from the bridge;
// and throws garbage, forgeries, oversized and idle
// connections at a DirPort, which keeps serving. Authorities given stock
// tor descriptors: test_dirnet_stock_authorities.cpp.
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dir/tor_server_descriptor_make.hpp"
#include "conflux/dirnet/authority_service.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"
#include "conflux/dirnet/descriptor_publisher.hpp"
#include "conflux/dirnet/dir_server.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/net/tls.hpp"
#include "dirnet_test_authority.hpp"
#include "test_net_processes_support.hpp"

using namespace conflux;
using namespace conflux::dirnet;
using namespace std::chrono_literals;
namespace asio = net::asio;
using net::use_nothrow;

namespace {

constexpr std::uint64_t kInterval = 2;
const tcp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);

struct Loop {
  asio::io_context io;
  net::SystemClock clock;

  // Runs the loop until `done` holds or `bound` passes; no fixed sleeps.
  template <class Pred>
  bool run_until(Pred done, std::chrono::milliseconds bound) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      io.restart();
      io.run_for(20ms);
    }
    return true;
  }

  template <class T>
  T await(net::awaitable<T> a, std::chrono::milliseconds bound = 15s) {
    // Result<T, E> has no default constructor, which co_spawn's value
    // handler needs: the result goes through an optional instead.
    std::optional<T> out;
    asio::co_spawn(
        io, [](net::awaitable<T> inner, std::optional<T>& slot) -> net::awaitable<void> {
          slot.emplace(co_await std::move(inner));
        }(std::move(a), out),
        [](std::exception_ptr e) {
          if (e) std::rethrow_exception(e);
        });
    REQUIRE(run_until([&] { return out.has_value(); }, bound));
    return std::move(*out);
  }
};

// A stand-in ORPort: accepts and completes TLS handshakes with the relay's
// TLS certificate, then holds the connection until the peer closes it.
struct OrPort {
  asio::ssl::context ctx;
  tcp::acceptor acceptor;
  OrPort(asio::io_context& io, const keys::RelayKeys& k)
      : ctx(net::make_tls_server_context({k.tls_certificate().cert_pem, k.tls_certificate().key_pem.str()})),
        acceptor(io, kLoopback) {
    asio::co_spawn(io, accept(), asio::detached);
  }
  net::awaitable<void> accept() {
    for (;;) {
      auto [ec, s] = co_await acceptor.async_accept(use_nothrow);
      if (ec) co_return;
      asio::co_spawn(acceptor.get_executor(), serve(net::TlsStream(std::move(s), ctx)), asio::detached);
    }
  }
  static net::awaitable<void> serve(net::TlsStream tls) {
    auto [ec] = co_await tls.async_handshake(asio::ssl::stream_base::server, use_nothrow);
    if (ec) co_return;
    std::array<char, 64> buf{};
    (void)co_await tls.async_read_some(asio::buffer(buf), use_nothrow);
  }
};

// Raw bytes to a DirPort; everything it answers until it closes.
net::awaitable<std::string> raw_exchange(tcp::endpoint to, std::string request) {
  tcp::socket s(co_await asio::this_coro::executor);
  auto [cec] = co_await s.async_connect(to, use_nothrow);
  if (cec) co_return "connect failed";
  (void)co_await asio::async_write(s, asio::buffer(request), use_nothrow);
  std::string out;
  std::array<char, 4096> buf{};
  while (out.size() < (1U << 20)) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), use_nothrow);
    if (ec) break;
    out.append(buf.data(), n);
  }
  co_return out;
}

RelayInfo relay_info(std::uint8_t n, std::uint16_t or_port, std::string policy) {
  RelayInfo i;
  i.nickname = "relay" + std::to_string(n);
  i.ipv4 = {127, 0, 0, 1};
  i.or_port = or_port;
  i.bandwidth = {1'000'000, 2'000'000, 1'000'000};
  i.exit_policy = std::move(policy);
  i.version = "0.1.0-test";
  return i;
}

const crypto::RsaPrivateKey& tap_key() {
  static const auto k = crypto::RsaPrivateKey::generate(1024);
  return k;
}

// The relay's tor server descriptor, as conflux-relay writes it: an exit
// here allows 80 and 443 ("accept 80,443"), the others nothing.
std::string tor_descriptor(const RelayInfo& info, const keys::RelayKeys& k, std::uint64_t now) {
  dir::TorDescriptorFacts f;
  f.nickname = info.nickname;
  f.ipv4 = info.ipv4;
  f.or_port = info.or_port;
  f.platform = "conflux " + info.version + " on Linux";
  f.protocols = info.protocols;
  f.published = now;
  f.bandwidth_rate = info.bandwidth.rate;
  f.bandwidth_burst = info.bandwidth.burst;
  f.bandwidth_observed = info.bandwidth.observed;
  if (info.exit_policy == "accept 80,443") f.exit_policy = {"accept *:80", "accept *:443", "reject *:*"};
  const dir::TorDescriptorKeys keys{k.rsa_identity(),       k.identity(),         k.signing_key(),
                                    k.signing_cert_bytes(), k.onion_key().key,    tap_key(),
                                    k.signing_cert_expires_at()};
  return dir::make_tor_server_descriptor(f, keys);
}

using Authority = test::DirnetAuthority;

struct Relay {
  keys::RelayKeys keys;
  std::unique_ptr<OrPort> or_port;
  std::shared_ptr<DescriptorPublisher> publisher;
};

// Authorities as tor-form DirAuthority lines give them: peers named by
// v3ident and DirPort, each signing tor's consensus.
struct Network : Loop {
  test::procs::TempDir tmp;
  std::deque<Authority> auths;
  std::deque<Relay> relays;
  std::vector<AuthorityPeer> peers;
  std::vector<dir::TorVoter> voters;
  std::vector<crypto::RsaFingerprint> v3idents;
  std::vector<tcp::endpoint> auth_dirs;

  explicit Network(int n = 3, ReachabilityProbe probe = {}) {
    const std::uint64_t now = clock.unix_seconds();
    for (int i = 0; i < n; ++i) {
      auto& a = auths.emplace_back();
      auto k = load_or_create_tor_authority_keys(tmp.path() / ("a" + std::to_string(i)), now);
      REQUIRE(k);
      a.tor_keys.emplace(std::move(*k));
      a.server = std::move(DirServer::create(io.get_executor(), kLoopback, a.routes, clock).value());
      const auto ep = a.server->local_endpoint();
      peers.push_back({ep, a.tor_keys->v3ident()});
      voters.push_back({"auth" + std::to_string(i), a.tor_keys->v3ident(), "127.0.0.1", ep.port(), 0, "x@conflux.invalid"});
      v3idents.push_back(a.tor_keys->v3ident());
      auth_dirs.push_back(ep);
    }
    for (auto& a : auths) {
      AuthorityOptions opt;
      opt.params = authority_params(kInterval, true);
      a.state = std::make_unique<AuthorityState>(opt);
      a.tor = std::make_unique<TorAuthorityState>(*a.tor_keys, voters);
      a.routes.set_tor_uploads(&a.state->tor_uploads());
      a.routes.set_tor_authority(a.tor.get());
      AuthorityServiceOptions so;
      so.authorities = peers;
      so.tick = 50ms;
      so.signature_retry = 100ms;
      so.tor = a.tor.get();
      a.service = AuthorityService::create(io.get_executor(), clock, *a.state, so, probe);  // empty: TLS probe
      a.routes.on_new_relay = [svc = a.service.get()](const crypto::Ed25519Public& id) { svc->probe_soon(id); };
      a.server->start();
      a.service->start();
    }
  }

  // What authority `a` serves now as tor's microdesc consensus, parsed.
  std::optional<dir::TorConsensus> served(std::size_t a) {
    auto text = auths[a].tor->consensus(clock.unix_seconds());
    if (!text) return std::nullopt;
    auto c = dir::parse_tor_consensus(*text);
    if (!c) return std::nullopt;
    return std::move(*c);
  }

  Relay& add_relay(std::uint8_t n, std::string policy, bool bridge, DirRoutes* bridge_routes = nullptr) {
    auto& r = relays.emplace_back(Relay{keys::RelayKeys::generate(clock.unix_seconds()), {}, {}});
    r.or_port = std::make_unique<OrPort>(io, r.keys);
    RelayInfo info = relay_info(n, r.or_port->acceptor.local_endpoint().port(), std::move(policy));
    info.bridge = bridge;
    PublisherOptions po;
    po.authorities = auth_dirs;  // a bridge has them too, and must not use them
    po.retry_initial = 100ms;
    po.build_tor = [info, &k = r.keys](std::uint64_t now) { return tor_descriptor(info, k, now); };
    r.publisher = DescriptorPublisher::create(io.get_executor(), clock, info, po);
    if (bridge_routes != nullptr)
      r.publisher->on_descriptor = [bridge_routes, &k = r.keys](const std::string& t) {
        bridge_routes->set_tor_self_descriptor(t, bytes::to_hex(k.rsa_fingerprint(), true));
      };
    r.publisher->start();
    return r;
  }

  ~Network() {
    for (auto& a : auths) {
      a.service->stop();
      a.server->stop();
    }
    for (auto& r : relays) r.publisher->stop();
  }
};

bool lists(const dir::Consensus& c, const crypto::Ed25519Public& id) {
  for (const auto& r : c.body.routers)
    if (r.identity == id) return true;
  return false;
}

const dir::TorRouterStatus* entry_of(const dir::TorConsensus& c, const keys::RelayKeys& k) {
  for (const auto& r : c.routers)
    if (r.identity == k.rsa_fingerprint()) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("three authorities publish tor's consensus, majority-signed, of the relays that uploaded", "[dirnet]") {
  Network net;
  for (std::uint8_t i = 1; i <= 4; ++i) net.add_relay(i, i == 1 ? "accept 80,443" : "reject 1-65535", false);

  DirRoutes bridge_routes;
  Relay& bridge = net.add_relay(9, "reject 1-65535", true, &bridge_routes);
  auto bridge_server = DirServer::create(net.io.get_executor(), kLoopback, bridge_routes, net.clock).value();
  bridge_server->start();

  // Until every authority serves a consensus, signed by >= 2 of 3, listing
  // all four. Waiting for one only is a race: the client below picks an
  // authority at random, and another may still serve the previous period's
  // consensus, valid and signed, from before the relays uploaded.
  std::optional<dir::TorConsensus> found;
  REQUIRE(net.run_until(
      [&] {
        found.reset();
        for (std::size_t a = 0; a < net.auths.size(); ++a) {
          auto c = net.served(a);
          if (!c || c->signatures.size() < 2 || c->routers.size() != 4) return false;
          if (!found) found = std::move(c);
        }
        return true;
      },
      25s));
  const std::uint64_t now = net.clock.unix_seconds();
  auto certs = dir::parse_key_certs(net.auths[0].tor->key_certs());
  REQUIRE(certs);
  auto counted = dir::verify_tor_consensus(*found, *certs, net.v3idents, now);
  REQUIRE(counted);
  CHECK(*counted >= 2);
  for (std::size_t i = 0; i < 4; ++i) {
    const dir::TorRouterStatus* e = entry_of(*found, net.relays[i].keys);
    REQUIRE(e != nullptr);
    for (const char* f : {"Running", "Valid", "Fast", "Stable", "Guard"}) CHECK(e->has_flag(f));
    CHECK(e->has_flag("Exit") == (i == 0));
    CHECK(e->bandwidth == 1000);  // KB/s from min(rate, observed)
    CHECK(e->or_port == net.relays[i].or_port->acceptor.local_endpoint().port());
  }
  CHECK(entry_of(*found, bridge.keys) == nullptr);
  CHECK(bridge.publisher->upload_attempts() == 0);
  for (std::size_t i = 0; i < 4; ++i) CHECK(net.relays[i].publisher->uploads_accepted() == 3);

  // A client fetches and verifies it (authorities tried in random order),
  // with the certificates and microdescriptors it names.
  ConsensusQuery q;
  q.sources = net.auth_dirs;
  q.tor_authorities = net.v3idents;
  TorDirCache cache;
  auto fetched = net.await(fetch_tor_consensus(q, net.clock, 0, cache));
  REQUIRE(fetched);
  CHECK(fetched->body.routers.size() == 4);
  CHECK_FALSE(lists(*fetched, bridge.keys.identity()));
  CHECK(lists(*fetched, net.relays[0].keys.identity()));
  // With the wrong authority set it does not verify.
  ConsensusQuery strangers = q;
  strangers.tor_authorities = {crypto::RsaFingerprint{}, crypto::RsaFingerprint{1}};
  TorDirCache stranger_cache;
  auto refused = net.await(fetch_tor_consensus(strangers, net.clock, 0, stranger_cache));
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == FetchErrc::Invalid);

  // The long-running fetcher gets one too, and then a newer one.
  auto fetcher = ConsensusFetcher::create(net.io.get_executor(), net.clock, q, {100ms, 1s, 100ms});
  std::vector<std::uint64_t> seen_va;
  fetcher->on_consensus = [&](const dir::Consensus& c) { seen_va.push_back(c.body.valid_after); };
  fetcher->start();
  REQUIRE(net.run_until([&] { return seen_va.size() >= 2; }, 15s));
  CHECK(seen_va[1] > seen_va[0]);
  fetcher->stop();

  // The bridge's tor descriptor comes from the bridge, at tor's path for a relay's own.
  const tcp::endpoint bridge_dir = bridge_server->local_endpoint();
  const HttpLimits limits{5000ms, 8192, 1 << 20};
  auto bd = net.await(http_get(bridge_dir, "/tor/server/authority", limits));
  REQUIRE(bd);
  REQUIRE(bd->status == 200);
  auto bridge_desc = dir::parse_tor_server_descriptor(bd->body, net.clock.unix_seconds());
  REQUIRE(bridge_desc);
  CHECK(bridge_desc->ed25519_identity == bridge.keys.identity());
  CHECK(bridge_desc->rsa_identity == bridge.keys.rsa_fingerprint());
  // The JSON self descriptor retired.
  auto json_self = net.await(http_get(bridge_dir, "/conflux/v1/descriptor/self", limits));
  REQUIRE(json_self);
  CHECK(json_self->status == 404);

  // Garbage and forgeries get 400 and the DirPort keeps serving.
  const tcp::endpoint a0 = net.auth_dirs[0];
  auto garbage = net.await(http_post(a0, "/tor/", "\x01\x02 not a descriptor", limits, "text/plain"));
  REQUIRE(garbage);
  CHECK(garbage->status == 400);
  auto raw = net.await(raw_exchange(a0, std::string(300, '\xff') + "\r\n\r\n"));
  CHECK(raw.rfind("HTTP/1.1 400", 0) == 0);
  std::string forged = net.relays[1].publisher->descriptor_text();
  const auto at = forged.find("\nreject *:*\n");
  REQUIRE(at != std::string::npos);
  forged.replace(at, 12, "\naccept *:*\n");  // claims to be an exit, after signing
  auto refused_upload = net.await(http_post(a0, "/tor/", forged, limits, "text/plain"));
  REQUIRE(refused_upload);
  CHECK(refused_upload->status == 400);
  // Our JSON descriptor's upload path retired.
  auto json_upload = net.await(http_post(a0, "/conflux/v1/descriptor", "{}", limits));
  REQUIRE(json_upload);
  CHECK(json_upload->status == 404);

  // What the authorities list next still has neither the bridge nor the
  // forged policy.
  const std::uint64_t later = net.clock.unix_seconds() + kInterval;
  std::optional<dir::TorConsensus> relisted;
  REQUIRE(net.run_until(
      [&] {
        relisted = net.served(0);
        return relisted && relisted->valid_after >= later - later % kInterval;
      },
      10s));
  CHECK(relisted->routers.size() == 4);
  CHECK(entry_of(*relisted, bridge.keys) == nullptr);
  REQUIRE(entry_of(*relisted, net.relays[1].keys) != nullptr);
  CHECK_FALSE(entry_of(*relisted, net.relays[1].keys)->has_flag("Exit"));
  bridge_server->stop();
}

TEST_CASE("a DirPort bounds paths, methods, sizes, connections and time", "[dirnet]") {
  Loop loop;
  const auto k = keys::RelayKeys::generate(loop.clock.unix_seconds());
  AuthorityOptions opt;
  opt.params = authority_params(kInterval, true);
  AuthorityState state(opt);
  DirRoutes routes;
  routes.set_tor_uploads(&state.tor_uploads());
  DirServerLimits lim;
  lim.max_connections = 2;
  lim.max_header = 1024;
  lim.timeout = 300ms;
  auto server = DirServer::create(loop.io.get_executor(), kLoopback, routes, loop.clock, lim).value();
  server->start();
  const tcp::endpoint at = server->local_endpoint();
  const HttpLimits hl{3000ms, 8192, 1 << 20};

  auto r = loop.await(http_get(at, "/robots.txt", hl));
  REQUIRE(r);
  CHECK(r->status == 404);
  r = loop.await(http_get(at, "/tor/", hl));
  REQUIRE(r);
  CHECK(r->status == 405);
  r = loop.await(http_get(at, "/conflux/v1/consensus", hl));
  REQUIRE(r);
  CHECK(r->status == 404);  // the JSON consensus retired at the authority
  // A body above the path's cap: refused from its Content-Length, unread.
  r = loop.await(http_post(at, "/tor/", std::string(kMaxTorUploadBody + 1, 'r'), hl, "text/plain"));
  REQUIRE(r);
  CHECK(r->status == 413);
  // Chunked, so the cap is found while reading.
  std::string chunked = "POST /tor/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 72; ++i) chunked += "400\r\n" + std::string(0x400, 'y') + "\r\n";
  chunked += "0\r\n\r\n";
  CHECK(loop.await(raw_exchange(at, chunked)).rfind("HTTP/1.1 413", 0) == 0);
  // A header above the cap.
  CHECK(loop.await(raw_exchange(at, "GET / HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n"))
            .rfind("HTTP/1.1 431", 0) == 0);
  // Expect: 100-continue is honoured.
  const auto desc = tor_descriptor(relay_info(1, 9001, "reject 1-65535"), k, loop.clock.unix_seconds());
  auto cont = loop.await(raw_exchange(at, "POST /tor/ HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                                          "Content-Length: " + std::to_string(desc.size()) + "\r\n\r\n" + desc));
  CHECK(cont.rfind("HTTP/1.1 100 Continue", 0) == 0);
  CHECK(cont.find("HTTP/1.1 200 Descriptor accepted") != std::string::npos);

  // Two idle connections fill the server; a third is closed at once; the
  // idle ones are closed at the deadline, and then it serves again.
  tcp::socket idle1(loop.io), idle2(loop.io);
  idle1.connect(at);
  idle2.connect(at);
  REQUIRE(loop.run_until([&] { return server->active_connections() == 2; }, 2s));
  auto third = loop.await(raw_exchange(at, "GET /conflux/v1/consensus HTTP/1.1\r\n\r\n"));
  CHECK(third.empty());
  CHECK(server->refused_connections() == 1);
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(loop.run_until([&] { return server->active_connections() == 0; }, 5s));
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
  r = loop.await(http_get(at, "/", hl));
  REQUIRE(r);
  CHECK(r->status == 404);
  CHECK(routes.counters().ok == 1);
  server->stop();
}

TEST_CASE("the reachability probe is pluggable, a lone authority is its own majority", "[dirnet]") {
  // No ORPort listeners at all: the injected probe decides. Relay 2 is
  // never reachable, so never Running, so never listed.
  std::vector<std::uint16_t> unreachable_ports;
  std::size_t probed = 0;
  Network net(1, [&](const ProbeTarget& d) -> net::awaitable<bool> {
    ++probed;
    for (auto p : unreachable_ports)
      if (p == d.or_port) co_return false;
    co_return true;
  });
  for (std::uint8_t i = 1; i <= 3; ++i) net.add_relay(i, "accept 80,443", false);
  unreachable_ports.push_back(net.relays[1].or_port->acceptor.local_endpoint().port());
  std::vector<std::uint64_t> built;
  net.auths[0].service->on_built = [&](std::uint64_t va) { built.push_back(va); };

  std::optional<dir::TorConsensus> c;
  REQUIRE(net.run_until(
      [&] {
        c = net.served(0);
        return c && c->routers.size() == 2;
      },
      15s));
  CHECK(c->signatures.size() == 1);
  auto certs = dir::parse_key_certs(net.auths[0].tor->key_certs());
  REQUIRE(certs);
  CHECK(dir::verify_tor_consensus(*c, *certs, net.v3idents, net.clock.unix_seconds()));
  CHECK(entry_of(*c, net.relays[1].keys) == nullptr);
  CHECK(entry_of(*c, net.relays[0].keys) != nullptr);
  CHECK(entry_of(*c, net.relays[2].keys) != nullptr);
  for (const auto& r : c->routers) CHECK(r.has_flag("Exit"));
  CHECK(probed >= 3);
  CHECK(net.auths[0].service->probes_run() >= 3);
  REQUIRE_FALSE(built.empty());
  CHECK(built.back() % kInterval == 0);
}
