#pragma once
// The file server's decisions, apart from its sockets: which file a request
// target names, its Content-Type, and what a Range header asks for. The
// server serves only plain names directly under its root, so no target can
// reach outside it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace conflux::netspec {

// "/" -> "index.html"; "/NAME" (letters, digits, '.', '_', '-'; not starting
// with '.') -> NAME; a query string is ignored. nullopt for anything else
// (subdirectories, "..", percent-escapes, absolute URIs).
[[nodiscard]] std::optional<std::string> file_for_target(std::string_view target);

// By extension: html, txt, json, css, js, png, svg; otherwise
// application/octet-stream.
[[nodiscard]] std::string_view content_type_for(std::string_view name) noexcept;

struct ByteRange {
  std::uint64_t first = 0;  // inclusive
  std::uint64_t last = 0;   // inclusive
  bool operator==(const ByteRange&) const = default;
};

enum class RangeKind : std::uint8_t {
  Whole,          // no usable Range header: 200 with the whole file
  Partial,        // 206 with `range`
  Unsatisfiable,  // 416
};

struct RangeDecision {
  RangeKind kind = RangeKind::Whole;
  ByteRange range;
  bool operator==(const RangeDecision&) const = default;
};

// RFC 9110 14.2 for one "bytes=" range ("a-b", "a-", "-n"). A header the
// server does not understand, or one with several ranges, is ignored (the
// RFC allows serving the whole representation instead).
[[nodiscard]] RangeDecision decide_range(std::string_view header, std::uint64_t size) noexcept;

}  // namespace conflux::netspec
