// The persistent guard set: sampling by guard weight, stable choice,
// failures and tor's retry schedule under injected time, confirmed guards
// first, guards leaving the consensus, and the state file (round trip,
// missing, corrupt, partly bad, atomic write).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "conflux/bytes/base64.hpp"
#include "conflux/path/guard_state.hpp"
#include "path_test_support.hpp"

using namespace conflux;
using namespace conflux::path;
using namespace conflux::path::test;

namespace {

constexpr std::uint64_t kMin = 60, kHour = 3600, kDay = 86400;

crypto::Ed25519Public guard_id(GuardSet& g, const NetView& net, Rng& rng, std::uint64_t now) {
  auto h = g.choose_guard(net, rng, now);
  if (!h) FAIL("choose_guard: " << h.error().message);
  return h->identity;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "conflux-path-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Six guards, each on its own /16, and two non-guards.
std::vector<dir::RouterEntry> guard_network() {
  std::vector<dir::RouterEntry> v;
  for (std::uint8_t n = 1; n <= 6; ++n) v.push_back(relay(n, kGuardFlags, 1000));
  v.push_back(relay(7, kMiddleFlags, 1000));
  v.push_back(relay(8, kExitFlags, 1000, kWebPolicy));
  return v;
}

}  // namespace

TEST_CASE("the first sampled guard follows guard-position weights", "[path][guards]") {
  // Guard-only relays get Wgg, Guard+Exit Wgd; non-guards are never sampled.
  std::vector<dir::RouterEntry> relays{relay(1, kGuardFlags, 1000), relay(2, kGuardFlags, 3000),
                                       relay(3, kGuardExitFlags, 2000, kWebPolicy), relay(4, kMiddleFlags, 9000),
                                       relay(5, "GFRV", 9000)};  // Guard but not Stable
  const NetView net = net_of(relays, distinct_weights());
  // Weights: 1000*7000, 3000*7000, 2000*3000 -> 7 : 21 : 6.
  const std::map<std::uint8_t, double> want{{1, 7.0 / 34}, {2, 21.0 / 34}, {3, 6.0 / 34}};
  std::map<std::uint8_t, double> got;
  Rng rng = seeded(99);
  constexpr int kTrials = 20000;
  for (int i = 0; i < kTrials; ++i) {
    GuardSet g;
    auto id = guard_id(g, net, rng, kNow);
    REQUIRE(g.records().size() == 3);  // num_primary guards sampled at once
    got[id[0]] += 1.0 / kTrials;
    CHECK(g.records()[0].identity == id);
  }
  REQUIRE(got.size() == 3);
  for (auto [n, p] : want) {
    INFO("guard " << int(n));
    CHECK(std::abs(got[n] - p) < 0.015);
  }
}

TEST_CASE("the guard stays the same, failures move to the next primary and back", "[path][guards]") {
  const NetView net = net_of(guard_network());
  Rng rng = seeded(1);
  GuardSet g;
  const auto first = guard_id(g, net, rng, kNow);
  for (int i = 0; i < 20; ++i) CHECK(guard_id(g, net, rng, kNow) == first);
  CHECK(g.records().size() == 3);
  const auto status = g.status(net, kNow);
  CHECK(std::count_if(status.begin(), status.end(), [](const GuardStatus& s) { return s.primary; }) == 3);

  REQUIRE(g.mark_failed(first, kNow));
  const auto second = guard_id(g, net, rng, kNow + 1);
  CHECK(second != first);
  // Two primaries left reachable: one more guard is sampled as a spare.
  CHECK(g.records().size() == 4);
  const auto up = g.reachable(net, kNow + 1);
  CHECK(up.size() == 3);
  CHECK(std::find(up.begin(), up.end(), first) == up.end());
  // Primary schedule: 10 minutes while failing for under 6 hours.
  CHECK(guard_id(g, net, rng, kNow + 10 * kMin - 1) == second);
  CHECK(guard_id(g, net, rng, kNow + 10 * kMin) == first);

  SECTION("the delay grows with how long it has been failing") {
    REQUIRE(g.mark_failed(first, kNow + 7 * kHour));  // failing since kNow: 7 h
    auto s = g.status(net, kNow + 7 * kHour);
    auto it = std::find_if(s.begin(), s.end(), [&](const GuardStatus& x) { return x.identity == first; });
    REQUIRE(it != s.end());
    CHECK(it->retry_at == kNow + 7 * kHour + 90 * kMin);
    CHECK_FALSE(it->reachable);
  }
  SECTION("success clears the failure") {
    REQUIRE(g.mark_succeeded(first, kNow + 5));
    CHECK(guard_id(g, net, rng, kNow + 6) == first);
  }
  CHECK_FALSE(g.mark_failed(id_of(7), kNow));  // not a guard of ours
}

TEST_CASE("non-primary guards take over, and retry on the slower schedule", "[path][guards]") {
  const NetView net = net_of(guard_network());
  Rng rng = seeded(2);
  GuardSet g;
  (void)guard_id(g, net, rng, kNow);
  const auto primaries = g.records();
  for (const auto& r : primaries) g.mark_failed(r.identity, kNow);
  // All three primaries down: the sample grows and a new guard is used.
  const auto other = guard_id(g, net, rng, kNow + 1);
  CHECK(std::none_of(primaries.begin(), primaries.end(), [&](const GuardRecord& r) { return r.identity == other; }));
  CHECK(g.records().size() == 6);
  g.mark_failed(other, kNow + 1);
  auto s = g.status(net, kNow + 1);
  auto it = std::find_if(s.begin(), s.end(), [&](const GuardStatus& x) { return x.identity == other; });
  REQUIRE(it != s.end());
  CHECK_FALSE(it->primary);
  CHECK(it->retry_at == kNow + 1 + kHour);

  SECTION("every guard down: an error that says when to retry") {
    for (const auto& r : g.records()) g.mark_failed(r.identity, kNow + 2);
    auto h = g.choose_guard(net, rng, kNow + 3);
    REQUIRE_FALSE(h);
    CHECK(h.error().code == PathErrc::NoGuardReachable);
    REQUIRE(h.error().retry_at);
    CHECK(*h.error().retry_at == kNow + 2 + 10 * kMin);  // the primaries' schedule
    CHECK(g.records().size() == 6);  // nothing left to sample
  }
  SECTION("success through a non-primary guard while primaries are down retries them") {
    REQUIRE(g.mark_succeeded(other, kNow + 2));
    CHECK(g.reachable(net, kNow + 2).size() == 6);
    // `other` is now confirmed and sorts first.
    CHECK(guard_id(g, net, rng, kNow + 3) == other);
  }
}

TEST_CASE("confirmed guards come first", "[path][guards]") {
  const NetView net = net_of(guard_network());
  Rng rng = seeded(3);
  GuardSet g;
  const auto first = guard_id(g, net, rng, kNow);
  const auto third = g.records()[2].identity;
  const auto gen = g.generation();
  REQUIRE(g.mark_succeeded(third, kNow + 1));
  CHECK(g.generation() > gen);
  CHECK(guard_id(g, net, rng, kNow + 2) == third);
  REQUIRE(g.mark_succeeded(first, kNow + 3));
  CHECK(guard_id(g, net, rng, kNow + 4) == third);  // confirmed earlier
}

TEST_CASE("NumEntryGuards spreads first hops over that many primary guards", "[path][guards]") {
  const NetView net = net_of(guard_network());
  Rng rng = seeded(4);
  GuardSet g(GuardParams{.num_entry_guards = 2});
  std::map<crypto::Ed25519Public, int> seen;
  for (int i = 0; i < 400; ++i) ++seen[guard_id(g, net, rng, kNow)];
  CHECK(seen.size() == 2);
  for (const auto& [id, n] : seen) CHECK(n > 120);
}

TEST_CASE("a restriction no sampled guard meets grows the sample by one guard that meets it", "[path][guards]") {
  const NetView net = net_of(guard_network());
  Rng rng = seeded(8);
  GuardSet g;
  (void)guard_id(g, net, rng, kNow);
  REQUIRE(g.records().size() == 3);
  std::set<crypto::Ed25519Public> sampled;
  for (const auto& r : g.records()) sampled.insert(r.identity);

  // A Conflux leg whose other legs use every sampled guard.
  const HopFilter not_sampled = [&](const Hop& h) { return !sampled.contains(h.identity); };
  auto h = g.choose_first_hop(net, not_sampled, rng, kNow);
  REQUIRE(h);
  CHECK_FALSE(sampled.contains(h->identity));
  CHECK(g.records().size() == 4);
  CHECK(g.records().back().identity == h->identity);
  // The new guard stays: asked again, the sample does not grow.
  auto again = g.choose_first_hop(net, not_sampled, rng, kNow);
  REQUIRE(again);
  CHECK(again->identity == h->identity);
  CHECK(g.records().size() == 4);

  // A restriction no guard in the consensus meets: an error, no growth.
  const HopFilter nothing = [](const Hop&) { return false; };
  auto none = g.choose_first_hop(net, nothing, rng, kNow);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == PathErrc::NoCompatibleGuard);
  CHECK(g.records().size() == 4);
}

