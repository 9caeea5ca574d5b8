#include "conflux/config/values.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "conflux/config/torrc_parser.hpp"
#include "shown_value.hpp"

namespace conflux::config {

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}
namespace {

constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

constexpr Unit kMemoryUnits[] = {
    {"", 1},
    {"b", 1},
    {"byte", 1},
    {"bytes", 1},
    {"kb", 1ULL << 10},
    {"kbyte", 1ULL << 10},
    {"kbytes", 1ULL << 10},
    {"kilobyte", 1ULL << 10},
    {"kilobytes", 1ULL << 10},
    {"kilobits", 1ULL << 7},
    {"kilobit", 1ULL << 7},
    {"kbits", 1ULL << 7},
    {"kbit", 1ULL << 7},
    {"m", 1ULL << 20},
    {"mb", 1ULL << 20},
    {"mbyte", 1ULL << 20},
    {"mbytes", 1ULL << 20},
    {"megabyte", 1ULL << 20},
    {"megabytes", 1ULL << 20},
    {"megabits", 1ULL << 17},
    {"megabit", 1ULL << 17},
    {"mbits", 1ULL << 17},
    {"mbit", 1ULL << 17},
    {"gb", 1ULL << 30},
    {"gbyte", 1ULL << 30},
    {"gbytes", 1ULL << 30},
    {"gigabyte", 1ULL << 30},
    {"gigabytes", 1ULL << 30},
    {"gigabits", 1ULL << 27},
    {"gigabit", 1ULL << 27},
    {"gbits", 1ULL << 27},
    {"gbit", 1ULL << 27},
    {"tb", 1ULL << 40},
    {"tbyte", 1ULL << 40},
    {"tbytes", 1ULL << 40},
    {"terabyte", 1ULL << 40},
    {"terabytes", 1ULL << 40},
    {"terabits", 1ULL << 37},
    {"terabit", 1ULL << 37},
    {"tbits", 1ULL << 37},
    {"tbit", 1ULL << 37},
};

constexpr std::uint64_t kMinute = 60, kHour = 60 * kMinute, kDay = 24 * kHour, kWeek = 7 * kDay;

constexpr Unit kTimeUnits[] = {
    {"", 1},           {"second", 1},      {"seconds", 1},   {"minute", kMinute},   {"minutes", kMinute},
    {"hour", kHour},   {"hours", kHour},   {"day", kDay},    {"days", kDay},        {"week", kWeek},
    {"weeks", kWeek},  {"month", 2629728}, {"months", 2629728},
};

constexpr Unit kMsecUnits[] = {
    {"", 1},
    {"msec", 1},
    {"millisecond", 1},
    {"milliseconds", 1},
    {"second", 1000},
    {"seconds", 1000},
    {"minute", kMinute * 1000},
    {"minutes", kMinute * 1000},
    {"hour", kHour * 1000},
    {"hours", kHour * 1000},
    {"day", kDay * 1000},
    {"days", kDay * 1000},
    {"week", kWeek * 1000},
    {"weeks", kWeek * 1000},
};

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

}  // namespace

ValueResult<bool> parse_bool(std::string_view text) {
  if (text == "0") return false;
  if (text == "1") return true;
  return Unexpected{"expected 0 or 1, got '" + shown(text) + "'"};
}

ValueResult<AutoBool> parse_autobool(std::string_view text) {
  if (text == "0") return AutoBool::False;
  if (text == "1") return AutoBool::True;
  if (key_equals(text, "auto")) return AutoBool::Auto;
  return Unexpected{"expected 0, 1 or auto, got '" + shown(text) + "'"};
}

std::string_view to_string(AutoBool v) noexcept {
  switch (v) {
    case AutoBool::False: return "0";
    case AutoBool::True: return "1";
    case AutoBool::Auto: return "auto";
  }
  return "auto";
}

