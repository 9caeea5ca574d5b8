// prop 332 appendix A.1 instantiation: SHA3-256, SHAKE-256, tweaks.
#include "conflux/crypto/ntor_v3_detail.hpp"

#include "conflux/crypto/digest.hpp"
#include "ntor_internal.hpp"

namespace conflux::crypto::ntor_v3_detail {
namespace {

using ntor_detail::SecretBuf;
using ntor_detail::str_bytes;

constexpr std::size_t kEncapLen = 8;

std::array<std::uint8_t, kEncapLen> encap_len(std::size_t n) {
  std::array<std::uint8_t, kEncapLen> out{};
  auto v = static_cast<std::uint64_t>(n);
  for (std::size_t i = 0; i < kEncapLen; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * (kEncapLen - 1 - i)));
  return out;
}

template <class Sink>
void put_encap(Sink& sink, Bytes s) {
  sink.update(encap_len(s.size()));
  sink.update(s);
}

// SecretBuf has put(), hashers have update(); adapt the former.
struct BufSink {
  SecretBuf& buf;
  void update(Bytes b) { buf.put(b); }
};

// H(s, t) = SHA3-256(ENCAP(t) | s)
Digest h(std::string_view tweak, Bytes s) {
  Sha3_256 hasher;
  put_encap(hasher, str_bytes(tweak));
  hasher.update(s);
  return hasher.peek();
}

}  // namespace

Phase1Keys phase1_keys(const X25519Shared& bx, Bytes id, const X25519Public& x, const X25519Public& b,
                       Bytes verification) {
  // KDF_msgkdf(s) = SHAKE-256(ENCAP(t_msgkdf) | s)
  SecretBuf input(kEncapLen + kTMsgKdf.size() + 32 * 3 + id.size() + kProtoId.size() + kEncapLen +
                  verification.size());
  BufSink sink{input};
  put_encap(sink, str_bytes(kTMsgKdf));
  input.put(bx.view()).put(id).put(x).put(b).put(kProtoId);
  put_encap(sink, verification);

  auto raw = shake256(input.view(), 64);
  Phase1Keys out{Secret<32>(std::span<const std::uint8_t, 32>(raw.data(), 32)),
                 Secret<32>(std::span<const std::uint8_t, 32>(raw.data() + 32, 32))};
  ntor_detail::wipe_vector(raw);
  return out;
}

Digest msg_mac(std::span<const std::uint8_t, 32> mac_k1, Bytes id, const X25519Public& b,
               const X25519Public& x, Bytes encrypted_msg) {
  // MAC(k, m, t) = SHA3-256(ENCAP(t) | ENCAP(k) | m)
  Sha3_256 hasher;
  put_encap(hasher, str_bytes(kTMsgMac));
  put_encap(hasher, mac_k1);
  hasher.update(id);
  hasher.update(b);
  hasher.update(x);
  hasher.update(encrypted_msg);
  return hasher.peek();
}

FinalSeeds final_seeds(const X25519Shared& xy, const X25519Shared& xb, Bytes id, const X25519Public& b,
                       const X25519Public& x, const X25519Public& y, Bytes verification) {
  SecretBuf secret_input(32 * 5 + id.size() + kProtoId.size() + kEncapLen + verification.size());
  BufSink sink{secret_input};
  secret_input.put(xy.view()).put(xb.view()).put(id).put(b).put(x).put(y).put(kProtoId);
  put_encap(sink, verification);
  return FinalSeeds{Secret<32>(h(kTKeySeed, secret_input.view())), Secret<32>(h(kTVerify, secret_input.view()))};
}

Digest auth(std::span<const std::uint8_t, 32> verify, Bytes id, const X25519Public& b, const X25519Public& y,
            const X25519Public& x, std::span<const std::uint8_t, 32> msg_mac, Bytes encrypted_sm) {
  // Hashed incrementally: verify is secret but the hasher state is not kept.
  Sha3_256 hasher;
  put_encap(hasher, str_bytes(kTAuth));
  hasher.update(verify);
  hasher.update(id);
  hasher.update(b);
  hasher.update(y);
  hasher.update(x);
  hasher.update(msg_mac);
  put_encap(hasher, encrypted_sm);
  hasher.update(str_bytes(kProtoId));
  hasher.update(str_bytes("Server"));
  return hasher.peek();
}

KeyMaterial kdf_final(std::span<const std::uint8_t, 32> key_seed, std::size_t n) {
  SecretBuf input(kEncapLen + kTFinal.size() + 32);
  BufSink sink{input};
  put_encap(sink, str_bytes(kTFinal));
  input.put(key_seed);
  return KeyMaterial(shake256(input.view(), 32 + n));
}

}  // namespace conflux::crypto::ntor_v3_detail
