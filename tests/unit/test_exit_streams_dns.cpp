// The exit's resolver (c-ares on the io_context) against a DNS server the
// test runs on 127.0.0.1: tor's TTLs, answers and END reasons, a slow or
// silent nameserver, the bound on queries in flight, shared queries, the cache
// (answers and, as tor's, failures).
#include "../../exit/src/dns_cache.hpp"
#include "test_exit_streams_support.hpp"

using namespace conflux;
using namespace conflux::test;
using cell::EndReason;

namespace {
constexpr proto::CircuitHandle kCirc = 5;
constexpr StreamId kS1{1};
constexpr StreamId kS2{2};
const cell::Ipv4Bytes kLocal4{127, 0, 0, 1};
const cell::Ipv6Bytes kLocal6{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

DnsRecord local(std::uint32_t ttl = 60) {
  DnsRecord r;
  r.v4 = {kLocal4};
  r.ttl = ttl;
  return r;
}

std::optional<cell::ResolvedMsg> resolved(const Harness& h, StreamId s) {
  auto all = h.out.of<cell::ResolvedMsg>(kCirc, s);
  if (all.empty()) return std::nullopt;
  return all.front();
}
}  // namespace

TEST_CASE("tor's TTL clipping: two values to clients, fuzzed for the cache", "[exit][dns]") {
  CHECK(exit::clip_dns_ttl(0) == 300);
  CHECK(exit::clip_dns_ttl(299) == 300);
  CHECK(exit::clip_dns_ttl(300) == 3600);
  CHECK(exit::clip_dns_ttl(86400) == 3600);
  CHECK(exit::clip_dns_fuzzy_ttl(10, 0) == 60);
  CHECK(exit::clip_dns_fuzzy_ttl(10, 480) == 540);
  CHECK(exit::clip_dns_fuzzy_ttl(10, 100000) == 540);
  CHECK(exit::clip_dns_fuzzy_ttl(7200, 240) == 3600);
}

TEST_CASE("the DNS cache: expiry, replacement, and the soonest to expire makes room", "[exit][dns]") {
  using namespace std::chrono_literals;
  exit::DnsCache cache(2);
  const auto t0 = exit::DnsCache::Clock::time_point{} + 1000s;
  cache.store("a.test", {exit::DnsStatus::Ok, {kLocal4}, {}, 60}, t0, 100s);
  cache.store("b.test", {exit::DnsStatus::Ok, {}, {kLocal6}, 60}, t0, 50s);
  REQUIRE(cache.find("a.test", t0 + 10s).has_value());
  CHECK(cache.find("b.test", t0 + 10s)->v6.size() == 1);
  cache.store("c.test", {exit::DnsStatus::Ok, {kLocal4}, {}, 60}, t0, 200s);  // full: b.test goes
  CHECK(cache.size() == 2);
  CHECK_FALSE(cache.find("b.test", t0 + 10s).has_value());
  CHECK_FALSE(cache.find("a.test", t0 + 100s).has_value());  // expired
  CHECK(cache.find("c.test", t0 + 100s).has_value());
  CHECK(cache.size() == 1);
}

TEST_CASE("a failed lookup is cached for tor's 1-9 minutes, its kind kept", "[exit][dns]") {
  using namespace std::chrono_literals;
  CHECK(exit::negative_dns_lifetime(0) == 60);
  CHECK(exit::negative_dns_lifetime(240) == 300);
  CHECK(exit::negative_dns_lifetime(480) == 540);
  exit::DnsCache cache(2);
  const auto t0 = exit::DnsCache::Clock::time_point{} + 1000s;
  cache.store("gone.test", {exit::DnsStatus::NotFound, {}, {}, 0}, t0, 60s);
  cache.store("down.test", {exit::DnsStatus::Transient, {}, {}, 0}, t0, 540s);
  REQUIRE(cache.find("gone.test", t0 + 59s).has_value());
  CHECK(cache.find("gone.test", t0 + 59s)->status == exit::DnsStatus::NotFound);
  CHECK(cache.find("down.test", t0 + 59s)->status == exit::DnsStatus::Transient);
  CHECK_FALSE(cache.find("gone.test", t0 + 60s).has_value());
  CHECK(cache.find("down.test", t0 + 539s).has_value());
  CHECK_FALSE(cache.find("down.test", t0 + 540s).has_value());
}

TEST_CASE("a name resolves through the nameserver, the client is told the clipped TTL", "[exit][dns]") {
  Harness h;
  EchoServer server(h.io);
  h.dns.add("short.test", local(60));
  h.dns.add("long.test", local(7200));
  h.begin(kCirc, kS1, "short.test", server.port());
  h.begin(kCirc, kS2, "LONG.test", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1) && h.connected(kCirc, kS2); }));
  const auto c1 = h.out.of<cell::ConnectedMsg>(kCirc, kS1).at(0);
  const auto c2 = h.out.of<cell::ConnectedMsg>(kCirc, kS2).at(0);
  REQUIRE(c1.addr.has_value());
  CHECK(c1.addr->addr == cell::RelayIpAddr{kLocal4});
  CHECK(c1.addr->ttl == 300);
  CHECK(c2.addr->ttl == 3600);
  CHECK(h.dns.questions("short.test") == 2);  // A and AAAA
  CHECK(h.exit->stats().dns_pending == 0);
}

