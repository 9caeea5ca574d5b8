// Fuzzes both certificate decoders on every input: the Ed25519 certificate
// (cert-spec 2.1) and the RSA->Ed25519 cross-certificate (cert-spec 2.3).
//
// Invariants (trap on violation):
//  - both formats are canonical: a successful decode re-encodes to exactly
//    the input, and decoding that again gives an equal value;
//  - the Ed25519 encoders agree: body encoding + signature == full encoding;
//  - whatever the decoder accepts has well-formed extensions, so verify never
//    reports UnknownCriticalExtension or BadExtension for it;
//  - verification never "succeeds" for a cross-certificate whose SIGLEN is
//    not the key's modulus size.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conflux/bytes/hex.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/cell/rsa_crosscert.hpp"

using namespace conflux;
using namespace conflux::cell;

namespace {

// A real relay's RSA1024 identity key (PKCS#1), so that verification runs
// the RSA path on inputs with SIGLEN = 128.
const std::vector<std::uint8_t>& rsa_key() {
  static const std::vector<std::uint8_t> key = *bytes::from_hex(
      "30818902818100d38b1e6ceb946e0db0751f4cbace3dcb9688b6c25304227b4710c35afb73627e50500f5913e158b6"
      "21802612d1c75827003703338375237552eb3cd3c12f6ab3604e60c1a2d26bb1fbad206ff023969a90909d6a65a545"
      "8a5312c26ebd3a3dad30302d4515cdcd264146ac18e6fc60a04bd3ec327f04294d96ba5aa25b464c3f0203010001");
  return key;
}

bool same(const std::vector<std::uint8_t>& a, bytes::ByteSpan b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void fuzz_ed25519(bytes::ByteSpan in) {
  auto cert = decode_ed25519_cert(in);
  if (!cert) return;
  auto enc = encode_ed25519_cert(*cert);
  if (!enc || !same(*enc, in)) __builtin_trap();
  auto again = decode_ed25519_cert(*enc);
  if (!again || !(*again == *cert)) __builtin_trap();
  auto body = encode_ed25519_cert_body(cert->body);
  if (!body || body->size() + 64 != enc->size() || !std::equal(body->begin(), body->end(), enc->begin()))
    __builtin_trap();

  (void)check_ed25519_cert_profile(*cert);
  auto v = verify_ed25519_cert(*cert, std::nullopt, 0);
  if (!v && (v.error() == CertError::UnknownCriticalExtension || v.error() == CertError::BadExtension))
    __builtin_trap();
  if (v && !(cert->signed_with_key() && *cert->signed_with_key() == *v)) __builtin_trap();
}

void fuzz_crosscert(bytes::ByteSpan in) {
  auto cc = decode_rsa_crosscert(in);
  if (!cc) return;
  auto enc = encode_rsa_crosscert(*cc);
  if (!enc || !same(*enc, in)) __builtin_trap();
  auto again = decode_rsa_crosscert(*enc);
  if (!again || !(*again == *cc)) __builtin_trap();

  auto v = verify_rsa_crosscert(*cc, rsa_key(), 0);
  if (v && (cc->signature.size() != 128 || *v != cc->ed25519_key)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bytes::ByteSpan in(data, size);
  fuzz_ed25519(in);
  fuzz_crosscert(in);
  return 0;
}
