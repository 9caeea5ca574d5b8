// The exit module's refusals and lookups: exit policy (early by port and
// exact after resolution), DNS failures, RESOLVE, non-exit mode, limits.
#include "test_exit_streams_support.hpp"

using namespace conflux;
using namespace conflux::test;
using cell::EndReason;

namespace {
constexpr proto::CircuitHandle kCirc = 3;
constexpr StreamId kS1{1};
constexpr StreamId kS2{2};
constexpr StreamId kS3{3};
const cell::Ipv4Bytes kLocal4{127, 0, 0, 1};
}  // namespace

TEST_CASE("an address the policy rejects gets END EXITPOLICY with address and TTL", "[exit][policy]") {
  Harness h(exit_config(policy_of({"reject 127.0.0.0/8:*", "accept *:*"})));
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  auto end = h.end_of(kCirc, kS1);
  REQUIRE(end.has_value());
  CHECK(end->reason == EndReason::ExitPolicy);
  REQUIRE(end->exit_policy_addr.has_value());
  CHECK(end->exit_policy_addr->addr == cell::RelayIpAddr{kLocal4});
  CHECK(end->exit_policy_addr->ttl == 3600);
  h.settle();
  CHECK(server.accepted == 0);
  CHECK(h.exit->stream_count() == 0);
  CHECK(h.exit->stats().ends_sent_for(EndReason::ExitPolicy) == 1);
}

TEST_CASE("a hostname on a rejected port is refused before any lookup", "[exit][policy]") {
  Harness h(exit_config(policy_of({"reject *:25", "accept *:*"})));
  h.begin(kCirc, kS1, "mail.example.com", 25);
  auto end = h.end_of(kCirc, kS1);
  REQUIRE(end.has_value());  // at once: no DNS was needed
  CHECK(end->reason == EndReason::ExitPolicy);
  CHECK_FALSE(end->exit_policy_addr.has_value());
  CHECK(h.exit->stats().dns_pending == 0);
  CHECK(h.exit->stream_count() == 0);
}

TEST_CASE("the policy is checked exactly after resolution", "[exit][policy]") {
  // tor's default: private addresses rejected, the rest accepted.
  Harness h(exit_config(policy_of({"reject private:*", "accept *:*"})));
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "localhost", server.port());
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  auto end = *h.end_of(kCirc, kS1);
  CHECK(end.reason == EndReason::ExitPolicy);
  REQUIRE(end.exit_policy_addr.has_value());
  CHECK(end.exit_policy_addr->addr == cell::RelayIpAddr{kLocal4});
  CHECK(end.exit_policy_addr->ttl == 300);  // a resolved name: tor's low TTL
  CHECK(server.accepted == 0);
}

TEST_CASE("a hostname is resolved and connected", "[exit][dns]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "localhost", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1) || h.end_of(kCirc, kS1); }));
  auto c = h.out.of<cell::ConnectedMsg>(kCirc, kS1);
  REQUIRE(c.size() == 1);
  CHECK(c[0].addr->addr == cell::RelayIpAddr{kLocal4});
  CHECK(c[0].addr->ttl == 300);
  CHECK(h.exit->stats().dns_pending == 0);
}

TEST_CASE("IPv4-not-OK without IPv6Exit is refused, with only IPv6 OK, an IPv4-only name fails", "[exit][dns]") {
  auto cfg = exit_config();
  cfg.ipv6_exit = false;
  Harness h(cfg);
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "localhost", server.port(), cell::kBeginFlagIpv4NotOk | cell::kBeginFlagIpv6Ok);
  REQUIRE(h.end_of(kCirc, kS1).has_value());
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ExitPolicy);
  // An IPv6 literal without IPv6Exit: refused with its address.
  h.begin(kCirc, kS2, "::1", server.port(), cell::kBeginFlagIpv6Ok);
  REQUIRE(h.end_of(kCirc, kS2).has_value());
  CHECK(h.end_of(kCirc, kS2)->reason == EndReason::ExitPolicy);
  CHECK(h.end_of(kCirc, kS2)->exit_policy_addr.has_value());
  CHECK(server.accepted == 0);
}

TEST_CASE("an unresolvable name gets END RESOLVEFAILED", "[exit][dns]") {
  Harness h;
  h.begin(kCirc, kS1, "nonexistent.invalid", 80);
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ResolveFailed);
  CHECK(h.exit->stats().dns_failures == 1);
  CHECK(h.exit->stats().dns_pending == 0);
  CHECK(h.exit->stream_count() == 0);
  // .onion and empty names are never looked up.
  h.begin(kCirc, kS2, "abcdefghijklmnop.onion", 80);
  h.begin(kCirc, kS3, "", 80);
  CHECK(h.end_of(kCirc, kS2)->reason == EndReason::ResolveFailed);
  CHECK(h.end_of(kCirc, kS3)->reason == EndReason::ResolveFailed);
}

