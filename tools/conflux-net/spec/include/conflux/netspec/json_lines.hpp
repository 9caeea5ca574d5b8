#pragma once
// nlohmann::json keeps no source positions, so errors about a field's value
// could not say where it is. This scans JSON text (already accepted by the
// parser) once and maps each value's JSON pointer ("/bridges/1/name") to the
// 1-based line on which that value starts.
#include <map>
#include <string>
#include <string_view>

namespace conflux::netspec {

// Nesting deeper than this is not indexed (lookups there give the nearest
// indexed ancestor's line through line_of).
inline constexpr unsigned kMaxIndexedDepth = 32;

using LineIndex = std::map<std::string, unsigned>;

[[nodiscard]] LineIndex index_json_lines(std::string_view text);

// The line of `pointer`, or of its nearest ancestor that has one; 0 if none.
[[nodiscard]] unsigned line_of(const LineIndex& index, std::string pointer);

// Escapes a key for a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
[[nodiscard]] std::string pointer_token(std::string_view key);

}  // namespace conflux::netspec
