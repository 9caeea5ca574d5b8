#pragma once
// dir-spec's meta format (section 1.2), which every tor directory document
// uses: lines "Keyword Arg Arg ...", each optionally followed by one object
// "-----BEGIN TYPE-----" / base64 lines / "-----END TYPE-----". The
// tokenizer checks only that syntax; each document's parser checks which
// keywords may appear, how often and with how many arguments. Items keep
// their byte offsets, since signatures cover exact ranges of the text.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/dir/error.hpp"

namespace conflux::dir::tordoc {

struct Object {
  std::string_view type;  // "RSA PUBLIC KEY", "SIGNATURE", ...
  std::vector<std::uint8_t> data;
};

struct Item {
  std::string_view keyword;
  std::vector<std::string_view> args;  // views into the document
  std::optional<Object> object;
  std::size_t offset = 0;  // where the keyword line starts
  std::size_t end = 0;     // just past the item's last line (object included)
};

struct Limits {
  std::size_t max_items = 100000;
  std::size_t max_args = 512;          // per line
  std::size_t max_line = 16384;        // bytes, keyword lines
  std::size_t max_object_bytes = 4096; // decoded
};

// The whole document as items, in order. Lines end with "\n" (the last one
// too); arguments are separated by runs of spaces or tabs. A leading "opt "
// (an obsolete marker tor still accepts) is dropped. Base64 lines inside an
// object are at most 64 characters, '=' padding only at the end.
[[nodiscard]] DirResult<std::vector<Item>> tokenize(std::string_view text, const Limits& limits = {});

// The one item named `keyword` in [first, last): nullptr when absent and not
// `required`; MissingField / DuplicateKey (field = `keyword`, which must be
// a static name) otherwise.
[[nodiscard]] DirResult<const Item*> find_once(const Item* first, const Item* last, std::string_view keyword,
                                               bool required);

// "YYYY-MM-DD" "HH:MM:SS" (two arguments, UTC) as seconds since the epoch;
// nullopt unless both are exactly that shape and a real date and time.
[[nodiscard]] std::optional<std::uint64_t> parse_time(std::string_view date, std::string_view time);

// The inverse: "YYYY-MM-DD HH:MM:SS" (UTC).
[[nodiscard]] std::string format_time(std::uint64_t t);

// "[IPv6]:PORT" (an "a" line's argument) with a port above 0.
[[nodiscard]] bool ipv6_orport(std::string_view text, std::pair<std::array<std::uint8_t, 16>, std::uint16_t>& out);

// Base64 with '=' padding (the object bodies' and some keys' encoding) or
// without; nullopt for anything else.
[[nodiscard]] std::optional<std::vector<std::uint8_t>> decode_base64_padded(std::string_view text);

}  // namespace conflux::dir::tordoc
