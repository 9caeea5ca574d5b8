// Directory authority logic (common/dir): reachability history, flag
// assignment over the tor server descriptors relays upload, bandwidth
// weights (dir-spec case analysis, hand-computed), and deterministic bodies
// (tor's consensus is written from them).
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/dir/authority.hpp"
#include "conflux/dir/bandwidth_weights.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dir/tor_server_descriptor_make.hpp"

#include "authority_test_support.hpp"

using namespace conflux;
using namespace conflux::dir;
using namespace conflux::dir::test;

TEST_CASE("reachability: runs, WFU, familiarity", "[dir][authority]") {
  ReachabilityHistory h;
  CHECK(h.wfu_ppm() == 0);
  h = observe(h, 1000, true);
  CHECK(h.first_seen == 1000u);
  CHECK(h.run_length(1500) == 500);
  CHECK(h.wfu_ppm() == 1'000'000);
  h = observe(h, 1100, true);
  h = observe(h, 1200, false);  // down: 100 s tracked, not up
  CHECK(h.run_length(1250) == 0);
  CHECK(h.last_reachable == 1100u);
  h = observe(h, 1300, true);   // back: the gap before it was down
  h = observe(h, 1400, true);
  CHECK(h.tracked_seconds == 400);
  CHECK(h.up_seconds == 200);
  CHECK(h.wfu_ppm() == 500'000);
  CHECK(h.run_length(1400) == 100);
  CHECK(h.known_for(1400) == 400);
  const auto before = h;
  CHECK(observe(h, 1399, false) == before);  // out of order: ignored
}

TEST_CASE("authority: flag assignment on hand-made inputs", "[dir][authority]") {
  // Eight listed relays. Sorted bandwidths 5k 30k 40k 50k 60k 70k 200k 3M:
  //   Fast cut = 2nd smallest (n/8 = 1) = 30k, under the 100k guarantee -> all but 5k.
  //   Guard bandwidth = 7th smallest (3n/4 = 6) = 200k, under 2 MB -> 200k and 3M.
  // Runs 1..6, 8, 10 days: median (n/2 = 4) = 5 days, under 7 -> relays 5..8 Stable.
  std::vector<TorRelayRecord> recs;
  const std::uint64_t bw[] = {5'000, 30'000, 40'000, 50'000, 60'000, 70'000, 200'000, 3'000'000};
  const std::uint64_t run_days[] = {1, 2, 3, 4, 5, 6, 8, 10};
  for (std::uint8_t i = 0; i < 8; ++i) {
    Spec s;
    s.bw = bw[i];
    s.run = run_days[i] * kDay;
    recs.push_back(make_record(static_cast<std::uint8_t>(i + 1), s));
  }
  recs[2].descriptor = [&] {  // relay 3: exit by a reject-style summary ("reject 25,119")
    Spec s;
    s.bw = bw[2];
    s.run = run_days[2] * kDay;
    s.policy = {"reject *:25", "reject *:119", "accept *:*"};
    return make_record(3, s).descriptor;
  }();
  { Spec s; s.bw = bw[3]; s.run = run_days[3] * kDay; s.policy = {"accept *:80", "reject *:*"}; recs[3] = make_record(4, s); }
  { Spec s; s.bw = bw[6]; s.run = run_days[6] * kDay; s.policy = kWeb; recs[6] = make_record(7, s); }
  { Spec s; s.bw = bw[7]; s.run = run_days[7] * kDay; s.known = 5 * kDay; recs[7] = make_record(8, s); }
  // Not listed: unreachable for 46 minutes, an expired descriptor.
  { Spec s; s.unreachable_for = 46 * 60; recs.push_back(make_record(20, s)); }
  { Spec s; s.published_ago = 49 * 3600; recs.push_back(make_record(22, s)); }
  // A bad signature is not Valid: a policy changed after signing.
  {
    TorRelayRecord r = make_record(23, Spec{});
    const auto at = r.descriptor.text.find("\nreject *:*\n");
    REQUIRE(at != std::string::npos);
    r.descriptor.text.replace(at, 12, "\naccept *:*\n");
    recs.push_back(r);
  }
  // Relay 2 again with an older descriptor: the newer one wins.
  { Spec s; s.published_ago = 7200; s.bw = 1; recs.push_back(make_record(2, s)); }

  AuthorityParams params;
  const auto entries = compute_router_entries(recs, kAt, params);
  REQUIRE(entries.size() == 8);
  CHECK(std::is_sorted(entries.begin(), entries.end(),
                       [](const RouterEntry& a, const RouterEntry& b) { return a.identity < b.identity; }));
  for (std::uint8_t n : {std::uint8_t{20}, std::uint8_t{22}, std::uint8_t{23}})
    CHECK(find(entries, n) == nullptr);

  auto flags = [&](std::uint8_t n) {
    const RouterEntry* e = find(entries, n);
    REQUIRE(e != nullptr);
    CHECK(e->flags.running);
    CHECK(e->flags.valid);
    return e->flags;
  };
  CHECK_FALSE(flags(1).fast);
  for (std::uint8_t n = 2; n <= 8; ++n) CHECK(flags(n).fast);
  for (std::uint8_t n = 1; n <= 4; ++n) CHECK_FALSE(flags(n).stable);
  for (std::uint8_t n = 5; n <= 8; ++n) CHECK(flags(n).stable);
  CHECK(flags(7).guard);        // fast, stable, familiar, 200k
  CHECK_FALSE(flags(8).guard);  // 3 MB/s but known only 5 days
  CHECK_FALSE(flags(6).guard);  // 70k: below the guard bandwidth
  CHECK(flags(3).exit);
  CHECK_FALSE(flags(4).exit);
  CHECK(flags(7).exit);
  CHECK_FALSE(flags(1).exit);
  CHECK(find(entries, 2)->bandwidth == 30);  // kilobytes, from the newer descriptor
  CHECK(find(entries, 8)->bandwidth == 3000);
  const std::string& text7 = recs[6].descriptor.text;
  CHECK(find(entries, 7)->descriptor_digest ==
        crypto::sha256({reinterpret_cast<const std::uint8_t*>(text7.data()), text7.size()}));
  CHECK(find(entries, 7)->exit_policy == "accept 80,443");
  CHECK(find(entries, 3)->exit_policy == "reject 25,119");
  // Each entry names the relay's RSA identity, as EXTEND2 to a stock relay needs.
  CHECK(find(entries, 7)->rsa_identity == keys_of(7).rsa.public_key().fingerprint());

  SECTION("the guarantees apply when the ranks are higher") {
    // Everyone at 2 MB/s and up for 9 days: thresholds capped by the guarantees.
    std::vector<TorRelayRecord> fast;
    for (std::uint8_t i = 1; i <= 4; ++i) {
      Spec s;
      s.bw = 2'000'000u * i;
      s.run = (8 + i) * kDay;
      fast.push_back(make_record(i, s));
    }
    for (const auto& e : compute_router_entries(fast, kAt, params)) {
      CHECK(e.flags.fast);
      CHECK(e.flags.stable);
      CHECK(e.flags.guard);
    }
  }
  SECTION("tor's FastFlagMinThreshold and FastFlagMaxThreshold parameters bound the Fast threshold") {
    std::vector<TorRelayRecord> slow;
    for (std::uint8_t i = 1; i <= 8; ++i) {
      Spec s;
      s.bw = i == 1 ? 0 : 1'000'000;  // a relay that has measured nothing yet, among fast ones
      slow.push_back(make_record(i, s));
    }
    AuthorityParams p = params;
    CHECK_FALSE(find(compute_router_entries(slow, kAt, p), 1)->flags.fast);  // threshold: 100 KB/s
    p.consensus_params["FastFlagMaxThreshold"] = 0;
    CHECK(find(compute_router_entries(slow, kAt, p), 1)->flags.fast);
    CHECK(find(compute_router_entries(slow, kAt, p), 2)->flags.fast);
    p.consensus_params["FastFlagMinThreshold"] = 2'000'000;  // the minimum wins
    CHECK_FALSE(find(compute_router_entries(slow, kAt, p), 2)->flags.fast);
  }
  SECTION("low WFU blocks Guard") {
    recs[6].history.up_seconds = 900;  // 90% < min(median 99%, 98%)
    CHECK_FALSE(find(compute_router_entries(recs, kAt, params), 7)->flags.guard);
  }
}

TEST_CASE("authority: a test network starting from zero", "[dir][authority]") {
  std::vector<TorRelayRecord> recs;
  for (std::uint8_t i = 1; i <= 3; ++i) {
    Spec s;
    s.measured = false;  // nothing measured yet
    TorRelayRecord r = make_record(i, s);
    r.history = observe({}, kAt - 30, true);
    recs.push_back(r);
  }
  AuthorityParams strict;
  for (const auto& e : compute_router_entries(recs, kAt, strict)) {
    CHECK_FALSE(e.flags.fast);  // below the floor
    CHECK_FALSE(e.flags.guard);
    CHECK(e.flags.stable);      // all equal: at the median
  }
  AuthorityParams testing;
  testing.thresholds = FlagThresholds::testing_network();
  for (const auto& e : compute_router_entries(recs, kAt, testing)) {
    CHECK(e.flags.fast);
    CHECK(e.flags.stable);
    CHECK(e.flags.guard);
  }
}

TEST_CASE("authority: one entry per RSA identity", "[dir][authority]") {
  // Two Ed25519 identities claim one RSA identity (a relay that changed its
  // Ed25519 key; the descriptor store refuses that, this is the last guard):
  // only the first by Ed25519 identity is listed.
  TorRelayRecord a = make_record(1, Spec{});
  TorRelayRecord b = make_record(2, Spec{});
  const std::vector<TorRelayRecord> both{a, b};
  REQUIRE(compute_router_entries(both, kAt, AuthorityParams{}).size() == 2);
  const RelayKeys& k1 = keys_of(1);
  const RelayKeys& k2 = keys_of(2);
  TorDescriptorFacts f;
  f.nickname = "relay2";
  f.ipv4 = {127, 0, 0, 2};
  f.or_port = 5002;
  f.protocols = "Link=4-5 Relay=2-4 Conflux=1";
  f.published = kAt - 600;
  f.bandwidth_rate = f.bandwidth_burst = f.bandwidth_observed = 100'000;
  const crypto::Ed25519Public id2 = k2.identity.public_key();
  const TorDescriptorKeys dk{k1.rsa, id2, k2.signing, k2.cert, k2.onion, tap_key(), kAt + 30 * kDay};
  auto d = parse_tor_server_descriptor(make_tor_server_descriptor(f, dk), kAt);
  REQUIRE(d);
  const std::vector<TorRelayRecord> shared{a, TorRelayRecord{*d, a.history}};
  const auto entries = compute_router_entries(shared, kAt, AuthorityParams{});
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].identity == std::min(key_from(1).public_key(), key_from(2).public_key()));
  CHECK(entries[0].rsa_identity == k1.rsa.public_key().fingerprint());
}

