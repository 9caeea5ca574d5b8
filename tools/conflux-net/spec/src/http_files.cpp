#include "conflux/netspec/http_files.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace conflux::netspec {

std::optional<std::string> file_for_target(std::string_view target) {
  if (auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  if (target.empty() || target.front() != '/') return std::nullopt;
  target.remove_prefix(1);
  if (target.empty()) return std::string("index.html");
  if (target.size() > 255 || target.front() == '.') return std::nullopt;
  const bool plain = std::all_of(target.begin(), target.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
  if (!plain) return std::nullopt;
  return std::string(target);
}

std::string_view content_type_for(std::string_view name) noexcept {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kTypes{{
      {".html", "text/html; charset=utf-8"},
      {".txt", "text/plain; charset=utf-8"},
      {".json", "application/json"},
      {".css", "text/css"},
      {".js", "text/javascript"},
      {".png", "image/png"},
      {".svg", "image/svg+xml"},
  }};
  for (const auto& [ext, type] : kTypes)
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return type;
  return "application/octet-stream";
}

namespace {

// Decimal digits only, no overflow; nullopt otherwise.
std::optional<std::uint64_t> parse_number(std::string_view s) noexcept {
  if (s.empty() || s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

RangeDecision decide_range(std::string_view header, std::uint64_t size) noexcept {
  header = trim(header);
  constexpr std::string_view kUnit = "bytes=";
  if (header.size() < kUnit.size()) return {};
  for (std::size_t i = 0; i < kUnit.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != kUnit[i]) return {};
  const auto spec = trim(header.substr(kUnit.size()));
  if (spec.find(',') != std::string_view::npos) return {};
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos) return {};
  const auto first_text = trim(spec.substr(0, dash));
  const auto last_text = trim(spec.substr(dash + 1));
  if (first_text.empty()) {
    // "-N": the last N bytes.
    const auto n = parse_number(last_text);
    if (!n) return {};
    if (*n == 0 || size == 0) return {RangeKind::Unsatisfiable, {}};
    const auto len = std::min(*n, size);
    return {RangeKind::Partial, {size - len, size - 1}};
  }
  const auto first = parse_number(first_text);
  if (!first) return {};
  std::uint64_t last = size == 0 ? 0 : size - 1;
  if (!last_text.empty()) {
    const auto l = parse_number(last_text);
    if (!l || *l < *first) return {};  // invalid: ignored
    last = std::min(*l, last);
  }
  if (*first >= size) return {RangeKind::Unsatisfiable, {}};
  return {RangeKind::Partial, {*first, last}};
}

}  // namespace conflux::netspec
