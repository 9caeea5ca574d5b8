// OpenSSL 3 deprecates the low-level SHA-1 calls in favour of EVP; tor still
// uses them for its running relay digests, for the reason in the header.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "conflux/crypto/running_sha1.hpp"

#include <cstring>

#include <openssl/sha.h>

namespace conflux::crypto {
namespace {

static_assert(sizeof(SHA_CTX) <= 96 && alignof(SHA_CTX) <= 8, "RunningSha1::state_ must hold a SHA_CTX");

SHA_CTX load(const std::array<std::byte, 96>& state) noexcept {
  SHA_CTX ctx;
  std::memcpy(&ctx, state.data(), sizeof ctx);
  return ctx;
}
void store(std::array<std::byte, 96>& state, const SHA_CTX& ctx) noexcept {
  std::memcpy(state.data(), &ctx, sizeof ctx);
}

}  // namespace

RunningSha1::RunningSha1() noexcept {
  SHA_CTX ctx;
  SHA1_Init(&ctx);
  store(state_, ctx);
}

void RunningSha1::update(std::span<const std::uint8_t> data) noexcept {
  SHA_CTX ctx = load(state_);
  SHA1_Update(&ctx, data.data(), data.size());
  store(state_, ctx);
}

std::array<std::uint8_t, 20> RunningSha1::peek() const noexcept {
  SHA_CTX ctx = load(state_);
  std::array<std::uint8_t, 20> out{};
  SHA1_Final(out.data(), &ctx);
  return out;
}

}  // namespace conflux::crypto
