// The authority's state and the DirPort's routing, without sockets: newest
// descriptor per identity (bounded), the descriptor each VA uses, the same
// body at three authorities with the same facts (tor's consensus is written
// and signed from it: test_dirnet_tor_authority), and the status codes of
// every path.
#include <catch2/catch.hpp>
#include <string>

#include "conflux/dir/paths.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/descriptor_publisher.hpp"
#include "conflux/dirnet/dir_routes.hpp"
#include "conflux/keys/relay_keys.hpp"

using namespace conflux;
using namespace conflux::dirnet;

namespace {

constexpr std::uint64_t kInterval = 60;
constexpr std::uint64_t kNow = 1'700'000'000 - 1'700'000'000 % kInterval + 10;  // 10 s after a VA
constexpr std::uint64_t kVa = kNow - 10;

RelayInfo relay_info(std::uint8_t n, std::string policy = "reject 1-65535") {
  RelayInfo i;
  i.nickname = "relay" + std::to_string(n);
  i.ipv4 = {127, 0, 0, n};
  i.or_port = static_cast<std::uint16_t>(9000 + n);
  i.bandwidth = {1'000'000, 2'000'000, 1'000'000};
  i.exit_policy = std::move(policy);
  i.version = "0.1.0";
  return i;
}

std::string descriptor_text(const RelayInfo& info, const keys::RelayKeys& k, std::uint64_t published) {
  return dir::encode_descriptor(make_relay_descriptor(info, k, published));
}

struct Authorities {
  std::vector<std::unique_ptr<AuthorityState>> states;

  explicit Authorities(std::size_t n, std::size_t max_relays = 100) {
    AuthorityOptions opt;
    opt.params = authority_params(kInterval, true);
    opt.max_relays = max_relays;
    for (std::size_t i = 0; i < n; ++i) states.push_back(std::make_unique<AuthorityState>(opt));
  }
};

}  // namespace

TEST_CASE("relay descriptors carry what the relay says, signed", "[dirnet]") {
  const auto k = keys::RelayKeys::generate(kNow);
  auto d = make_relay_descriptor(relay_info(7, "accept 80,443"), k, kNow);
  CHECK(d.platform == "conflux 0.1.0");
  CHECK(d.identity == k.identity());
  CHECK(d.ntor_onion_key == k.onion_key().key.public_key());
  CHECK(d.exit_policy == "accept 80,443");
  CHECK(d.published == kNow);
  CHECK_FALSE(d.is_bridge);
  auto parsed = dir::parse_and_verify_descriptor(dir::encode_descriptor(d), kNow);
  REQUIRE(parsed);
  CHECK(*parsed == d);
}

TEST_CASE("an authority keeps the newest verified descriptor per identity, bounded", "[dirnet]") {
  Authorities a(1, 2);
  AuthorityState& s = *a.states[0];
  const auto r1 = keys::RelayKeys::generate(kNow), r2 = keys::RelayKeys::generate(kNow),
             r3 = keys::RelayKeys::generate(kNow);

  auto up = s.upload(descriptor_text(relay_info(1), r1, kNow - 100), kNow);
  CHECK(up.status == UploadStatus::Accepted);
  CHECK(up.new_identity);
  CHECK(up.identity == r1.identity());
  // Older: kept out. Newer: replaces.
  CHECK(s.upload(descriptor_text(relay_info(1), r1, kNow - 200), kNow).status == UploadStatus::Kept);
  up = s.upload(descriptor_text(relay_info(1), r1, kNow - 50), kNow);
  CHECK(up.status == UploadStatus::Accepted);
  CHECK_FALSE(up.new_identity);
  REQUIRE(s.relays().size() == 1);
  CHECK(s.relays()[0].published == kNow - 50);

  // A bridge's descriptor, a forged one and garbage are refused.
  auto bridge = relay_info(2);
  bridge.bridge = true;
  up = s.upload(descriptor_text(bridge, r2, kNow), kNow);
  CHECK(up.status == UploadStatus::Rejected);
  REQUIRE(up.error);
  CHECK(up.error->code == dir::DirErrc::IsBridge);
  auto forged = make_relay_descriptor(relay_info(2), r2, kNow);
  forged.bandwidth.rate *= 10;  // after signing
  up = s.upload(dir::encode_descriptor(forged), kNow);
  CHECK(up.status == UploadStatus::Rejected);
  CHECK(up.error->code == dir::DirErrc::BadSignature);
  CHECK(s.upload("{\"nickname\":", kNow).status == UploadStatus::Rejected);
  // Too old (48 h) is refused.
  CHECK(s.upload(descriptor_text(relay_info(2), r2, kNow - 49 * 3600), kNow).status == UploadStatus::Rejected);

  // max_relays = 2: a third identity does not fit; an update of a held one does.
  CHECK(s.upload(descriptor_text(relay_info(2), r2, kNow), kNow).status == UploadStatus::Accepted);
  CHECK(s.upload(descriptor_text(relay_info(3), r3, kNow), kNow).status == UploadStatus::Full);
  CHECK(s.upload(descriptor_text(relay_info(2), r2, kNow + 1), kNow + 1).status == UploadStatus::Accepted);
  CHECK(s.relay_count() == 2);

  // Expiry frees the slot.
  s.expire(kNow + 48 * 3600 - 49);
  CHECK(s.relay_count() == 1);
  CHECK(s.upload(descriptor_text(relay_info(3), r3, kNow + 48 * 3600 - 49), kNow + 48 * 3600 - 49).status ==
        UploadStatus::Accepted);
}

