// Arbitrary cells to a link handshake responder, a client initiator and a
// relay initiator. Invariants:
//  - it never crashes, and stops accepting cells past LinkLimits (16 cells):
//    it is Done or Failed by then;
//  - it writes a bounded amount (one batch of handshake cells);
//  - nobody is authenticated without valid signatures: the relay keys live
//    only in this process's memory, so an initiator can never reach Done and
//    a responder can reach Done only with an unauthenticated (client) peer.
#include <cstddef>
#include <cstdint>
#include <span>

#include "conflux/cell/channel_cell.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/proto/link_handshake.hpp"

using namespace conflux;

namespace {

constexpr std::uint64_t kNow = 1'700'000'000;

const keys::RelayKeys& relay() {
  static const keys::RelayKeys k = keys::RelayKeys::generate(kNow);
  return k;
}
const keys::RelayKeys& other() {
  static const keys::RelayKeys k = keys::RelayKeys::generate(kNow);
  return k;
}

proto::LinkCredentials creds(const keys::RelayKeys& k) {
  return {k.identity(),           k.signing_cert_bytes(),      k.tls_link_cert_bytes(),
          k.link_auth_cert_bytes(), k.link_auth_key(),           k.rsa_link_cert_bytes(),
          k.rsa_identity_cert_bytes(), k.rsa_crosscert_bytes(), crypto::sha256(k.rsa_identity().public_key().der())};
}

proto::LinkHandshake make(std::uint8_t mode) {
  proto::TlsFacts tls;
  tls.responder_cert_digest = relay().tls_certificate().digest;
  tls.exporter = [](std::span<const std::uint8_t>) { return std::optional<crypto::Secret<32>>(crypto::Secret<32>{}); };
  const proto::LinkAddresses addrs{cell::NetinfoIpv4{{127, 0, 0, 1}}, {cell::NetinfoIpv4{{127, 0, 0, 2}}}};
  switch (mode % 3) {
    case 0: return proto::LinkHandshake::responder(creds(relay()), tls, addrs);
    case 1: return proto::LinkHandshake::initiator(relay().identity(), std::nullopt, tls, addrs);
    default: return proto::LinkHandshake::initiator(relay().identity(), creds(other()), tls, addrs);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  auto hs = make(data[0]);
  const proto::LinkLimits limits{};
  hs.start();
  std::size_t written = hs.take_output().size();
  std::span<const std::uint8_t> in(data + 1, size - 1);
  std::size_t cells = 0;

  while (!in.empty() && hs.state() == proto::LinkState::InProgress) {
    const auto r = cell::frame_cell(in, hs.link_version(), hs.framer_limits());
    std::size_t n = 0;
    if (const auto* f = std::get_if<cell::Framed>(&r)) n = f->consumed;
    else if (const auto* e = std::get_if<cell::FrameError>(&r)) n = e->skip == 0 ? in.size() : e->skip;
    else break;
    hs.on_cell(in.first(n), kNow);
    in = in.subspan(n);
    ++cells;
    written += hs.take_output().size();
    if (cells > limits.max_cells && hs.state() == proto::LinkState::InProgress) __builtin_trap();
    if (written > 16 * 1024) __builtin_trap();
  }

  if (hs.state() == proto::LinkState::Done) {
    const auto& d = *hs.done();
    if (hs.is_initiator()) __builtin_trap();  // would need relay()'s signatures
    if (d.peer_identity) __builtin_trap();    // would need a forged AUTHENTICATE
    if (d.link_version != 4 && d.link_version != 5) __builtin_trap();
  }
  if (hs.state() == proto::LinkState::Failed && !hs.failure()) __builtin_trap();
  return 0;
}
