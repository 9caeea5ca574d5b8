#pragma once
// The TLS link certificate: a fresh RSA-2048 key (as tor) and a self-signed X.509
// certificate that looks like tor's (random serial, subject
// "CN=www.<random>.net", issuer "CN=www.<random>.com", short validity).
// Its identity role is nil: the CERTS cell's type-5 certificate binds its
// SHA-256 to the relay's Ed25519 signing key. OpenSSL types stay inside
// tls_cert.cpp; the TLS layer gets DER and PEM.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace conflux::keys {

// A string that is wiped when it goes away (the private key PEM).
class SecretText {
 public:
  SecretText() = default;
  explicit SecretText(std::string s) : s_(std::move(s)) {}
  SecretText(const SecretText&) = default;
  SecretText& operator=(const SecretText& o);
  SecretText(SecretText&& o) noexcept;
  SecretText& operator=(SecretText&& o) noexcept;
  ~SecretText();
  [[nodiscard]] const std::string& str() const noexcept { return s_; }

 private:
  void wipe() noexcept;
  std::string s_;
};

struct TlsCertificate {
  std::vector<std::uint8_t> cert_der;
  std::string cert_pem;
  SecretText key_pem;                    // PKCS#8 "PRIVATE KEY" PEM
  std::array<std::uint8_t, 32> digest{};  // SHA-256 of cert_der (what type-5 certifies)
  std::uint64_t not_before = 0;          // seconds since the epoch
  std::uint64_t not_after = 0;
};

// Valid from one day before `now` (so a peer's slightly slow clock accepts it)
// until now + lifetime_seconds. Throws crypto::CryptoError only if OpenSSL
// fails in a way no input can cause.
[[nodiscard]] TlsCertificate generate_tls_certificate(std::uint64_t now, std::uint64_t lifetime_seconds);

// A random host name as tor makes them: prefix, 8..20 base32 characters, suffix.
[[nodiscard]] std::string random_hostname(std::string_view prefix, std::string_view suffix);

}  // namespace conflux::keys
