// The link handshake (tor-spec 4): two state machines wired to each other in
// memory, plus hand-made cells for the ways a peer can go wrong.
#include <catch2/catch.hpp>
#include <deque>
#include <string>

#include "conflux/cell/auth_challenge_cell.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/netinfo_cell.hpp"
#include "conflux/cell/padding_cells.hpp"
#include "conflux/cell/versions_cell.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/proto/link_handshake.hpp"
#include "test_support.hpp"

using namespace conflux;
using proto::LinkFailure;
using proto::LinkHandshake;
using proto::LinkState;

namespace {

constexpr std::uint64_t kNow = 1'700'000'000;
constexpr std::uint64_t kDay = 24 * 3600;

proto::LinkCredentials creds_of(const keys::RelayKeys& k) {
  return proto::LinkCredentials{k.identity(),
                                k.signing_cert_bytes(),
                                k.tls_link_cert_bytes(),
                                k.link_auth_cert_bytes(),
                                k.link_auth_key(),
                                k.rsa_link_cert_bytes(),
                                k.rsa_identity_cert_bytes(),
                                k.rsa_crosscert_bytes(),
                                crypto::sha256(k.rsa_identity().public_key().der())};
}

crypto::Secret<32> random_exporter() {
  auto r = crypto::random_array<32>();
  return crypto::Secret<32>(std::span<const std::uint8_t, 32>(r));
}

proto::TlsFacts facts(const std::array<std::uint8_t, 32>& responder_digest, const crypto::Secret<32>& exporter) {
  proto::TlsFacts f;
  f.responder_cert_digest = responder_digest;
  // A stand-in for TLS's exporter: a function of one shared secret and the
  // context, so a wrong CID (context) gives a wrong TLSSECRETS.
  f.exporter = [exporter](std::span<const std::uint8_t> context) -> std::optional<crypto::Secret<32>> {
    std::vector<std::uint8_t> in(exporter.view().begin(), exporter.view().end());
    in.insert(in.end(), context.begin(), context.end());
    auto d = crypto::sha256(in);
    return crypto::Secret<32>(std::span<const std::uint8_t, 32>(d));
  };
  return f;
}

const cell::NetinfoAddress kInitiatorAddr = cell::NetinfoIpv4{{10, 0, 0, 1}};
const cell::NetinfoAddress kResponderAddr = cell::NetinfoIpv4{{10, 0, 0, 2}};
const cell::NetinfoAddress kResponderAddr6 = cell::NetinfoIpv6{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

// Feeds every whole cell in `in` to `hs`, framing each under the link
// version in force at that moment, as a channel would.
void feed(LinkHandshake& hs, std::vector<std::uint8_t>& in, std::uint64_t now) {
  std::size_t pos = 0;
  while (hs.state() == LinkState::InProgress && pos < in.size()) {
    const auto rest = std::span<const std::uint8_t>(in).subspan(pos);
    const auto r = cell::frame_cell(rest, hs.link_version(), hs.framer_limits());
    std::size_t n = 0;
    if (const auto* f = std::get_if<cell::Framed>(&r)) n = f->consumed;
    else if (const auto* e = std::get_if<cell::FrameError>(&r)) n = e->skip == 0 ? rest.size() : e->skip;
    else break;  // NeedMore
    hs.on_cell(rest.first(n), now);
    pos += n;
  }
  in.erase(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(pos));
}

// Runs both sides until neither has anything more to say. `tamper` may edit
// the responder->initiator bytes in flight.
template <class Tamper>
void run(LinkHandshake& a, LinkHandshake& b, Tamper tamper, std::uint64_t now_a = kNow, std::uint64_t now_b = kNow) {
  std::vector<std::uint8_t> a_to_b;
  std::vector<std::uint8_t> b_to_a;
  a.start();
  b.start();
  for (int round = 0; round < 20; ++round) {
    auto oa = a.take_output();
    auto ob = b.take_output();
    if (oa.empty() && ob.empty() && a_to_b.empty() && b_to_a.empty()) break;
    a_to_b.insert(a_to_b.end(), oa.begin(), oa.end());
    tamper(ob);
    b_to_a.insert(b_to_a.end(), ob.begin(), ob.end());
    feed(b, a_to_b, now_b);
    feed(a, b_to_a, now_a);
    if (a.state() != LinkState::InProgress && b.state() != LinkState::InProgress) break;
  }
}
void run(LinkHandshake& a, LinkHandshake& b) {
  run(a, b, [](std::vector<std::uint8_t>&) {});
}

struct Net {
  keys::RelayKeys relay = keys::RelayKeys::generate(kNow);
  keys::RelayKeys other = keys::RelayKeys::generate(kNow);
  crypto::Secret<32> exporter = random_exporter();

  LinkHandshake responder(const keys::RelayKeys& k, proto::LinkLimits limits = {}) const {
    return LinkHandshake::responder(creds_of(k), facts(k.tls_certificate().digest, exporter),
                                    {kInitiatorAddr, {kResponderAddr, kResponderAddr6}}, limits);
  }
  LinkHandshake client_to(const keys::RelayKeys& k, const crypto::Ed25519Public& expected) const {
    return LinkHandshake::initiator(expected, std::nullopt, facts(k.tls_certificate().digest, exporter),
                                    {kResponderAddr, {}});
  }
  LinkHandshake relay_to(const keys::RelayKeys& me, const keys::RelayKeys& peer,
                         const crypto::Secret<32>& exp) const {
    return LinkHandshake::initiator(peer.identity(), creds_of(me), facts(peer.tls_certificate().digest, exp),
                                    {kResponderAddr, {kInitiatorAddr}});
  }
};

// CERTS as our relays send it: responder 1,2,4,5,7; initiator 2,4,6,7.
cell::CertsCell responder_certs(const keys::RelayKeys& k) {
  return cell::CertsCell{{{1, k.rsa_link_cert_bytes()},
                          {2, k.rsa_identity_cert_bytes()},
                          {4, k.signing_cert_bytes()},
                          {5, k.tls_link_cert_bytes()},
                          {7, k.rsa_crosscert_bytes()}}};
}
cell::CertsCell initiator_certs(const keys::RelayKeys& k) {
  return cell::CertsCell{{{2, k.rsa_identity_cert_bytes()},
                          {4, k.signing_cert_bytes()},
                          {6, k.link_auth_cert_bytes()},
                          {7, k.rsa_crosscert_bytes()}}};
}

std::vector<std::uint8_t> cell_bytes(cell::LinkVersion link, cell::CellCommand cmd, std::span<const std::uint8_t> payload) {
  auto c = cell::encode_cell(link, CircId{0}, cmd, payload);
  REQUIRE(c);
  return *c;
}

}  // namespace

TEST_CASE("link handshake: the initiator opens with VERSIONS 4,5 in 2-byte-circuit-ID framing", "[link]") {
  Net n;
  auto hs = n.client_to(n.relay, n.relay.identity());
  CHECK(hs.link_version() == 0);
  hs.start();
  // CircID 0000 | VERSIONS 07 | Length 0004 | 0004 0005
  CHECK(hs.take_output() == test::unhex("0000 07 0004 0004 0005"));
  CHECK(hs.state() == LinkState::InProgress);
}

TEST_CASE("link handshake: client <-> relay", "[link]") {
  Net n;
  auto client = n.client_to(n.relay, n.relay.identity());
  auto relay = n.responder(n.relay);
  run(client, relay);
  REQUIRE(client.state() == LinkState::Done);
  REQUIRE(relay.state() == LinkState::Done);

  const auto& c = *client.done();
  CHECK(c.link_version == 5);
  CHECK(client.link_version() == 5);
  CHECK(c.peer_identity == n.relay.identity());
  CHECK(c.our_address_seen_by_peer == kInitiatorAddr);
  CHECK(c.peer_addresses == std::vector<cell::NetinfoAddress>{kResponderAddr, kResponderAddr6});
  CHECK(c.peer_timestamp == kNow);
  CHECK(c.clock_skew == 0);

  const auto& r = *relay.done();
  CHECK(r.link_version == 5);
  CHECK(r.peer_identity == std::nullopt);  // clients do not authenticate
  CHECK(r.our_address_seen_by_peer == kResponderAddr);
  CHECK(r.peer_addresses.empty());  // clients send no addresses...
  CHECK(r.peer_timestamp == 0);     // ...and no time
  CHECK(r.clock_skew == std::nullopt);
  CHECK(client.take_output().empty());
  CHECK(relay.take_output().empty());
}

TEST_CASE("link handshake: relay <-> relay authenticates both ways", "[link]") {
  Net n;
  auto init = n.relay_to(n.other, n.relay, n.exporter);
  auto resp = n.responder(n.relay);
  run(init, resp, [](std::vector<std::uint8_t>&) {}, kNow, kNow + 90);
  REQUIRE(init.state() == LinkState::Done);
  REQUIRE(resp.state() == LinkState::Done);
  CHECK(init.done()->peer_identity == n.relay.identity());
  CHECK(resp.done()->peer_identity == n.other.identity());
  CHECK(init.done()->link_version == 5);
  CHECK(resp.done()->link_version == 5);
  CHECK(resp.done()->peer_addresses == std::vector<cell::NetinfoAddress>{kInitiatorAddr});
  // Skew = their clock - ours, reported only.
  CHECK(init.done()->clock_skew == 90);
  CHECK(resp.done()->clock_skew == -90);
}

TEST_CASE("link handshake: both sides learn the peer's RSA identity, a relay can be named by it", "[link][rsa]") {
  Net n;
  auto init = n.relay_to(n.other, n.relay, n.exporter);
  auto resp = n.responder(n.relay);
  run(init, resp);
  REQUIRE(init.state() == LinkState::Done);
  REQUIRE(resp.state() == LinkState::Done);
  CHECK(init.done()->peer_rsa_identity == n.relay.rsa_fingerprint());
  CHECK(resp.done()->peer_rsa_identity == n.other.rsa_fingerprint());

  SECTION("by RSA fingerprint only") {
    auto client = LinkHandshake::initiator(proto::ExpectedPeer{std::nullopt, n.relay.rsa_fingerprint()}, std::nullopt,
                                           facts(n.relay.tls_certificate().digest, n.exporter), {});
    auto relay = n.responder(n.relay);
    run(client, relay);
    REQUIRE(client.state() == LinkState::Done);
    CHECK(client.done()->peer_identity == n.relay.identity());
    CHECK(client.done()->peer_rsa_identity == n.relay.rsa_fingerprint());
  }
  SECTION("another relay's RSA fingerprint") {
    auto client = LinkHandshake::initiator(proto::ExpectedPeer{n.relay.identity(), n.other.rsa_fingerprint()},
                                           std::nullopt, facts(n.relay.tls_certificate().digest, n.exporter), {});
    auto relay = n.responder(n.relay);
    run(client, relay);
    CHECK(client.failure() == LinkFailure::IdentityMismatch);
  }
}

TEST_CASE("link handshake: CERTS needs the RSA identity (type 2) cross-certifying the Ed25519 one (type 7)",
          "[link][rsa]") {
  Net n;
  auto fed_certs = [&](cell::CertsCell certs) {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.start();
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0005");
    feed(client, in, kNow);
    auto payload = cell::encode_certs_cell(certs);
    REQUIRE(payload);
    client.on_cell(cell_bytes(5, cell::CellCommand::Certs, *payload), kNow);
    return client;
  };
  auto without = [](cell::CertsCell c, std::uint8_t type) {
    std::erase_if(c.certs, [type](const auto& e) { return e.cert_type == type; });
    return c;
  };
  CHECK(fed_certs(responder_certs(n.relay)).state() == LinkState::InProgress);
  // tor ignores type 1 when Ed25519 certificates are present; so do we.
  CHECK(fed_certs(without(responder_certs(n.relay), 1)).state() == LinkState::InProgress);
  CHECK(fed_certs(without(responder_certs(n.relay), 2)).failure() == LinkFailure::MissingCert);
  CHECK(fed_certs(without(responder_certs(n.relay), 7)).failure() == LinkFailure::MissingCert);
  SECTION("another relay's RSA identity and crosscert") {
    auto c = responder_certs(n.relay);
    c.certs[1].body = n.other.rsa_identity_cert_bytes();
    c.certs[4].body = n.other.rsa_crosscert_bytes();
    CHECK(fed_certs(c).failure() == LinkFailure::BadCert);
  }
  SECTION("a crosscert by another RSA key") {
    auto c = responder_certs(n.relay);
    c.certs[4].body = n.other.rsa_crosscert_bytes();
    CHECK(fed_certs(c).failure() == LinkFailure::BadCert);
  }
  SECTION("the responder checks the initiator's too") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    auto certs = cell::encode_certs_cell(without(initiator_certs(n.other), 7));
    auto cb = cell_bytes(4, cell::CellCommand::Certs, *certs);
    in.insert(in.end(), cb.begin(), cb.end());
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::MissingCert);
  }
}

