#include "conflux/crypto/aes_ctr.hpp"

#include <limits>
#include <stdexcept>
#include <utility>

#include <openssl/evp.h>

#include "conflux/crypto/error.hpp"
#include "evp_algorithms.hpp"

namespace conflux::crypto {
namespace {
constexpr std::array<std::uint8_t, 16> kZeroIv{};
}

AesCtr::AesCtr(std::span<const std::uint8_t> key) : AesCtr(key, kZeroIv) {}

AesCtr::AesCtr(std::span<const std::uint8_t> key, std::span<const std::uint8_t, 16> iv) {
  const EVP_CIPHER* cipher = nullptr;
  if (key.size() == 16)
    cipher = detail::cipher_aes128_ctr();
  else if (key.size() == 32)
    cipher = detail::cipher_aes256_ctr();
  else
    throw std::invalid_argument("AES-CTR key must be 16 or 32 bytes");
  ctx_ = EVP_CIPHER_CTX_new();
  if (ctx_ == nullptr) throw CryptoError("EVP_CIPHER_CTX_new");
  if (EVP_EncryptInit_ex2(ctx_, cipher, key.data(), iv.data(), nullptr) != 1) {
    EVP_CIPHER_CTX_free(ctx_);
    throw CryptoError("EVP_EncryptInit_ex2 AES-CTR");
  }
}

AesCtr::AesCtr(AesCtr&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

AesCtr& AesCtr::operator=(AesCtr&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

AesCtr::~AesCtr() { EVP_CIPHER_CTX_free(ctx_); }

void AesCtr::apply(std::span<std::uint8_t> data) { apply(data, data); }

void AesCtr::apply(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
  if (in.size() != out.size()) throw std::invalid_argument("AES-CTR: in/out sizes differ");
  if (ctx_ == nullptr) throw std::logic_error("AES-CTR: used after move");
  while (!in.empty()) {
    std::size_t chunk = std::min<std::size_t>(in.size(), std::numeric_limits<int>::max() / 2);
    int outl = 0;
    if (EVP_EncryptUpdate(ctx_, out.data(), &outl, in.data(), static_cast<int>(chunk)) != 1 ||
        static_cast<std::size_t>(outl) != chunk)
      throw CryptoError("EVP_EncryptUpdate AES-CTR");
    in = in.subspan(chunk);
    out = out.subspan(chunk);
  }
}

}  // namespace conflux::crypto