TEST_CASE("authority: V2Dir for a directory cache, as tor's authorities vote it", "[dir][authority]") {
  // Stock clients take guards only among V2Dir relays: without it for
  // tunnelled-dir-server, the authority (the one relay with a DirPort) was
  // every stock client's only guard in an emulated network.
  std::vector<TorRelayRecord> recs;
  { Spec s; s.dir_cache = true; recs.push_back(make_record(1, s)); }
  { Spec s; s.dir_port = 7001; recs.push_back(make_record(2, s)); }
  recs.push_back(make_record(3, Spec{}));
  const auto entries = compute_router_entries(recs, kAt, AuthorityParams{});
  REQUIRE(entries.size() == 3);
  CHECK(find(entries, 1)->flags.v2dir);
  CHECK(find(entries, 2)->flags.v2dir);
  CHECK_FALSE(find(entries, 3)->flags.v2dir);
}

namespace {

// Four relays under tor's normal rules: relay 1 (3 MB/s) alone gets Guard,
// relay 2 alone Exit; relays 3 and 4 get neither.
std::vector<TorRelayRecord> testing_vote_relays() {
  std::vector<TorRelayRecord> recs;
  { Spec s; s.bw = 3'000'000; recs.push_back(make_record(1, s)); }
  { Spec s; s.policy = kWeb; recs.push_back(make_record(2, s)); }
  recs.push_back(make_record(3, Spec{}));
  recs.push_back(make_record(4, Spec{}));
  return recs;
}

}  // namespace

