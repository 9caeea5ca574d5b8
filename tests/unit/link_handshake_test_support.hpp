#pragma once
// The link handshake's test bench (tor-spec 4): two state machines wired to
// each other in memory, relay keys and credentials, and hand-made cells.
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

namespace conflux::test::link {

using proto::LinkFailure;
using proto::LinkHandshake;
using proto::LinkState;

inline constexpr std::uint64_t kNow = 1'700'000'000;
inline constexpr std::uint64_t kDay = 24 * 3600;

inline proto::LinkCredentials creds_of(const keys::RelayKeys& k) {
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

inline crypto::Secret<32> random_exporter() {
  auto r = crypto::random_array<32>();
  return crypto::Secret<32>(std::span<const std::uint8_t, 32>(r));
}

inline proto::TlsFacts facts(const std::array<std::uint8_t, 32>& responder_digest, const crypto::Secret<32>& exporter) {
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

inline const cell::NetinfoAddress kInitiatorAddr = cell::NetinfoIpv4{{10, 0, 0, 1}};
inline const cell::NetinfoAddress kResponderAddr = cell::NetinfoIpv4{{10, 0, 0, 2}};
inline const cell::NetinfoAddress kResponderAddr6 = cell::NetinfoIpv6{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

// Feeds every whole cell in `in` to `hs`, framing each under the link
// version in force at that moment, as a channel would.
inline void feed(LinkHandshake& hs, std::vector<std::uint8_t>& in, std::uint64_t now) {
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
inline void run(LinkHandshake& a, LinkHandshake& b) {
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
inline cell::CertsCell responder_certs(const keys::RelayKeys& k) {
  return cell::CertsCell{{{1, k.rsa_link_cert_bytes()},
                          {2, k.rsa_identity_cert_bytes()},
                          {4, k.signing_cert_bytes()},
                          {5, k.tls_link_cert_bytes()},
                          {7, k.rsa_crosscert_bytes()}}};
}
inline cell::CertsCell initiator_certs(const keys::RelayKeys& k) {
  return cell::CertsCell{{{2, k.rsa_identity_cert_bytes()},
                          {4, k.signing_cert_bytes()},
                          {6, k.link_auth_cert_bytes()},
                          {7, k.rsa_crosscert_bytes()}}};
}

inline std::vector<std::uint8_t> cell_bytes(cell::LinkVersion link, cell::CellCommand cmd, std::span<const std::uint8_t> payload) {
  auto c = cell::encode_cell(link, CircId{0}, cmd, payload);
  REQUIRE(c);
  return *c;
}

}  // namespace conflux::test::link
