#pragma once
// Owning pointers for the OpenSSL objects common/keys builds certificates
// with (tls_cert.cpp, rsa_link_certs.cpp).
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>

namespace conflux::keys::ossl {

template <auto Fn>
struct Deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    Fn(p);
  }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;

}  // namespace conflux::keys::ossl
