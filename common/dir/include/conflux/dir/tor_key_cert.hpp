#pragma once
// Directory authority key certificates (dir-spec 3.1, /tor/keys/...): an
// authority's long-term RSA identity key (its v3ident is the key's SHA-1)
// vouches for a medium-term signing key, which signs consensuses. A
// certificate is used only if it is internally consistent: the fingerprint
// is the identity key's, the signing key cross-certifies the identity, and
// the identity signs the whole certificate.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/crypto/rsa.hpp"
#include "conflux/dir/error.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxKeyCertsSize = std::size_t{1} << 20;  // /tor/keys/all of a few dozen authorities

struct AuthorityKeyCert {
  crypto::RsaPublicKey identity;
  crypto::RsaPublicKey signing;
  std::uint64_t published = 0;  // seconds since the epoch
  std::uint64_t expires = 0;
  std::optional<std::string> dir_address;  // "IP:PORT" as given, if any
  std::string text;                        // the certificate as served (for a cache on disk)

  // The authority's v3ident and the digest a consensus signature names.
  [[nodiscard]] const crypto::RsaFingerprint& v3ident() const noexcept { return identity.fingerprint(); }
  [[nodiscard]] const crypto::RsaFingerprint& signing_key_digest() const noexcept { return signing.fingerprint(); }
};

// One or more certificates, concatenated as the DirPort serves them. Each
// one's signatures are checked here; whether it is current is not (see
// key_cert_current). Fails on the first bad certificate.
[[nodiscard]] DirResult<std::vector<AuthorityKeyCert>> parse_key_certs(std::string_view text);

// published <= now + skew and now < expires.
[[nodiscard]] bool key_cert_current(const AuthorityKeyCert& c, std::uint64_t now, std::uint64_t skew = 0) noexcept;

}  // namespace conflux::dir
