#pragma once
// Algorithms fetched once per process: implicit fetching on every EVP call is
// a measurable cost on the per-cell path in OpenSSL 3.
#include <openssl/evp.h>
#include <openssl/kdf.h>

namespace conflux::crypto::detail {

const EVP_MD* md_sha1();
const EVP_MD* md_sha256();
const EVP_MD* md_sha3_256();
const EVP_MD* md_shake256();
const EVP_CIPHER* cipher_aes128_ctr();
const EVP_CIPHER* cipher_aes256_ctr();
EVP_MAC* mac_hmac();
EVP_KDF* kdf_hkdf();

}  // namespace conflux::crypto::detail
