// RSA->Ed25519 cross-certificate: framing and the signed digest. The RSA
// operations live in rsa_crosscert_rsa.cpp, the only file here that needs
// OpenSSL's RSA interfaces.
#include "conflux/cell/rsa_crosscert.hpp"

#include <limits>

#include "conflux/bytes/writer.hpp"
#include "conflux/crypto/digest.hpp"

namespace conflux::cell {

Decoded<RsaCrosscert> decode_rsa_crosscert(bytes::ByteSpan in) {
  bytes::Reader r(in);
  RsaCrosscert cc;
  r.copy_to(cc.ed25519_key);
  cc.expiration_hours = r.u32();
  const std::uint8_t siglen = r.u8();
  bytes::ByteSpan sig = r.take(siglen);
  if (!r.ok()) return fail(DecodeError::Truncated);
  // tor rejects "overlong" crosscerts: the parse must consume everything.
  if (!r.finished()) return fail(DecodeError::TrailingBytes);
  cc.signature.assign(sig.begin(), sig.end());
  return cc;
}

Result<std::vector<std::uint8_t>, CertError> encode_rsa_crosscert(const RsaCrosscert& cc) {
  if (cc.signature.size() > std::numeric_limits<std::uint8_t>::max()) return Unexpected{CertError::TooLarge};
  bytes::Writer w(kRsaCrosscertSignedLen + 1 + cc.signature.size());
  w.put(cc.ed25519_key);
  w.u32(cc.expiration_hours);
  w.u8(static_cast<std::uint8_t>(cc.signature.size()));
  w.put(cc.signature);
  return std::move(w).take();
}

std::array<std::uint8_t, 32> rsa_crosscert_digest(const crypto::Ed25519Public& key,
                                                  std::uint32_t expiration_hours) {
  bytes::Writer w(kRsaCrosscertPrefix.size() + kRsaCrosscertSignedLen);
  for (char c : kRsaCrosscertPrefix) w.u8(static_cast<std::uint8_t>(c));
  w.put(key);
  w.u32(expiration_hours);
  return crypto::sha256(w.bytes());
}

}  // namespace conflux::cell
