// The only file that uses OpenSSL's X509 API.
#include "conflux/keys/tls_cert.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/error.hpp"
#include "openssl_ptrs.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/crypto/secret.hpp"

namespace conflux::keys {
namespace {

using namespace ossl;  // PkeyPtr, X509Ptr, BnPtr, BioPtr

void check(int ok, const char* what) {
  if (ok != 1) throw crypto::CryptoError(std::string("tls cert: ") + what);
}

constexpr std::uint64_t kDay = 24 * 3600;
constexpr std::size_t kTlsRsaBits = 2048;

void set_name(X509_NAME* name, const std::string& cn) {
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()),
                                   -1, -1, 0),
        "X509_NAME_add_entry_by_txt");
}

std::string bio_to_string(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  if (len <= 0 || data == nullptr) throw crypto::CryptoError("tls cert: empty PEM");
  return std::string(data, static_cast<std::size_t>(len));
}

}  // namespace

SecretText& SecretText::operator=(const SecretText& o) {
  if (this != &o) {
    wipe();
    s_ = o.s_;
  }
  return *this;
}
SecretText::SecretText(SecretText&& o) noexcept : s_(o.s_) { o.wipe(); }
SecretText& SecretText::operator=(SecretText&& o) noexcept {
  if (this != &o) {
    wipe();
    s_ = o.s_;
    o.wipe();
  }
  return *this;
}
SecretText::~SecretText() { wipe(); }
void SecretText::wipe() noexcept {
  crypto::secure_wipe(s_.data(), s_.size());
  s_.clear();
}

std::string random_hostname(std::string_view prefix, std::string_view suffix) {
  static constexpr char kBase32[] = "abcdefghijklmnopqrstuvwxyz234567";
  const std::size_t len = 8 + static_cast<std::size_t>(crypto::random_uniform(13));
  std::string out(prefix);
  for (std::size_t i = 0; i < len; ++i) out += kBase32[crypto::random_uniform(32)];
  out += suffix;
  return out;
}

TlsCertificate generate_tls_certificate(std::uint64_t now, std::uint64_t lifetime_seconds) {
  // RSA-2048 as tor's link key (tortls.c, RSA_LINK_KEY_BITS): stock tor
  // reads an RSA key out of every X.509 certificate it is shown (the TLS
  // certificate, CERTS type 1) and logs OpenSSL errors for any other kind;
  // OpenSSL's default security level refuses 1024-bit certificate keys.
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", kTlsRsaBits));
  if (!key) throw crypto::CryptoError("tls cert: RSA key generation");
  X509Ptr x509(X509_new());
  if (!x509) throw crypto::CryptoError("tls cert: X509_new");
  check(X509_set_version(x509.get(), X509_VERSION_3), "X509_set_version");

  // A positive 64-bit random serial, as tor uses.
  auto serial = crypto::random_array<8>();
  serial[0] &= 0x7f;
  BnPtr bn(BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr));
  if (!bn || BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(x509.get())) == nullptr) {
    throw crypto::CryptoError("tls cert: serial");
  }

  set_name(X509_get_subject_name(x509.get()), random_hostname("www.", ".net"));
  set_name(X509_get_issuer_name(x509.get()), random_hostname("www.", ".com"));

  const std::uint64_t not_before = now > kDay ? now - kDay : 0;
  const std::uint64_t not_after = now + lifetime_seconds;
  if (ASN1_TIME_set(X509_getm_notBefore(x509.get()), static_cast<time_t>(not_before)) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(x509.get()), static_cast<time_t>(not_after)) == nullptr) {
    throw crypto::CryptoError("tls cert: validity");
  }
  check(X509_set_pubkey(x509.get(), key.get()), "X509_set_pubkey");
  if (X509_sign(x509.get(), key.get(), EVP_sha256()) <= 0) throw crypto::CryptoError("tls cert: X509_sign");

  TlsCertificate out;
  const int der_len = i2d_X509(x509.get(), nullptr);
  if (der_len <= 0) throw crypto::CryptoError("tls cert: i2d_X509");
  out.cert_der.resize(static_cast<std::size_t>(der_len));
  unsigned char* p = out.cert_der.data();
  if (i2d_X509(x509.get(), &p) != der_len) throw crypto::CryptoError("tls cert: i2d_X509");
  out.digest = crypto::sha256(out.cert_der);

  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio) throw crypto::CryptoError("tls cert: BIO_new");
  check(PEM_write_bio_X509(cert_bio.get(), x509.get()), "PEM_write_bio_X509");
  out.cert_pem = bio_to_string(cert_bio.get());

  BioPtr key_bio(BIO_new(BIO_s_secmem()));
  if (!key_bio) throw crypto::CryptoError("tls cert: BIO_new");
  check(PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr),
        "PEM_write_bio_PrivateKey");
  out.key_pem = SecretText(bio_to_string(key_bio.get()));

  out.not_before = not_before;
  out.not_after = not_after;
  return out;
}

}  // namespace conflux::keys