TEST_CASE("guards that leave the consensus are skipped, then dropped", "[path][guards]") {
  auto relays = guard_network();
  Rng rng = seeded(5);
  GuardSet g;
  const auto first = guard_id(g, net_of(relays), rng, kNow);
  // It loses the Guard flag (still a relay): skipped, kept.
  auto it = std::find_if(relays.begin(), relays.end(), [&](const auto& r) { return r.identity == first; });
  it->flags.guard = false;
  const NetView without = net_of(relays);
  const auto replacement = guard_id(g, without, rng, kNow + kHour);
  CHECK(replacement != first);
  CHECK(g.records().size() == 4);  // a new guard sampled to keep 3 primaries
  CHECK(g.records()[0].unlisted_since == kNow + kHour);
  // Back within 20 days: used again.
  it->flags.guard = true;
  CHECK(guard_id(g, net_of(relays), rng, kNow + 2 * kHour) == first);
  CHECK_FALSE(g.records()[0].unlisted_since);
  // Gone for 20 days: removed.
  (void)guard_id(g, without, rng, kNow + 3 * kHour);
  (void)guard_id(g, without, rng, kNow + 3 * kHour + 20 * kDay);
  CHECK(std::none_of(g.records().begin(), g.records().end(), [&](const auto& r) { return r.identity == first; }));
}