TEST_CASE("authority: TestingDirAuthVoteGuard votes Guard for the relays it names", "[dir][authority]") {
  const auto recs = testing_vote_relays();
  AuthorityParams params;
  const auto plain = compute_router_entries(recs, kAt, params);
  REQUIRE(find(plain, 1)->flags.guard);
  for (int n = 2; n <= 4; ++n) CHECK_FALSE(find(plain, static_cast<std::uint8_t>(n))->flags.guard);

  TestingVotes votes;
  votes.guard.relays.fingerprints = {keys_of(3).rsa.public_key().fingerprint()};
  votes.guard.relays.nicknames = {"RELAY4"};  // tor's routerset: nicknames ignore case
  params.testing_votes = votes;
  const auto entries = compute_router_entries(recs, kAt, params);
  CHECK(find(entries, 1)->flags.guard);  // not strict: its own Guard stays
  CHECK_FALSE(find(entries, 2)->flags.guard);
  CHECK(find(entries, 3)->flags.guard);
  CHECK(find(entries, 4)->flags.guard);
  for (std::uint8_t n = 1; n <= 4; ++n) {
    CHECK(find(entries, n)->flags.exit == find(plain, n)->flags.exit);  // Exit untouched
    CHECK(find(entries, n)->bandwidth == find(plain, n)->bandwidth);
  }
  // The weights count the forced Guards: G = 3000 + 100 + 100, M = 0, E = 100
  // (kilobytes/s), where the plain flags give G = 3000, M = 200.
  const auto expected = compute_bandwidth_weights(3200, 0, 100, 0, kDefaultWeightScale);
  REQUIRE(expected);
  CHECK(weights_for(entries) == expected->weights);
  CHECK(weights_for(plain) != expected->weights);
}

