#pragma once
// Writing an authority key certificate (dir-spec 3.1), as tor-gencert does:
// the identity key vouches for the signing key until `expires`; the
// signing key cross-certifies the identity (dir-key-crosscert: a signature
// of the identity key's SHA-1); the identity signs SHA-1 of the text through
// "dir-key-certification\n". parse_key_certs accepts what this writes.
#include <cstdint>
#include <optional>
#include <string>

#include "conflux/crypto/rsa_private.hpp"

namespace conflux::dir {

[[nodiscard]] std::string make_key_cert(const crypto::RsaPrivateKey& identity, const crypto::RsaPrivateKey& signing,
                                        std::uint64_t published, std::uint64_t expires,
                                        const std::optional<std::string>& dir_address = std::nullopt);

}  // namespace conflux::dir