TEST_CASE("guards expire after their lifetime unless recently confirmed", "[path][guards]") {
  const NetView net = net_of(guard_network());
  Rng rng = seeded(6);
  GuardSet g;
  (void)guard_id(g, net, rng, kNow);
  for (const auto& r : g.records()) {
    CHECK(r.added_on <= kNow);
    CHECK(r.added_on >= kNow - 12 * kDay);  // randomised into the past by up to lifetime/10
  }
  const auto kept = g.records()[1].identity;
  g.mark_succeeded(kept, kNow + 100 * kDay);
  g.update(net, kNow + 121 * kDay);
  REQUIRE(g.records().size() == 1);
  CHECK(g.records()[0].identity == kept);
  g.update(net, kNow + 161 * kDay);
  CHECK(g.records().empty());
}

TEST_CASE("guard state round trip through the file", "[path][guards][state]") {
  TempDir dir;
  const auto file = dir.path / "guard-state";
  const NetView net = net_of(guard_network());
  Rng rng = seeded(7);
  GuardSet g;
  const auto first = guard_id(g, net, rng, kNow);
  g.mark_succeeded(g.records()[1].identity, kNow + 5);
  REQUIRE_FALSE(save_guard_state(file, g));
  CHECK_FALSE(std::filesystem::exists(dir.path / "guard-state.tmp"));
  struct stat st{};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  auto loaded = load_guard_state(file);
  CHECK(loaded.status == GuardStateLoad::Status::Loaded);
  CHECK(loaded.warning.empty());
  REQUIRE(loaded.guards.records().size() == g.records().size());
  for (std::size_t i = 0; i < g.records().size(); ++i) {
    const auto& a = g.records()[i];
    const auto& b = loaded.guards.records()[i];
    CHECK(a.identity == b.identity);
    CHECK(a.nickname == b.nickname);
    CHECK(a.added_on == b.added_on);
    CHECK(a.confirmed_on == b.confirmed_on);
    CHECK(a.unlisted_since == b.unlisted_since);
  }
  Rng other = seeded(12345);
  CHECK(guard_id(loaded.guards, net, other, kNow + 10) == g.records()[1].identity);  // the confirmed one
  CHECK(encode_guard_state(loaded.guards) == encode_guard_state(g));
  (void)first;

  SECTION("saving again replaces the file") {
    g.mark_succeeded(g.records()[2].identity, kNow + 20);
    REQUIRE_FALSE(save_guard_state(file, g));
    CHECK(load_guard_state(file).guards.records()[2].confirmed_on == kNow + 20);
  }
  SECTION("an unwritable directory is reported, the old file kept") {
    auto bad = save_guard_state(dir.path / "missing-dir" / "guard-state", g);
    REQUIRE(bad);
    CHECK(bad->find("cannot create") != std::string::npos);
  }
}

