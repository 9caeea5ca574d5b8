// The low-level SHA1_* API is deprecated in OpenSSL 3.0 but still built by
// default; see relay_crypto_sha1.hpp for why relay crypto uses it.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "conflux/crypto/relay_crypto_sha1.hpp"

#include <openssl/opensslconf.h>
#include <openssl/sha.h>

#include <new>
#include <type_traits>

#include "conflux/crypto/error.hpp"
#include "conflux/crypto/secret.hpp"

#ifdef OPENSSL_NO_DEPRECATED_3_0
#error "RelaySha1 needs OpenSSL's SHA1_Init/SHA1_Update/SHA1_Final (built without deprecated APIs)"
#endif

namespace conflux::crypto {
namespace {

static_assert(std::is_trivially_copyable_v<SHA_CTX>, "SHA_CTX is copied bytewise as a checkpoint");
static_assert(alignof(SHA_CTX) <= 8);

// The storage is a std::byte array, which implicitly creates the SHA_CTX
// (an implicit-lifetime C struct) both when constructed and when copied.
SHA_CTX* ctx_of(std::byte* p) noexcept { return std::launder(reinterpret_cast<SHA_CTX*>(p)); }
const SHA_CTX* ctx_of(const std::byte* p) noexcept {
  return std::launder(reinterpret_cast<const SHA_CTX*>(p));
}

}  // namespace

RelaySha1::RelaySha1() {
  static_assert(sizeof(SHA_CTX) == kStateSize, "update RelaySha1::kStateSize");
  if (SHA1_Init(new (state_.data()) SHA_CTX) != 1) throw CryptoError("SHA1_Init");
}

RelaySha1::~RelaySha1() { secure_wipe(state_.data(), state_.size()); }

void RelaySha1::update(std::span<const std::uint8_t> data) {
  if (data.empty()) return;
  if (SHA1_Update(ctx_of(state_.data()), data.data(), data.size()) != 1) throw CryptoError("SHA1_Update");
}

std::array<std::uint8_t, RelaySha1::kSize> RelaySha1::peek() const {
  SHA_CTX scratch = *ctx_of(state_.data());
  std::array<std::uint8_t, kSize> out{};
  const int ok = SHA1_Final(out.data(), &scratch);
  secure_wipe(&scratch, sizeof scratch);
  if (ok != 1) throw CryptoError("SHA1_Final");
  return out;
}

}  // namespace conflux::crypto
