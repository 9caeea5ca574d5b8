// The authority's state and the DirPort's routing, without sockets: newest
// descriptor per identity (bounded), the descriptor each VA uses, the
// signature exchange between three authorities (including signatures that
// arrive before the body is built), majority publication, and the status
// codes of every path.
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
  std::vector<keys::RelayKeys> keys;
  std::vector<crypto::Ed25519Public> ids;
  std::vector<std::unique_ptr<AuthorityState>> states;

  explicit Authorities(std::size_t n, std::size_t max_relays = 100) {
    for (std::size_t i = 0; i < n; ++i) keys.push_back(keys::RelayKeys::generate(kNow - 3600));
    for (auto& k : keys) ids.push_back(k.identity());
    AuthorityOptions opt;
    opt.params = authority_params(kInterval, true);
    opt.max_relays = max_relays;
    for (auto& k : keys) states.push_back(std::make_unique<AuthorityState>(k, ids, opt));
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

  s.build(kVa, kNow);
  REQUIRE(s.current());
  REQUIRE(s.current()->body.routers.size() == 1);
  CHECK(s.current()->body.routers[0].or_port == 9001);
  CHECK(s.current()->body.routers[0].published == kVa - 30);
  // One authority of one is a majority: published at once.
  REQUIRE(s.published(kNow) != nullptr);
  CHECK(s.published_text(kNow).has_value());
  // At the next VA the newer one is used.
  s.build(kVa + kInterval, kNow + kInterval);
  REQUIRE(s.current()->body.routers.size() == 1);
  CHECK(s.current()->body.routers[0].or_port == 9999);
  // An unreachable relay is not Running, so not listed.
  s.observe(r.identity(), kNow + kInterval + 1, false);
  s.build(kVa + 2 * kInterval, kNow + 2 * kInterval);
  CHECK(s.current()->body.routers.size() == 1);  // reachable within the last 45 min still
}