TEST_CASE("link handshake: AUTH0003 carries tor's CID, SID and TLSSECRETS", "[link][rsa]") {
  // tor (relay_handshake.c): CID / SID = SHA-256 of the initiator's /
  // responder's RSA identity key (PKCS#1 DER); TLSSECRETS = the TLS exporter
  // with label "EXPORTER FOR TOR TLS CLIENT BINDING AUTH0003" and context CID.
  Net n;
  auto init = n.relay_to(n.other, n.relay, n.exporter);
  auto resp = n.responder(n.relay);
  std::vector<std::uint8_t> from_init;
  init.start();
  for (int round = 0; round < 10 && init.state() == LinkState::InProgress; ++round) {
    auto oi = init.take_output();
    from_init.insert(from_init.end(), oi.begin(), oi.end());
    std::vector<std::uint8_t> to_resp = oi;
    feed(resp, to_resp, kNow);
    auto orr = resp.take_output();
    feed(init, orr, kNow);
  }
  auto tail = init.take_output();
  from_init.insert(from_init.end(), tail.begin(), tail.end());
  feed(resp, tail, kNow);
  REQUIRE(init.state() == LinkState::Done);
  // Find AUTHENTICATE (command 131) in what the initiator sent (link v5).
  std::optional<std::vector<std::uint8_t>> auth;
  cell::LinkVersion v = 0;
  for (std::size_t pos = 0; pos < from_init.size();) {
    const auto r = cell::frame_cell(std::span<const std::uint8_t>(from_init).subspan(pos), v, {});
    const auto* f = std::get_if<cell::Framed>(&r);
    REQUIRE(f != nullptr);
    if (f->cell.command == cell::CellCommand::Authenticate) auth.emplace(f->cell.payload.begin(), f->cell.payload.end());
    pos += f->consumed;
    v = 5;
  }
  REQUIRE(auth);
  REQUIRE(auth->size() == 4 + proto::kAuth0003Len);
  const auto body = std::span<const std::uint8_t>(*auth).subspan(4);
  const auto cid = crypto::sha256(n.other.rsa_identity().public_key().der());
  const auto sid = crypto::sha256(n.relay.rsa_identity().public_key().der());
  CHECK(std::equal(cid.begin(), cid.end(), body.begin() + 8));
  CHECK(std::equal(sid.begin(), sid.end(), body.begin() + 40));
  const auto secrets = facts({}, n.exporter).exporter(cid);
  REQUIRE(secrets);
  CHECK(std::equal(secrets->view().begin(), secrets->view().end(), body.begin() + 8 + 7 * 32));
  CHECK(resp.state() == LinkState::Done);
}

