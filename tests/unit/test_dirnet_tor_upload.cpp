// A relay's own descriptor in tor's form: DirRoutes serves it where tor
// serves its own (/tor/server/authority, /tor/server/fp/FP), and the
// publisher in tor's form POSTs it to /tor/ as text/plain, reading tor's
// answer ("HTTP/1.0 200 OK", or 400 with the reason in the status line).
// An authority of ours takes such uploads (TorDescriptorStore) and answers
// as tor's do, the reason in the status line; once it found the relay
// reachable, the relay is in its consensus, JSON and tor's.
#include <catch2/catch.hpp>
#include <chrono>
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/paths.hpp"
#include "conflux/dir/tor_consensus.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/dir/tor_consensus_make.hpp"
#include "conflux/dir/tor_microdesc.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/descriptor_publisher.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/dirnet/dir_server.hpp"
#include "conflux/dirnet/tor_descriptor_store.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "test_net_processes_support.hpp"
#include "tor_stock_descriptors.hpp"

using namespace conflux;
using namespace conflux::dirnet;
using namespace std::chrono_literals;
using namespace conflux::test::tordata;
namespace asio = net::asio;
using net::use_nothrow;
using test::procs::run_until;

namespace {

const std::string kFp = "509139AE71FFE953CA2504D1437129D50F4B8FB7";

// One tor authority's DirPort for one upload: keeps the request, answers
// with `status_line`.
struct TorDirPort {
  tcp::acceptor acceptor;
  std::string status_line;
  std::optional<std::string> request;

  TorDirPort(asio::io_context& io, std::string status)
      : acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), status_line(std::move(status)) {
    asio::co_spawn(io, serve(), asio::detached);
  }
  net::awaitable<void> serve() {
    auto [ec, s] = co_await acceptor.async_accept(use_nothrow);
    if (ec) co_return;
    std::string in;
    auto [rec, head] = co_await asio::async_read_until(s, asio::dynamic_buffer(in), "\r\n\r\n", use_nothrow);
    if (rec) co_return;
    const auto cl = in.find("Content-Length: ");
    const std::size_t body = cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16));
    if (in.size() < head + body) {
      auto [bec, n] = co_await asio::async_read(s, asio::dynamic_buffer(in), asio::transfer_exactly(head + body - in.size()),
                                                use_nothrow);
      if (bec) co_return;
    }
    request = in;
    const std::string answer = status_line + "\r\n\r\n";  // tor's: HTTP/1.0, no body
    (void)co_await asio::async_write(s, asio::buffer(answer), use_nothrow);
  }
};

}  // namespace

TEST_CASE("an authority of ours takes tor descriptors at POST /tor/ and answers as tor's do", "[dirnet][tor]") {
  const auto descs = stock_descriptors();
  REQUIRE(descs.size() >= 2);
  const std::uint64_t now = kStockPublished + 60;
  DirRoutes routes;
  CHECK(routes.handle(HttpMethod::Post, "/tor/", descs[0], now).status == 404);  // not an authority
  TorDescriptorStore store(1);
  routes.set_tor_uploads(&store);
  CHECK(routes.handle(HttpMethod::Get, "/tor/server/all", "", now).status == 404);  // nothing yet
  CHECK(routes.handle(HttpMethod::Get, "/tor/", "", now).status == 405);

  const auto ok = routes.handle(HttpMethod::Post, "/tor/", descs[0], now);
  CHECK(ok.status == 200);
  CHECK(ok.reason == "Descriptor accepted");
  CHECK_FALSE(ok.descriptor_not_new);
  CHECK(routes.handle(HttpMethod::Get, "/tor/server/all", "", now).body == descs[0]);
  const auto again = routes.handle(HttpMethod::Post, "/tor/", descs[0], now);
  CHECK(again.status == 200);
  CHECK(again.descriptor_not_new);
  CHECK(again.reason.starts_with("Not replacing router descriptor"));
  CHECK(store.size() == 1);

  CHECK(routes.handle(HttpMethod::Post, "/tor/", descs[1], now).status == 503);  // the store is full
  CHECK(routes.handle(HttpMethod::Post, "/tor/", "hello\n", now).reason == "No descriptors found in your POST.");
  std::string forged = descs[1];
  forged.replace(forged.find("127.0.0.1"), 9, "127.0.0.2");
  const auto bad = routes.handle(HttpMethod::Post, "/tor/", forged, now);
  CHECK(bad.status == 400);
  CHECK(bad.reason.starts_with("Couldn't parse router descriptor: "));
  // Published more than a day ago, or more than 12 hours ahead.
  TorDescriptorStore fresh;
  CHECK(fresh.accept(descs[1], kStockPublished + 86400 + 60).reason.starts_with("Rejected: Server is expired"));
  CHECK(fresh.accept(descs[1], kStockPublished - 12 * 3600 - 60).status == 400);
  CHECK(fresh.size() == 0);
  CHECK(routes.handle(HttpMethod::Post, "/tor/", std::string(kMaxTorUploadBody + 1, 'x'), now).status == 413);
  CHECK(fresh.accept("router " + std::string(dir::kMaxTorServerDescriptorSize, 'x'), now).reason ==
        "Router descriptor was too large.");
}

