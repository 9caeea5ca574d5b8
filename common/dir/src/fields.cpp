#include "conflux/dir/fields.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "conflux/bytes/hex.hpp"

namespace conflux::dir {
namespace {

bool is_alnum(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// A decimal number without sign or leading zeros, at most `max`.
std::optional<std::uint32_t> parse_dec(std::string_view s, std::uint32_t max) noexcept {
  if (s.empty() || s.size() > 10 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

// "N" or "N-M" items, comma-separated, ascending, disjoint, within [lo, hi].
std::optional<std::vector<std::pair<std::uint32_t, std::uint32_t>>> parse_ranges(
    std::string_view s, std::uint32_t lo, std::uint32_t hi) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::string_view item : split(s, ',')) {
    const std::size_t dash = item.find('-');
    auto a = parse_dec(item.substr(0, dash), hi);
    if (!a || *a < lo) return std::nullopt;
    std::uint32_t b = *a;
    if (dash != std::string_view::npos) {
      auto bb = parse_dec(item.substr(dash + 1), hi);
      if (!bb || *bb <= *a) return std::nullopt;
      b = *bb;
    }
    if (!out.empty() && *a <= out.back().second) return std::nullopt;
    out.emplace_back(*a, b);
  }
  return out;
}

}  // namespace

bool valid_nickname(std::string_view s) noexcept {
  if (s.empty() || s.size() > kMaxNicknameLen) return false;
  for (char c : s)
    if (!is_alnum(c)) return false;
  return true;
}

bool valid_platform(std::string_view s) noexcept {
  if (s.empty() || s.size() > kMaxPlatformLen) return false;
  for (char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

bool valid_protocols(std::string_view s) noexcept {
  if (s.size() > kMaxProtocolsLen) return false;
  if (s.empty()) return true;
  std::set<std::string_view> names;
  for (std::string_view entry : split(s, ' ')) {
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq > 32) return false;
    const std::string_view name = entry.substr(0, eq);
    for (char c : name)
      if (!is_alnum(c)) return false;
    if (!names.insert(name).second) return false;
    if (!parse_ranges(entry.substr(eq + 1), 0, kMaxProtocolVersion)) return false;
  }
  return true;
}

bool protocols_support(std::string_view protocols, std::string_view name,
                       std::uint32_t version) noexcept {
  if (protocols.empty() || !valid_protocols(protocols)) return false;
  for (std::string_view entry : split(protocols, ' ')) {
    const std::size_t eq = entry.find('=');
    if (entry.substr(0, eq) != name) continue;
    auto ranges = parse_ranges(entry.substr(eq + 1), 0, kMaxProtocolVersion);
    if (!ranges) return false;
    for (auto [a, b] : *ranges)
      if (version >= a && version <= b) return true;
    return false;
  }
  return false;
}

bool PolicySummary::allows_port(std::uint16_t port) const noexcept {
  bool listed = false;
  for (auto [a, b] : ranges)
    if (port >= a && port <= b) listed = true;
  return accept == listed;
}

std::optional<PolicySummary> parse_policy_summary(std::string_view s) {
  if (s.size() > kMaxPolicySummaryLen) return std::nullopt;
  PolicySummary p;
  if (s.starts_with("accept ")) {
    p.accept = true;
  } else if (!s.starts_with("reject ")) {
    return std::nullopt;
  }
  auto ranges = parse_ranges(s.substr(7), 1, 65535);
  if (!ranges) return std::nullopt;
  for (auto [a, b] : *ranges)
    p.ranges.emplace_back(static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b));
  return p;
}

std::string format_policy_summary(const PolicySummary& p) {
  std::string out = p.accept ? "accept " : "reject ";
  bool first = true;
  for (auto [a, b] : p.ranges) {
    if (!first) out.push_back(',');
    first = false;
    out += std::to_string(a);
    if (b != a) out += "-" + std::to_string(b);
  }
  return out;
}

std::optional<Ipv4> parse_ipv4(std::string_view s) {
  // inet_pton (AF_INET) takes dotted quads only and rejects leading zeros.
  if (s.size() > 15) return std::nullopt;
  const std::string z(s);
  Ipv4 a{};
  if (inet_pton(AF_INET, z.c_str(), a.data()) != 1) return std::nullopt;
  if (format_ipv4(a) != s) return std::nullopt;
  return a;
}

std::optional<Ipv6> parse_ipv6(std::string_view s) {
  if (s.size() > INET6_ADDRSTRLEN) return std::nullopt;
  const std::string z(s);
  Ipv6 a{};
  if (inet_pton(AF_INET6, z.c_str(), a.data()) != 1) return std::nullopt;
  if (format_ipv6(a) != s) return std::nullopt;  // only the canonical spelling
  return a;
}

std::string format_ipv4(const Ipv4& a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, a.data(), buf, sizeof buf);
  return buf;
}

std::string format_ipv6(const Ipv6& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, a.data(), buf, sizeof buf);
  return buf;
}

std::optional<crypto::RsaFingerprint> parse_hex_fingerprint(std::string_view s) {
  auto b = s.size() == 2 * std::tuple_size_v<crypto::RsaFingerprint> ? bytes::from_hex(s) : std::nullopt;
  if (!b || b->size() != std::tuple_size_v<crypto::RsaFingerprint>) return std::nullopt;
  crypto::RsaFingerprint f{};
  std::copy(b->begin(), b->end(), f.begin());
  return f;
}

}  // namespace conflux::dir
