// A first hop named only by its RSA fingerprint (tor's Bridge and FallbackDir
// lines): ClientLink checks the fingerprint against the relay's CERTS cell
// and learns its Ed25519 identity from the same cell; LinkPool then finds the
// link by either identity. A relay of ours on 127.0.0.1 is the peer.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "conflux/client/link_pool.hpp"
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;
namespace asio = boost::asio;

namespace {

struct LinkUnderTest {
  asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler;
  std::unique_ptr<net::ClientLink> link;
  bool opened = false;
  bool closed = false;

  LinkUnderTest(asio::io_context& io, const net::Clock& clock) : scheduler(io, clock, nullptr) {
    net::ClientLink::Callbacks cb;
    cb.on_open = [this] { opened = true; };
    cb.on_closed = [this](std::string_view) { closed = true; };
    link = std::make_unique<net::ClientLink>(io, tls, scheduler, clock, std::move(cb), net::ClientLink::Options{});
  }
};

client::CircuitInfo one_hop(const client::LinkPool::Identity& ed, std::optional<crypto::RsaFingerprint> rsa) {
  client::CircuitInfo info;
  client::PathHop hop;
  std::copy(ed.begin(), ed.end(), hop.target.identity.begin());
  if (rsa) hop.target.link_specs.push_back(cell::LinkSpecLegacyId{*rsa});
  hop.nickname = "relay";
  info.path.push_back(std::move(hop));
  info.one_hop_fast = true;
  return info;
}

std::string report_text(const client::LinkPool::LinkReport& r) {
  using S = client::LinkPool::LinkReport::Status;
  const char* status = r.status == S::Launched    ? "LAUNCHED"
                       : r.status == S::Connected ? "CONNECTED"
                       : r.status == S::Failed    ? "FAILED"
                                                  : "CLOSED";
  std::string out = std::to_string(r.id) + " " + status;
  if (!r.reason.empty()) out += " " + std::string(r.reason);
  return out;
}

client::LinkPool::Identity ed_of(const TestRelay& relay) {
  client::LinkPool::Identity id{};
  std::copy(relay.keys.identity().begin(), relay.keys.identity().end(), id.begin());
  return id;
}

}  // namespace

TEST_CASE("a link named by the right RSA fingerprint opens and learns the Ed25519 identity", "[net][rsa]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  LinkUnderTest client(io, clock);
  client.link->connect({relay.endpoint}, net::ClientLink::Expected{std::nullopt, relay.keys.rsa_fingerprint()});
  REQUIRE(run_until(io, [&] { return client.opened || client.closed; }));
  INFO(client.link->close_reason());
  REQUIRE(client.link->is_open());
  REQUIRE(client.link->peer_identity().has_value());
  CHECK(*client.link->peer_identity() == relay.keys.identity());
  CHECK(client.link->peer_rsa_identity() == std::optional(relay.keys.rsa_fingerprint()));
}

TEST_CASE("a link named by a wrong RSA fingerprint closes as an identity mismatch", "[net][rsa]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  LinkUnderTest client(io, clock);
  auto wrong = relay.keys.rsa_fingerprint();
  wrong[7] ^= 0x40;
  SECTION("RSA fingerprint alone") {
    client.link->connect({relay.endpoint}, net::ClientLink::Expected{std::nullopt, wrong});
  }
  SECTION("the right Ed25519 identity with a wrong RSA fingerprint") {
    client.link->connect({relay.endpoint}, net::ClientLink::Expected{relay.keys.identity(), wrong});
  }
  REQUIRE(run_until(io, [&] { return client.opened || client.closed; }));
  CHECK_FALSE(client.opened);
  CHECK(client.link->state() == net::ClientLink::State::Closed);
  REQUIRE(client.link->failure().has_value());
  CHECK(*client.link->failure() == proto::LinkFailure::IdentityMismatch);
  CHECK_FALSE(client.link->peer_identity().has_value());
}