TEST_CASE("RESOLVE answers both families with the clipped TTL", "[exit][dns]") {
  Harness h;
  DnsRecord r = local(600);
  r.v6 = {kLocal6};
  h.dns.add("both.test", r);
  h.resolve(kCirc, kS1, "both.test");
  REQUIRE(h.run_until([&] { return resolved(h, kS1).has_value(); }));
  const auto answers = resolved(h, kS1)->answers;
  REQUIRE(answers.size() == 2);
  CHECK(answers[0].type == cell::ResolvedType::Ipv4);
  CHECK(answers[0].ttl == 3600);
  CHECK(answers[1].type == cell::ResolvedType::Ipv6);
}

TEST_CASE("NXDOMAIN: END RESOLVEFAILED, RESOLVED ERROR (SERVFAIL: ERROR_TRANSIENT)", "[exit][dns]") {
  Harness h;
  DnsRecord broken;
  broken.servfail = true;
  h.dns.add("broken.test", broken);
  h.begin(kCirc, kS1, "missing.test", 80);
  h.resolve(kCirc, kS2, "missing.test");
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value() && resolved(h, kS2).has_value(); }));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ResolveFailed);
  CHECK(resolved(h, kS2)->answers.at(0).type == cell::ResolvedType::ErrorNontransient);
  h.resolve(kCirc, StreamId{3}, "broken.test");
  REQUIRE(h.run_until([&] { return resolved(h, StreamId{3}).has_value(); }));
  CHECK(resolved(h, StreamId{3})->answers.at(0).type == cell::ResolvedType::ErrorTransient);
  CHECK(h.exit->stats().dns_failures == 3);
}

TEST_CASE("a silent nameserver: c-ares gives up, END RESOLVEFAILED and ERROR_TRANSIENT", "[exit][dns][slow]") {
  auto cfg = exit_config();
  cfg.dns.per_try = std::chrono::milliseconds(200);
  cfg.dns.attempts = 1;
  Harness h(cfg);
  DnsRecord silent;
  silent.never = true;
  h.dns.add("silent.test", silent);
  h.begin(kCirc, kS1, "silent.test", 80);
  h.resolve(kCirc, kS2, "silent.test");
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value() && resolved(h, kS2).has_value(); }, 5s));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::ResolveFailed);
  CHECK(resolved(h, kS2)->answers.at(0).type == cell::ResolvedType::ErrorTransient);
  CHECK(h.exit->stats().dns_timeouts == 0);
}

TEST_CASE("a lookup that outlives the stream's DNS timeout: END TIMEOUT", "[exit][dns][slow]") {
  auto cfg = exit_config();
  cfg.timeouts.dns = 300ms;
  cfg.dns.per_try = std::chrono::milliseconds(5000);
  Harness h(cfg);
  DnsRecord silent;
  silent.never = true;
  h.dns.add("silent.test", silent);
  h.begin(kCirc, kS1, "silent.test", 80);
  h.resolve(kCirc, kS2, "silent.test");
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value() && resolved(h, kS2).has_value(); }, 3s));
  CHECK(h.end_of(kCirc, kS1)->reason == EndReason::Timeout);
  CHECK(resolved(h, kS2)->answers.at(0).type == cell::ResolvedType::ErrorTransient);
  CHECK(h.exit->stats().dns_timeouts == 2);
  CHECK(h.exit->stats().dns_pending == 0);
  CHECK(h.exit->stream_count() == 0);
}

