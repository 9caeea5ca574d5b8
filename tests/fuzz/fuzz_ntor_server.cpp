// The relay side of ntor v1 and ntor-v3 on attacker-chosen onionskins, with a
// fixed relay key. Byte 0 picks the mode:
//   0: ntor v1, raw onionskin (bit 0x80: splice in our NODEID/KEYID so the
//      input reaches the Diffie-Hellman and derivation code)
//   1: ntor-v3, raw onionskin (same splice option)
//   2: ntor v1, genuine onionskin built from a fuzzer-chosen x, then XORed
//      with a fuzzer mask: unchanged => server and client agree on the keys
//   3: ntor-v3, same with a fuzzer-chosen CM: the relay must accept exactly
//      the unmodified onionskin (the MAC covers every byte), recover CM, and
//      agree with the client on SM and keys
// Nothing may crash; every acceptance must be consistent.
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
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(v + i * 7);
  return a;
}

const NtorServerKeys& v1_keys() {
  static const NtorServerKeys k = [] {
    NtorNodeId id{};
    for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(0xa0 + i);
    return NtorServerKeys{id, X25519Secret::from_bytes(fill(0x11)), X25519Secret::from_bytes(fill(0x22))};
  }();
  return k;
}

const NtorV3ServerKeys& v3_keys() {
  static const NtorV3ServerKeys k = [] {
    NtorV3NodeId id = fill(0x33);
    return NtorV3ServerKeys{id, X25519Secret::from_bytes(fill(0x44)), std::nullopt};
  }();
  return k;
}

const X25519Secret& server_ephemeral() {
  static const X25519Secret y = X25519Secret::from_bytes(fill(0x55));
  return y;
}

bool same(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void xor_mask(std::span<std::uint8_t> target, std::span<const std::uint8_t> mask) {
  for (std::size_t i = 0; i < target.size() && i < mask.size(); ++i) target[i] ^= mask[i];
}

void raw_v1(std::span<const std::uint8_t> in, bool splice) {
  std::vector<std::uint8_t> skin(in.begin(), in.end());
  const auto& keys = v1_keys();
  if (splice && skin.size() >= 52) {
    std::copy(keys.node_id.begin(), keys.node_id.end(), skin.begin());
    const auto& b = keys.onion_key.public_key();
    std::copy(b.begin(), b.end(), skin.begin() + 20);
  }
  auto r = ntor_server_handshake_with_ephemeral(keys, skin, 72, server_ephemeral());
  if (!r) return;
  // Accepted: only an 84-byte skin naming us can get here.
  if (skin.size() != kNtorOnionskinLen || r->keys.size() != 72) __builtin_trap();
  if (!same(std::span(r->reply).first(32), server_ephemeral().public_key())) __builtin_trap();
}

void raw_v3(std::span<const std::uint8_t> in, bool splice) {
  std::vector<std::uint8_t> skin(in.begin(), in.end());
  const auto& keys = v3_keys();
  if (splice && skin.size() >= 64) {
    std::copy(keys.node_id.begin(), keys.node_id.end(), skin.begin());
    const auto& b = keys.onion_key.public_key();
    std::copy(b.begin(), b.end(), skin.begin() + 32);
  }
  auto pending = ntor_v3_server_receive(keys, skin, kNtorV3CircuitVerification);
  if (!pending) return;
  if (pending->client_message().size() + kNtorV3OnionskinOverhead != skin.size()) __builtin_trap();
  auto reply = pending->reply_with_ephemeral(pending->client_message(), 72, server_ephemeral());
  if (!reply || reply->reply.size() != kNtorV3ReplyOverhead + pending->client_message().size()) __builtin_trap();
}

void mutated_v1(std::span<const std::uint8_t> in) {
  if (in.size() < 32) return;
  auto x = X25519Secret::from_bytes(std::span<const std::uint8_t, 32>(in.data(), 32));
  auto mask = in.subspan(32);
  const auto& keys = v1_keys();
  auto start = NtorClient::start_with_ephemeral(keys.node_id, keys.onion_key.public_key(), x);
  auto skin = start.onionskin;
  xor_mask(skin, mask);
  const bool unchanged = skin == start.onionskin;
  auto r = ntor_server_handshake_with_ephemeral(keys, skin, 72, server_ephemeral());
  if (unchanged && !r) __builtin_trap();
  if (!r) return;
  auto c = start.state.finish(r->reply, 72);
  // The client accepts only if the server saw its own X (AUTH covers X).
  if (unchanged != c.has_value()) __builtin_trap();
  if (c && !same(c->view(), r->keys.view())) __builtin_trap();
}

void mutated_v3(std::span<const std::uint8_t> in) {
  if (in.size() < 33) return;
  auto x = X25519Secret::from_bytes(std::span<const std::uint8_t, 32>(in.data(), 32));
  const std::size_t cm_len = std::min<std::size_t>(in[32], in.size() - 33);
  auto cm = in.subspan(33, cm_len);
  auto mask = in.subspan(33 + cm_len);
  const auto& keys = v3_keys();
  auto start = NtorV3Client::start_with_ephemeral(keys.node_id, keys.onion_key.public_key(), cm,
                                                  kNtorV3CircuitVerification, x);
  if (!start) __builtin_trap();  // B is a valid key
  auto skin = start->onionskin;
  xor_mask(skin, mask);
  const bool unchanged = skin == start->onionskin;
  auto pending = ntor_v3_server_receive(keys, skin, kNtorV3CircuitVerification);
  if (pending.has_value() != unchanged) __builtin_trap();
  if (!pending) return;
  if (!same(pending->client_message(), cm)) __builtin_trap();
  std::vector<std::uint8_t> sm(cm.rbegin(), cm.rend());
  auto reply = pending->reply_with_ephemeral(sm, 72, server_ephemeral());
  if (!reply) __builtin_trap();
  auto done = start->state.finish(reply->reply, 72);
  if (!done || done->server_message != sm || !same(done->keys.view(), reply->keys.view())) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  std::span<const std::uint8_t> rest(data + 1, size - 1);
  switch (mode & 0x03) {
    case 0: raw_v1(rest, (mode & 0x80) != 0); break;
    case 1: raw_v3(rest, (mode & 0x80) != 0); break;
    case 2: mutated_v1(rest); break;
    default: mutated_v3(rest); break;
  }
  return 0;
}
