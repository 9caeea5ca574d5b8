#pragma once
// Private helpers shared by the ntor and ntor-v3 implementations.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "conflux/crypto/secret.hpp"

namespace conflux::crypto::ntor_detail {

inline std::span<const std::uint8_t> str_bytes(std::string_view s) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// An append-only buffer for secret inputs (secret_input, auth_input...). Its
// capacity is fixed up front so no reallocation leaves an unwiped copy behind,
// and it is wiped on destruction.
class SecretBuf {
 public:
  explicit SecretBuf(std::size_t capacity) { v_.reserve(capacity); }
  SecretBuf(const SecretBuf&) = delete;
  SecretBuf& operator=(const SecretBuf&) = delete;
  ~SecretBuf() {
    if (!v_.empty()) secure_wipe(v_.data(), v_.size());
  }
  SecretBuf& put(std::span<const std::uint8_t> b) {
    v_.insert(v_.end(), b.begin(), b.end());
    return *this;
  }
  SecretBuf& put(std::string_view s) { return put(str_bytes(s)); }
  [[nodiscard]] std::span<const std::uint8_t> view() const noexcept { return v_; }

 private:
  std::vector<std::uint8_t> v_;
};

// Wipes a vector returned by a primitive (hkdf, shake) once it has been used.
inline void wipe_vector(std::vector<std::uint8_t>& v) noexcept {
  if (!v.empty()) secure_wipe(v.data(), v.size());
  v.clear();
}

}  // namespace conflux::crypto::ntor_detail
