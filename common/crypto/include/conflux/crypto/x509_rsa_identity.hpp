#pragma once
// The RSA identity key in the certificate tor puts in a CERTS cell as type 2
// (tor-spec 4.2: "RSA1024 identity certificate, self-signed"): an X.509
// certificate whose subject key is the relay's RSA identity, signed by that
// same key. tor names relays by this key's fingerprint (SHA-1 of its PKCS#1
// DER): Bridge, DirAuthority and FallbackDir lines. Nothing else of the
// certificate matters to tor (its names and dates are random), so nothing
// else is checked.
#include <cstdint>
#include <optional>
#include <span>

#include "conflux/crypto/rsa.hpp"

namespace conflux::crypto {

// The key, if `der` is exactly one DER X.509 certificate with an RSA key
// that verifies the certificate's own signature; nullopt otherwise.
[[nodiscard]] std::optional<RsaPublicKey> rsa_identity_from_x509(std::span<const std::uint8_t> der);

}  // namespace conflux::crypto
