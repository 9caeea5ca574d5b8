#include "conflux/cell/ed25519_cert.hpp"

#include <algorithm>
#include <limits>

#include "conflux/bytes/writer.hpp"

namespace conflux::cell {
namespace {

constexpr std::size_t kMaxExtensions = std::numeric_limits<std::uint8_t>::max();
constexpr std::size_t kMaxExtData = std::numeric_limits<std::uint16_t>::max();

// The extension rules tor_cert_parse applies. The decoder enforces the same
// rules itself (with DecodeError kinds); this copy guards certificates that
// were built by hand rather than decoded.
std::optional<CertError> check_extensions(const std::vector<CertExtension>& exts) {
  bool seen_signing_key = false;
  for (const auto& ext : exts) {
    if (ext.type == kCertExtSignedWithEd25519Key) {
      // Trunnel's union "with length ExtLength" fails unless the 32-byte key
      // fills it exactly; a second copy is an error in tor_cert_parse.
      if (ext.data.size() != crypto::Ed25519Public{}.size() || seen_signing_key)
        return CertError::BadExtension;
      seen_signing_key = true;
    } else if ((ext.flags & kCertExtFlagAffectsValidation) != 0) {
      return CertError::UnknownCriticalExtension;
    }
  }
  return std::nullopt;
}

const CertExtension* find_signing_key_ext(const std::vector<CertExtension>& exts) {
  auto it = std::find_if(exts.begin(), exts.end(), [](const CertExtension& e) {
    return e.type == kCertExtSignedWithEd25519Key;
  });
  return it == exts.end() ? nullptr : &*it;
}

std::optional<crypto::Ed25519Public> as_key(const std::vector<std::uint8_t>& data) {
  crypto::Ed25519Public key{};
  if (data.size() != key.size()) return std::nullopt;
  std::copy(data.begin(), data.end(), key.begin());
  return key;
}

}  // namespace

std::optional<crypto::Ed25519Public> Ed25519Cert::signed_with_key() const {
  const CertExtension* ext = find_signing_key_ext(body.extensions);
  if (ext == nullptr) return std::nullopt;
  return as_key(ext->data);
}

std::optional<crypto::Ed25519Public> Ed25519Cert::certified_ed25519_key() const {
  if (body.key_type != CertKeyType::Ed25519) return std::nullopt;
  return body.certified_key;
}

std::uint32_t cert_expiration_hours(std::uint64_t seconds) noexcept {
  const std::uint64_t hours = seconds / 3600U + (seconds % 3600U != 0 ? 1U : 0U);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(hours, std::numeric_limits<std::uint32_t>::max()));
}

Decoded<Ed25519Cert> decode_ed25519_cert(bytes::ByteSpan in) {
  bytes::Reader r(in);
  const std::uint8_t version = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (version != kEd25519CertVersion) return fail(DecodeError::BadVersion);

  Ed25519Cert cert;
  cert.body.cert_type = static_cast<CertType>(r.u8());
  cert.body.expiration_hours = r.u32();
  cert.body.key_type = static_cast<CertKeyType>(r.u8());
  r.copy_to(cert.body.certified_key);
  const std::uint8_t n_ext = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);

  cert.body.extensions.reserve(n_ext);
  bool seen_signing_key = false;
  for (unsigned i = 0; i < n_ext; ++i) {
    CertExtension ext;
    const std::uint16_t len = r.u16();
    ext.type = r.u8();
    ext.flags = r.u8();
    bytes::ByteSpan data = r.take(len);
    // "It is an error for an extension to be truncated."
    if (!r.ok()) return fail(DecodeError::Truncated);
    // The same rules as check_extensions, with the decoder's error kinds.
    if (ext.type == kCertExtSignedWithEd25519Key) {
      if (len != crypto::Ed25519Public{}.size()) return fail(DecodeError::BadLength);
      if (seen_signing_key) return fail(DecodeError::BadValue);
      seen_signing_key = true;
    } else if ((ext.flags & kCertExtFlagAffectsValidation) != 0) {
      return fail(DecodeError::BadValue);
    }
    ext.data.assign(data.begin(), data.end());
    cert.body.extensions.push_back(std::move(ext));
  }

  r.copy_to(cert.signature);
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (!r.finished()) return fail(DecodeError::TrailingBytes);
  return cert;
}