TEST_CASE("three authorities combine signatures over the same body", "[dirnet]") {
  Authorities a(3);
  std::vector<keys::RelayKeys> relays;
  for (int i = 0; i < 4; ++i) relays.push_back(keys::RelayKeys::generate(kNow - 1000));
  for (auto& s : a.states) {
    for (std::uint8_t i = 0; i < 4; ++i) {
      REQUIRE(s->upload(descriptor_text(relay_info(static_cast<std::uint8_t>(i + 1), i == 0 ? "accept 80,443"
                                                                                               : "reject 1-65535"),
                                        relays[i], kVa - 60),
                        kNow)
                  .status == UploadStatus::Accepted);
      s->observe(relays[i].identity(), kNow, true);
    }
  }
  AuthorityState &s0 = *a.states[0], &s1 = *a.states[1], &s2 = *a.states[2];

  // Authority 2's signature reaches authority 0 before 0 built: kept.
  const auto sig2 = dir::encode_detached_signature(s2.build(kVa, kNow));
  CHECK(s0.add_signature(sig2, kNow) == SignatureStatus::OtherBody);
  const auto sig0 = dir::encode_detached_signature(s0.build(kVa, kNow));
  // The early signature was applied at build: 2 of 3, published.
  const dir::Consensus* pub = s0.published(kNow);
  REQUIRE(pub != nullptr);
  CHECK(pub->signatures.size() == 2);
  CHECK(dir::verify_consensus(*pub, a.ids, kNow).value() == 2);
  CHECK(pub->body.routers.size() == 4);
  for (const auto& r : pub->body.routers) {
    CHECK(r.flags.running);
    CHECK(r.flags.valid);
    CHECK(r.flags.fast);
    CHECK(r.flags.guard);
    CHECK(r.flags.stable);
    CHECK(r.flags.exit == (r.identity == relays[0].identity()));
  }

  // Authority 1 alone is not a majority.
  const auto sig1 = dir::encode_detached_signature(s1.build(kVa, kNow));
  CHECK(s1.published(kNow) == nullptr);
  CHECK(s1.add_signature(sig0, kNow) == SignatureStatus::Added);
  REQUIRE(s1.published(kNow) != nullptr);
  CHECK(s0.add_signature(sig1, kNow) == SignatureStatus::Added);
  CHECK(s0.published(kNow)->signatures.size() == 3);
  CHECK(s0.add_signature(sig1, kNow) == SignatureStatus::Added);  // again: counted once
  CHECK(s0.published(kNow)->signatures.size() == 3);

  // Not from a configured authority, or our own, or garbage: invalid.
  Authorities stranger(1);
  for (std::uint8_t i = 0; i < 4; ++i) {
    (void)stranger.states[0]->upload(descriptor_text(relay_info(static_cast<std::uint8_t>(i + 1),
                                                                i == 0 ? "accept 80,443" : "reject 1-65535"),
                                                     relays[i], kVa - 60),
                                     kNow);
    stranger.states[0]->observe(relays[i].identity(), kNow, true);
  }
  const auto foreign = dir::encode_detached_signature(stranger.states[0]->build(kVa, kNow));
  CHECK(s1.add_signature(foreign, kNow) == SignatureStatus::Invalid);
  CHECK(s0.add_signature(sig0, kNow) == SignatureStatus::Invalid);
  CHECK(s0.add_signature("not json", kNow) == SignatureStatus::Invalid);
  // A signature whose digest matches but whose signature bytes are forged.
  auto forged = dir::parse_detached_signature(sig1).value();
  forged.signature.signature[0] ^= 1;
  CHECK(s2.add_signature(dir::encode_detached_signature(forged), kNow) == SignatureStatus::Invalid);

  // An authority that missed everything adopts the published consensus;
  // a stale one is not taken over a newer one.
  AuthorityOptions opt;
  opt.params = authority_params(kInterval, true);
  AuthorityState observer(a.keys[2], a.ids, opt);
  CHECK(observer.adopt(*s0.published(kNow), kNow));
  REQUIRE(observer.published(kNow) != nullptr);
  CHECK(observer.published(kNow)->signatures.size() == 3);
  CHECK_FALSE(observer.adopt(*s0.published(kNow), kNow));
  // After valid-until it is no longer served.
  CHECK(observer.published(kVa + 3 * kInterval + 1) == nullptr);
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
  CHECK(auth.handle(HttpMethod::Get, dir::kConsensus, "", kNow).status == 404);  // none yet
  CHECK(auth.handle(HttpMethod::Get, dir::kConsensusBody, "", kNow).status == 404);
  CHECK(auth.handle(HttpMethod::Get, dir::kDescriptorUpload, "", kNow).status == 405);
  CHECK(auth.handle(HttpMethod::Post, dir::kConsensus, "", kNow).status == 405);
  CHECK(auth.handle(HttpMethod::Other, dir::kConsensus, "", kNow).status == 405);
  CHECK(auth.check(HttpMethod::Post, dir::kDescriptorUpload).body_limit == dir::kMaxUploadBody);
  CHECK(auth.check(HttpMethod::Post, dir::kConsensusSignature).body_limit == dir::kMaxSignatureBody);
  CHECK(auth.check(HttpMethod::Get, dir::kConsensus).body_limit == 0);
  CHECK(auth.handle(HttpMethod::Post, dir::kDescriptorUpload, std::string(dir::kMaxUploadBody + 1, 'x'), kNow)
            .status == 413);
  CHECK(auth.handle(HttpMethod::Post, dir::kDescriptorUpload, "garbage", kNow).status == 400);
  CHECK(auth.handle(HttpMethod::Post, dir::kConsensusSignature, "garbage", kNow).status == 400);

  const auto r = keys::RelayKeys::generate(kNow);
  const auto text = descriptor_text(relay_info(1), r, kNow);
  CHECK(auth.handle(HttpMethod::Post, std::string(dir::kDescriptorUpload) + "?x=1", text, kNow).status == 200);
  CHECK(auth.handle(HttpMethod::Post, dir::kDescriptorUpload, text, kNow).status == 200);  // a repeat
  REQUIRE(seen.size() == 1);  // only the first was new
  CHECK(seen[0] == r.identity());
  a.states[0]->observe(r.identity(), kNow, true);
  a.states[0]->build(kVa, kNow);
  auto got = auth.handle(HttpMethod::Get, dir::kConsensus, "", kNow);
  CHECK(got.status == 200);
  CHECK(got.json);
  auto c = dir::parse_consensus(got.body);
  REQUIRE(c);
  CHECK(dir::verify_consensus(*c, a.ids, kNow));
  CHECK(auth.handle(HttpMethod::Get, dir::kConsensusBody, "", kNow).status == 200);
  CHECK(auth.handle(HttpMethod::Get, dir::kSelfDescriptor, "", kNow).status == 404);  // not a bridge

  DirRoutes bridge;
  bridge.set_self_descriptor("{}");
  CHECK(bridge.handle(HttpMethod::Get, dir::kSelfDescriptor, "", kNow).body == "{}");
  CHECK(bridge.handle(HttpMethod::Post, dir::kSelfDescriptor, "", kNow).status == 405);
  CHECK(bridge.handle(HttpMethod::Post, dir::kDescriptorUpload, "", kNow).status == 404);  // not an authority
  CHECK(bridge.counters().ok == 1);
}