TEST_CASE("authority: TestingDirAuthVoteGuardIsStrict takes Guard from every other relay", "[dir][authority]") {
  AuthorityParams params;
  params.testing_votes.emplace();
  params.testing_votes->guard.relays.nicknames = {"relay3"};
  params.testing_votes->guard.strict = true;
  const auto entries = compute_router_entries(testing_vote_relays(), kAt, params);
  CHECK_FALSE(find(entries, 1)->flags.guard);  // 3 MB/s, Guard by the rules, not named
  CHECK_FALSE(find(entries, 2)->flags.guard);
  CHECK(find(entries, 3)->flags.guard);
  CHECK_FALSE(find(entries, 4)->flags.guard);
  // Strict with nobody named: no Guard at all (tor's test_dir.c, routerset_none).
  params.testing_votes->guard.relays = {};
  for (const auto& e : compute_router_entries(testing_vote_relays(), kAt, params)) CHECK_FALSE(e.flags.guard);
}

TEST_CASE("authority: TestingDirAuthVoteExit votes Exit whatever the policy, strict or not", "[dir][authority]") {
  AuthorityParams params;
  params.testing_votes.emplace();
  params.testing_votes->exit.relays.nicknames = {"relay4"};  // its policy is reject *:*
  auto entries = compute_router_entries(testing_vote_relays(), kAt, params);
  CHECK(find(entries, 2)->flags.exit);
  CHECK(find(entries, 4)->flags.exit);
  CHECK(find(entries, 4)->exit_policy == "reject 1-65535");  // the summary stays what the relay said
  CHECK_FALSE(find(entries, 3)->flags.exit);
  CHECK(find(entries, 1)->flags.guard);  // Guard untouched
  params.testing_votes->exit.strict = true;
  entries = compute_router_entries(testing_vote_relays(), kAt, params);
  CHECK_FALSE(find(entries, 2)->flags.exit);
  CHECK(find(entries, 4)->flags.exit);
}