TEST_CASE("missing or corrupt guard state starts fresh with a warning", "[path][guards][state]") {
  TempDir dir;
  const auto file = dir.path / "guard-state";
  auto missing = load_guard_state(file);
  CHECK(missing.status == GuardStateLoad::Status::Missing);
  CHECK_FALSE(missing.warning.empty());
  CHECK(missing.guards.records().empty());

  for (std::string bad : {std::string("{\"format\":\"conflux-guard-state-v1\",\"guards\":[{"), std::string("\x00\xff garbage", 10),
                          std::string("[]"), std::string("{\"format\":\"other\",\"guards\":[]}"),
                          std::string("{\"format\":\"conflux-guard-state-v1\",\"guards\":7}"),
                          std::string(200, '[') + std::string(200, ']'), std::string()}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
    auto l = load_guard_state(file);
    INFO(bad);
    CHECK(l.status == GuardStateLoad::Status::Corrupt);
    CHECK(l.warning.find("unusable") != std::string::npos);
    CHECK(l.guards.records().empty());
    // and the fresh set works
    Rng rng = seeded(1);
    CHECK(l.guards.choose_guard(net_of(guard_network()), rng, kNow));
  }
}

TEST_CASE("malformed guard entries are dropped one by one", "[path][guards][state]") {
  const std::string good_id = bytes::base64_encode(id_of(1));
  const std::string doc = R"({"format":"conflux-guard-state-v1","future_field":1,"guards":[)"
                          R"({"identity":")" + good_id + R"(","nickname":"relay1","added_on":5,"confirmed_on":6,"x":1},)"
                          R"({"identity":")" + good_id + R"(","added_on":5},)"        // duplicate
                          R"({"identity":"AAAA","added_on":5},)"                      // short key
                          R"({"identity":")" + bytes::base64_encode(id_of(2)) + R"(","added_on":-1},)"
                          R"({"identity":")" + bytes::base64_encode(id_of(3)) + R"(","nickname":"bad name!","added_on":1},)"
                          R"({"identity":")" + bytes::base64_encode(id_of(4)) + R"(","added_on":9,"unlisted_since":10},)"
                          R"("not an object"]})";
  auto d = decode_guard_state(doc);
  REQUIRE_FALSE(d.error);
  CHECK(d.dropped == 5);
  REQUIRE(d.records.size() == 2);
  CHECK(d.records[0].identity == id_of(1));
  CHECK(d.records[0].confirmed_on == 6u);
  CHECK(d.records[1].identity == id_of(4));
  CHECK(d.records[1].unlisted_since == 10u);
  CHECK(decode_guard_state(std::string(kMaxGuardStateSize + 1, ' ')).error);
}
