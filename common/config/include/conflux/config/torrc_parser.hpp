#pragma once
// tor's torrc syntax (tor(1) "THE CONFIGURATION FILE FORMAT", tor's
// doc/torrc_format.txt):
//   - `Key value` lines; keys are case-insensitive; `#` starts a comment;
//     blank lines are ignored; leading and trailing blanks are dropped.
//   - A value ending in a backslash continues on the next line (the backslash
//     is removed, the text is joined verbatim). Inside a continued value, a
//     line holding a comment also continues the value, as in tor: a comment
//     cannot end a continued entry.
//   - A value starting with `"` is a C string: \n \r \t \\ \' \" \xHH and
//     1-3 octal digits; after the closing quote only blanks and a comment.
//     Escapes that produce a NUL byte are refused (tor stores C strings).
//   - `+Key value` appends to, and `/Key` clears, the lines of that key from a
//     lower-priority layer (defaults file < torrc < command line, see layers.hpp).
//   - `%include PATH`: a file, or every regular file of a directory in lexical
//     order skipping dotfiles (subdirectories are ignored, as in tor). Relative
//     paths are taken from the including file's directory (tor uses the
//     working directory; this is the one difference). Cycles and nesting
//     deeper than kMaxIncludeDepth are errors. Wildcards are not supported.
// Option names are restricted to letters, digits, '_' and a leading '%', so
// that "Key=value" or stray punctuation is reported instead of becoming a
// strange option name. NUL bytes in the text are refused.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/config/error.hpp"
#include "conflux/config/file_source.hpp"

namespace conflux::config {

enum class EntryOp : std::uint8_t {
  Set,     // Key value
  Append,  // +Key value
  Clear,   // /Key
};

struct ConfigEntry {
  std::string key;  // as written, without the +// magic
  std::string value;
  EntryOp op = EntryOp::Set;
  SourcePos where;  // the line the key is on
};
using Entries = std::vector<ConfigEntry>;

inline constexpr std::size_t kMaxIncludeDepth = 8;
inline constexpr std::size_t kMaxEntries = 100000;  // over all included files
inline constexpr std::string_view kIncludeKey = "%include";

// ASCII case-insensitive comparison, as tor compares option names.
[[nodiscard]] bool key_equals(std::string_view a, std::string_view b) noexcept;
[[nodiscard]] bool is_valid_key(std::string_view key) noexcept;
// Same key (case-insensitively), value and op; the position is not compared.
[[nodiscard]] bool same_entry(const ConfigEntry& a, const ConfigEntry& b) noexcept;

// Parses one text without looking at any file: %include lines are kept as
// entries with key "%include".
[[nodiscard]] Result<Entries, ConfigError> parse_torrc_text(std::string_view text,
                                                            std::string_view source_name = kStringSource);

// Parses text named source_name (a path, or kStringSource) and resolves its
// %include lines through `files`.
[[nodiscard]] Result<Entries, ConfigError> parse_torrc(std::string_view text, std::string_view source_name,
                                                       const FileSource& files);

// Reads the file at `path` through `files` and parses it with its includes.
[[nodiscard]] Result<Entries, ConfigError> load_torrc_file(const std::string& path, const FileSource& files);

// One line per entry, quoting values when needed, so that parse_torrc_text of
// the output gives entries equal under same_entry. Entries with an invalid
// key, a value holding a NUL byte, or a Clear with a value, cannot be written and are skipped.
[[nodiscard]] std::string to_torrc(const Entries& entries);

}  // namespace conflux::config