namespace {
Result<bytes::Writer, CertError> write_body(const Ed25519CertBody& body, std::size_t extra) {
  if (body.extensions.size() > kMaxExtensions) return Unexpected{CertError::TooLarge};
  std::size_t size = kEd25519CertMinLen - crypto::Ed25519Signature{}.size() + extra;
  for (const auto& ext : body.extensions) {
    if (ext.data.size() > kMaxExtData) return Unexpected{CertError::TooLarge};
    size += 4 + ext.data.size();
  }
  bytes::Writer w(size);
  w.u8(kEd25519CertVersion);
  w.u8(static_cast<std::uint8_t>(body.cert_type));
  w.u32(body.expiration_hours);
  w.u8(static_cast<std::uint8_t>(body.key_type));
  w.put(body.certified_key);
  w.u8(static_cast<std::uint8_t>(body.extensions.size()));
  for (const auto& ext : body.extensions) {
    w.u16(static_cast<std::uint16_t>(ext.data.size()));
    w.u8(ext.type);
    w.u8(ext.flags);
    w.put(ext.data);
  }
  return w;
}
}  // namespace

Result<std::vector<std::uint8_t>, CertError> encode_ed25519_cert_body(const Ed25519CertBody& body) {
  auto w = write_body(body, 0);
  if (!w) return Unexpected{w.error()};
  return std::move(*w).take();
}

Result<std::vector<std::uint8_t>, CertError> encode_ed25519_cert(const Ed25519Cert& cert) {
  auto w = write_body(cert.body, cert.signature.size());
  if (!w) return Unexpected{w.error()};
  w->put(cert.signature);
  return std::move(*w).take();
}

Result<Ed25519Cert, CertError> sign_ed25519_cert(Ed25519CertBody body, const crypto::Ed25519Keypair& signer,
                                                 IncludeSigningKey include) {
  const crypto::Ed25519Public& pub = signer.public_key();
  if (include == IncludeSigningKey::Yes) {
    if (const CertExtension* ext = find_signing_key_ext(body.extensions)) {
      if (!std::equal(ext->data.begin(), ext->data.end(), pub.begin(), pub.end()))
        return Unexpected{CertError::SigningKeyMismatch};
    } else {
      body.extensions.push_back(
          CertExtension{kCertExtSignedWithEd25519Key, 0, std::vector<std::uint8_t>(pub.begin(), pub.end())});
    }
  }
  auto signed_part = encode_ed25519_cert_body(body);
  if (!signed_part) return Unexpected{signed_part.error()};
  Ed25519Cert cert;
  cert.signature = signer.sign(*signed_part);
  cert.body = std::move(body);
  return cert;
}

std::optional<CertError> check_ed25519_cert_profile(const Ed25519Cert& cert) {
  const Ed25519CertBody& b = cert.body;
  switch (b.cert_type) {
    case CertType::IdentityVSigning:
      if (b.key_type != CertKeyType::Ed25519) return CertError::WrongKeyType;
      // The identity key is only known from the extension (tor-spec 4.2).
      if (find_signing_key_ext(b.extensions) == nullptr) return CertError::MissingSigningKeyExtension;
      return std::nullopt;
    case CertType::SigningVTlsCert:
      if (b.key_type != CertKeyType::Sha256OfX509) return CertError::WrongKeyType;
      return std::nullopt;
    case CertType::SigningVAuth:
      if (b.key_type != CertKeyType::Ed25519) return CertError::WrongKeyType;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Result<crypto::Ed25519Public, CertError> verify_ed25519_cert(
    const Ed25519Cert& cert, const std::optional<crypto::Ed25519Public>& signing_key, std::uint64_t now) {
  if (auto bad = check_extensions(cert.body.extensions)) return Unexpected{*bad};
  if (auto bad = check_ed25519_cert_profile(cert)) return Unexpected{*bad};

  const std::optional<crypto::Ed25519Public> included = cert.signed_with_key();
  crypto::Ed25519Public key{};
  if (signing_key) {
    // cert-spec 2.2.1: when present, the extension MUST match the signer.
    if (included && *included != *signing_key) return Unexpected{CertError::SigningKeyMismatch};
    key = *signing_key;
  } else if (included) {
    key = *included;
  } else {
    return Unexpected{CertError::NoSigningKey};
  }

  if (now > cert.expires_at()) return Unexpected{CertError::Expired};

  auto signed_part = encode_ed25519_cert_body(cert.body);
  if (!signed_part) return Unexpected{signed_part.error()};
  if (!crypto::ed25519_verify(key, *signed_part, cert.signature)) return Unexpected{CertError::BadSignature};
  return key;
}

}  // namespace conflux::cell