TEST_CASE("a tor-form publisher's upload to an authority of ours: 200 Descriptor accepted in the status line",
          "[dirnet][tor]") {
  asio::io_context io;
  StockTimeClock clock;
  DirRoutes routes;
  TorDescriptorStore store;
  routes.set_tor_uploads(&store);
  auto server = DirServer::create(io.get_executor(), {asio::ip::make_address("127.0.0.1"), 0}, routes, clock);
  REQUIRE(server);
  (*server)->start();
  const auto descs = stock_descriptors();
  PublisherOptions po;
  po.authorities = {(*server)->local_endpoint()};
  po.build_tor = [&](std::uint64_t) { return descs[0]; };
  RelayInfo info;
  info.nickname = "middle1";
  info.ipv4 = {127, 0, 0, 1};
  info.or_port = 19006;
  auto publisher = DescriptorPublisher::create(io.get_executor(), clock, info, po);
  std::vector<std::string> answers;
  publisher->on_tor_answer = [&](bool accepted, bool, const std::string& line) { answers.push_back((accepted ? "+" : "-") + line); };
  publisher->start();
  REQUIRE(run_until(io, [&] { return publisher->uploads_accepted() + publisher->uploads_refused() == 1; }, 10s));
  publisher->stop();
  (*server)->stop();
  REQUIRE(answers.size() == 1);
  CHECK(answers[0] == "+Descriptor upload to authority 127.0.0.1:" + std::to_string(po.authorities[0].port()) +
                          ": 200 Descriptor accepted");
  CHECK(store.size() == 1);
}

TEST_CASE("DirRoutes serves the relay's tor descriptor at tor's paths for it", "[dirnet][tor]") {
  DirRoutes routes;
  CHECK(routes.handle(HttpMethod::Get, "/tor/server/authority", "", 0).status == 404);  // none yet
  routes.set_tor_self_descriptor("router ours1 127.0.0.1 9001 0 0\n...", kFp);
  for (const std::string& path : std::vector<std::string>{"/tor/server/authority", "/tor/server/fp/" + kFp,
                                 "/tor/server/fp/509139ae71ffe953ca2504d1437129d50f4b8fb7",
                                 "/tor/server/fp/" + std::string(40, 'A') + "+" + kFp}) {
    INFO(path);
    const auto r = routes.handle(HttpMethod::Get, path, "", 0);
    CHECK(r.status == 200);
    CHECK(r.body == "router ours1 127.0.0.1 9001 0 0\n...");
  }
  CHECK(routes.handle(HttpMethod::Get, "/tor/server/fp/" + std::string(40, 'A'), "", 0).status == 404);
  CHECK(routes.handle(HttpMethod::Get, "/tor/server/all", "", 0).status == 404);
  CHECK(routes.handle(HttpMethod::Post, "/tor/server/authority", "x", 0).status == 405);
}

