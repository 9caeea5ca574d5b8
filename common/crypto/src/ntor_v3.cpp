// ntor-v3 (prop 332): client, and the relay's two-step receive/reply.
#include "conflux/crypto/ntor_v3.hpp"

#include <algorithm>

#include "conflux/crypto/aes_ctr.hpp"
#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/ntor_v3_detail.hpp"

namespace conflux::crypto {
namespace {

namespace d = ntor_v3_detail;

constexpr std::size_t kKeyLen = 32;

// ENC / DEC: AES-256-CTR with a zero IV; each key encrypts one message only.
std::vector<std::uint8_t> aes256_ctr(std::span<const std::uint8_t> key, std::span<const std::uint8_t> in) {
  std::vector<std::uint8_t> out(in.size());
  if (!in.empty()) {
    AesCtr cipher(key);
    cipher.apply(in, out);
  }
  return out;
}

X25519Public read_key(std::span<const std::uint8_t> b) {
  X25519Public k{};
  std::copy_n(b.begin(), k.size(), k.begin());
  return k;
}

}  // namespace

// ---- client -------------------------------------------------------------

HandshakeResult<NtorV3ClientStart> NtorV3Client::start(const NtorV3NodeId& node_id,
                                                       const X25519Public& onion_key,
                                                       std::span<const std::uint8_t> client_message,
                                                       std::span<const std::uint8_t> verification) {
  return start_with_ephemeral(node_id, onion_key, client_message, verification, X25519Secret::generate());
}

HandshakeResult<NtorV3ClientStart> NtorV3Client::start_with_ephemeral(
    const NtorV3NodeId& node_id, const X25519Public& onion_key, std::span<const std::uint8_t> client_message,
    std::span<const std::uint8_t> verification, X25519Secret x) {
  auto bx = x.dh(onion_key);
  if (!bx) return Unexpected{HandshakeError::DegenerateDh};
  const X25519Public& big_x = x.public_key();

  d::Phase1Keys k1 = d::phase1_keys(*bx, node_id, big_x, onion_key, verification);
  std::vector<std::uint8_t> encrypted = aes256_ctr(k1.enc.view(), client_message);
  d::Digest mac = d::msg_mac(k1.mac.view(), node_id, onion_key, big_x, encrypted);

  std::vector<std::uint8_t> skin;
  skin.reserve(kNtorV3OnionskinOverhead + encrypted.size());
  skin.insert(skin.end(), node_id.begin(), node_id.end());
  skin.insert(skin.end(), onion_key.begin(), onion_key.end());
  skin.insert(skin.end(), big_x.begin(), big_x.end());
  skin.insert(skin.end(), encrypted.begin(), encrypted.end());
  skin.insert(skin.end(), mac.begin(), mac.end());

  return NtorV3ClientStart{NtorV3ClientState(node_id, onion_key, std::move(x), *bx, mac, verification),
                           std::move(skin)};
}

HandshakeResult<NtorV3ClientResult> NtorV3ClientState::finish(std::span<const std::uint8_t> reply,
                                                              std::size_t key_len) const {
  if (reply.size() < kNtorV3ReplyOverhead) return Unexpected{HandshakeError::BadLength};
  const X25519Public y = read_key(reply.first(32));
  auto their_auth = reply.subspan(32, 32);
  auto encrypted_sm = reply.subspan(kNtorV3ReplyOverhead);

  auto yx = x_.dh(y);
  if (!yx) return Unexpected{HandshakeError::DegenerateDh};

  d::FinalSeeds seeds = d::final_seeds(*yx, bx_, node_id_, onion_key_, x_.public_key(), y, verification_);
  d::Digest expected = d::auth(seeds.verify.view(), node_id_, onion_key_, y, x_.public_key(), msg_mac_,
                               encrypted_sm);
  if (!ct_equal(expected, their_auth)) return Unexpected{HandshakeError::BadAuth};

  KeyMaterial raw = d::kdf_final(seeds.key_seed.view(), key_len);
  NtorV3ClientResult out;
  out.server_message = aes256_ctr(raw.view().first(kKeyLen), encrypted_sm);
  out.keys = KeyMaterial(std::vector<std::uint8_t>(raw.view().begin() + kKeyLen, raw.view().end()));
  return out;
}

// ---- relay --------------------------------------------------------------

HandshakeResult<NtorV3ServerPending> ntor_v3_server_receive(const NtorV3ServerKeys& keys,
                                                            std::span<const std::uint8_t> onionskin,
                                                            std::span<const std::uint8_t> verification) {
  if (onionskin.size() < kNtorV3OnionskinOverhead) return Unexpected{HandshakeError::BadLength};
  auto node_id = onionskin.first(kNtorV3NodeIdLen);
  auto key_id = onionskin.subspan(32, 32);
  const X25519Public x = read_key(onionskin.subspan(64, 32));
  auto encrypted_cm = onionskin.subspan(96, onionskin.size() - kNtorV3OnionskinOverhead);
  auto their_mac = onionskin.last(32);

  if (!ct_equal(node_id, keys.node_id)) return Unexpected{HandshakeError::WrongNodeId};
  const X25519Secret* b = nullptr;
  if (ct_equal(key_id, keys.onion_key.public_key())) {
    b = &keys.onion_key;
  } else if (keys.previous_onion_key && ct_equal(key_id, keys.previous_onion_key->public_key())) {
    b = &*keys.previous_onion_key;
  }
  if (b == nullptr) return Unexpected{HandshakeError::UnknownKeyId};

  auto xb = b->dh(x);
  if (!xb) return Unexpected{HandshakeError::DegenerateDh};

  d::Phase1Keys k1 = d::phase1_keys(*xb, keys.node_id, x, b->public_key(), verification);
  d::Digest expected = d::msg_mac(k1.mac.view(), keys.node_id, b->public_key(), x, encrypted_cm);
  if (!ct_equal(expected, their_mac)) return Unexpected{HandshakeError::BadMac};

  NtorV3ServerPending pending(keys.node_id, b->public_key(), x, *xb, their_mac, verification);
  pending.client_message_ = aes256_ctr(k1.enc.view(), encrypted_cm);
  return pending;
}

HandshakeResult<NtorV3ServerResult> NtorV3ServerPending::reply(std::span<const std::uint8_t> server_message,
                                                               std::size_t key_len) const {
  return reply_with_ephemeral(server_message, key_len, X25519Secret::generate());
}

HandshakeResult<NtorV3ServerResult> NtorV3ServerPending::reply_with_ephemeral(
    std::span<const std::uint8_t> server_message, std::size_t key_len, const X25519Secret& y) const {
  // X was already checked through EXP(X,b); a small-order X makes both zero,
  // but check EXP(X,y) too rather than rely on that argument.
  auto xy = y.dh(client_key_);
  if (!xy) return Unexpected{HandshakeError::DegenerateDh};
  const X25519Public& big_y = y.public_key();

  d::FinalSeeds seeds = d::final_seeds(*xy, xb_, node_id_, onion_key_, client_key_, big_y, verification_);
  KeyMaterial raw = d::kdf_final(seeds.key_seed.view(), key_len);
  std::vector<std::uint8_t> encrypted_sm = aes256_ctr(raw.view().first(kKeyLen), server_message);
  d::Digest auth = d::auth(seeds.verify.view(), node_id_, onion_key_, big_y, client_key_, msg_mac_, encrypted_sm);

  NtorV3ServerResult out;
  out.reply.reserve(kNtorV3ReplyOverhead + encrypted_sm.size());
  out.reply.insert(out.reply.end(), big_y.begin(), big_y.end());
  out.reply.insert(out.reply.end(), auth.begin(), auth.end());
  out.reply.insert(out.reply.end(), encrypted_sm.begin(), encrypted_sm.end());
  out.keys = KeyMaterial(std::vector<std::uint8_t>(raw.view().begin() + kKeyLen, raw.view().end()));
  return out;
}

HandshakeResult<NtorV3ServerResult> ntor_v3_server_handshake(const NtorV3ServerKeys& keys,
                                                             std::span<const std::uint8_t> onionskin,
                                                             std::span<const std::uint8_t> verification,
                                                             const NtorV3ServerPolicy& policy,
                                                             std::size_t key_len) {
  auto pending = ntor_v3_server_receive(keys, onionskin, verification);
  if (!pending) return Unexpected{pending.error()};
  std::optional<std::vector<std::uint8_t>> sm = policy(pending->client_message());
  if (!sm) return Unexpected{HandshakeError::Rejected};
  return pending->reply(*sm, key_len);
}

}  // namespace conflux::crypto