TEST_CASE("the body for VA lists the newest descriptor published at or before VA", "[dirnet]") {
  Authorities a(1);
  AuthorityState& s = *a.states[0];
  const auto r = keys::RelayKeys::generate(kNow - 1000);
  REQUIRE(s.upload(descriptor_text(relay_info(1), r, kVa - 30), kNow).status == UploadStatus::Accepted);
  auto changed = relay_info(1);
  changed.or_port = 9999;
  REQUIRE(s.upload(descriptor_text(changed, r, kVa + 5), kNow).status == UploadStatus::Accepted);
  s.observe(r.identity(), kNow, true);

  CHECK_FALSE(s.current());
  CHECK_FALSE(s.current_valid_after());
  (void)s.compute(kVa);
  REQUIRE(s.current());
  CHECK(s.current_valid_after() == kVa);
  REQUIRE(s.current()->routers.size() == 1);
  CHECK(s.current()->routers[0].or_port == 9001);
  CHECK(s.current()->routers[0].published == kVa - 30);
  // At the next VA the newer one is used.
  (void)s.compute(kVa + kInterval);
  REQUIRE(s.current()->routers.size() == 1);
  CHECK(s.current()->routers[0].or_port == 9999);
  // A relay tested unreachable once is still Running: reachable within the last 45 min.
  s.observe(r.identity(), kNow + kInterval + 1, false);
  CHECK(s.compute(kVa + 2 * kInterval).routers.size() == 1);
  // 45 minutes after its last success it is no longer listed.
  s.observe(r.identity(), kNow + 46 * 60, false);
  CHECK(s.compute(kVa + 46 * 60).routers.empty());
}

TEST_CASE("three authorities with the same facts compute the same body", "[dirnet]") {
  Authorities a(3);
  std::vector<keys::RelayKeys> relays;
  for (int i = 0; i < 4; ++i) relays.push_back(keys::RelayKeys::generate(kNow - 1000));
  for (std::size_t n = 0; n < a.states.size(); ++n) {
    // Each authority hears the uploads in another order.
    for (std::size_t j = 0; j < 4; ++j) {
      const auto i = static_cast<std::uint8_t>((j + n) % 4);
      auto& s = *a.states[n];
      REQUIRE(s.upload(descriptor_text(relay_info(static_cast<std::uint8_t>(i + 1),
                                                  i == 0 ? "accept 80,443" : "reject 1-65535"),
                                       relays[i], kVa - 60),
                       kNow)
                  .status == UploadStatus::Accepted);
      s.observe(relays[i].identity(), kNow, true);
    }
  }
  const dir::ConsensusBody b0 = a.states[0]->compute(kVa);
  CHECK(a.states[1]->compute(kVa) == b0);
  CHECK(a.states[2]->compute(kVa) == b0);
  CHECK(b0.valid_after == kVa);
  REQUIRE(b0.routers.size() == 4);
  for (const auto& r : b0.routers) {
    CHECK(r.flags.running);
    CHECK(r.flags.valid);
    CHECK(r.flags.fast);
    CHECK(r.flags.guard);
    CHECK(r.flags.stable);
    CHECK(r.flags.exit == (r.identity == relays[0].identity()));
  }
  // An authority that did not hear one upload computes another body.
  Authorities partial(1);
  for (std::uint8_t i = 0; i < 3; ++i) {
    REQUIRE(partial.states[0]->upload(descriptor_text(relay_info(static_cast<std::uint8_t>(i + 1),
                                                                 i == 0 ? "accept 80,443" : "reject 1-65535"),
                                                      relays[i], kVa - 60),
                                      kNow)
                .status == UploadStatus::Accepted);
    partial.states[0]->observe(relays[i].identity(), kNow, true);
  }
  const dir::ConsensusBody b3 = partial.states[0]->compute(kVa);
  CHECK(b3.routers.size() == 3);
  CHECK_FALSE(b3 == b0);
}

