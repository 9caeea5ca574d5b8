#pragma once
// A throwaway self-signed certificate for the TLS layer of channel tests
// (identity is proven by CERTS cells, not by this certificate).
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <string>

#include "conflux/net/tls.hpp"

namespace conflux::test {

inline net::TlsIdentity test_tls_identity() {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  X509* x = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), 0);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("www.test.net"), -1,
                             -1, 0);
  X509_set_issuer_name(x, name);
  X509_sign(x, key, nullptr);
  auto to_pem = [](auto write) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string s(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    return s;
  };
  net::TlsIdentity id{to_pem([&](BIO* b) { PEM_write_bio_X509(b, x); }),
                 to_pem([&](BIO* b) { PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr); })};
  X509_free(x);
  EVP_PKEY_free(key);
  return id;
}

}  // namespace conflux::test
