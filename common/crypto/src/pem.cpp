#include "conflux/crypto/pem.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace conflux::crypto {
namespace {

std::string_view trim(std::string_view s) {
  const auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string pem_encode(std::span<const std::uint8_t> der, std::string_view type) {
  std::string b64(4 * ((der.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()), der.data(), static_cast<int>(der.size()));
  b64.resize(static_cast<std::size_t>(n));
  std::string out = "-----BEGIN " + std::string(type) + "-----\n";
  for (std::size_t i = 0; i < b64.size(); i += 64) out += b64.substr(i, 64) + "\n";
  out += "-----END " + std::string(type) + "-----\n";
  OPENSSL_cleanse(b64.data(), b64.size());
  return out;
}

std::optional<std::vector<std::uint8_t>> pem_decode(std::string_view pem, std::string_view type) {
  const std::string begin = "-----BEGIN " + std::string(type) + "-----";
  const std::string end = "-----END " + std::string(type) + "-----";
  pem = trim(pem);
  if (pem.size() < begin.size() + end.size() || pem.substr(0, begin.size()) != begin ||
      pem.substr(pem.size() - end.size()) != end)
    return std::nullopt;
  const std::string_view body = pem.substr(begin.size(), pem.size() - begin.size() - end.size());
  std::string b64;
  for (char c : body) {
    if (c == '\n' || c == '\r') continue;
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                    c == '/' || c == '=';
    if (!ok || b64.size() > 8192) return std::nullopt;
    b64.push_back(c);
  }
  if (b64.empty() || b64.size() % 4 != 0) return std::nullopt;
  std::vector<std::uint8_t> out(b64.size() / 4 * 3);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(b64.data()),
                                static_cast<int>(b64.size()));
  OPENSSL_cleanse(b64.data(), b64.size());
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding as zero bytes.
  std::size_t pad = 0;
  if (!body.empty()) {
    const std::string_view t = trim(body);
    if (t.ends_with("==")) pad = 2;
    else if (t.ends_with("=")) pad = 1;
  }
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

}  // namespace conflux::crypto
