// Fuzzes what our authorities parse from one another and from their key
// files for tor's formats: the tor-format signature message
// (dir/tor_signature_message.hpp, which embeds a key certificate and a
// directory-signature item, for either consensus flavor; seeds: one of
// each, signature_microdesc and signature_ns) and PEM RSA private keys (secret_id_key,
// authority_*_key).
//
// Invariants (trap on violation):
//  - an accepted message's certificate names the signer of its item: the
//    item's v3ident and signing-key digest are the certificate's, and
//    re-encoding the parts gives the same message back; its digest is
//    SHA-256's size exactly when the item names "sha256" (the microdesc
//    flavor), else SHA-1's (the ns flavor, no algorithm named);
//  - an accepted private key round-trips through PEM and DER unchanged and
//    signs a digest its own public key verifies.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/rsa_private.hpp"
#include "conflux/dir/tor_signature_message.hpp"

using namespace conflux;

namespace {

void fuzz_message(std::string_view in) {
  auto m = dir::parse_tor_signature_message(in);
  if (!m) return;
  const std::string v3 = bytes::to_hex(m->cert.v3ident(), true);
  const std::string sk = bytes::to_hex(m->cert.signing_key_digest(), true);
  if (m->item.find(v3) == std::string::npos || m->item.find(sk) == std::string::npos) __builtin_trap();
  const bool named_sha256 = m->item.starts_with("directory-signature sha256 ");
  if ((m->digest.size() == 32) != named_sha256 || (m->digest.size() != 32 && m->digest.size() != 20)) __builtin_trap();
  (void)m->signature_valid();
  auto again = dir::parse_tor_signature_message(dir::encode_tor_signature_message(m->digest, m->cert.text, m->item));
  if (!again || again->digest != m->digest || again->item != m->item || again->signature != m->signature) __builtin_trap();
}

void fuzz_private_key(std::string_view in) {
  auto k = crypto::RsaPrivateKey::from_pem(in);
  if (!k) return;
  auto back = crypto::RsaPrivateKey::from_pkcs1_der(k->to_pkcs1_der());
  if (!back || back->to_pem() != k->to_pem()) __builtin_trap();
  const std::array<std::uint8_t, 20> digest{1, 2, 3};
  if (!k->public_key().verify_digest(digest, k->sign_digest(digest))) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_message(in);
  fuzz_private_key(in);
  return 0;
}