TEST_CASE("a slow name does not delay the others", "[exit][dns][slow]") {
  Harness h;
  EchoServer server(h.io);
  DnsRecord slow = local();
  slow.delay = 2s;
  h.dns.add("slow.test", slow);
  h.dns.add("fast.test", local());
  const auto start = std::chrono::steady_clock::now();
  h.begin(kCirc, kS1, "slow.test", server.port());
  h.begin(kCirc, kS2, "fast.test", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS2); }, 5s));
  const auto fast_took = std::chrono::steady_clock::now() - start;
  CHECK(fast_took < 1s);
  CHECK_FALSE(h.connected(kCirc, kS1));
  CHECK(h.exit->stats().dns_pending == 1);
  // The slow one is answered in its time, and connects.
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }, 5s));
  CHECK(std::chrono::steady_clock::now() - start >= 2s);
}

TEST_CASE("a flood of BEGINs: at most max_pending_dns queries, the rest END RESOURCELIMIT", "[exit][dns][slow]") {
  auto cfg = exit_config();
  cfg.limits.max_pending_dns = 8;
  Harness h(cfg);
  EchoServer server(h.io);
  DnsRecord silent;
  silent.never = true;
  for (int i = 0; i < 100; ++i) h.dns.add("flood" + std::to_string(i) + ".test", silent);
  h.dns.add("fast.test", local());
  for (std::uint16_t i = 0; i < 100; ++i) h.begin(kCirc, StreamId{static_cast<std::uint16_t>(10 + i)}, "flood" + std::to_string(i) + ".test", 80);
  int refused = 0;
  for (std::uint16_t i = 0; i < 100; ++i) {
    const auto end = h.end_of(kCirc, StreamId{static_cast<std::uint16_t>(10 + i)});
    if (end && end->reason == EndReason::ResourceLimit) ++refused;
  }
  CHECK(refused == 92);
  CHECK(h.exit->stats().dns_pending == 8);
  CHECK(h.exit->stats().dns_refused_full == 92);
  // A literal address needs no lookup: served meanwhile.
  h.begin(kCirc, kS1, "127.0.0.1", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }, 2s));
  h.settle(300ms);
  CHECK(h.dns.total_questions() == 16);  // 8 queries, A and AAAA each
}

TEST_CASE("identical lookups in flight share one query, and a finished one is cached", "[exit][dns]") {
  Harness h;
  EchoServer server(h.io);
  DnsRecord r = local();
  r.delay = 200ms;
  h.dns.add("shared.test", r);
  for (std::uint16_t i = 1; i <= 5; ++i) h.begin(kCirc, StreamId{i}, "shared.test", server.port());
  REQUIRE(h.run_until([&] {
    for (std::uint16_t i = 1; i <= 5; ++i)
      if (!h.connected(kCirc, StreamId{i})) return false;
    return true;
  }));
  CHECK(h.dns.questions("shared.test") == 2);
  h.resolve(kCirc, StreamId{9}, "Shared.Test");
  REQUIRE(h.run_until([&] { return resolved(h, StreamId{9}).has_value(); }));
  CHECK(resolved(h, StreamId{9})->answers.at(0).ttl == 300);
  CHECK(h.dns.questions("shared.test") == 2);
  CHECK(h.exit->stats().dns_cache_hits == 1);
}

TEST_CASE("NXDOMAIN is cached: the same name again is refused without a question", "[exit][dns]") {
  Harness h;
  h.begin(kCirc, kS1, "missing.test", 80);
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS1).has_value(); }));
  REQUIRE(h.dns.questions("missing.test") == 2);  // A and AAAA
  h.begin(kCirc, kS2, "Missing.Test", 80);
  h.resolve(kCirc, StreamId{3}, "missing.test");
  REQUIRE(h.run_until([&] { return h.end_of(kCirc, kS2).has_value() && resolved(h, StreamId{3}).has_value(); }));
  CHECK(h.end_of(kCirc, kS2)->reason == EndReason::ResolveFailed);
  CHECK(resolved(h, StreamId{3})->answers.at(0).type == cell::ResolvedType::ErrorNontransient);
  CHECK(h.dns.questions("missing.test") == 2);
  CHECK(h.exit->stats().dns_cache_hits == 2);
  CHECK(h.exit->stats().dns_failures == 3);
}

