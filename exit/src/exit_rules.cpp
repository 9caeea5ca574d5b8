// Included by path relative to this file so that the fuzz target, which
// builds without the Asio runtime, can compile it in (tests/fuzz).
#include "../include/conflux/exit/exit_rules.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

namespace conflux::exit {

std::optional<proto::AddrFamily> FamilyChoice::only_family() const noexcept {
  if (ipv4_ok && !ipv6_ok) return proto::AddrFamily::Ipv4;
  if (ipv6_ok && !ipv4_ok) return proto::AddrFamily::Ipv6;
  return std::nullopt;
}

FamilyChoice family_choice(std::uint32_t begin_flags, bool ipv6_exit) noexcept {
  FamilyChoice c;
  c.ipv4_ok = (begin_flags & cell::kBeginFlagIpv4NotOk) == 0;
  c.ipv6_ok = ipv6_exit && (begin_flags & cell::kBeginFlagIpv6Ok) != 0;
  c.ipv6_preferred = c.ipv6_ok && (begin_flags & cell::kBeginFlagIpv6Preferred) != 0;
  return c;
}

std::optional<cell::RelayIpAddr> choose_address(std::span<const cell::Ipv4Bytes> v4,
                                                std::span<const cell::Ipv6Bytes> v6,
                                                const FamilyChoice& families) noexcept {
  const bool have4 = families.ipv4_ok && !v4.empty();
  const bool have6 = families.ipv6_ok && !v6.empty();
  if (have6 && (families.ipv6_preferred || !have4)) return cell::RelayIpAddr{v6.front()};
  if (have4) return cell::RelayIpAddr{v4.front()};
  return std::nullopt;
}

std::optional<cell::RelayIpAddr> parse_ip_literal(std::string_view text) {
  if (text.empty() || text.size() > 45) return std::nullopt;
  const std::string s(text);
  cell::Ipv4Bytes v4{};
  // inet_pton's IPv4 form is exactly four decimal parts (no octal, no short forms).
  if (inet_pton(AF_INET, s.c_str(), v4.data()) == 1) return cell::RelayIpAddr{v4};
  cell::Ipv6Bytes v6{};
  if (inet_pton(AF_INET6, s.c_str(), v6.data()) == 1) return cell::RelayIpAddr{v6};
  return std::nullopt;
}

namespace {

bool iends_with(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), s.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                    [](char a, char b) {
                      auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
                      return lower(a) == lower(b);
                    });
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<cell::Ipv4Bytes> parse_in_addr_labels(std::string_view labels) {
  // Four decimal labels, least significant byte first.
  cell::Ipv4Bytes out{};
  std::size_t pos = 0;
  for (int i = 3; i >= 0; --i) {
    std::size_t end = labels.find('.', pos);
    if (i == 0) {
      if (end != std::string_view::npos) return std::nullopt;
      end = labels.size();
    } else if (end == std::string_view::npos) {
      return std::nullopt;
    }
    const std::string_view label = labels.substr(pos, end - pos);
    if (label.empty() || label.size() > 3 || (label.size() > 1 && label[0] == '0')) return std::nullopt;
    unsigned value = 0;
    for (char c : label) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 255) return std::nullopt;
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value);
    pos = end + 1;
  }
  return out;
}

std::optional<cell::Ipv6Bytes> parse_ip6_labels(std::string_view labels) {
  // 32 single-nibble labels, least significant nibble first.
  if (labels.size() != 63) return std::nullopt;
  cell::Ipv6Bytes out{};
  for (std::size_t i = 0; i < 32; ++i) {
    const int v = hex_value(labels[2 * i]);
    if (v < 0) return std::nullopt;
    if (i < 31 && labels[2 * i + 1] != '.') return std::nullopt;
    const std::size_t nibble = 31 - i;  // position from the most significant nibble
    const auto shift = (nibble % 2 == 0) ? 4u : 0u;
    out[nibble / 2] = static_cast<std::uint8_t>(out[nibble / 2] | (static_cast<unsigned>(v) << shift));
  }
  return out;
}

}  // namespace

bool is_unresolvable_name(std::string_view host) noexcept {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return host.empty() || iends_with(host, ".onion") || (host.size() == 5 && iends_with(host, "onion"));
}

std::optional<cell::RelayIpAddr> parse_reverse_name(std::string_view name) {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  constexpr std::string_view kV4 = ".in-addr.arpa";
  constexpr std::string_view kV6 = ".ip6.arpa";
  if (iends_with(name, kV4)) {
    if (auto a = parse_in_addr_labels(name.substr(0, name.size() - kV4.size()))) return cell::RelayIpAddr{*a};
    return std::nullopt;
  }
  if (iends_with(name, kV6)) {
    if (auto a = parse_ip6_labels(name.substr(0, name.size() - kV6.size()))) return cell::RelayIpAddr{*a};
  }
  return std::nullopt;
}

