// CREATE_FAST (tor-spec 5.1.3). See create_fast.hpp for the formulas.
#include "conflux/crypto/create_fast.hpp"

#include <algorithm>
#include <stdexcept>

#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/kdf_tor.hpp"
#include "conflux/crypto/random.hpp"
#include "ntor_internal.hpp"

namespace conflux::crypto {
namespace {

using ntor_detail::SecretBuf;
using ntor_detail::wipe_vector;

struct Derived {
  Secret<kFastKeyLen> kh;
  KeyMaterial keys;
};

// K = KDF-TOR(X | Y), split into KH and the caller's key_len bytes.
Derived derive(std::span<const std::uint8_t, kFastKeyLen> x, std::span<const std::uint8_t, kFastKeyLen> y,
               std::size_t key_len) {
  // A caller bug, never peer input.
  if (key_len == 0 || key_len > kKdfTorMaxLen - kFastKeyLen)
    throw std::invalid_argument("create_fast: key_len out of range");
  SecretBuf k0(2 * kFastKeyLen);
  k0.put(x).put(y);
  auto k = kdf_tor(k0.view(), kFastKeyLen + key_len);
  Derived out{Secret<kFastKeyLen>(std::span<const std::uint8_t>(k).first<kFastKeyLen>()), KeyMaterial(key_len)};
  std::copy(k.begin() + kFastKeyLen, k.end(), out.keys.mut().begin());
  wipe_vector(k);
  return out;
}

}  // namespace

HandshakeResult<KeyMaterial> FastClientState::finish(std::span<const std::uint8_t> reply,
                                                     std::size_t key_len) const {
  if (reply.size() < kFastReplyLen) return Unexpected{HandshakeError::BadLength};
  Derived d = derive(x_.view(), reply.first<kFastKeyLen>(), key_len);
  if (!ct_equal(d.kh.view(), reply.subspan(kFastKeyLen, kFastKeyLen))) return Unexpected{HandshakeError::BadAuth};
  return std::move(d.keys);
}

FastClientStart FastClient::start() {
  Secret<kFastKeyLen> x;
  random_bytes(x.mut());
  FastClientStart out{FastClientState(x), FastKey{}};
  std::copy(x.view().begin(), x.view().end(), out.x.begin());
  return out;
}

FastClientStart FastClient::start_with_x(const FastKey& x) {
  return FastClientStart{FastClientState(Secret<kFastKeyLen>(x)), x};
}

HandshakeResult<FastServerResult> fast_server_handshake(std::span<const std::uint8_t> x, std::size_t key_len) {
  auto y = random_array<kFastKeyLen>();
  return fast_server_handshake_with_y(x, y, key_len);
}

HandshakeResult<FastServerResult> fast_server_handshake_with_y(std::span<const std::uint8_t> x, const FastKey& y,
                                                               std::size_t key_len) {
  if (x.size() < kFastKeyLen) return Unexpected{HandshakeError::BadLength};
  Derived d = derive(x.first<kFastKeyLen>(), y, key_len);
  FastServerResult out{FastReply{}, std::move(d.keys)};
  std::copy(y.begin(), y.end(), out.reply.begin());
  std::copy(d.kh.view().begin(), d.kh.view().end(), out.reply.begin() + kFastKeyLen);
  return out;
}

}  // namespace conflux::crypto
