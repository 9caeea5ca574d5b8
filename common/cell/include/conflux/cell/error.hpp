#pragma once
// Typed decode errors shared by every wire decoder in common/cell.
#include <cstdint>
#include <string_view>

#include "conflux/bytes/result.hpp"

namespace conflux::cell {

enum class DecodeError : std::uint8_t {
  Truncated,       // fewer bytes than the structure needs
  TrailingBytes,   // bytes left where the spec allows none
  BadLength,       // a length field out of its allowed range
  UnknownCommand,  // a command/type number the spec does not define
  BadVersion,      // a version field we do not speak
  BadValue,        // a field holding a value the spec forbids
  NonCanonical,    // accepted encodings exist, but this one is forbidden
};

std::string_view to_string(DecodeError e) noexcept;

template <class T>
using Decoded = Result<T, DecodeError>;

inline Unexpected<DecodeError> fail(DecodeError e) { return Unexpected<DecodeError>{e}; }

}  // namespace conflux::cell
