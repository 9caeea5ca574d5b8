#pragma once
// Typed errors of the directory documents. A DirError names the reason and,
// for parse errors, the tor keyword (a static name from the parser, never a
// value from the document, so it is safe to log).
#include <cstdint>
#include <string_view>

#include "conflux/bytes/result.hpp"

namespace conflux::dir {

enum class DirErrc : std::uint8_t {
  TooLarge,            // input above the document's size cap
  DuplicateKey,        // a keyword that may appear once appears again
  MissingField,        // a required keyword or argument is absent
  BadValue,            // a value is outside its syntax or range
  TooManyEntries,      // a list above its cap
  NotSorted,           // a list that must be strictly sorted (so unique) is not
  BadCert,             // a certificate does not decode or is of the wrong type
  CertMismatch,        // a certificate is not for this key or identity
  CertExpired,         // a certificate has expired
  BadSignature,        // the document signature does not verify
  Expired,             // a consensus past valid-until
  FromFuture,          // a consensus not yet valid-after
  NotEnoughSignatures, // fewer than a strict majority of configured authorities
  NoAuthorities,       // the configured authority set is empty
  BadSyntax,           // a tor-format document breaks dir-spec's meta format (lines, objects)
};

struct DirError {
  DirErrc code{};
  std::string_view field{};  // the keyword for parse errors, else empty
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
