#include "conflux/control/control_args.hpp"

namespace conflux::control {

std::string_view to_string(ControlArgError e) noexcept {
  switch (e) {
    case ControlArgError::UnterminatedQuote: return "unterminated quoted string";
    case ControlArgError::BadEscape: return "bad escape in quoted string";
    case ControlArgError::JunkAfterQuote: return "characters after a quoted string";
  }
  return "unknown control argument error";
}

namespace {

bool is_octal(char c) { return c >= '0' && c <= '7'; }

// Reads a QuotedString starting at s[i] == '"'; i ends after the closing quote.
Result<std::string, ControlArgError> read_quoted(std::string_view s, std::size_t& i) {
  std::string out;
  ++i;
  while (i < s.size()) {
    const char c = s[i++];
    if (c == '"') return out;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i >= s.size()) return Unexpected{ControlArgError::UnterminatedQuote};
    const char e = s[i++];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case '\\': case '"': case '\'': out.push_back(e); break;
      default: {
        if (!is_octal(e) || i + 1 >= s.size() || !is_octal(s[i]) || !is_octal(s[i + 1]))
          return Unexpected{ControlArgError::BadEscape};
        const int v = (e - '0') * 64 + (s[i] - '0') * 8 + (s[i + 1] - '0');
        if (v > 255) return Unexpected{ControlArgError::BadEscape};
        out.push_back(static_cast<char>(v));
        i += 2;
      }
    }
  }
  return Unexpected{ControlArgError::UnterminatedQuote};
}

}  // namespace

Result<std::vector<ControlArg>, ControlArgError> parse_control_args(std::string_view s) {
  std::vector<ControlArg> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    ControlArg arg;
    if (s[i] != '"') {
      const std::size_t start = i;
      while (i < s.size() && s[i] != ' ' && s[i] != '=' && s[i] != '"') ++i;
      if (i < s.size() && s[i] == '=') {
        arg.key = std::string(s.substr(start, i - start));
        ++i;
      } else if (i < s.size() && s[i] == '"') {
        return Unexpected{ControlArgError::JunkAfterQuote};
      } else {
        arg.value = std::string(s.substr(start, i - start));
        out.push_back(std::move(arg));
        continue;
      }
    }
    if (i < s.size() && s[i] == '"') {
      auto q = read_quoted(s, i);
      if (!q) return Unexpected{q.error()};
      if (i < s.size() && s[i] != ' ') return Unexpected{ControlArgError::JunkAfterQuote};
      arg.value = std::move(*q);
      arg.quoted = true;
    } else {
      const std::size_t start = i;
      while (i < s.size() && s[i] != ' ') ++i;
      arg.value = std::string(s.substr(start, i - start));
    }
    out.push_back(std::move(arg));
  }
  return out;
}

std::string quote_control_string(std::string_view text) {
  static constexpr char kOctal[] = "01234567";
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u >= 0x7f) {
      out.push_back('\\');
      out.push_back(kOctal[(u >> 6) & 7]);
      out.push_back(kOctal[(u >> 3) & 7]);
      out.push_back(kOctal[u & 7]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace conflux::control