TEST_CASE("authority: a relay set matches by RSA identity or nickname, nothing else", "[dir][authority]") {
  RouterEntry e;
  e.nickname = "Relay7";
  e.rsa_identity = crypto::RsaFingerprint{};
  e.rsa_identity->fill(0x77);
  RelaySet set;
  CHECK_FALSE(set.contains(e));
  set.nicknames = {"relay"};  // no prefixes
  CHECK_FALSE(set.contains(e));
  set.nicknames = {"rELAY7"};
  CHECK(set.contains(e));
  set.nicknames.clear();
  set.fingerprints.push_back(*e.rsa_identity);
  CHECK(set.contains(e));
  e.rsa_identity.reset();  // an entry without an RSA identity matches by nickname only
  CHECK_FALSE(set.contains(e));
}

TEST_CASE("bandwidth weights: dir-spec cases, hand-computed", "[dir][weights]") {
  // Arguments are the class sums; the method-26 +1 makes G, M, E, D below.
  SECTION("case 1: G=4000 M=1000 E=4000 D=1000") {
    auto r = compute_bandwidth_weights(3999, 999, 3999, 999);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case1);
    // Wee = 10000*9000/12000, Wmg = 10000*(8000-5000)/12000, Wxd = 10000/3.
    check_weights(r->weights, {7500, 3333, 2500, 2500, 3333, 7500, 3333});
  }
  SECTION("case 2a: G=2000 M=6900 E=1000 D=100, E rarer") {
    auto r = compute_bandwidth_weights(1999, 6899, 999, 99);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case2a);
    check_weights(r->weights, {10000, 0, 0, 0, 0, 10000, 10000});
  }
  SECTION("case 2b1: G=3000 M=2500 E=3000 D=1500") {
    auto r = compute_bandwidth_weights(2999, 2499, 2999, 1499);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case2b1);
    // Wee = 10000*2500/3000, Wme = 10000*500/3000, Wed = 10000*2500/4500,
    // Wmd = Wgd = (10000-5555)/2.
    check_weights(r->weights, {10000, 2222, 0, 1666, 2222, 8333, 5555});
  }
  SECTION("case 2b3 that cannot balance: tor omits the weights") {
    // G=3000 M=3500 E=2500 D=1000: 2b1 gives Wee=12000 (out of range); 2b2
    // gives Wmd<0 -> 0, Wed=8333, Wgd=1667, and guard vs exit bandwidth
    // then differs by 1,666,000 > 10*T/3.
    CHECK_FALSE(compute_bandwidth_weights(2999, 3499, 2499, 999));
  }
  SECTION("case 3a: G=5000 M=4000 E=500 D=500, exits scarce") {
    auto r = compute_bandwidth_weights(4999, 3999, 499, 499);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case3a);
    // Wmg = 10000*(5000-4000)/(2*5000).
    check_weights(r->weights, {9000, 0, 1000, 0, 0, 10000, 10000});
  }
  SECTION("case 3be: G=5000 M=1000 E=1000 D=3000") {
    auto r = compute_bandwidth_weights(4999, 999, 999, 2999);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case3be);
    // Wed = 10000*7000/9000, Wgg = 10000*6000/10000, Wmd = Wgd = (10000-7777)/2.
    check_weights(r->weights, {6000, 1111, 4000, 0, 1111, 10000, 7777});
  }
  SECTION("case 3bg: G=1000 M=1000 E=5000 D=3000") {
    auto r = compute_bandwidth_weights(999, 999, 4999, 2999);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case3bg);
    // Wgd = 10000*(3000-2000+5000+1000)/9000 = 7777, Wee = 10000*6000/10000,
    // Wmd = Wed = (10000-7777)/2.
    check_weights(r->weights, {10000, 7777, 0, 4000, 1111, 6000, 1111});
  }
  SECTION("an empty network still gets weights (all classes at 1)") {
    // G=M=E=D=1, T=4: both scarce, R+D >= S; Wed = 10000*(1-2+4-2)/3.
    auto r = compute_bandwidth_weights(0, 0, 0, 0);
    REQUIRE(r);
    CHECK(r->which == WeightCase::Case2b1);
    check_weights(r->weights, {10000, 3333, 0, 0, 3333, 10000, 3333});
  }
  SECTION("out-of-range inputs") {
    CHECK_FALSE(compute_bandwidth_weights(-1, 0, 0, 0));
    CHECK_FALSE(compute_bandwidth_weights(0, 0, 0, 0, 0));
  }
}

