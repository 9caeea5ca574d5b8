#pragma once
// The key that signs directory documents: an Ed25519 signing key certified by
// the relay's (or authority's) Ed25519 identity with a type-4 certificate
// (cert-spec: IdentityVSigning, extension 4 = the identity key), the same
// certificate a relay sends in its CERTS cell. Documents carry the
// certificate, so a reader that trusts an identity checks certificate then
// signature, and the identity key itself can stay offline.
#include <cstdint>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/error.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxSigningCertLen = 512;

// Checks that `cert` is a well-formed type-4 certificate of an Ed25519 key,
// signed by `identity`, not expired at `now`. Returns the certified signing key.
[[nodiscard]] DirResult<crypto::Ed25519Public> verify_signing_cert(bytes::ByteSpan cert,
                                                                   const crypto::Ed25519Public& identity,
                                                                   std::uint64_t now);

// A type-4 certificate for `signing_key`, signed by `identity`, valid until at
// least `expires_at` (seconds since the epoch, rounded up to the hour).
[[nodiscard]] std::vector<std::uint8_t> make_signing_cert(const crypto::Ed25519Keypair& identity,
                                                          const crypto::Ed25519Public& signing_key,
                                                          std::uint64_t expires_at);

}  // namespace conflux::dir