TEST_CASE("link handshake: the initiator refuses a responder that is not the relay it meant", "[link]") {
  Net n;
  auto client = n.client_to(n.relay, n.other.identity());
  auto relay = n.responder(n.relay);
  run(client, relay);
  REQUIRE(client.state() == LinkState::Failed);
  CHECK(client.failure() == LinkFailure::IdentityMismatch);
  CHECK(!client.done());
}

TEST_CASE("link handshake: type-5 certificate must certify the TLS certificate seen", "[link]") {
  Net n;
  SECTION("validly signed type 5 for another TLS certificate") {
    auto creds = creds_of(n.relay);
    cell::Ed25519CertBody body;
    body.cert_type = cell::CertType::SigningVTlsCert;
    body.expiration_hours = cell::cert_expiration_hours(kNow + kDay);
    body.key_type = cell::CertKeyType::Sha256OfX509;
    body.certified_key = n.relay.tls_certificate().digest;
    body.certified_key[0] ^= 1;
    auto cert = cell::sign_ed25519_cert(body, n.relay.signing_key());
    REQUIRE(cert);
    creds.signing_tls_cert = *cell::encode_ed25519_cert(*cert);
    auto relay = LinkHandshake::responder(creds, facts(n.relay.tls_certificate().digest, n.exporter), {});
    auto client = n.client_to(n.relay, n.relay.identity());
    run(client, relay);
    CHECK(client.failure() == LinkFailure::TlsCertMismatch);
  }
  SECTION("type 5 digest byte flipped in transit: the signature breaks") {
    auto creds = creds_of(n.relay);
    creds.signing_tls_cert[40] ^= 1;  // inside CERTIFIED_KEY (offset 7..39 + ...)
    auto relay = LinkHandshake::responder(creds, facts(n.relay.tls_certificate().digest, n.exporter), {});
    auto client = n.client_to(n.relay, n.relay.identity());
    run(client, relay);
    CHECK(client.failure() == LinkFailure::BadCert);
  }
  SECTION("a man in the middle with its own TLS certificate") {
    auto client = n.client_to(n.other, n.relay.identity());  // sees other's TLS cert
    auto relay = n.responder(n.relay);
    run(client, relay);
    CHECK(client.failure() == LinkFailure::TlsCertMismatch);
  }
  SECTION("type 5 signed by the identity instead of the signing key") {
    auto creds = creds_of(n.relay);
    cell::Ed25519CertBody body;
    body.cert_type = cell::CertType::SigningVTlsCert;
    body.expiration_hours = cell::cert_expiration_hours(kNow + kDay);
    body.key_type = cell::CertKeyType::Sha256OfX509;
    body.certified_key = n.relay.tls_certificate().digest;
    creds.signing_tls_cert = *cell::encode_ed25519_cert(*cell::sign_ed25519_cert(body, n.relay.identity_keypair()));
    auto relay = LinkHandshake::responder(creds, facts(n.relay.tls_certificate().digest, n.exporter), {});
    auto client = n.client_to(n.relay, n.relay.identity());
    run(client, relay);
    CHECK(client.failure() == LinkFailure::BadCert);
  }
}

