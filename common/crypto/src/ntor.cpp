// ntor v1 (tor-spec 5.1.4). See ntor.hpp for the formulas.
#include "conflux/crypto/ntor.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/digest.hpp"
#include "ntor_internal.hpp"

namespace conflux::crypto {
namespace {

using ntor_detail::SecretBuf;
using ntor_detail::str_bytes;

constexpr std::string_view kProtoId = "ntor-curve25519-sha256-1";
constexpr std::string_view kTMac = "ntor-curve25519-sha256-1:mac";
constexpr std::string_view kTKey = "ntor-curve25519-sha256-1:key_extract";
constexpr std::string_view kTVerify = "ntor-curve25519-sha256-1:verify";
constexpr std::string_view kMExpand = "ntor-curve25519-sha256-1:key_expand";
constexpr std::string_view kServer = "Server";

constexpr std::size_t kMaxKeyLen = 255 * 32;  // HKDF-SHA256 limit

void check_key_len(std::size_t key_len) {
  // A caller bug, never peer input.
  if (key_len == 0 || key_len > kMaxKeyLen) throw std::invalid_argument("ntor: key_len out of range");
}

struct Derived {
  std::array<std::uint8_t, 32> auth;
  KeyMaterial keys;
};

// Both sides run the same computation once they hold the two DH results:
// the server has (Xy, Xb), the client (Yx, Bx), which are equal pairwise.
Derived derive(const X25519Shared& dh1, const X25519Shared& dh2, const NtorNodeId& id,
               const X25519Public& b, const X25519Public& x, const X25519Public& y,
               std::size_t key_len) {
  SecretBuf secret_input(32 * 5 + id.size() + kProtoId.size());
  secret_input.put(dh1.view()).put(dh2.view()).put(id).put(b).put(x).put(y).put(kProtoId);

  Secret<32> key_seed(hmac_sha256(str_bytes(kTKey), secret_input.view()));
  Secret<32> verify(hmac_sha256(str_bytes(kTVerify), secret_input.view()));

  SecretBuf auth_input(32 * 4 + id.size() + kProtoId.size() + kServer.size());
  auth_input.put(verify.view()).put(id).put(b).put(y).put(x).put(kProtoId).put(kServer);

  Derived out{hmac_sha256(str_bytes(kTMac), auth_input.view()),
              KeyMaterial(hkdf_sha256_expand(key_seed.view(), str_bytes(kMExpand), key_len))};
  return out;
}

}  // namespace

NtorClientStart NtorClient::start(const NtorNodeId& node_id, const X25519Public& onion_key) {
  return start_with_ephemeral(node_id, onion_key, X25519Secret::generate());
}

NtorClientStart NtorClient::start_with_ephemeral(const NtorNodeId& node_id, const X25519Public& onion_key,
                                                 X25519Secret x) {
  NtorOnionskin skin{};
  auto it = std::copy(node_id.begin(), node_id.end(), skin.begin());
  it = std::copy(onion_key.begin(), onion_key.end(), it);
  std::copy(x.public_key().begin(), x.public_key().end(), it);
  return NtorClientStart{NtorClientState(node_id, onion_key, std::move(x)), skin};
}

HandshakeResult<KeyMaterial> NtorClientState::finish(std::span<const std::uint8_t> reply,
                                                     std::size_t key_len) const {
  check_key_len(key_len);
  if (reply.size() != kNtorReplyLen) return Unexpected{HandshakeError::BadLength};
  X25519Public y{};
  std::copy_n(reply.begin(), 32, y.begin());
  auto auth = reply.subspan(32, 32);

  auto yx = x_.dh(y);
  auto bx = x_.dh(onion_key_);
  if (!yx || !bx) return Unexpected{HandshakeError::DegenerateDh};

  Derived d = derive(*yx, *bx, node_id_, onion_key_, x_.public_key(), y, key_len);
  if (!ct_equal(d.auth, auth)) return Unexpected{HandshakeError::BadAuth};
  return std::move(d.keys);
}

HandshakeResult<NtorServerResult> ntor_server_handshake(const NtorServerKeys& keys,
                                                        std::span<const std::uint8_t> onionskin,
                                                        std::size_t key_len) {
  return ntor_server_handshake_with_ephemeral(keys, onionskin, key_len, X25519Secret::generate());
}

HandshakeResult<NtorServerResult> ntor_server_handshake_with_ephemeral(
    const NtorServerKeys& keys, std::span<const std::uint8_t> onionskin, std::size_t key_len,
    const X25519Secret& y) {
  check_key_len(key_len);
  if (onionskin.size() != kNtorOnionskinLen) return Unexpected{HandshakeError::BadLength};
  auto node_id = onionskin.subspan(0, kNtorNodeIdLen);
  auto key_id = onionskin.subspan(kNtorNodeIdLen, 32);
  X25519Public x{};
  std::copy_n(onionskin.begin() + kNtorNodeIdLen + 32, 32, x.begin());

  // NODEID and KEYID are public, so comparing them leaks nothing; ct_equal is
  // used anyway so the lookup does not depend on where they differ.
  if (!ct_equal(node_id, keys.node_id)) return Unexpected{HandshakeError::WrongNodeId};
  const X25519Secret* b = nullptr;
  if (ct_equal(key_id, keys.onion_key.public_key())) {
    b = &keys.onion_key;
  } else if (keys.previous_onion_key && ct_equal(key_id, keys.previous_onion_key->public_key())) {
    b = &*keys.previous_onion_key;
  }
  if (b == nullptr) return Unexpected{HandshakeError::UnknownKeyId};

  auto xy = y.dh(x);
  auto xb = b->dh(x);
  if (!xy || !xb) return Unexpected{HandshakeError::DegenerateDh};

  Derived d = derive(*xy, *xb, keys.node_id, b->public_key(), x, y.public_key(), key_len);
  NtorServerResult out{NtorReply{}, std::move(d.keys)};
  std::copy(y.public_key().begin(), y.public_key().end(), out.reply.begin());
  std::copy(d.auth.begin(), d.auth.end(), out.reply.begin() + 32);
  return out;
}

}  // namespace conflux::crypto