std::string reverse_name(const cell::RelayIpAddr& addr) {
  std::string out;
  if (const auto* v4 = std::get_if<cell::Ipv4Bytes>(&addr)) {
    for (std::size_t i = 4; i-- > 0;) out += std::to_string((*v4)[i]) + ".";
    return out + "in-addr.arpa";
  }
  constexpr std::string_view kHex = "0123456789abcdef";
  const auto& v6 = std::get<cell::Ipv6Bytes>(addr);
  for (std::size_t i = 16; i-- > 0;) {
    out += kHex[v6[i] & 0x0f];
    out += '.';
    out += kHex[v6[i] >> 4];
    out += '.';
  }
  return out + "ip6.arpa";
}

cell::EndReason end_reason_for_errno(int err) noexcept {
  using R = cell::EndReason;
  switch (err) {
    case EPIPE: return R::Done;  // the server stopped reading: it is done with us
    case ENETUNREACH:
    case EHOSTUNREACH:
    case EACCES:
    case EPERM: return R::NoRoute;
    case ECONNREFUSED: return R::ConnectRefused;
    case ECONNRESET: return R::ConnReset;
    case ETIMEDOUT: return R::Timeout;
    case ENOBUFS:
    case ENOMEM:
    case ENFILE:
    case EMFILE: return R::ResourceLimit;
    // Our own misuse of the socket API, not the destination's doing.
    case EBADF:
    case EFAULT:
    case EINVAL:
    case EISCONN:
    case EINPROGRESS:
    case EALREADY:
    case ENOTSOCK:
    case EDESTADDRREQ:
    case EMSGSIZE:
    case EPROTOTYPE:
    case ENOPROTOOPT:
    case EPROTONOSUPPORT:
    case ESOCKTNOSUPPORT:
    case EOPNOTSUPP:
    case EAFNOSUPPORT:
    case EADDRNOTAVAIL:
    case ENOTCONN: return R::Internal;
    default: return R::Misc;
  }
}

cell::ResolvedMsg resolved_addresses(std::span<const cell::Ipv4Bytes> v4, std::span<const cell::Ipv6Bytes> v6,
                                     std::uint32_t ttl) {
  cell::ResolvedMsg msg;
  std::size_t n4 = 0;
  std::size_t n6 = 0;
  auto seen = [&](cell::ResolvedType type, std::span<const std::uint8_t> bytes) {
    return std::any_of(msg.answers.begin(), msg.answers.end(), [&](const cell::ResolvedAnswer& a) {
      return a.type == type && std::equal(a.value.begin(), a.value.end(), bytes.begin(), bytes.end());
    });
  };
  for (const auto& a : v4) {
    if (n4 == kMaxAnswersPerFamily) break;
    if (seen(cell::ResolvedType::Ipv4, a)) continue;
    msg.answers.push_back({cell::ResolvedType::Ipv4, {a.begin(), a.end()}, ttl});
    ++n4;
  }
  for (const auto& a : v6) {
    if (n6 == kMaxAnswersPerFamily) break;
    if (seen(cell::ResolvedType::Ipv6, a)) continue;
    msg.answers.push_back({cell::ResolvedType::Ipv6, {a.begin(), a.end()}, ttl});
    ++n6;
  }
  if (msg.answers.empty()) return resolved_error(LookupFailure::NotFound, ttl);
  return msg;
}

cell::ResolvedMsg resolved_hostname(std::string_view hostname, std::uint32_t ttl) {
  if (hostname.empty() || hostname.size() > 255) return resolved_error(LookupFailure::NotFound, ttl);
  cell::ResolvedMsg msg;
  msg.answers.push_back({cell::ResolvedType::Hostname, {hostname.begin(), hostname.end()}, ttl});
  return msg;
}

cell::ResolvedMsg resolved_error(LookupFailure failure, std::uint32_t ttl) {
  constexpr std::string_view kText = "Error resolving hostname";
  cell::ResolvedMsg msg;
  msg.answers.push_back({failure == LookupFailure::Transient ? cell::ResolvedType::ErrorTransient
                                                             : cell::ResolvedType::ErrorNontransient,
                         {kText.begin(), kText.end()},
                         ttl});
  return msg;
}

bool is_rfc953_name(std::string_view host) noexcept {
  if (parse_ip_literal(host)) return true;
  return std::all_of(host.begin(), host.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_';
  });
}

}  // namespace conflux::exit
