// The DirPort's routing, without sockets: the status codes of every path
// by role (none, an authority taking tor descriptors, a relay serving its
// own). The authority's state itself (tor descriptors held, the body at
// VA, the same body at every authority with the same facts) is tested with
// stock descriptors in test_dirnet_tor_upload.
#include <catch2/catch.hpp>
#include <string>

#include "conflux/dir/paths.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "tor_stock_descriptors.hpp"

using namespace conflux;
using namespace conflux::dirnet;
using namespace conflux::test::tordata;

TEST_CASE("DirPort routes: status codes by role, path, method and size", "[dirnet]") {
  const std::uint64_t now = kStockPublished + 10;
  DirRoutes none;
  for (const char* path : {"/conflux/v1/consensus", "/conflux/v1/descriptor/self", "/tor/", "/tor/server/authority"})
    CHECK(none.handle(HttpMethod::Get, path, "", now).status == 404);

  AuthorityOptions opt;
  opt.params = authority_params(20, true);
  AuthorityState state(opt);
  DirRoutes auth;
  auth.set_tor_uploads(&state.tor_uploads());
  std::vector<crypto::Ed25519Public> seen;
  auth.on_new_relay = [&](const crypto::Ed25519Public& id) { seen.push_back(id); };
  CHECK(auth.handle(HttpMethod::Get, "/nope", "", now).status == 404);
  CHECK(auth.handle(HttpMethod::Get, "/tor/", "", now).status == 405);
  CHECK(auth.check(HttpMethod::Post, "/tor/").body_limit == kMaxTorUploadBody);
  CHECK(auth.handle(HttpMethod::Post, "/tor/", std::string(kMaxTorUploadBody + 1, 'x'), now).status == 413);
  CHECK(auth.handle(HttpMethod::Post, "/tor/", "garbage", now).status == 400);
  // Our JSON directory's paths retired: unknown.
  for (const char* retired : {"/conflux/v1/consensus", "/conflux/v1/consensus-signature",
                              "/conflux/v1/consensus-body", "/conflux/v1/descriptor", "/conflux/v1/descriptor/self"}) {
    CHECK(auth.handle(HttpMethod::Get, retired, "", now).status == 404);
    CHECK(auth.handle(HttpMethod::Post, retired, "x", now).status == 404);
  }

  const auto descs = stock_descriptors();
  CHECK(auth.handle(HttpMethod::Post, "/tor/?x=1", descs[0], now).status == 200);
  CHECK(auth.handle(HttpMethod::Post, "/tor/", descs[0], now).descriptor_not_new);  // a repeat
  REQUIRE(seen.size() == 1);  // only the first was new
  REQUIRE(state.probe_targets().size() == 1);
  CHECK(state.probe_targets()[0].identity == seen[0]);
  CHECK(auth.handle(HttpMethod::Get, "/tor/server/all", "", now).status == 200);
  CHECK(auth.handle(HttpMethod::Get, "/tor/server/authority", "", now).status == 404);  // its own: not set

  DirRoutes relay;
  relay.set_tor_self_descriptor("router x 127.0.0.1 1 0 0\n", std::string(40, 'A'));
  CHECK(relay.handle(HttpMethod::Get, "/tor/server/authority", "", now).body == "router x 127.0.0.1 1 0 0\n");
  CHECK(relay.handle(HttpMethod::Post, "/tor/server/authority", "", now).status == 405);
  CHECK(relay.handle(HttpMethod::Post, "/tor/", "", now).status == 404);  // not an authority
  CHECK(relay.counters().ok == 1);
}

TEST_CASE("authority_params: TestingDirAuthVote* count only in a test network, as tor's", "[dirnet]") {
  // tor applies them in dirserv_set_routerstatus_testing, which runs only
  // with TestingTorNetwork; elsewhere the options are ignored.
  dir::TestingVotes votes;
  votes.guard.relays.nicknames = {"relay1"};
  votes.guard.strict = true;
  votes.exit.relays.nicknames = {"exit1"};
  const auto testing = authority_params(20, true, votes);
  REQUIRE(testing.testing_votes);
  CHECK(*testing.testing_votes == votes);
  CHECK(testing.thresholds.guard_familiar_after == 0);
  const auto plain = authority_params(20, false, votes);
  CHECK_FALSE(plain.testing_votes);
  CHECK(plain.thresholds.guard_familiar_after == dir::FlagThresholds{}.guard_familiar_after);
}
