// The directory authority with tor's bandwidth-file measurements
// (V3BandwidthsFile): measured weights, maxunmeasuredbw for the others, and
// the flag thresholds on credible bandwidths.
#include <catch2/catch.hpp>

#include "conflux/dir/authority.hpp"

#include "authority_test_support.hpp"

using namespace conflux;
using namespace conflux::dir;
using namespace conflux::dir::test;

namespace {

// Four relays advertising 100 KB/s each; a bandwidth file measures some.
std::vector<TorRelayRecord> four_equal_relays() {
  std::vector<TorRelayRecord> recs;
  for (std::uint8_t n = 1; n <= 4; ++n) recs.push_back(make_record(n, Spec{}));
  return recs;
}

MeasuredBandwidths measure(std::initializer_list<std::pair<std::uint8_t, std::uint32_t>> kb) {
  MeasuredBandwidths m;
  m.timestamp = kAt;
  for (auto [n, v] : kb) m.kb[keys_of(n).rsa.public_key().fingerprint()] = v;
  return m;
}

}  // namespace

TEST_CASE("authority: without a bandwidth file every weight is advertised and unmeasured", "[dir][authority][bwfile]") {
  const auto entries = compute_router_entries(four_equal_relays(), kAt, AuthorityParams{});
  REQUIRE(entries.size() == 4);
  for (const auto& e : entries) {
    CHECK(e.bandwidth == 100);
    CHECK_FALSE(e.measured);
  }
}

TEST_CASE("authority: a measured relay's weight is its measurement", "[dir][authority][bwfile]") {
  const auto recs = four_equal_relays();
  const auto entries = compute_router_entries(recs, kAt, AuthorityParams{},
                                              measure({{1, 16000}, {2, 1000}, {3, 4000}, {4, 2000}}));
  const std::uint64_t expected[] = {16000, 1000, 4000, 2000};
  for (std::uint8_t n = 1; n <= 4; ++n) {
    CHECK(find(entries, n)->bandwidth == expected[n - 1]);
    CHECK(find(entries, n)->measured);
  }
  // Guard by measurement: at least min(the 3/4 rank, 2 MB/s) = 2000 KB/s,
  // so relays 1, 3 and 4; the weights count G = 22000, M = 1000 KB/s.
  for (int n : {1, 3, 4}) CHECK(find(entries, static_cast<std::uint8_t>(n))->flags.guard);
  CHECK_FALSE(find(entries, 2)->flags.guard);
  const auto w = compute_bandwidth_weights(22000, 1000, 0, 0, kDefaultWeightScale);
  REQUIRE(w);
  CHECK(weights_for(entries) == w->weights);
}

TEST_CASE("authority: once some relay is measured, an unmeasured one weighs at most maxunmeasuredbw",
          "[dir][authority][bwfile]") {
  const auto recs = four_equal_relays();
  const auto m = measure({{1, 500}});
  const auto entries = compute_router_entries(recs, kAt, AuthorityParams{}, m);
  CHECK(find(entries, 1)->bandwidth == 500);
  for (std::uint8_t n = 2; n <= 4; ++n) {
    CHECK(find(entries, n)->bandwidth == kDefaultMaxUnmeasuredKb);  // 20 KB/s, tor's default
    CHECK_FALSE(find(entries, n)->measured);
  }
  AuthorityParams raised;
  raised.consensus_params["maxunmeasuredbw"] = 60;
  CHECK(find(compute_router_entries(recs, kAt, raised, m), 2)->bandwidth == 60);
  raised.consensus_params["maxunmeasuredbw"] = 1000;  // above the advertised 100: no cap
  CHECK(find(compute_router_entries(recs, kAt, raised, m), 2)->bandwidth == 100);
  // A file that names no listed relay measures nothing: no cap.
  const auto none = compute_router_entries(recs, kAt, AuthorityParams{}, measure({{9, 500}}));
  for (const auto& e : none) CHECK(e.bandwidth == 100);
}

TEST_CASE("authority: the flag thresholds use measurements, as tor's credible bandwidth", "[dir][authority][bwfile]") {
  // Advertised equally, all four would be Guard (each at the 3/4 rank); by
  // measurement only the top quarter is: relay 1 at 3000 KB/s.
  const auto recs = four_equal_relays();
  AuthorityParams params;
  for (const auto& e : compute_router_entries(recs, kAt, params)) CHECK(e.flags.guard);
  const auto entries = compute_router_entries(recs, kAt, params, measure({{1, 3000}, {2, 50}, {3, 60}, {4, 70}}));
  CHECK(find(entries, 1)->flags.guard);
  for (std::uint8_t n = 2; n <= 4; ++n) CHECK_FALSE(find(entries, n)->flags.guard);
  // Fast: at or above the 1/8 rank (50 KB/s), and the floor is 20 KB/s.
  for (std::uint8_t n = 1; n <= 4; ++n) CHECK(find(entries, n)->flags.fast);
}

TEST_CASE("authority: make_body carries the measurements into the body", "[dir][authority][bwfile]") {
  const auto recs = four_equal_relays();
  const auto m = measure({{2, 777}});
  const ConsensusBody a = make_body(recs, kAt, AuthorityParams{}, m);
  const ConsensusBody b = make_body(recs, kAt, AuthorityParams{}, m);
  CHECK(a == b);
  CHECK(find(a.routers, 2)->bandwidth == 777);
  CHECK(find(a.routers, 2)->measured);
  CHECK_FALSE(a == make_body(recs, kAt, AuthorityParams{}));
}