TEST_CASE("the publisher in tor's form POSTs tor's descriptor to /tor/ of each authority", "[dirnet][tor]") {
  asio::io_context io;
  net::SystemClock clock;
  TorDirPort accepts(io, "HTTP/1.0 200 OK");
  TorDirPort refuses(io, "HTTP/1.0 400 Invalid descriptor");
  PublisherOptions po;
  po.authorities = {accepts.acceptor.local_endpoint(), refuses.acceptor.local_endpoint()};
  std::uint64_t built_at = 0;
  po.build_tor = [&](std::uint64_t now) {
    built_at = now;
    return std::string("router ours1 127.0.0.1 9001 0 0\ntor form\n");
  };
  RelayInfo info;
  info.nickname = "ours1";
  info.ipv4 = {127, 0, 0, 1};
  info.or_port = 9001;
  auto publisher = DescriptorPublisher::create(io.get_executor(), clock, info, po);
  std::vector<std::string> answers;
  publisher->on_tor_answer = [&](bool accepted, bool answered, const std::string& line) {
    CHECK(answered);
    answers.push_back((accepted ? "+" : "-") + line);
  };
  publisher->start();
  REQUIRE(run_until(io, [&] { return publisher->uploads_accepted() + publisher->uploads_refused() == 2; }, 10s));
  publisher->stop();
  CHECK(publisher->uploads_accepted() == 1);
  CHECK(publisher->uploads_refused() == 1);  // a 4xx is final for that descriptor
  CHECK(built_at > 0);
  std::sort(answers.begin(), answers.end());
  REQUIRE(answers.size() == 2);
  CHECK(answers[0] == "+Descriptor upload to authority 127.0.0.1:" + std::to_string(accepts.acceptor.local_endpoint().port()) + ": 200 OK");
  CHECK(answers[1] == "-Descriptor upload to authority 127.0.0.1:" + std::to_string(refuses.acceptor.local_endpoint().port()) + ": 400 Invalid descriptor");
  CHECK(publisher->descriptor_text() == "router ours1 127.0.0.1 9001 0 0\ntor form\n");
  for (const auto* port : {&accepts, &refuses}) {
    REQUIRE(port->request.has_value());
    const std::string& req = *port->request;
    CHECK(req.rfind("POST /tor/ HTTP/1.1\r\n", 0) == 0);
    CHECK(req.find("Content-Type: text/plain\r\n") != std::string::npos);
    CHECK(req.substr(req.find("\r\n\r\n") + 4) == "router ours1 127.0.0.1 9001 0 0\ntor form\n");
  }
}

TEST_CASE("the publisher's answers: GOOD_SERVER_DESCRIPTOR's moment is when the last authority accepted",
          "[dirnet][tor]") {
  asio::io_context io;
  net::SystemClock clock;
  PublisherOptions po;
  po.build_tor = [](std::uint64_t) { return std::string("router ours1 127.0.0.1 9001 0 0\ntor form\n"); };
  RelayInfo info;
  info.nickname = "ours1";
  info.ipv4 = {127, 0, 0, 1};
  info.or_port = 9001;
  for (const bool with_refusal : {false, true}) {
    TorDirPort first(io, "HTTP/1.0 200 OK");  // each answers one upload
    TorDirPort second(io, "HTTP/1.0 200 OK");
    TorDirPort refuses(io, "HTTP/1.0 400 Invalid descriptor");
    po.authorities = {first.acceptor.local_endpoint(), second.acceptor.local_endpoint()};
    if (with_refusal) po.authorities.push_back(refuses.acceptor.local_endpoint());
    auto publisher = DescriptorPublisher::create(io.get_executor(), clock, info, po);
    std::vector<DescriptorPublisher::Answer> answers;
    publisher->on_answer = [&](const DescriptorPublisher::Answer& a) { answers.push_back(a); };
    publisher->start();
    REQUIRE(run_until(io, [&] { return answers.size() == po.authorities.size(); }, 10s));
    publisher->stop();
    unsigned ok = 0, good = 0;
    for (const auto& a : answers) {
      ok += a.status == 200 ? 1u : 0u;
      good += a.all_accepted ? 1u : 0u;
      if (a.status != 200) {
        CHECK(a.authority == refuses.acceptor.local_endpoint());
        CHECK(a.status == 400);
        CHECK(a.reason == "Invalid descriptor");
      }
    }
    CHECK(ok == 2);
    // Every authority accepted: once, at the second 200; one refused: never.
    CHECK(good == (with_refusal ? 0u : 1u));
    if (!with_refusal) CHECK(answers.back().all_accepted);
  }
}

