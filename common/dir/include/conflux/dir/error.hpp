#pragma once
// Typed errors of the directory documents. A DirError names the reason and,
// for parse errors, the JSON field or tor keyword (a static name from the
// parser, never a value from the document, so it is safe to log).
#include <cstdint>
#include <string_view>

#include "conflux/bytes/result.hpp"

namespace conflux::dir {

enum class DirErrc : std::uint8_t {
  TooLarge,            // input above the document's size cap
  BadJson,             // not JSON, or JSON nested too deeply
  DuplicateKey,        // an object repeats a key
  UnknownField,        // a field this format does not define (we reject, see DIRECTORY.md)
  MissingField,        // a required field is absent
  BadType,             // a field has the wrong JSON type
  BadValue,            // a field's value is outside its syntax or range
  TooManyEntries,      // a list above its cap
  NotSorted,           // a list that must be strictly sorted (so unique) is not
  BadCert,             // the signing certificate does not decode or is not type 4
  CertMismatch,        // the certificate is not for this identity
  CertExpired,         // the signing certificate has expired
  BadSignature,        // the document signature does not verify
  Expired,             // published too long ago / consensus past valid-until
  FromFuture,          // published too far ahead / consensus not yet valid-after
  IsBridge,            // a bridge descriptor offered where bridges do not belong
  DigestMismatch,      // a detached signature is for another consensus body
  UnknownAuthority,    // a signature from an authority not configured
  NotEnoughSignatures, // fewer than a strict majority of configured authorities
  NoAuthorities,       // the configured authority set is empty
  BadSyntax,           // a tor-format document breaks dir-spec's meta format (lines, objects)
};

struct DirError {
  DirErrc code{};
  std::string_view field{};  // JSON field name for parse errors, else empty
  friend bool operator==(const DirError&, const DirError&) = default;
};

std::string_view to_string(DirErrc e) noexcept;

template <class T>
using DirResult = Result<T, DirError>;

inline Unexpected<DirError> dir_fail(DirErrc c, std::string_view field = {}) {
  return Unexpected<DirError>{DirError{c, field}};
}

// A failed result's error, passed on by a caller with another value type.
template <class T>
Unexpected<DirError> dir_pass(const DirResult<T>& failed) {
  return Unexpected<DirError>{failed.error()};
}

}  // namespace conflux::dir
