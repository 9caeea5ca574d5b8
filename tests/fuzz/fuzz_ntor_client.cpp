// The client side of ntor v1 and ntor-v3 on attacker-chosen server replies,
// with fixed client and relay keys. Byte 0 picks the mode:
//   0: ntor v1, raw reply
//   1: ntor-v3, raw reply
//   2: ntor v1, the genuine reply (fuzzer-chosen y) XORed with a fuzzer mask
//   3: ntor-v3, the same with a fuzzer-chosen SM
// Modes 2/3 check that the client accepts exactly the unmodified reply and
// then agrees with the relay on keys (and SM). Nothing may crash.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "conflux/crypto/ntor.hpp"
#include "conflux/crypto/ntor_v3.hpp"

using namespace conflux::crypto;

namespace {

std::array<std::uint8_t, 32> fill(std::uint8_t v) {
  std::array<std::uint8_t, 32> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(v ^ (i * 13));
  return a;
}

const NtorServerKeys& v1_keys() {
  static const NtorServerKeys k = [] {
    NtorNodeId id{};
    id.fill(0x5a);
    return NtorServerKeys{id, X25519Secret::from_bytes(fill(0x11)), std::nullopt};
  }();
  return k;
}

const NtorV3ServerKeys& v3_keys() {
  static const NtorV3ServerKeys k{fill(0x66), X25519Secret::from_bytes(fill(0x77)), std::nullopt};
  return k;
}

const NtorClientStart& v1_client() {
  static const NtorClientStart s = NtorClient::start_with_ephemeral(
      v1_keys().node_id, v1_keys().onion_key.public_key(), X25519Secret::from_bytes(fill(0x88)));
  return s;
}

const NtorV3ClientStart& v3_client() {
  static const std::array<std::uint8_t, 3> cm = {0x01, 0x01, 0x00};
  static const NtorV3ClientStart s =
      std::move(NtorV3Client::start_with_ephemeral(v3_keys().node_id, v3_keys().onion_key.public_key(), cm,
                                                   kNtorV3CircuitVerification, X25519Secret::from_bytes(fill(0x99))))
          .value();
  return s;
}

bool same(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void xor_mask(std::span<std::uint8_t> target, std::span<const std::uint8_t> mask) {
  for (std::size_t i = 0; i < target.size() && i < mask.size(); ++i) target[i] ^= mask[i];
}

void raw_v1(std::span<const std::uint8_t> reply) {
  auto r = v1_client().state.finish(reply, 72);
  if (r && (reply.size() != kNtorReplyLen || r->size() != 72)) __builtin_trap();
}

void raw_v3(std::span<const std::uint8_t> reply) {
  auto r = v3_client().state.finish(reply, 72);
  if (!r) return;
  if (r->server_message.size() + kNtorV3ReplyOverhead != reply.size() || r->keys.size() != 72) __builtin_trap();
}

void mutated_v1(std::span<const std::uint8_t> in) {
  if (in.size() < 32) return;
  auto y = X25519Secret::from_bytes(std::span<const std::uint8_t, 32>(in.data(), 32));
  auto srv = ntor_server_handshake_with_ephemeral(v1_keys(), v1_client().onionskin, 72, y);
  if (!srv) __builtin_trap();  // a genuine onionskin
  auto reply = srv->reply;
  xor_mask(reply, in.subspan(32));
  const bool unchanged = reply == srv->reply;
  auto c = v1_client().state.finish(reply, 72);
  if (c.has_value() != unchanged) __builtin_trap();
  if (c && !same(c->view(), srv->keys.view())) __builtin_trap();
}

void mutated_v3(std::span<const std::uint8_t> in) {
  if (in.size() < 33) return;
  auto y = X25519Secret::from_bytes(std::span<const std::uint8_t, 32>(in.data(), 32));
  const std::size_t sm_len = std::min<std::size_t>(in[32], in.size() - 33);
  auto sm = in.subspan(33, sm_len);
  auto pending = ntor_v3_server_receive(v3_keys(), v3_client().onionskin, kNtorV3CircuitVerification);
  if (!pending) __builtin_trap();
  auto srv = pending->reply_with_ephemeral(sm, 72, y);
  if (!srv) __builtin_trap();
  auto reply = srv->reply;
  xor_mask(reply, in.subspan(33 + sm_len));
  const bool unchanged = reply == srv->reply;
  auto c = v3_client().state.finish(reply, 72);
  if (c.has_value() != unchanged) __builtin_trap();
  if (c && (!same(c->server_message, sm) || !same(c->keys.view(), srv->keys.view()))) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::span<const std::uint8_t> rest(data + 1, size - 1);
  switch (data[0] & 0x03) {
    case 0: raw_v1(rest); break;
    case 1: raw_v3(rest); break;
    case 2: mutated_v1(rest); break;
    default: mutated_v3(rest); break;
  }
  return 0;
}
