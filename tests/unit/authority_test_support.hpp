#pragma once
// Relays for the directory authority's tests (test_dir_authority*.cpp): keys
// made once per relay number, tor server descriptors made and parsed as an
// authority receives them, and the expected bandwidth weights.
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

namespace conflux::dir::test {

inline constexpr std::uint64_t kDay = 86400;
inline constexpr std::uint64_t kAt = 1'700'000'000 - 1'700'000'000 % 3600;

inline crypto::Ed25519Keypair key_from(std::uint8_t b) {
  std::array<std::uint8_t, 32> seed{};
  seed.fill(b);
  return crypto::Ed25519Keypair::from_seed(seed);
}

// Relay n's keys: its Ed25519 identity is key_from(n), so tests find its
// entry by n; the RSA keys are made once per n (they are slow to make).
struct RelayKeys {
  crypto::RsaPrivateKey rsa = crypto::RsaPrivateKey::generate(1024);
  crypto::Ed25519Keypair identity;
  crypto::Ed25519Keypair signing;
  crypto::X25519Secret onion = crypto::X25519Secret::generate();
  std::vector<std::uint8_t> cert;

  explicit RelayKeys(std::uint8_t n) : identity(key_from(n)), signing(key_from(static_cast<std::uint8_t>(n + 100))) {
    cell::Ed25519CertBody body;
    body.cert_type = cell::CertType::IdentityVSigning;
    body.expiration_hours = cell::cert_expiration_hours(kAt + 30 * kDay);
    body.certified_key = signing.public_key();
    auto c = cell::sign_ed25519_cert(std::move(body), identity, cell::IncludeSigningKey::Yes);
    REQUIRE(c);
    cert = cell::encode_ed25519_cert(*c).value();
  }
};

inline const RelayKeys& keys_of(std::uint8_t n) {
  static std::map<std::uint8_t, std::unique_ptr<RelayKeys>> made;
  auto& k = made[n];
  if (!k) k = std::make_unique<RelayKeys>(n);
  return *k;
}

inline const crypto::RsaPrivateKey& tap_key() {
  static const auto k = crypto::RsaPrivateKey::generate(1024);
  return k;
}

// An exit policy in tor's lines and the summary the authority makes of it.
inline const std::vector<std::string> kRejectAll{"reject *:*"};
inline const std::vector<std::string> kWeb{"accept *:80", "accept *:443", "reject *:*"};  // accept 80,443

struct Spec {
  std::uint64_t bw = 100'000;
  bool measured = true;             // false: observed 0, as a new relay reports
  std::uint64_t run = 10 * kDay;    // current uptime run
  std::uint64_t known = 20 * kDay;  // since first seen
  std::vector<std::string> policy = kRejectAll;
  std::uint64_t unreachable_for = 60;
  std::uint64_t published_ago = 600;
  bool dir_cache = false;  // tunnelled-dir-server
  std::uint16_t dir_port = 0;
};

inline TorRelayRecord make_record(std::uint8_t n, const Spec& s) {
  const RelayKeys& k = keys_of(n);
  TorDescriptorFacts f;
  f.nickname = "relay" + std::to_string(n);
  f.ipv4 = {127, 0, 0, n};
  f.or_port = static_cast<std::uint16_t>(5000 + n);
  f.platform = "conflux test";
  f.protocols = "Link=4-5 Relay=2-4 Conflux=1";
  f.published = kAt - s.published_ago;
  f.bandwidth_rate = f.bandwidth_burst = s.bw;
  f.bandwidth_observed = s.measured ? s.bw : 0;
  f.exit_policy = s.policy;
  f.tunnelled_dir_server = s.dir_cache;
  f.dir_port = s.dir_port;
  const crypto::Ed25519Public id = k.identity.public_key();
  const TorDescriptorKeys dk{k.rsa, id, k.signing, k.cert, k.onion, tap_key(), kAt + 30 * kDay};
  auto d = parse_tor_server_descriptor(make_tor_server_descriptor(f, dk), kAt);
  REQUIRE(d);
  TorRelayRecord r{*d, {}};
  r.history.first_seen = kAt - s.known;
  r.history.last_tested = kAt - s.unreachable_for;
  r.history.last_reachable = kAt - s.unreachable_for;
  r.history.up_since = kAt - s.run;
  r.history.tracked_seconds = 1000;
  r.history.up_seconds = 990;
  return r;
}

inline const RouterEntry* find(const std::vector<RouterEntry>& v, std::uint8_t n) {
  const auto id = key_from(n).public_key();
  for (const auto& e : v)
    if (e.identity == id) return &e;
  return nullptr;
}

struct Expected {
  std::int64_t wgg, wgd, wmg, wme, wmd, wee, wed;
};

inline void check_weights(const BandwidthWeights& w, const Expected& x) {
  CHECK(w.scale == 10000);
  CHECK(w.wgg == x.wgg);
  CHECK(w.wgd == x.wgd);
  CHECK(w.wmg == x.wmg);
  CHECK(w.wme == x.wme);
  CHECK(w.wmd == x.wmd);
  CHECK(w.wee == x.wee);
  CHECK(w.wed == x.wed);
  // The derived weights (tor's fixed assignments).
  CHECK(w.wbd == x.wmd);
  CHECK(w.wbe == x.wme);
  CHECK(w.wbg == x.wmg);
  CHECK(w.wgm == x.wgg);
  CHECK(w.wem == x.wee);
  CHECK(w.weg == x.wed);
  for (std::int64_t v : {w.wbm, w.wdb, w.web, w.wgb, w.wmb, w.wmm}) CHECK(v == 10000);
}

}  // namespace conflux::dir::test
