#pragma once
// Hashes, MACs and KDFs on OpenSSL 3 EVP. Incremental hashers are RAII
// objects; copying one checkpoints its state (EVP_MD_CTX_copy_ex), which is
// how relay crypto restores a running digest after a failed recognition.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

struct evp_md_ctx_st;

namespace conflux::crypto {

using Bytes = std::span<const std::uint8_t>;

enum class HashAlg { Sha1, Sha256, Sha3_256 };

template <HashAlg A>
inline constexpr std::size_t digest_size = A == HashAlg::Sha1 ? 20 : 32;

// An incremental hash. Copy = checkpoint.
template <HashAlg A>
class Hasher {
 public:
  static constexpr std::size_t kSize = digest_size<A>;
  Hasher();
  Hasher(const Hasher& other);
  Hasher& operator=(const Hasher& other);
  Hasher(Hasher&& other) noexcept;
  Hasher& operator=(Hasher&& other) noexcept;
  ~Hasher();

  void update(Bytes data);
  // Digest of everything absorbed so far; the hasher keeps running.
  [[nodiscard]] std::array<std::uint8_t, kSize> peek() const;
  // Copies the state of `other` into this hasher without allocating.
  void restore(const Hasher& other);

 private:
  evp_md_ctx_st* ctx_ = nullptr;
};

using Sha1 = Hasher<HashAlg::Sha1>;
using Sha256 = Hasher<HashAlg::Sha256>;
using Sha3_256 = Hasher<HashAlg::Sha3_256>;

extern template class Hasher<HashAlg::Sha1>;
extern template class Hasher<HashAlg::Sha256>;
extern template class Hasher<HashAlg::Sha3_256>;

std::array<std::uint8_t, 20> sha1(Bytes data);
std::array<std::uint8_t, 32> sha256(Bytes data);
std::array<std::uint8_t, 32> sha3_256(Bytes data);
// SHAKE-256 extendable output, out_len bytes in one call.
std::vector<std::uint8_t> shake256(Bytes data, std::size_t out_len);

std::array<std::uint8_t, 32> hmac_sha256(Bytes key, Bytes msg);

// RFC 5869. hkdf_sha256 = expand(extract(salt, ikm), info, len).
std::array<std::uint8_t, 32> hkdf_sha256_extract(Bytes salt, Bytes ikm);
std::vector<std::uint8_t> hkdf_sha256_expand(Bytes prk, Bytes info, std::size_t len);
std::vector<std::uint8_t> hkdf_sha256(Bytes ikm, Bytes salt, Bytes info, std::size_t len);

}  // namespace conflux::crypto
