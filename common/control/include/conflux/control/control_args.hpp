#pragma once
// Arguments and strings as control-spec 2.1 writes them: words separated by
// spaces, a word may be Key=Value, and a value (or a word) may be a
// QuotedString: DQUOTE, characters with backslash escapes, DQUOTE. tor reads
// the escapes C's way (\n \t \r \\ \" and \ooo octal); so do we.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::control {

struct ControlArg {
  std::optional<std::string> key;  // set for Key=Value
  std::string value;               // unquoted
  bool quoted = false;

  friend bool operator==(const ControlArg&, const ControlArg&) = default;
};

enum class ControlArgError : std::uint8_t {
  UnterminatedQuote,
  BadEscape,
  JunkAfterQuote,  // "a"b: a quoted string must end its word
};
[[nodiscard]] std::string_view to_string(ControlArgError e) noexcept;

[[nodiscard]] Result<std::vector<ControlArg>, ControlArgError> parse_control_args(std::string_view args);

// The QuotedString for `text`: quotes, backslashes and control characters
// escaped (\n, \r, \t, others as \ooo), as tor writes them.
[[nodiscard]] std::string quote_control_string(std::string_view text);

}  // namespace conflux::control