TEST_CASE("RESOLVE answers with addresses, PTR names and errors", "[exit][dns]") {
  Harness h;
  SECTION("localhost") {
    h.resolve(kCirc, kS1, "localhost");
    REQUIRE(h.run_until([&] { return !h.out.of<cell::ResolvedMsg>(kCirc, kS1).empty(); }));
    const auto answers = h.out.of<cell::ResolvedMsg>(kCirc, kS1)[0].answers;
    REQUIRE(!answers.empty());
    CHECK(answers[0].type == cell::ResolvedType::Ipv4);  // IPv4 first (tor-spec 6.4)
    CHECK(answers[0].value == std::vector<std::uint8_t>{127, 0, 0, 1});
    CHECK(answers[0].ttl == 300);
  }
  SECTION("an unknown name: nontransient error") {
    h.resolve(kCirc, kS1, "nonexistent.invalid");
    REQUIRE(h.run_until([&] { return !h.out.of<cell::ResolvedMsg>(kCirc, kS1).empty(); }));
    const auto answers = h.out.of<cell::ResolvedMsg>(kCirc, kS1)[0].answers;
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].type == cell::ResolvedType::ErrorNontransient);
    CHECK(h.exit->stats().dns_failures == 1);
  }
  SECTION("an address literal answers itself") {
    h.resolve(kCirc, kS1, "127.0.0.1");
    const auto answers = h.out.of<cell::ResolvedMsg>(kCirc, kS1).at(0).answers;
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].type == cell::ResolvedType::Ipv4);
    CHECK(answers[0].ttl == 3600);
  }
  SECTION("a reverse lookup") {
    h.resolve(kCirc, kS1, "1.0.0.127.in-addr.arpa");
    REQUIRE(h.run_until([&] { return !h.out.of<cell::ResolvedMsg>(kCirc, kS1).empty(); }));
    const auto answers = h.out.of<cell::ResolvedMsg>(kCirc, kS1)[0].answers;
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].type == cell::ResolvedType::Hostname);  // "localhost" from /etc/hosts
    CHECK(!answers[0].value.empty());
  }
  SECTION("a malformed reverse name") {
    h.resolve(kCirc, kS1, "1.0.0.1270.in-addr.arpa");
    const auto answers = h.out.of<cell::ResolvedMsg>(kCirc, kS1).at(0).answers;
    CHECK(answers.at(0).type == cell::ResolvedType::ErrorNontransient);
  }
  // A RESOLVE leaves no stream behind.
  REQUIRE(h.run_until([&] { return h.exit->stream_count() == 0; }));
  CHECK(h.exit->stats().resolves == 1);
}

TEST_CASE("not an exit: BEGIN gets END EXITPOLICY, RESOLVE an error, nothing is contacted", "[exit][policy]") {
  auto cfg = exit_config();
  cfg.mode = exit::ExitMode::NotExit;
  Harness h(cfg);
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.begin(kCirc, kS2, "localhost", server.port());
  h.resolve(kCirc, kS3, "localhost");
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ExitPolicy);
  CHECK_FALSE(h.end_of(kCirc, kS1)->exit_policy_addr.has_value());
  CHECK(h.end_of(kCirc, kS2)->reason == EndReason::ExitPolicy);
  CHECK(h.out.of<cell::ResolvedMsg>(kCirc, kS3).at(0).answers.at(0).type ==
        cell::ResolvedType::ErrorNontransient);
  h.settle();
  CHECK(server.accepted == 0);
  CHECK(h.exit->stream_count() == 0);
  CHECK(h.exit->stats().dns_failures == 0);
}

TEST_CASE("BEGIN_DIR gets END NOTDIRECTORY", "[exit]") {
  Harness h;
  h.exit->on_stream_message(kCirc, kS1, cell::BeginDirMsg{});
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::NotDirectory);
}

TEST_CASE("stream limits answer END RESOURCELIMIT", "[exit][limits]") {
  auto cfg = exit_config();
  cfg.limits.max_streams_per_circuit = 2;
  cfg.limits.max_streams_total = 3;
  Harness h(cfg);
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  h.begin(kCirc, kS2, "127.0.0.1", server.port());
  h.begin(kCirc, kS3, "127.0.0.1", server.port());
  REQUIRE(h.end_of(kCirc, kS3).has_value());
  CHECK(h.end_of(kCirc, kS3)->reason == EndReason::ResourceLimit);
  // Another circuit: one more fits the total, then the total is reached.
  h.begin(kCirc + 1, kS1, "127.0.0.1", server.port());
  h.begin(kCirc + 1, kS2, "127.0.0.1", server.port());
  CHECK_FALSE(h.end_of(kCirc + 1, kS1).has_value());
  CHECK(h.end_of(kCirc + 1, kS2)->reason == EndReason::ResourceLimit);
  REQUIRE(h.run_until([&] { return server.accepted == 3; }));
  CHECK(h.exit->stats().streams_open == 3);
}

TEST_CASE("a stream ID is free again once its stream has ended", "[exit]") {
  Harness h;
  EchoServer server(h.io);
  h.begin(kCirc, kS1, "127.0.0.1", closed_port(h.io));
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }));
}