TEST_CASE("link handshake: expired certificates fail", "[link]") {
  Net n;
  SECTION("responder's type 4 expired") {
    auto old = keys::RelayKeys::generate(kNow - 40 * kDay);
    auto client = n.client_to(old, old.identity());
    auto relay = n.responder(old);
    run(client, relay);
    CHECK(client.failure() == LinkFailure::ExpiredCert);
  }
  SECTION("initiator's type 4 expired") {
    auto old = keys::RelayKeys::generate(kNow - 40 * kDay);
    auto init = n.relay_to(old, n.relay, n.exporter);
    auto resp = n.responder(n.relay);
    run(init, resp);
    CHECK(resp.failure() == LinkFailure::ExpiredCert);
  }
  SECTION("the same certificates pass an hour before expiry") {
    auto old = keys::RelayKeys::generate(kNow - 30 * kDay + 3 * 3600);
    // Link certificates made then have expired (2 days): make new ones, which
    // may not outlive the signing key's certificate.
    old.regenerate_link_keys(kNow);
    CHECK(old.link_certs_expire_at() == old.signing_cert_expires_at());
    auto client = n.client_to(old, old.identity());
    auto relay = n.responder(old);
    run(client, relay);
    CHECK(client.state() == LinkState::Done);
  }
}

TEST_CASE("link handshake: AUTHENTICATE is bound to the TLS session and the transcript", "[link]") {
  Net n;
  SECTION("a different TLS exporter value") {
    const auto wrong = random_exporter();
    auto init = n.relay_to(n.other, n.relay, wrong);
    auto resp = n.responder(n.relay);
    run(init, resp);
    CHECK(resp.failure() == LinkFailure::AuthFieldMismatch);
    CHECK(!resp.done());
  }
  SECTION("a VPADDING cell injected towards the initiator changes SLOG") {
    auto init = n.relay_to(n.other, n.relay, n.exporter);
    auto resp = n.responder(n.relay);
    bool injected = false;
    run(init, resp, [&](std::vector<std::uint8_t>& bytes) {
      if (injected || bytes.empty()) return;
      // After the responder's VERSIONS (2-byte framing, 5 + 4 bytes).
      auto pad = cell_bytes(5, cell::CellCommand::VPadding, std::vector<std::uint8_t>(3, 0));
      bytes.insert(bytes.begin() + 9, pad.begin(), pad.end());
      injected = true;
    });
    // The initiator saw a valid responder and finished; the responder refuses it.
    CHECK(init.state() == LinkState::Done);
    CHECK(resp.failure() == LinkFailure::AuthFieldMismatch);
  }
  SECTION("the responder offers no method we speak") {
    auto init = n.relay_to(n.other, n.relay, n.exporter);
    init.start();
    (void)init.take_output();
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0005");
    feed(init, in, kNow);
    auto certs = cell::encode_certs_cell(responder_certs(n.relay));
    REQUIRE(certs);
    in = cell_bytes(5, cell::CellCommand::Certs, *certs);
    auto ch = cell::encode_auth_challenge_cell(cell::AuthChallengeCell{{}, {1}});
    auto chb = cell_bytes(5, cell::CellCommand::AuthChallenge, *ch);
    in.insert(in.end(), chb.begin(), chb.end());
    feed(init, in, kNow);
    CHECK(init.failure() == LinkFailure::NoAuthMethod);
  }
  SECTION("CERTS then NETINFO without AUTHENTICATE") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    auto certs = cell::encode_certs_cell(initiator_certs(n.other));
    auto cb = cell_bytes(4, cell::CellCommand::Certs, *certs);
    in.insert(in.end(), cb.begin(), cb.end());
    auto ni = cell_bytes(4, cell::CellCommand::Netinfo, *cell::encode_netinfo_cell({}));
    in.insert(in.end(), ni.begin(), ni.end());
    feed(resp, in, kNow);
    CHECK(resp.link_version() == 4);
    CHECK(resp.failure() == LinkFailure::MissingAuthenticate);
  }
  SECTION("an initiator proving our own identity") {
    auto init = n.relay_to(n.relay, n.relay, n.exporter);
    auto resp = n.responder(n.relay);
    run(init, resp);
    CHECK(resp.failure() == LinkFailure::SelfConnection);
  }
}

