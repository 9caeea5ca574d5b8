#include "conflux/cell/error.hpp"

namespace conflux::cell {

std::string_view to_string(DecodeError e) noexcept {
  switch (e) {
    case DecodeError::Truncated: return "truncated";
    case DecodeError::TrailingBytes: return "trailing bytes";
    case DecodeError::BadLength: return "bad length";
    case DecodeError::UnknownCommand: return "unknown command";
    case DecodeError::BadVersion: return "bad version";
    case DecodeError::BadValue: return "bad value";
    case DecodeError::NonCanonical: return "non-canonical encoding";
  }
  return "unknown decode error";
}

}  // namespace conflux::cell