TEST_CASE("DirPort routes: status codes by role, path, method and size", "[dirnet]") {
  Authorities a(1);
  DirRoutes none;
  CHECK(none.handle(HttpMethod::Get, dir::kConsensus, "", kNow).status == 404);
  CHECK(none.handle(HttpMethod::Get, dir::kSelfDescriptor, "", kNow).status == 404);

  DirRoutes auth;
  auth.set_authority(a.states[0].get());
  std::vector<crypto::Ed25519Public> seen;
  auth.on_new_relay = [&](const crypto::Ed25519Public& id) { seen.push_back(id); };
  CHECK(auth.handle(HttpMethod::Get, "/nope", "", kNow).status == 404);
  CHECK(auth.handle(HttpMethod::Get, dir::kDescriptorUpload, "", kNow).status == 405);
  CHECK(auth.check(HttpMethod::Post, dir::kDescriptorUpload).body_limit == dir::kMaxUploadBody);
  CHECK(auth.handle(HttpMethod::Post, dir::kDescriptorUpload, std::string(dir::kMaxUploadBody + 1, 'x'), kNow)
            .status == 413);
  CHECK(auth.handle(HttpMethod::Post, dir::kDescriptorUpload, "garbage", kNow).status == 400);
  // The JSON consensus and its signature exchange retired: unknown paths.
  for (const char* retired : {"/conflux/v1/consensus", "/conflux/v1/consensus-signature", "/conflux/v1/consensus-body"}) {
    CHECK(auth.handle(HttpMethod::Get, retired, "", kNow).status == 404);
    CHECK(auth.handle(HttpMethod::Post, retired, "x", kNow).status == 404);
  }

  const auto r = keys::RelayKeys::generate(kNow);
  const auto text = descriptor_text(relay_info(1), r, kNow);
  CHECK(auth.handle(HttpMethod::Post, std::string(dir::kDescriptorUpload) + "?x=1", text, kNow).status == 200);
  CHECK(auth.handle(HttpMethod::Post, dir::kDescriptorUpload, text, kNow).status == 200);  // a repeat
  REQUIRE(seen.size() == 1);  // only the first was new
  CHECK(seen[0] == r.identity());
  a.states[0]->observe(r.identity(), kNow, true);
  CHECK(a.states[0]->compute(kVa + kInterval).routers.size() == 1);  // published after kVa
  CHECK(auth.handle(HttpMethod::Get, dir::kConsensus, "", kNow).status == 404);  // computed, never served as JSON
  CHECK(auth.handle(HttpMethod::Get, dir::kSelfDescriptor, "", kNow).status == 404);  // not a bridge

  DirRoutes bridge;
  bridge.set_self_descriptor("{}");
  CHECK(bridge.handle(HttpMethod::Get, dir::kSelfDescriptor, "", kNow).body == "{}");
  CHECK(bridge.handle(HttpMethod::Post, dir::kSelfDescriptor, "", kNow).status == 405);
  CHECK(bridge.handle(HttpMethod::Post, dir::kDescriptorUpload, "", kNow).status == 404);  // not an authority
  CHECK(bridge.counters().ok == 1);
}