TEST_CASE("LinkPool: a first hop named by RSA fingerprint is found afterwards by its Ed25519 identity", "[proxy][rsa]") {
  asio::io_context io;
  net::SystemClock clock;
  TestRelay relay(io, clock, net::ChannelManagerConfig{});
  asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler(io, clock, nullptr);
  std::vector<client::LinkPool::Peer> opened;
  std::vector<std::string> reports;  // "ID STATUS [REASON]", as ORCONN tells them
  client::LinkPool::Hooks hooks;
  hooks.link_open = [&](const client::LinkPool::Peer& p) { opened.push_back(p); };
  hooks.report = [&](const client::LinkPool::LinkReport& r) { reports.push_back(report_text(r)); };
  client::LinkPool pool(io, tls, scheduler, clock, net::ClientLink::Options{}, std::move(hooks), {});

  int built = 0;
  int closed = 0;
  client::Circuit::Hooks ch;
  ch.built = [&](client::Circuit&) { ++built; };
  ch.closed = [&](client::Circuit&, std::string_view) { ++closed; };
  const client::LinkPool::Identity unknown{};
  auto* first = pool.launch(one_hop(unknown, relay.keys.rsa_fingerprint()), {relay.endpoint}, ch);
  REQUIRE(first != nullptr);
  REQUIRE(run_until(io, [&] { return built == 1 || closed > 0; }));
  REQUIRE(built == 1);
  REQUIRE(opened.size() == 1);
  REQUIRE(opened[0].ed25519.has_value());
  CHECK(*opened[0].ed25519 == ed_of(relay));  // learned from the CERTS cell
  CHECK(opened[0].rsa == std::optional(relay.keys.rsa_fingerprint()));

  // Named the other way now: the same link carries it.
  auto* second = pool.launch(one_hop(ed_of(relay), std::nullopt), {relay.endpoint}, ch);
  REQUIRE(second != nullptr);
  REQUIRE(run_until(io, [&] { return built == 2 || closed > 0; }));
  CHECK(built == 2);
  CHECK(pool.links_open() == 1);
  CHECK(opened.size() == 1);
  CHECK(pool.circuits() == 2);

  // Another relay's fingerprint with this relay's Ed25519 identity names no
  // link we have: a new one is tried, and refused by the handshake.
  auto wrong = relay.keys.rsa_fingerprint();
  wrong[0] ^= 1;
  auto* third = pool.launch(one_hop(ed_of(relay), wrong), {relay.endpoint}, ch);
  REQUIRE(third != nullptr);
  REQUIRE(run_until(io, [&] { return closed == 1; }));
  CHECK(built == 2);
  CHECK(pool.links_open() == 1);
  pool.close_all();
  CHECK(run_until(io, [&] { return closed == 3; }));
  CHECK(reports == std::vector<std::string>{"1 LAUNCHED", "1 CONNECTED", "2 LAUNCHED", "2 FAILED IDENTITY",
                                            "1 CLOSED DONE"});
}

TEST_CASE("LinkPool: a first hop that refuses the connection is reported FAILED CONNECTREFUSED", "[proxy]") {
  asio::io_context io;
  net::SystemClock clock;
  asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler(io, clock, nullptr);
  std::vector<std::string> reports;
  client::LinkPool::Hooks hooks;
  hooks.report = [&](const client::LinkPool::LinkReport& r) { reports.push_back(report_text(r)); };
  client::LinkPool pool(io, tls, scheduler, clock, net::ClientLink::Options{}, std::move(hooks), {});
  // A port nothing listens on: bound, then closed.
  asio::ip::tcp::endpoint closed_port;
  {
    asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    closed_port = a.local_endpoint();
  }
  client::LinkPool::Identity some{};
  some[0] = 1;
  int closed = 0;
  client::Circuit::Hooks ch;
  ch.closed = [&](client::Circuit&, std::string_view) { ++closed; };
  REQUIRE(pool.launch(one_hop(some, std::nullopt), {closed_port}, ch) != nullptr);
  REQUIRE(run_until(io, [&] { return closed == 1; }));
  CHECK(reports == std::vector<std::string>{"1 LAUNCHED", "1 FAILED CONNECTREFUSED"});
}

TEST_CASE("LinkPool: Peer::same_as", "[proxy][rsa]") {
  client::LinkPool::Peer a{client::LinkPool::Identity{1}, std::nullopt};
  client::LinkPool::Peer b{std::nullopt, crypto::RsaFingerprint{2}};
  client::LinkPool::Peer both{client::LinkPool::Identity{1}, crypto::RsaFingerprint{2}};
  client::LinkPool::Peer other_rsa{client::LinkPool::Identity{1}, crypto::RsaFingerprint{3}};
  CHECK_FALSE(a.same_as(b));  // nothing known to both
  CHECK(a.same_as(both));
  CHECK(b.same_as(both));
  CHECK_FALSE(both.same_as(other_rsa));
  CHECK(a.same_as(other_rsa));
  CHECK_FALSE(client::LinkPool::Peer{}.same_as(client::LinkPool::Peer{}));
}
