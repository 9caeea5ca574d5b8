// The link handshake (tor-spec 4), its identities: CERTS (RSA and Ed25519,
// cross-certified, type 5 bound to TLS, expiry) and AUTHENTICATE (AUTH0003,
// bound to the TLS session and the transcript).
#include "link_handshake_test_support.hpp"

using namespace conflux;
using namespace conflux::test::link;

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
