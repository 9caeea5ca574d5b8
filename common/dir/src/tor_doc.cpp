#include "conflux/dir/tor_doc.hpp"

#include <cstdio>

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <string>

#include "conflux/bytes/base64.hpp"

namespace conflux::dir::tordoc {
namespace {

bool keyword_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}
bool printable(char c) noexcept { return c > ' ' && c < 0x7f; }
bool base64_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

// "-----BEGIN X Y-----" -> "X Y": keywords separated by single spaces.
std::optional<std::string_view> armor_type(std::string_view line, std::string_view head) {
  constexpr std::string_view tail = "-----";
  if (line.size() <= head.size() + tail.size() || line.substr(0, head.size()) != head ||
      line.substr(line.size() - tail.size()) != tail)
    return std::nullopt;
  const auto type = line.substr(head.size(), line.size() - head.size() - tail.size());
  bool word_start = true;
  for (char c : type) {
    if (c == ' ') {
      if (word_start) return std::nullopt;
      word_start = true;
    } else if (keyword_char(c)) {
      word_start = false;
    } else {
      return std::nullopt;
    }
  }
  if (word_start) return std::nullopt;
  return type;
}

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  [[nodiscard]] bool done() const noexcept { return at_ == text_.size(); }
  [[nodiscard]] std::size_t at() const noexcept { return at_; }
  // The next line without its "\n"; nullopt when the text does not end in one.
  std::optional<std::string_view> line() {
    const auto nl = text_.find('\n', at_);
    if (nl == std::string_view::npos) return std::nullopt;
    auto l = text_.substr(at_, nl - at_);
    at_ = nl + 1;
    return l;
  }
  [[nodiscard]] bool next_starts_with(std::string_view s) const noexcept {
    return text_.substr(at_, s.size()) == s;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

DirResult<Object> read_object(Cursor& in, std::string_view begin_line, const Limits& limits) {
  auto type = armor_type(begin_line, "-----BEGIN ");
  if (!type) return dir_fail(DirErrc::BadSyntax);
  std::string b64;
  for (;;) {
    auto l = in.line();
    if (!l) return dir_fail(DirErrc::BadSyntax);
    if (l->substr(0, 5) == "-----") {
      auto end_type = armor_type(*l, "-----END ");
      if (!end_type || *end_type != *type) return dir_fail(DirErrc::BadSyntax);
      break;
    }
    if (l->empty() || l->size() > 64) return dir_fail(DirErrc::BadSyntax);
    b64.append(*l);
    if (b64.size() > (limits.max_object_bytes + 2) / 3 * 4) return dir_fail(DirErrc::TooLarge);
  }
  auto data = decode_base64_padded(b64);
  if (!data || data->empty()) return dir_fail(DirErrc::BadSyntax);
  return Object{*type, std::move(*data)};
}

DirResult<Item> read_keyword_line(std::string_view line, const Limits& limits) {
  if (line.size() > limits.max_line) return dir_fail(DirErrc::TooLarge);
  if (line.substr(0, 4) == "opt ") line.remove_prefix(4);
  Item item;
  std::size_t i = 0;
  while (i < line.size() && keyword_char(line[i])) ++i;
  if (i == 0 || (i < line.size() && line[i] != ' ' && line[i] != '\t')) return dir_fail(DirErrc::BadSyntax);
  item.keyword = line.substr(0, i);
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && printable(line[i])) ++i;
    if (i < line.size() && line[i] != ' ' && line[i] != '\t') return dir_fail(DirErrc::BadSyntax);
    if (i > start) {
      if (item.args.size() == limits.max_args) return dir_fail(DirErrc::TooManyEntries);
      item.args.push_back(line.substr(start, i - start));
    }
  }
  return item;
}

std::optional<unsigned> digits(std::string_view s) {
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

DirResult<const Item*> find_once(const Item* first, const Item* last, std::string_view keyword, bool required) {
  const Item* found = nullptr;
  for (const Item* i = first; i != last; ++i) {
    if (i->keyword != keyword) continue;
    if (found != nullptr) return dir_fail(DirErrc::DuplicateKey, keyword);
    found = i;
  }
  if (found == nullptr && required) return dir_fail(DirErrc::MissingField, keyword);
  return found;
}

std::optional<std::uint64_t> parse_time(std::string_view date, std::string_view time) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-' || time.size() != 8 || time[2] != ':' ||
      time[5] != ':')
    return std::nullopt;
  auto y = digits(date.substr(0, 4)), mo = digits(date.substr(5, 2)), d = digits(date.substr(8, 2));
  auto h = digits(time.substr(0, 2)), mi = digits(time.substr(3, 2)), s = digits(time.substr(6, 2));
  if (!y || !mo || !d || !h || !mi || !s || *y < 1970 || *mo < 1 || *mo > 12 || *d < 1 || *h > 23 || *mi > 59 ||
      *s > 60)
    return std::nullopt;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  if (*d > kDays[*mo - 1] + (*mo == 2 && leap ? 1 : 0)) return std::nullopt;
  const auto days = days_from_civil(*y, *mo, *d);
  return static_cast<std::uint64_t>(days) * 86400 + *h * 3600 + *mi * 60 + *s;
}

std::string format_time(std::uint64_t t) {
  const std::int64_t days = static_cast<std::int64_t>(t / 86400);
  const std::uint64_t secs = t % 86400;
  // civil_from_days (H. Hinnant), the inverse of days_from_civil.
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02llu:%02llu:%02llu", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d), static_cast<unsigned long long>(secs / 3600),
                static_cast<unsigned long long>(secs / 60 % 60), static_cast<unsigned long long>(secs % 60));
  return buf;
}

bool ipv6_orport(std::string_view s, std::pair<std::array<std::uint8_t, 16>, std::uint16_t>& out) {
  const auto close = s.rfind("]:");
  if (s.size() < 4 || s[0] != '[' || close == std::string_view::npos) return false;
  const std::string host(s.substr(1, close - 1));
  const auto port_text = s.substr(close + 2);
  std::uint16_t port = 0;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  in6_addr a{};
  if (ec != std::errc{} || p != port_text.data() + port_text.size() || port == 0 ||
      ::inet_pton(AF_INET6, host.c_str(), &a) != 1)
    return false;
  std::memcpy(out.first.data(), &a, 16);
  out.second = port;
  return true;
}

std::optional<std::vector<std::uint8_t>> decode_base64_padded(std::string_view text) {
  if (text.size() % 4 == 0 && !text.empty()) {
    std::size_t pad = 0;
    while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
    text.remove_suffix(pad);
  }
  for (char c : text)
    if (!base64_char(c)) return std::nullopt;
  return bytes::base64_decode(text);
}

DirResult<std::vector<Item>> tokenize(std::string_view text, const Limits& limits) {
  std::vector<Item> items;
  Cursor in(text);
  while (!in.done()) {
    const std::size_t offset = in.at();
    auto line = in.line();
    if (!line) return dir_fail(DirErrc::BadSyntax);
    auto item = read_keyword_line(*line, limits);
    if (!item) return dir_pass(item);
    item->offset = offset;
    if (in.next_starts_with("-----")) {
      auto begin = in.line();
      if (!begin) return dir_fail(DirErrc::BadSyntax);
      auto object = read_object(in, *begin, limits);
      if (!object) return dir_pass(object);
      item->object = std::move(*object);
    }
    item->end = in.at();
    if (items.size() == limits.max_items) return dir_fail(DirErrc::TooManyEntries);
    items.push_back(std::move(*item));
  }
  return items;
}

}  // namespace conflux::dir::tordoc