namespace {

// An authority of ours alone (its own majority), with a 20-second interval
// as conflux-net's test networks use, at the time the stock descriptors
// were fresh.
struct LoneAuthority {
  AuthorityState state{options()};
  static AuthorityOptions options() {
    AuthorityOptions o;
    o.params = authority_params(20, true);
    return o;
  }
};

const dir::RouterEntry* entry_named(const dir::ConsensusBody& b, std::string_view nick) {
  for (const auto& r : b.routers)
    if (r.nickname == nick) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("a tor descriptor POSTed to an authority of ours enters its consensus once reachable", "[dirnet][tor]") {
  const auto descs = stock_descriptors();
  auto exit0 = dir::parse_tor_server_descriptor(descs[3], kStockPublished + 60);
  REQUIRE(exit0);
  REQUIRE(exit0->nickname == "exit0");
  const std::uint64_t now = kStockPublished + 10;
  const std::uint64_t va = dir::valid_after_for(now, 20);
  LoneAuthority a;
  DirRoutes routes;
  routes.set_tor_uploads(&a.state.tor_uploads());
  std::vector<crypto::Ed25519Public> new_relays;
  routes.on_new_relay = [&](const crypto::Ed25519Public& id) { new_relays.push_back(id); };

  CHECK(routes.handle(HttpMethod::Post, "/tor/", descs[3], now).reason == "Descriptor accepted");
  REQUIRE(new_relays.size() == 1);  // the service tests it at once
  CHECK(new_relays[0] == exit0->ed25519_identity);
  CHECK(routes.handle(HttpMethod::Post, "/tor/", descs[3], now).descriptor_not_new);
  CHECK(new_relays.size() == 1);
  auto targets = a.state.probe_targets();
  REQUIRE(targets.size() == 1);
  CHECK(targets[0].identity == exit0->ed25519_identity);
  CHECK(targets[0].or_port == 19007);

  // Not tested yet: not Running, so not listed.
  (void)a.state.compute(va);
  CHECK(a.state.current()->routers.empty());

  a.state.observe(exit0->ed25519_identity, now, true);
  const dir::ConsensusBody body = a.state.compute(va + 20);
  REQUIRE(body.routers.size() == 1);
  const dir::RouterEntry& e = body.routers[0];
  CHECK(e.nickname == "exit0");
  CHECK(e.identity == exit0->ed25519_identity);
  CHECK(e.rsa_identity == exit0->rsa_identity);
  CHECK(e.ntor_onion_key == exit0->ntor_onion_key);
  CHECK(e.or_port == 19007);
  CHECK(e.exit_policy == "accept 1-65535");
  CHECK(e.protocols == exit0->protocols);
  CHECK(e.bandwidth == 1);  // min(1073741824, 1863) bytes/s, in KB/s
  // Testing thresholds: all six, and V2Dir for stock tor's tunnelled-dir-server.
  CHECK(e.flags == dir::Flags{true, true, true, true, true, true, true});
  CHECK(e.published == exit0->published);
  CHECK(e.descriptor_digest ==
        crypto::sha256({reinterpret_cast<const std::uint8_t*>(exit0->text.data()), exit0->text.size()}));

  // tor's microdesc consensus of that body lists it, with a microdescriptor
  // our parser reads back.
  const dir::TorConsensusDraft draft = dir::make_tor_microdesc_consensus(body, {});
  CHECK(draft.unsigned_text.find("\nr exit0 " + std::string(bytes::base64_encode(exit0->rsa_identity)) + " ") !=
        std::string::npos);
  CHECK(draft.unsigned_text.find("\ns Exit Fast Guard Running Stable V2Dir Valid\n") != std::string::npos);
  REQUIRE(draft.microdescs.size() == 1);
  auto mds = dir::parse_tor_microdescs(draft.microdescs[0]);
  REQUIRE(mds);
  REQUIRE(mds->size() == 1);
  CHECK((*mds)[0].ntor_onion_key == exit0->ntor_onion_key);
  CHECK((*mds)[0].ed25519_id == exit0->ed25519_identity);
  CHECK(dir::format_policy_summary((*mds)[0].ipv4_policy) == "accept 1-65535");
}

TEST_CASE("tor descriptors in the body: checked again at VA, the one published by VA, expired with ours",
          "[dirnet][tor]") {
  const auto descs = stock_descriptors();
  LoneAuthority a;
  const std::uint64_t now = kStockPublished + 30;  // the next VA after the last was published
  for (const auto& d : descs) REQUIRE(a.state.tor_uploads().accept(d, now).accepted);
  REQUIRE(a.state.tor_uploads().size() == 9);
  for (const auto& t : a.state.probe_targets()) a.state.observe(t.identity, now, t.or_port != 19006);  // middle1 down

  // VA before every one was published: none is listed.
  (void)a.state.compute(kStockPublished - 3600);
  CHECK(a.state.current()->routers.empty());

  const std::uint64_t va = dir::valid_after_for(now, 20);
  (void)a.state.compute(va);
  const dir::ConsensusBody& b = *a.state.current();
  CHECK(b.routers.size() == 8);
  CHECK(entry_named(b, "middle1") == nullptr);
  REQUIRE(entry_named(b, "exit1") != nullptr);
  CHECK(entry_named(b, "exit1")->flags.exit);
  REQUIRE(entry_named(b, "middle0") != nullptr);
  CHECK_FALSE(entry_named(b, "middle0")->flags.exit);
  CHECK(entry_named(b, "middle0")->exit_policy == "reject 1-65535");
  CHECK(entry_named(b, "auth0")->dir_port == 19100);
  CHECK(std::is_sorted(b.routers.begin(), b.routers.end(),
                       [](const auto& x, const auto& y) { return x.identity < y.identity; }));
  // Deterministic: another authority holding the same facts writes the same body.
  LoneAuthority other;
  for (auto it = descs.rbegin(); it != descs.rend(); ++it) (void)other.state.tor_uploads().accept(*it, now);
  for (const auto& t : other.state.probe_targets()) other.state.observe(t.identity, now, t.or_port != 19006);
  (void)other.state.compute(va);
  CHECK(*other.state.current() == b);

  // Past the descriptor window (48 h) the descriptors are dropped.
  a.state.expire(kStockPublished + 49 * 3600);
  CHECK(a.state.tor_uploads().size() == 0);
  CHECK(a.state.probe_targets().empty());
}

TEST_CASE("the tor store binds one Ed25519 identity to one RSA identity and keeps the previous descriptor",
          "[dirnet][tor]") {
  const auto descs = stock_descriptors();
  const std::uint64_t now = kStockPublished + 10;
  TorDescriptorStore store;
  const auto first = store.accept(descs[0], now);
  CHECK(first.accepted);
  CHECK(first.new_relay);
  const auto again = store.accept(descs[0], now);
  CHECK_FALSE(again.accepted);
  CHECK_FALSE(again.new_relay);
  CHECK(store.records_at(now).size() == 1);
  CHECK(store.records_at(kStockPublished - 1).empty());  // published after that VA
  store.observe(first.identity, now, true);
  REQUIRE(store.records_at(now).size() == 1);
  CHECK(store.records_at(now)[0].history.last_reachable == now);
  store.expire(now, 3600);
  CHECK(store.size() == 1);
  store.expire(kStockPublished + 3601, 3600);
  CHECK(store.size() == 0);
  CHECK(store.all().empty());
}

TEST_CASE("a stock relay's upload: its extra-info descriptor follows in the same body and is skipped",
          "[dirnet][tor]") {
  const auto descs = stock_descriptors();
  TorDescriptorStore store;
  // tor's relays POST the server descriptor, then the extra-info one.
  const std::string body = descs[2] + "extra-info auth0 E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731\n"
                                      "published 2026-11-26 00:46:07\nrouter-signature\n";
  const auto a = store.accept(body, kStockPublished + 10);
  CHECK(a.reason == "Descriptor accepted");
  CHECK(store.all().rfind("router auth0 ", 0) == 0);
  CHECK(store.all().find("\nextra-info ") == std::string::npos);  // (its own "extra-info-digest" stays)
}

TEST_CASE("the ns consensus names stock descriptors as tor's authorities did, and /tor/server/d/ serves them",
          "[dirnet][tor]") {
  const auto descs = stock_descriptors();
  LoneAuthority a;
  const std::uint64_t now = kStockPublished + 30;
  for (const auto& d : descs) REQUIRE(a.state.tor_uploads().accept(d, now).accepted);
  for (const auto& t : a.state.probe_targets()) a.state.observe(t.identity, now, true);
  (void)a.state.compute(dir::valid_after_for(now, 20));
  const auto draft = dir::make_tor_ns_consensus(*a.state.current(), {}, a.state.tor_uploads().router_digests());
  const auto signer = crypto::RsaPrivateKey::generate(1024);  // the parser wants a signature; this test checks none
  auto ours = dir::parse_tor_consensus(draft.unsigned_text + dir::make_tor_signature_item(draft, {}, signer));
  REQUIRE(ours);
  REQUIRE(ours->routers.size() == 9);
  // The stock network's own ns consensus names the same descriptors by the same digests.
  auto stock = dir::parse_tor_consensus(test::procs::read_text(std::string(CONFLUX_TEST_DATA_DIR) + "/tor/consensus-ns.txt"));
  REQUIRE(stock);
  REQUIRE(stock->routers.size() == 9);
  std::string wanted;
  for (std::size_t i = 0; i < 9; ++i) {
    INFO(ours->routers[i].nickname);
    CHECK(ours->routers[i].identity == stock->routers[i].identity);
    CHECK(ours->routers[i].descriptor_digest == stock->routers[i].descriptor_digest);
    CHECK(ours->routers[i].published == stock->routers[i].published);
    if (i < 2) wanted += (i ? "+" : "") + bytes::to_hex(ours->routers[i].descriptor_digest);
  }

  DirRoutes routes;
  routes.set_tor_uploads(&a.state.tor_uploads());
  const auto two = routes.handle(HttpMethod::Get, std::string(dir::kTorServerDPrefix) + wanted + ".z", "", now);
  REQUIRE(two.status == 200);
  auto served = dir::parse_tor_server_descriptors(two.body, now);
  REQUIRE(served);
  REQUIRE(served->size() == 2);
  CHECK((*served)[0].router_digest == ours->routers[0].descriptor_digest);
  CHECK((*served)[1].router_digest == ours->routers[1].descriptor_digest);
  const auto by_fp = routes.handle(
      HttpMethod::Get, std::string(dir::kTorServerFpPrefix) + bytes::to_hex(ours->routers[2].identity, true), "", now);
  REQUIRE(by_fp.status == 200);
  auto one = dir::parse_tor_server_descriptor(by_fp.body, now);
  REQUIRE(one);
  CHECK(one->rsa_identity == ours->routers[2].identity);
  CHECK(routes.handle(HttpMethod::Get, std::string(dir::kTorServerDPrefix) + std::string(40, '0'), "", now).status ==
        404);
  CHECK(routes.handle(HttpMethod::Get, std::string(dir::kTorServerDPrefix) + "XYZ", "", now).status == 400);
}