TEST_CASE("authority: weights_for classifies by flags", "[dir][weights]") {
  std::vector<RouterEntry> rs(4);
  rs[0].flags.guard = true;                          // G
  rs[0].bandwidth = 3999;
  rs[1].bandwidth = 999;                             // M
  rs[2].flags.exit = true;                           // E
  rs[2].bandwidth = 3999;
  rs[3].flags.guard = rs[3].flags.exit = true;       // D
  rs[3].bandwidth = 999;
  auto w = weights_for(rs);
  REQUIRE(w);
  check_weights(*w, {7500, 3333, 2500, 2500, 3333, 7500, 3333});
}

TEST_CASE("authority: two authorities build identical bodies", "[dir][authority]") {
  std::vector<TorRelayRecord> recs;
  for (std::uint8_t i = 1; i <= 5; ++i) {
    Spec s;
    s.bw = 50'000u * i;
    s.policy = i % 2 ? kWeb : kRejectAll;
    recs.push_back(make_record(i, s));
  }
  std::vector<TorRelayRecord> shuffled(recs.rbegin(), recs.rend());
  std::rotate(shuffled.begin(), shuffled.begin() + 2, shuffled.end());

  AuthorityParams params;
  params.interval = 1800;
  params.consensus_params = {{"cfx_enabled", 1}};
  const std::uint64_t now = kAt + 1799;  // any time in the interval
  const std::uint64_t va = valid_after_for(now, params.interval);
  CHECK(va == kAt);
  CHECK(valid_after_for(kAt + 1800, 1800) == kAt + 1800);

  // The same facts in another order: the same body, so the same tor
  // consensus is written from it and the authorities' signatures combine.
  const ConsensusBody b1 = make_body(recs, va, params);
  const ConsensusBody b2 = make_body(shuffled, va, params);
  CHECK(b1.routers.size() == 5);
  CHECK(b1.fresh_until == va + 1800);
  CHECK(b1.valid_until == va + 3 * 1800);
  CHECK(b1.params.at("cfx_enabled") == 1);
  REQUIRE(b1.bandwidth_weights);
  CHECK(b1 == b2);

  // An authority that saw a relay as down computes another body.
  std::vector<TorRelayRecord> partial = recs;
  partial[0].history.last_reachable = kAt - 3 * 3600;
  const ConsensusBody b3 = make_body(partial, va, params);
  CHECK(b3.routers.size() == 4);
  CHECK_FALSE(b3 == b1);
}
