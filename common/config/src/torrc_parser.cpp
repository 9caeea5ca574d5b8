// The line grammar of torrc: entries, continuations, quoted values, and the
// inverse (to_torrc). Include resolution is in torrc_include.cpp.
#include "conflux/config/torrc_parser.hpp"

#include <algorithm>

namespace conflux::config {
namespace {

// tor's isspace() minus the newline, which ends a line.
bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view ltrim(std::string_view s) noexcept {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}
std::string_view trim(std::string_view s) noexcept {
  s = ltrim(s);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_key_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

struct Line {
  std::string_view text;
  std::uint32_t number;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::uint32_t number = 1;
  while (true) {
    auto nl = text.find('\n');
    auto line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF files
    lines.push_back({line, number});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
    ++number;
  }
  return lines;
}

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the C string starting at s[0] == '"'. On success `rest` is what
// follows the closing quote.
Result<std::string, std::string> unquote(std::string_view s, std::string_view& rest) {
  std::string out;
  std::size_t i = 1;
  while (true) {
    if (i >= s.size()) return Unexpected{std::string("unterminated quoted value")};
    char c = s[i];
    if (c == '"') break;
    if (c != '\\') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= s.size()) return Unexpected{std::string("unterminated quoted value")};
    char e = s[i + 1];
    i += 2;
    int byte = -1;
    switch (e) {
      case 'n': byte = '\n'; break;
      case 'r': byte = '\r'; break;
      case 't': byte = '\t'; break;
      case '\\': case '\'': case '"': byte = static_cast<unsigned char>(e); break;
      case 'x': case 'X': {
        int hi = i < s.size() ? hex_digit(s[i]) : -1;
        int lo = i + 1 < s.size() ? hex_digit(s[i + 1]) : -1;
        if (hi < 0 || lo < 0) return Unexpected{std::string("\\x needs two hex digits")};
        byte = hi * 16 + lo;
        i += 2;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          byte = e - '0';
          for (int k = 0; k < 2 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k, ++i) byte = byte * 8 + (s[i] - '0');
          if (byte > 255) return Unexpected{std::string("octal escape above \\377")};
          break;
        }
        return Unexpected{std::string("invalid escape sequence in quoted value")};
    }
    if (byte == 0) return Unexpected{std::string("escaped NUL byte in quoted value")};
    out.push_back(static_cast<char>(static_cast<unsigned char>(byte)));
  }
  rest = s.substr(i + 1);
  return out;
}

std::string shown_key(std::string_view key) {
  std::string out;
  for (char c : key.substr(0, 40)) out.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
  return out;
}

bool needs_quotes(std::string_view v) noexcept {
  if (v.empty() || is_blank(v.front()) || is_blank(v.back())) return true;
  return std::any_of(v.begin(), v.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return c == '#' || c == '\\' || c == '"' || u < 0x20 || u == 0x7f;
  });
}

void append_quoted(std::string& out, std::string_view v) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : v) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace

bool key_equals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool is_valid_key(std::string_view key) noexcept {
  if (!key.empty() && key.front() == '%') key.remove_prefix(1);
  return !key.empty() && std::all_of(key.begin(), key.end(), is_key_char);
}

bool same_entry(const ConfigEntry& a, const ConfigEntry& b) noexcept {
  return a.op == b.op && a.value == b.value && key_equals(a.key, b.key);
}

Result<Entries, ConfigError> parse_torrc_text(std::string_view text, std::string_view source_name) {
  std::string name(source_name);
  auto fail = [&](std::uint32_t line, std::string msg) { return Unexpected{ConfigError(name, line, std::move(msg))}; };
  if (text.find('\0') != std::string_view::npos) return fail(0, "NUL byte in configuration text");

  auto lines = split_lines(text);
  Entries entries;
  std::size_t i = 0;
  while (i < lines.size()) {
    const Line& first = lines[i++];
    std::string_view s = ltrim(first.text);
    if (s.empty() || s.front() == '#') continue;

    ConfigEntry entry;
    entry.where = {name, first.number};
    if (s.front() == '+' || s.front() == '/') {
      entry.op = s.front() == '+' ? EntryOp::Append : EntryOp::Clear;
      s.remove_prefix(1);
    }
    std::size_t k = 0;
    while (k < s.size() && !is_blank(s[k]) && s[k] != '#' && !(s[k] == '\\' && k + 1 == s.size())) ++k;
    entry.key = std::string(s.substr(0, k));
    if (entry.key.empty()) return fail(first.number, "missing option name");
    if (!is_valid_key(entry.key)) return fail(first.number, "invalid option name '" + shown_key(entry.key) + "'");
    std::string_view rest = s.substr(k);

    bool continued = false;
    bool quoted = false;
    if (rest == "\\") {
      continued = true;  // "Key\" then the value on the next line
    } else {
      rest = ltrim(rest);
      if (!rest.empty() && rest.front() == '"') {
        std::string_view after;
        auto value = unquote(rest, after);
        if (!value) return fail(first.number, value.error());
        after = ltrim(after);
        if (!after.empty() && after.front() != '#') return fail(first.number, "text after the closing quote");
        entry.value = std::move(*value);
        quoted = true;
      } else {
        auto hash = rest.find('#');
        auto body = rest.substr(0, hash);
        if (hash == std::string_view::npos && !body.empty() && body.back() == '\\') {
          body.remove_suffix(1);
          continued = true;
        }
        entry.value = std::string(body);
      }
    }
    // Inside a continued value a comment keeps the entry going (tor does the
    // same); only a line without comment or trailing backslash ends it.
    while (continued && i < lines.size()) {
      std::string_view t = lines[i++].text;
      auto hash = t.find('#');
      if (hash != std::string_view::npos) {
        entry.value.append(t.substr(0, hash));
      } else if (!t.empty() && t.back() == '\\') {
        entry.value.append(t.substr(0, t.size() - 1));
      } else {
        entry.value.append(t);
        continued = false;
      }
    }
    if (!quoted) entry.value = std::string(trim(entry.value));
    if (entry.op == EntryOp::Clear && !entry.value.empty())
      return fail(first.number, "'/" + shown_key(entry.key) + "' clears an option and takes no value");
    if (entries.size() >= kMaxEntries) return fail(first.number, "too many configuration entries");
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string to_torrc(const Entries& entries) {
  std::string out;
  for (const auto& e : entries) {
    if (!is_valid_key(e.key) || e.value.find('\0') != std::string::npos) continue;
    if (e.op == EntryOp::Clear) {
      if (!e.value.empty()) continue;
      out += "/" + e.key + "\n";
      continue;
    }
    if (e.op == EntryOp::Append) out.push_back('+');
    out += e.key;
    out.push_back(' ');
    if (needs_quotes(e.value)) {
      append_quoted(out, e.value);
    } else {
      out += e.value;
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace conflux::config