TEST_CASE("SERVFAIL is cached as transient, CLEARDNSCACHE forgets it", "[exit][dns]") {
  Harness h;
  DnsRecord broken;
  broken.servfail = true;
  h.dns.add("broken.test", broken);
  h.resolve(kCirc, kS1, "broken.test");
  REQUIRE(h.run_until([&] { return resolved(h, kS1).has_value(); }));
  // c-ares asks again after a SERVFAIL (its second try): A and AAAA twice.
  REQUIRE(h.dns.questions("broken.test") == 4);
  h.resolve(kCirc, kS2, "broken.test");
  REQUIRE(h.run_until([&] { return resolved(h, kS2).has_value(); }));
  CHECK(resolved(h, kS2)->answers.at(0).type == cell::ResolvedType::ErrorTransient);
  CHECK(h.dns.questions("broken.test") == 4);
  CHECK(h.exit->stats().dns_cache_hits == 1);
  // The server is mended; the cached failure stands until the cache is cleared.
  h.dns.add("broken.test", local());
  h.exit->clear_dns_cache();
  h.resolve(kCirc, StreamId{3}, "broken.test");
  REQUIRE(h.run_until([&] { return resolved(h, StreamId{3}).has_value(); }));
  CHECK(resolved(h, StreamId{3})->answers.at(0).type == cell::ResolvedType::Ipv4);
  CHECK(h.dns.questions("broken.test") == 6);
}

TEST_CASE("new nameservers while a lookup is in flight: new lookups ask them, the old one is answered", "[exit][dns]") {
  Harness h;
  EchoServer server(h.io);
  DnsRecord slow = local();
  slow.delay = 500ms;
  h.dns.add("slow.test", slow);
  h.dns.add("fast.test", local());
  h.begin(kCirc, kS1, "slow.test", server.port());
  REQUIRE(h.run_until([&] { return h.dns.questions("slow.test") == 2; }));
  // c-ares 1.18 cannot change a busy channel's servers: a new channel.
  DnsTestServer other(h.io);
  other.add("fast.test", local());
  auto settings = exit_config().dns;
  settings.servers = {other.server()};
  REQUIRE(h.exit->set_dns(settings));
  h.begin(kCirc, kS2, "fast.test", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS2); }));
  CHECK(other.questions("fast.test") == 2);
  CHECK(h.dns.questions("fast.test") == 0);
  CHECK_FALSE(h.connected(kCirc, kS1));
  // The old server's answer still reaches the stream that asked it.
  REQUIRE(h.run_until([&] { return h.connected(kCirc, kS1); }, 3s));
  CHECK(h.exit->stats().dns_pending == 0);
  // A name asked before the change is asked of the new server now.
  other.add("slow.test", local());
  h.begin(kCirc, StreamId{3}, "slow.test", server.port());
  REQUIRE(h.run_until([&] { return h.connected(kCirc, StreamId{3}); }));
  CHECK(other.questions("slow.test") == 2);
}

TEST_CASE("an exit ending with a lookup still in flight on replaced nameservers frees it (ASan)", "[exit][dns]") {
  auto h = std::make_unique<Harness>();
  DnsRecord silent;
  silent.never = true;
  h->dns.add("silent.test", silent);
  h->begin(kCirc, kS1, "silent.test", 80);
  REQUIRE(h->run_until([&] { return h->dns.questions("silent.test") == 2; }));
  auto other = std::make_unique<DnsTestServer>(h->io);
  auto settings = exit_config().dns;
  settings.servers = {other->server()};
  REQUIRE(h->exit->set_dns(settings));
  CHECK(h->exit->stats().dns_pending == 1);
  other.reset();  // before the io_context it runs on
  h.reset();      // both c-ares channels end; LeakSanitizer fails the run if a query is left
}

TEST_CASE("names outside RFC 953 are refused unless ServerDNSAllowNonRFC953Hostnames", "[exit][dns]") {
  Harness strict;
  strict.begin(kCirc, kS1, "bad name.test", 80);
  strict.resolve(kCirc, kS2, "bad$name.test");
  REQUIRE(strict.end_of(kCirc, kS1).has_value());
  CHECK(strict.end_of(kCirc, kS1)->reason == EndReason::ResolveFailed);
  REQUIRE(resolved(strict, kS2).has_value());
  CHECK(resolved(strict, kS2)->answers.at(0).type == cell::ResolvedType::ErrorNontransient);
  strict.settle(100ms);
  CHECK(strict.dns.total_questions() == 0);

  auto cfg = exit_config();
  cfg.dns.allow_non_rfc953 = true;
  Harness lax(cfg);
  lax.dns.add("under_score$.test", local());
  lax.resolve(kCirc, kS1, "under_score$.test");
  REQUIRE(lax.run_until([&] { return resolved(lax, kS1).has_value(); }));
  CHECK(resolved(lax, kS1)->answers.at(0).type == cell::ResolvedType::Ipv4);
}
