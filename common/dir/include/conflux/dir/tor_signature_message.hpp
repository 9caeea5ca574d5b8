#pragma once
// How our authorities pass one another their signature on a tor-format
// consensus (POST /conflux/v1/tor-consensus-signature), in tor's meta format:
//     "conflux-tor-signature 1 " HEX(digest of what is signed) "\n"
//     the signer's key certificate (dir-key-certificate-3, verified here)
//     its "directory-signature sha256 V3IDENT SIGNINGKEYDIGEST" item
// The digest says the flavor: SHA-256 for the microdesc consensus, SHA-1
// for the ns one, whose item names no algorithm ("directory-signature
// V3IDENT SIGNINGKEYDIGEST"), as tor signs the two flavors.
// The certificate lets the receiver check the signature and serve the
// certificate at /tor/keys/all. Parsing checks the certificate's own
// signatures and that the item names it; whether the signature is good for
// the receiver's document is the receiver's check (signature_valid).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/dir/tor_key_cert.hpp"

namespace conflux::dir {

inline constexpr std::size_t kMaxTorSignatureMessage = 16384;

struct TorSignatureMessage {
  std::vector<std::uint8_t> digest;  // what the signer says it signed: 32 bytes (microdesc) or 20 (ns)
  AuthorityKeyCert cert;
  std::vector<std::uint8_t> signature;
  std::string item;  // the "directory-signature" item as it goes into the document
  // The certificate's signing key made `signature` over `digest`.
  [[nodiscard]] bool signature_valid() const noexcept { return cert.signing.verify_digest(digest, signature); }
};

[[nodiscard]] std::string encode_tor_signature_message(std::span<const std::uint8_t> digest,
                                                       const std::string& cert_text, const std::string& item);
[[nodiscard]] std::optional<TorSignatureMessage> parse_tor_signature_message(std::string_view text);

}  // namespace conflux::dir
