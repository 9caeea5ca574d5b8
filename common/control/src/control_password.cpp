#include "conflux/control/control_password.hpp"

#include <vector>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/digest.hpp"

namespace conflux::control {

namespace {

constexpr std::size_t kSpecifierLen = 9;
constexpr std::size_t kKeyLen = 20;

std::array<std::uint8_t, kKeyLen> s2k(std::string_view password, const std::uint8_t* specifier) {
  const std::uint8_t c = specifier[8];
  std::uint64_t count = std::uint64_t{16 + (c & 15u)} << ((c >> 4) + 6);
  std::vector<std::uint8_t> tmp(specifier, specifier + 8);
  tmp.insert(tmp.end(), password.begin(), password.end());
  crypto::Sha1 h;
  while (count > 0) {
    const std::size_t n = count >= tmp.size() ? tmp.size() : static_cast<std::size_t>(count);
    h.update(bytes::ByteSpan(tmp.data(), n));
    count -= n;
  }
  return h.peek();
}

std::optional<std::vector<std::uint8_t>> decode(std::string_view hashed) {
  if (!hashed.starts_with("16:")) return std::nullopt;
  auto raw = bytes::from_hex(hashed.substr(3));
  if (!raw || raw->size() != kSpecifierLen + kKeyLen) return std::nullopt;
  return raw;
}

}  // namespace

std::string hash_control_password(std::string_view password, const std::array<std::uint8_t, 8>& salt,
                                  std::uint8_t count) {
  std::array<std::uint8_t, kSpecifierLen + kKeyLen> out{};
  std::copy(salt.begin(), salt.end(), out.begin());
  out[8] = count;
  const auto key = s2k(password, out.data());
  std::copy(key.begin(), key.end(), out.begin() + kSpecifierLen);
  return "16:" + bytes::to_hex(out, true);
}

bool control_password_matches(std::string_view hashed, std::string_view password) {
  const auto raw = decode(hashed);
  if (!raw) return false;
  const auto key = s2k(password, raw->data());
  return crypto::ct_equal(key, std::span<const std::uint8_t>(raw->data() + kSpecifierLen, kKeyLen));
}

bool valid_hashed_control_password(std::string_view hashed) { return decode(hashed).has_value(); }

}  // namespace conflux::control