TEST_CASE("link handshake: version negotiation", "[link]") {
  Net n;
  SECTION("responder: VERSIONS 3 only") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0003");
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::NoCommonVersion);
    CHECK(resp.take_output().empty());
  }
  SECTION("responder: an empty VERSIONS") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0000");
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::NoCommonVersion);
  }
  SECTION("responder: odd-length VERSIONS is malformed") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0003 000400");
    feed(resp, in, kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("responder: tor's 3,4,5 picks 5; answers VERSIONS, CERTS, AUTH_CHALLENGE, NETINFO") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0006 0003 0004 0005");
    feed(resp, in, kNow);
    CHECK(resp.state() == LinkState::InProgress);
    CHECK(resp.link_version() == 5);
    auto out = resp.take_output();
    REQUIRE(out.size() > 9);
    CHECK(std::vector<std::uint8_t>(out.begin(), out.begin() + 9) == test::unhex("0000 07 0004 0004 0005"));
    std::span<const std::uint8_t> rest(out);
    rest = rest.subspan(9);
    std::vector<cell::CellCommand> cmds;
    while (!rest.empty()) {
      auto f = std::get<cell::Framed>(cell::frame_cell(rest, 5));
      CHECK(f.cell.circ_id == CircId{0});
      cmds.push_back(f.cell.command);
      if (f.cell.command == cell::CellCommand::AuthChallenge) {
        auto ac = cell::decode_auth_challenge_cell(f.cell.payload);
        REQUIRE(ac);
        CHECK(ac->methods == std::vector<std::uint16_t>{3});
      }
      rest = rest.subspan(f.consumed);
    }
    CHECK(cmds == std::vector<cell::CellCommand>{cell::CellCommand::Certs, cell::CellCommand::AuthChallenge,
                                                 cell::CellCommand::Netinfo});
  }
  SECTION("responder: 4 only picks 4") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    feed(resp, in, kNow);
    CHECK(resp.link_version() == 4);
  }
  SECTION("initiator: responder answers 1,2,3") {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.start();
    std::vector<std::uint8_t> in = test::unhex("0000 07 0006 0001 0002 0003");
    feed(client, in, kNow);
    CHECK(client.failure() == LinkFailure::NoCommonVersion);
  }
}

