#pragma once
// Typed option values, parsed as tor parses them (tor's lib/confmgt). Errors
// are short English reasons; the option schema adds file and line.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::config {

// The space/tab-separated words of an option value (empty words dropped).
[[nodiscard]] std::vector<std::string_view> split_words(std::string_view text);

template <class T>
using ValueResult = Result<T, std::string>;

// "0" or "1" (tor's BOOL accepts nothing else).
[[nodiscard]] ValueResult<bool> parse_bool(std::string_view text);

// "0", "1" or "auto" (tor's AUTOBOOL; "auto" is case-insensitive).
enum class AutoBool : std::uint8_t { False, True, Auto };
[[nodiscard]] ValueResult<AutoBool> parse_autobool(std::string_view text);
[[nodiscard]] std::string_view to_string(AutoBool v) noexcept;

// A decimal integer in [min, max]; a leading '-' only when min < 0.
[[nodiscard]] ValueResult<std::int64_t> parse_int(std::string_view text, std::int64_t min, std::int64_t max);

// A finite decimal number in [min, max] ("1", "0.5", "-1").
[[nodiscard]] ValueResult<double> parse_double(std::string_view text, double min, double max);

// "NUMBER [UNIT]" with the unit looked up case-insensitively; blanks between
// number and unit are optional; a fractional number ("1.5 MB") is allowed and
// the product truncated, as in tor.
struct Unit {
  std::string_view name;
  std::uint64_t multiplier;
};
// tor's memory_units, in bytes: "" b byte bytes = 1; kb kbyte(s) kilobyte(s) =
// 1024; kbit(s) kilobit(s) = 128 (1024 bits); m mb mbyte(s) megabyte(s) = 2^20;
// mbit(s) megabit(s) = 2^17; gb ... = 2^30, gbit(s) ... = 2^27; tb ... = 2^40,
// tbit(s) ... = 2^37. There is no plain "bit(s)" in tor, so neither here.
[[nodiscard]] std::span<const Unit> memory_units() noexcept;
// tor's time_units, in seconds: "" second(s) minute(s) hour(s) day(s) week(s)
// month(s) (= 2629728 s, about 30.44 days).
[[nodiscard]] std::span<const Unit> time_units() noexcept;
// tor's time_msec_units, in ms: "" msec millisecond(s) second(s) minute(s)
// hour(s) day(s) week(s).
[[nodiscard]] std::span<const Unit> msec_units() noexcept;

// The product, at most INT64_MAX (as tor).
[[nodiscard]] ValueResult<std::uint64_t> parse_units(std::string_view text, std::span<const Unit> units);
// Bytes ("1 MB", "100 KBytes", "50 kbits").
[[nodiscard]] ValueResult<std::uint64_t> parse_memunit(std::string_view text);
// Seconds, default unit seconds, at most INT32_MAX seconds (as tor).
[[nodiscard]] ValueResult<std::chrono::seconds> parse_interval(std::string_view text);
// Milliseconds, default unit msec, at most INT32_MAX ms (as tor).
[[nodiscard]] ValueResult<std::chrono::milliseconds> parse_msec_interval(std::string_view text);

// Splits on commas, trims blanks, drops empty items ("a b, c,,d" -> "a b" "c" "d").
[[nodiscard]] std::vector<std::string> split_list(std::string_view text);

}  // namespace conflux::config
