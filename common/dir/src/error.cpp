#include "conflux/dir/error.hpp"

namespace conflux::dir {

std::string_view to_string(DirErrc e) noexcept {
  switch (e) {
    case DirErrc::TooLarge: return "document too large";
    case DirErrc::DuplicateKey: return "repeated keyword";
    case DirErrc::MissingField: return "missing field";
    case DirErrc::BadValue: return "field value out of range or syntax";
    case DirErrc::TooManyEntries: return "list too long";
    case DirErrc::NotSorted: return "list not strictly sorted";
    case DirErrc::BadCert: return "bad signing certificate";
    case DirErrc::CertMismatch: return "signing certificate for another identity";
    case DirErrc::CertExpired: return "signing certificate expired";
    case DirErrc::BadSignature: return "bad signature";
    case DirErrc::Expired: return "document expired";
    case DirErrc::FromFuture: return "document from the future";
    case DirErrc::NotEnoughSignatures: return "not signed by a majority of authorities";
    case DirErrc::NoAuthorities: return "no authorities configured";
    case DirErrc::BadSyntax: return "malformed document line or object";
  }
  return "unknown directory error";
}

}  // namespace conflux::dir
