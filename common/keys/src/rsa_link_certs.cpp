// X.509 certificates for the RSA identity (rsa_link_certs.hpp); with
// tls_cert.cpp, the only users of OpenSSL's X509 API in common/keys.
#include "conflux/keys/rsa_link_certs.hpp"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>

#include "conflux/crypto/error.hpp"
#include "openssl_ptrs.hpp"
#include "conflux/crypto/random.hpp"

namespace conflux::keys {
namespace {

using namespace ossl;  // PkeyPtr, X509Ptr, BnPtr

constexpr std::uint64_t kDay = 24 * 3600;

void check(bool ok, const char* what) {
  if (!ok) throw crypto::CryptoError(std::string("rsa link certs: ") + what);
}

PkeyPtr private_key(const crypto::RsaPrivateKey& k) {
  auto der = k.to_pkcs1_der();
  const unsigned char* p = der.data();
  PkeyPtr key(d2i_PrivateKey(EVP_PKEY_RSA, nullptr, &p, static_cast<long>(der.size())));
  OPENSSL_cleanse(der.data(), der.size());
  check(key != nullptr, "d2i_PrivateKey");
  return key;
}

X509Ptr parse_x509(const std::vector<std::uint8_t>& der) {
  const unsigned char* p = der.data();
  X509Ptr x(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  check(x != nullptr, "d2i_X509");
  return x;
}

void set_cn(X509_NAME* name, const std::string& cn) {
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()),
                                   -1, -1, 0) == 1,
        "X509_NAME_add_entry_by_txt");
}

// A certificate for `subject_key` named `subject`, issued by `issuer` and
// signed with `signer`, valid from a day before `now` until `not_after`.
std::vector<std::uint8_t> make_cert(EVP_PKEY* subject_key, const std::string& subject, const std::string& issuer,
                                    EVP_PKEY* signer, std::uint64_t now, std::uint64_t not_after) {
  X509Ptr x(X509_new());
  check(x != nullptr, "X509_new");
  check(X509_set_version(x.get(), X509_VERSION_3) == 1, "X509_set_version");
  auto serial = crypto::random_array<8>();
  serial[0] &= 0x7f;
  BnPtr bn(BN_bin2bn(serial.data(), static_cast<int>(serial.size()), nullptr));
  check(bn && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(x.get())) != nullptr, "serial");
  set_cn(X509_get_subject_name(x.get()), subject);
  set_cn(X509_get_issuer_name(x.get()), issuer);
  const std::uint64_t not_before = now > kDay ? now - kDay : 0;
  check(ASN1_TIME_set(X509_getm_notBefore(x.get()), static_cast<time_t>(not_before)) != nullptr &&
            ASN1_TIME_set(X509_getm_notAfter(x.get()), static_cast<time_t>(not_after)) != nullptr,
        "validity");
  check(X509_set_pubkey(x.get(), subject_key) == 1, "X509_set_pubkey");
  check(X509_sign(x.get(), signer, EVP_sha256()) > 0, "X509_sign");
  const int len = i2d_X509(x.get(), nullptr);
  check(len > 0, "i2d_X509");
  std::vector<std::uint8_t> der(static_cast<std::size_t>(len));
  unsigned char* p = der.data();
  check(i2d_X509(x.get(), &p) == len, "i2d_X509");
  return der;
}

}  // namespace

RsaLinkCerts make_rsa_link_certs(const crypto::RsaPrivateKey& identity, const TlsCertificate& tls,
                                 std::uint64_t now) {
  PkeyPtr id = private_key(identity);
  X509Ptr tls_x509 = parse_x509(tls.cert_der);
  EVP_PKEY* tls_key = X509_get0_pubkey(tls_x509.get());  // not owned
  check(tls_key != nullptr, "TLS public key");
  // tor: the identity certificate's subject and issuer are one random name,
  // which also issues the link certificate.
  const std::string id_name = random_hostname("www.", ".net");
  RsaLinkCerts out;
  out.identity_cert_der = make_cert(id.get(), id_name, id_name, id.get(), now, now + kRsaIdentityCertLifetime);
  out.link_cert_der =
      make_cert(tls_key, random_hostname("www.", ".net"), id_name, id.get(), now, tls.not_after);
  return out;
}

}  // namespace conflux::keys
