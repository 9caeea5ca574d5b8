#include "conflux/netspec/json_lines.hpp"

namespace conflux::netspec {

namespace {

// A forgiving scanner: on text the parser accepted it records every value's
// line; on anything else it stops early and keeps what it found.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  LineIndex run() {
    value("", 0);
    return std::move(index_);
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  void skip_blanks() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) advance();
  }

  // A string's content with the escapes that matter for keys undone
  // (\uXXXX is kept verbatim: our keys are ASCII).
  std::string string() {
    std::string out;
    advance();  // the opening quote
    while (!at_end() && peek() != '"') {
      if (peek() == '\\') {
        advance();
        if (at_end()) break;
        const char c = peek();
        out.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c);
        advance();
        continue;
      }
      out.push_back(peek());
      advance();
    }
    if (!at_end()) advance();  // the closing quote
    return out;
  }

  // Skips one value without recursion (for values below kMaxIndexedDepth).
  void skip_value() {
    std::size_t open = 0;
    while (!at_end()) {
      const char c = peek();
      if (c == '"') {
        (void)string();
        continue;
      }
      if (c == '{' || c == '[') {
        ++open;
      } else if (c == '}' || c == ']') {
        if (open == 0) return;  // the enclosing container's end
        if (--open == 0) {
          advance();
          return;
        }
      } else if (c == ',' && open == 0) {
        return;
      }
      advance();
    }
  }

  void value(const std::string& pointer, unsigned depth) {
    skip_blanks();
    if (at_end()) return;
    if (depth > kMaxIndexedDepth) {
      skip_value();
      return;
    }
    index_.emplace(pointer, line_);
    const char c = peek();
    if (c == '{') {
      advance();
      for (;;) {
        skip_blanks();
        if (at_end() || peek() == '}') break;
        if (peek() != '"') return;
        const std::string key = string();
        skip_blanks();
        if (peek() != ':') return;
        advance();
        value(pointer + "/" + pointer_token(key), depth + 1);
        skip_blanks();
        if (peek() != ',') break;
        advance();
      }
      if (!at_end()) advance();
    } else if (c == '[') {
      advance();
      for (std::size_t i = 0;; ++i) {
        skip_blanks();
        if (at_end() || peek() == ']') break;
        value(pointer + "/" + std::to_string(i), depth + 1);
        skip_blanks();
        if (peek() != ',') break;
        advance();
      }
      if (!at_end()) advance();
    } else if (c == '"') {
      (void)string();
    } else {
      while (!at_end() && peek() != ',' && peek() != '}' && peek() != ']' && peek() != ' ' && peek() != '\n' &&
             peek() != '\r' && peek() != '\t')
        advance();
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  unsigned line_ = 1;
  LineIndex index_;
};

}  // namespace

LineIndex index_json_lines(std::string_view text) {
  // Recursion stops at kMaxIndexedDepth; deeper values are skipped by
  // counting brackets.
  return Scanner(text).run();
}

unsigned line_of(const LineIndex& index, std::string pointer) {
  for (;;) {
    if (auto it = index.find(pointer); it != index.end()) return it->second;
    if (pointer.empty()) return 0;
    pointer.erase(pointer.rfind('/'));
  }
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace conflux::netspec
