// Three authorities of ours given stock tor 0.4.9 server descriptors (the
// recorded ones of tor_stock_descriptors.hpp, at their time), over real
// sockets on 127.0.0.1: they sign tor's consensus in both flavors, and one
// whose view differed adopts the majority's.
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
#include "conflux/dirnet/authority_service.hpp"
#include "conflux/dirnet/dir_server.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "dirnet_test_authority.hpp"
#include "test_net_processes_support.hpp"
#include "tor_stock_descriptors.hpp"

using namespace conflux;
using namespace conflux::dirnet;
using namespace std::chrono_literals;
using namespace conflux::test::tordata;
namespace asio = net::asio;

namespace {

const tcp::endpoint kLoopback(asio::ip::make_address("127.0.0.1"), 0);

}  // namespace

namespace {

using TorOnlyAuthority = test::DirnetAuthority;

// Three authorities as in Network, at the stock descriptors' time.
struct TorOnlyNetwork {
  asio::io_context io;
  StockTimeClock clock;
  test::procs::TempDir tmp;
  std::deque<TorOnlyAuthority> auths;
  std::vector<AuthorityPeer> peers;
  std::vector<dir::TorVoter> voters;

  TorOnlyNetwork() {
    const std::uint64_t made = kStockPublished - 3600;
    for (int i = 0; i < 3; ++i) {
      auto& a = auths.emplace_back();
      auto k = load_or_create_tor_authority_keys(tmp.path() / ("a" + std::to_string(i)), made);
      REQUIRE(k);
      a.tor_keys.emplace(std::move(*k));
      a.server = std::move(DirServer::create(io.get_executor(), kLoopback, a.routes, clock).value());
      const auto ep = a.server->local_endpoint();
      peers.push_back({ep, a.tor_keys->v3ident()});
      voters.push_back({"auth" + std::to_string(i), a.tor_keys->v3ident(), "127.0.0.1", ep.port(), 0, "x@conflux.invalid"});
    }
    for (auto& a : auths) {
      AuthorityOptions opt;
      opt.params = authority_params(4, true);
      a.state = std::make_unique<AuthorityState>(opt);
      a.tor = std::make_unique<TorAuthorityState>(*a.tor_keys, voters);
      a.routes.set_tor_uploads(&a.state->tor_uploads());
      a.routes.set_tor_authority(a.tor.get());
    }
  }

  void start() {
    for (auto& a : auths) {
      AuthorityServiceOptions so;
      so.authorities = peers;
      so.tick = 50ms;
      so.signature_retry = 100ms;
      so.tor = a.tor.get();
      a.service = AuthorityService::create(io.get_executor(), clock, *a.state, so,
                                           [](const ProbeTarget&) -> net::awaitable<bool> { co_return true; });
      a.server->start();
      a.service->start();
    }
  }

  ~TorOnlyNetwork() {
    for (auto& a : auths) {
      if (a.service) a.service->stop();
      a.server->stop();
    }
  }
};

}  // namespace

TEST_CASE("authorities given stock descriptors sign tor's consensus, one that differed adopts the majority's",
          "[dirnet][tor]") {
  TorOnlyNetwork net;
  const auto descs = stock_descriptors();
  REQUIRE(descs.size() >= 4);
  const std::uint64_t now = net.clock.unix_seconds();
  // auth0 and auth1 hold four relays, auth2 only three: its body, so its
  // document, differs, and 2 of 3 is the majority.
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t a = 0; a < 3; ++a) {
      if (a == 2 && i == 3) continue;
      REQUIRE(net.auths[a].routes.handle(HttpMethod::Post, "/tor/", descs[i], now).reason == "Descriptor accepted");
    }
  net.start();

  std::vector<std::string> served(3), served_ns(3);
  REQUIRE(test::procs::run_until(
      net.io,
      [&] {
        for (std::size_t a = 0; a < 3; ++a) {
          served[a] = net.auths[a].tor->consensus(now).value_or("");
          served_ns[a] = net.auths[a].tor->ns_consensus(now).value_or("");
        }
        return std::none_of(served.begin(), served.end(), [](const auto& t) { return t.empty(); }) &&
               std::none_of(served_ns.begin(), served_ns.end(), [](const auto& t) { return t.empty(); });
      },
      15s));
  // auth2 serves the majority's document (fetched at mid-interval), not its own.
  CHECK(served[0] == served[1]);
  CHECK(served[2] == served[0]);
  auto c = dir::parse_tor_consensus(served[2]);
  REQUIRE(c);
  CHECK(c->routers.size() == 4);
  std::vector<crypto::RsaFingerprint> trusted;
  for (const auto& v : net.voters) trusted.push_back(v.v3ident);
  auto certs = dir::parse_key_certs(net.auths[2].tor->key_certs());
  REQUIRE(certs);
  auto counted = dir::verify_tor_consensus(*c, *certs, trusted, now);
  REQUIRE(counted);
  CHECK(*counted == 2);
  // Its microdescriptors came along: every "m" is served by auth2 too.
  for (const auto& r : c->routers)
    CHECK_FALSE(net.auths[2].tor->microdescs({bytes::base64_encode(r.microdesc_digest)}).empty());
  // No JSON consensus is served.
  for (auto& a : net.auths) CHECK(a.routes.handle(HttpMethod::Get, "/conflux/v1/consensus", "", now).status == 404);
  // Only tor's signatures travelled: at most auth0's and auth1's to each
  // other, one per flavor (a 409 for another or a not yet built document
  // is not counted).
  std::uint64_t delivered = 0;
  for (auto& a : net.auths) delivered += a.service->signatures_delivered();
  CHECK(delivered <= 4);

  // The ns flavor likewise: auth2 adopted the majority's, which names each
  // relay's tor descriptor by its digest, and /tor/server/d/ serves them.
  CHECK(served_ns[0] == served_ns[1]);
  CHECK(served_ns[2] == served_ns[0]);
  auto ns = dir::parse_tor_consensus(served_ns[2]);
  REQUIRE(ns);
  CHECK(ns->flavor == dir::ConsensusFlavor::Ns);
  REQUIRE(ns->routers.size() == 4);
  auto ns_counted = dir::verify_tor_consensus(*ns, *certs, trusted, now);
  REQUIRE(ns_counted);
  CHECK(*ns_counted == 2);
  for (const auto& r : ns->routers) {
    const auto got = net.auths[0].routes.handle(
        HttpMethod::Get, std::string(dir::kTorServerDPrefix) + bytes::to_hex(r.descriptor_digest), "", now);
    REQUIRE(got.status == 200);
    auto d = dir::parse_tor_server_descriptor(got.body, now);
    REQUIRE(d);
    CHECK(d->rsa_identity == r.identity);
  }
}