ValueResult<std::int64_t> parse_int(std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  bool digits_only = !text.empty() && (is_digit(text.front()) || (text.front() == '-' && min < 0 && text.size() > 1));
  for (std::size_t i = 1; digits_only && i < text.size(); ++i) digits_only = is_digit(text[i]);
  if (!digits_only) return Unexpected{"expected an integer, got '" + shown(text) + "'"};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < min || v > max)
    return Unexpected{"integer out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]: '" +
                      shown(text) + "'"};
  return v;
}

ValueResult<double> parse_double(std::string_view text, double min, double max) {
  double v = 0;
  bool ok_chars = !text.empty();
  for (char c : text) ok_chars = ok_chars && (is_digit(c) || c == '.' || c == '-');
  if (ok_chars) {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::fixed);
    ok_chars = ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(v);
  }
  if (!ok_chars) return Unexpected{"expected a number, got '" + shown(text) + "'"};
  if (v < min || v > max) return Unexpected{"number out of range: '" + shown(text) + "'"};
  return v;
}

std::span<const Unit> memory_units() noexcept { return kMemoryUnits; }
std::span<const Unit> time_units() noexcept { return kTimeUnits; }
std::span<const Unit> msec_units() noexcept { return kMsecUnits; }

ValueResult<std::uint64_t> parse_units(std::string_view text, std::span<const Unit> units) {
  std::size_t int_end = 0;
  while (int_end < text.size() && is_digit(text[int_end])) ++int_end;
  if (int_end == 0) return Unexpected{"expected a number, got '" + shown(text) + "'"};
  std::size_t frac_end = int_end;
  if (int_end < text.size() && text[int_end] == '.') {
    frac_end = int_end + 1;
    while (frac_end < text.size() && is_digit(text[frac_end])) ++frac_end;
    if (frac_end == int_end + 1) return Unexpected{"expected a number, got '" + shown(text) + "'"};
  }
  std::string_view unit = text.substr(frac_end);
  while (!unit.empty() && is_blank(unit.front())) unit.remove_prefix(1);

  const Unit* found = nullptr;
  for (const auto& u : units)
    if (key_equals(u.name, unit)) found = &u;
  if (found == nullptr) return Unexpected{"unknown unit in '" + shown(text) + "'"};

  if (frac_end == int_end) {
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + int_end, v);
    if (ec != std::errc() || v > kInt64Max / found->multiplier) return Unexpected{"overflow in '" + shown(text) + "'"};
    return v * found->multiplier;
  }
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + frac_end, d, std::chars_format::fixed);
  if (ec != std::errc()) return Unexpected{"expected a number, got '" + shown(text) + "'"};
  d *= static_cast<double>(found->multiplier);
  // 2^63 is exactly representable; anything at or above it overflows int64.
  if (!(d < 9223372036854775808.0)) return Unexpected{"overflow in '" + shown(text) + "'"};
  return static_cast<std::uint64_t>(d);
}

ValueResult<std::uint64_t> parse_memunit(std::string_view text) { return parse_units(text, kMemoryUnits); }

ValueResult<std::chrono::seconds> parse_interval(std::string_view text) {
  auto v = parse_units(text, kTimeUnits);
  if (!v) return Unexpected{v.error()};
  if (*v > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    return Unexpected{"interval too long: '" + shown(text) + "'"};
  return std::chrono::seconds(static_cast<std::int64_t>(*v));
}

ValueResult<std::chrono::milliseconds> parse_msec_interval(std::string_view text) {
  auto v = parse_units(text, kMsecUnits);
  if (!v) return Unexpected{v.error()};
  if (*v > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    return Unexpected{"interval too long: '" + shown(text) + "'"};
  return std::chrono::milliseconds(static_cast<std::int64_t>(*v));
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  while (true) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    while (!item.empty() && is_blank(item.front())) item.remove_prefix(1);
    while (!item.empty() && is_blank(item.back())) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace conflux::config