TEST_CASE("link handshake: garbage, out-of-order and duplicate cells fail", "[link]") {
  Net n;
  auto resp = n.responder(n.relay);
  const auto versions = test::unhex("0000 07 0002 0004");
  auto after_versions = [&] {
    std::vector<std::uint8_t> in = versions;
    feed(resp, in, kNow);
    REQUIRE(resp.state() == LinkState::InProgress);
    (void)resp.take_output();
  };

  SECTION("a partial cell") {
    resp.on_cell(test::unhex("0000 07 0002 00"), kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("two cells in one call") {
    auto two = versions;
    two.insert(two.end(), versions.begin(), versions.end());
    resp.on_cell(two, kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("NETINFO before VERSIONS") {
    resp.on_cell(cell_bytes(0, cell::CellCommand::Netinfo, *cell::encode_netinfo_cell({})), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("VPADDING before VERSIONS") {
    resp.on_cell(test::unhex("0000 80 0000"), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("an unknown command") {
    after_versions();
    std::vector<std::uint8_t> c = cell_bytes(4, cell::CellCommand::Padding, {});
    c[4] = 50;  // not a command tor-spec defines
    resp.on_cell(c, kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("fixed PADDING during the handshake (tor closes on it)") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Padding, {}), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("a CREATE2 before NETINFO") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Create2, {}), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("a second VERSIONS") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Versions, test::unhex("0004")), kNow);
    CHECK(resp.failure() == LinkFailure::DuplicateCell);
  }
  SECTION("AUTHENTICATE without CERTS") {
    after_versions();
    resp.on_cell(cell_bytes(4, cell::CellCommand::Authenticate, test::unhex("0003 0000")), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("AUTH_CHALLENGE sent to a responder") {
    after_versions();
    auto ch = cell::encode_auth_challenge_cell(cell::AuthChallengeCell{{}, {3}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::AuthChallenge, *ch), kNow);
    CHECK(resp.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("a nonzero circuit ID") {
    after_versions();
    auto c = cell_bytes(4, cell::CellCommand::Netinfo, *cell::encode_netinfo_cell({}));
    c[3] = 1;
    resp.on_cell(c, kNow);
    CHECK(resp.failure() == LinkFailure::MalformedCell);
  }
  SECTION("CERTS that are not certificates") {
    after_versions();
    auto certs = cell::encode_certs_cell(cell::CertsCell{{{4, {1, 2, 3}}, {6, {4, 5, 6}}}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::Certs, *certs), kNow);
    CHECK(resp.failure() == LinkFailure::BadCert);
  }
  SECTION("CERTS missing type 6") {
    after_versions();
    auto certs = cell::encode_certs_cell(cell::CertsCell{{{4, n.other.signing_cert_bytes()}}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::Certs, *certs), kNow);
    CHECK(resp.failure() == LinkFailure::MissingCert);
  }
  SECTION("a type-5 certificate offered as type 6") {
    after_versions();
    auto certs = cell::encode_certs_cell(cell::CertsCell{{{4, n.other.signing_cert_bytes()}, {6, n.other.tls_link_cert_bytes()}}});
    resp.on_cell(cell_bytes(4, cell::CellCommand::Certs, *certs), kNow);
    CHECK(resp.failure() == LinkFailure::BadCert);
  }
  SECTION("initiator: AUTH_CHALLENGE before CERTS, duplicate CERTS") {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.start();
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0005");
    feed(client, in, kNow);
    auto certs = cell::encode_certs_cell(responder_certs(n.relay));
    auto twice = client;
    twice.on_cell(cell_bytes(5, cell::CellCommand::Certs, *certs), kNow);
    CHECK(twice.state() == LinkState::InProgress);
    twice.on_cell(cell_bytes(5, cell::CellCommand::Certs, *certs), kNow);
    CHECK(twice.failure() == LinkFailure::DuplicateCell);

    auto ch = cell::encode_auth_challenge_cell(cell::AuthChallengeCell{{}, {3}});
    client.on_cell(cell_bytes(5, cell::CellCommand::AuthChallenge, *ch), kNow);
    CHECK(client.failure() == LinkFailure::UnexpectedCell);
  }
  SECTION("initiator: a cell before start()") {
    auto client = n.client_to(n.relay, n.relay.identity());
    client.on_cell(versions, kNow);
    CHECK(client.failure() == LinkFailure::NotStarted);
  }
  SECTION("nothing happens after the end") {
    resp.on_cell(test::unhex("0000 07 0002 0003"), kNow);
    REQUIRE(resp.failure() == LinkFailure::NoCommonVersion);
    resp.on_cell(versions, kNow);
    CHECK(resp.failure() == LinkFailure::NoCommonVersion);
    CHECK(resp.take_output().empty());
  }
}

TEST_CASE("link handshake: bounded in cells and bytes", "[link]") {
  Net n;
  SECTION("VPADDING flood: the 16th cell is the last accepted") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    feed(resp, in, kNow);
    const auto pad = cell_bytes(4, cell::CellCommand::VPadding, std::vector<std::uint8_t>(8, 0));
    for (int i = 0; i < 15; ++i) resp.on_cell(pad, kNow);  // cells 2..16
    CHECK(resp.state() == LinkState::InProgress);
    resp.on_cell(pad, kNow);
    CHECK(resp.failure() == LinkFailure::TooLarge);
  }
  SECTION("64 KiB of VPADDING") {
    auto resp = n.responder(n.relay);
    std::vector<std::uint8_t> in = test::unhex("0000 07 0002 0004");
    feed(resp, in, kNow);
    const auto pad = cell_bytes(4, cell::CellCommand::VPadding, std::vector<std::uint8_t>(30000, 0));
    resp.on_cell(pad, kNow);
    resp.on_cell(pad, kNow);
    CHECK(resp.state() == LinkState::InProgress);
    // The framer would now refuse anything over what is left.
    CHECK(resp.framer_limits().max_var_payload == 64 * 1024 - 7 - 2 * 30007 - 7);
    resp.on_cell(pad, kNow);
    CHECK(resp.failure() == LinkFailure::TooLarge);
  }
  SECTION("custom limits apply to a real handshake") {
    auto client = n.client_to(n.relay, n.relay.identity());
    auto relay = n.responder(n.relay, proto::LinkLimits{1, 64 * 1024});
    run(client, relay);
    CHECK(relay.failure() == LinkFailure::TooLarge);  // VERSIONS + NETINFO = 2 cells
  }
}

TEST_CASE("AUTH0003 layout: TYPE..TLSSECRETS, RAND, signature over all before it", "[link]") {
  proto::Auth0003Fields f;
  f.cid_ed.fill(0x11);
  f.sid_ed.fill(0x22);
  f.slog.fill(0x33);
  f.clog.fill(0x44);
  f.scert.fill(0x55);
  f.tlssecrets.fill(0x66);
  std::array<std::uint8_t, 24> rand{};
  rand.fill(0x77);
  const auto key = crypto::Ed25519Keypair::generate();
  const auto a = proto::make_auth0003(f, rand, key);
  REQUIRE(a.size() == 352);
  std::string expected_hex = "4155544830303033";  // "AUTH0003"
  expected_hex += std::string(128, '0');            // CID, SID: no RSA identity, zeros
  for (const char* b : {"11", "22", "33", "44", "55", "66"})
    for (int i = 0; i < 32; ++i) expected_hex += b;
  for (int i = 0; i < 24; ++i) expected_hex += "77";
  CHECK(std::vector<std::uint8_t>(a.begin(), a.begin() + 288) == test::unhex(expected_hex));
  crypto::Ed25519Signature sig{};
  std::copy(a.begin() + 288, a.end(), sig.begin());
  CHECK(crypto::ed25519_verify(key.public_key(), std::span(a).first(288), sig));

  CHECK(proto::check_auth0003(a, f, key.public_key()) == std::nullopt);
  CHECK(proto::check_auth0003(std::span(a).first(351), f, key.public_key()) == LinkFailure::BadAuthenticate);
  auto other = f;
  other.clog[31] ^= 1;
  CHECK(proto::check_auth0003(a, other, key.public_key()) == LinkFailure::AuthFieldMismatch);
  auto bad_rand = a;
  bad_rand[300] ^= 1;
  CHECK(proto::check_auth0003(bad_rand, f, key.public_key()) == LinkFailure::BadAuthSignature);
  CHECK(proto::check_auth0003(a, f, crypto::Ed25519Keypair::generate().public_key()) == LinkFailure::BadAuthSignature);

  // Bytes between RAND and SIG are signed and otherwise ignored, as in tor.
  std::vector<std::uint8_t> longer(a.begin(), a.begin() + 288);
  longer.insert(longer.end(), {1, 2, 3});
  const auto sig2 = key.sign(longer);
  longer.insert(longer.end(), sig2.begin(), sig2.end());
  CHECK(proto::check_auth0003(longer, f, key.public_key()) == std::nullopt);
}
