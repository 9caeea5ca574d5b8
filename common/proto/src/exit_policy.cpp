// Exit policy entries: parsing, printing, compiling and matching.
#include "conflux/proto/exit_policy.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <variant>

namespace conflux::proto {

namespace {

using Bytes16 = std::array<std::uint8_t, 16>;

constexpr std::uint8_t family_bits(AddrFamily f) noexcept { return f == AddrFamily::Ipv4 ? 32 : 128; }

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Decimal digits only (no sign, no spaces), at most max_digits of them.
std::optional<std::uint32_t> parse_decimal(std::string_view s, std::size_t max_digits) noexcept {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return v;
}

std::optional<std::array<std::uint8_t, 4>> parse_ipv4(std::string_view s) noexcept {
  std::array<std::uint8_t, 4> out{};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto dot = s.find('.');
    const std::string_view part = (i == 3) ? s : s.substr(0, dot);
    if (i < 3 && dot == std::string_view::npos) return std::nullopt;
    const auto v = parse_decimal(part, 3);
    if (!v || *v > 255) return std::nullopt;
    out[i] = static_cast<std::uint8_t>(*v);
    if (i < 3) s.remove_prefix(dot + 1);
  }
  return out;
}

std::optional<Bytes16> parse_ipv6(std::string_view s) {
  // inet_pton needs a NUL-terminated string; the longest textual IPv6
  // address (with an embedded IPv4 part) is 45 characters.
  if (s.empty() || s.size() > 45) return std::nullopt;
  char buf[46] = {};
  std::memcpy(buf, s.data(), s.size());
  Bytes16 out{};
  if (inet_pton(AF_INET6, buf, out.data()) != 1) return std::nullopt;
  return out;
}

std::optional<int> prefix_of_dotted_mask(const std::array<std::uint8_t, 4>& m) noexcept {
  const std::uint32_t v = (std::uint32_t{m[0]} << 24) | (std::uint32_t{m[1]} << 16) |
                          (std::uint32_t{m[2]} << 8) | std::uint32_t{m[3]};
  for (int bits = 0; bits <= 32; ++bits) {
    const std::uint32_t want = bits == 0 ? 0u : ~std::uint32_t{0} << (32 - bits);
    if (v == want) return bits;
  }
  return std::nullopt;
}

void apply_mask(Bytes16& a, std::uint8_t prefix) noexcept {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t bit = i * 8;
    if (bit >= prefix) {
      a[i] = 0;
    } else if (bit + 8 > prefix) {
      const auto keep = static_cast<unsigned>(prefix - bit);
      a[i] = static_cast<std::uint8_t>(a[i] & (0xffu << (8 - keep)));
    }
  }
}

bool prefix_equal(const Bytes16& a, const Bytes16& b, std::uint8_t prefix) noexcept {
  const std::size_t full = prefix / 8;
  if (!std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(full), b.begin())) return false;
  const unsigned rest = prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xffu << (8 - rest));
  return (a[full] & mask) == (b[full] & mask);
}

Bytes16 widen(const cell::RelayIpAddr& a) noexcept {
  Bytes16 out{};
  std::visit([&](const auto& bytes) { std::copy(bytes.begin(), bytes.end(), out.begin()); }, a);
  return out;
}

Result<PortRange, PolicyParseError> parse_ports(std::string_view s) noexcept {
  if (s == "*") return PortRange{};
  const auto dash = s.find('-');
  const auto lo = parse_decimal(s.substr(0, dash), 5);
  if (!lo || *lo == 0 || *lo > 65535) return Unexpected{PolicyParseError::BadPort};
  std::uint32_t hi = *lo;
  if (dash != std::string_view::npos) {
    const auto h = parse_decimal(s.substr(dash + 1), 5);
    if (!h || *h == 0 || *h > 65535) return Unexpected{PolicyParseError::BadPort};
    hi = *h;
  }
  if (*lo > hi) return Unexpected{PolicyParseError::BadPortRange};
  return PortRange{static_cast<std::uint16_t>(*lo), static_cast<std::uint16_t>(hi)};
}

std::string format_addr(AddrFamily f, const Bytes16& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (f == AddrFamily::Ipv4) {
    inet_ntop(AF_INET, a.data(), buf, sizeof buf);
    return buf;
  }
  inet_ntop(AF_INET6, a.data(), buf, sizeof buf);
  return std::string("[") + buf + "]";
}

std::string format_ports(PortRange p) {
  if (p.covers_all()) return "*";
  if (p.lo == p.hi) return std::to_string(p.lo);
  return std::to_string(p.lo) + "-" + std::to_string(p.hi);
}

const char* action_word(PolicyAction a) noexcept { return a == PolicyAction::Accept ? "accept" : "reject"; }

constexpr Bytes16 b16(std::uint8_t a0, std::uint8_t a1 = 0) noexcept {
  Bytes16 b{};
  b[0] = a0;
  b[1] = a1;
  return b;
}

constexpr std::array<PrivateNet, 12> kPrivateNets = {{
    {AddrFamily::Ipv4, b16(0), 8},
    {AddrFamily::Ipv4, b16(169, 254), 16},
    {AddrFamily::Ipv4, b16(127), 8},
    {AddrFamily::Ipv4, b16(192, 168), 16},
    {AddrFamily::Ipv4, b16(10), 8},
    {AddrFamily::Ipv4, b16(172, 16), 12},
    {AddrFamily::Ipv6, b16(0), 8},
    {AddrFamily::Ipv6, b16(0xfc), 7},
    {AddrFamily::Ipv6, b16(0xfe, 0x80), 10},
    {AddrFamily::Ipv6, b16(0xfe, 0xc0), 10},
    {AddrFamily::Ipv6, b16(0xff), 8},
    {AddrFamily::Ipv6, b16(0), 127},
}};

PolicyRule wildcard(PolicyAction action, AddrFamily f, PortRange ports) noexcept {
  PolicyRule r;
  r.action = action;
  r.family = f;
  r.ports = ports;
  return r;
}

}  // namespace

AddrFamily family_of(const cell::RelayIpAddr& addr) noexcept {
  return std::holds_alternative<cell::Ipv4Bytes>(addr) ? AddrFamily::Ipv4 : AddrFamily::Ipv6;
}

const char* to_string(PolicyParseError e) noexcept {
  switch (e) {
    case PolicyParseError::Empty: return "empty policy entry";
    case PolicyParseError::TooLong: return "policy entry too long";
    case PolicyParseError::UnknownAction: return "expected accept, reject, accept6 or reject6";
    case PolicyParseError::MissingAddress: return "missing address pattern";
    case PolicyParseError::TrailingGarbage: return "unexpected text after the address pattern";
    case PolicyParseError::BadAddress: return "malformed address (IPv6 needs brackets)";
    case PolicyParseError::UnclosedBracket: return "no closing bracket after IPv6 address";
    case PolicyParseError::BadMask: return "bad mask";
    case PolicyParseError::NonPrefixMask: return "IPv4 mask is not a prefix";
    case PolicyParseError::MaskOnWildcard: return "mask on a wildcard address";
    case PolicyParseError::BadPort: return "bad port (1..65535 or *)";
    case PolicyParseError::BadPortRange: return "port range ends before it starts";
    case PolicyParseError::Ipv4WithAccept6: return "IPv4 address with accept6/reject6 (entry ignored)";
  }
  return "unknown policy error";
}

Result<PolicyEntry, PolicyParseError> parse_policy_entry(std::string_view text) {
  text = trim(text);
  if (text.empty()) return Unexpected{PolicyParseError::Empty};
  if (text.size() > kMaxPolicyEntryLen) return Unexpected{PolicyParseError::TooLong};

  std::size_t kw_end = 0;
  while (kw_end < text.size() && !is_space(text[kw_end])) ++kw_end;
  const std::string_view kw = text.substr(0, kw_end);
  PolicyEntry e;
  bool six = false;
  if (kw == "accept" || kw == "accept6") {
    e.action = PolicyAction::Accept;
  } else if (kw == "reject" || kw == "reject6") {
    e.action = PolicyAction::Reject;
  } else {
    return Unexpected{PolicyParseError::UnknownAction};
  }
  six = kw.back() == '6';

  std::string_view rest = trim(text.substr(kw_end));
  if (rest.empty()) return Unexpected{PolicyParseError::MissingAddress};
  std::size_t arg_end = 0;
  while (arg_end < rest.size() && !is_space(rest[arg_end])) ++arg_end;
  if (arg_end != rest.size()) return Unexpected{PolicyParseError::TrailingGarbage};
  std::string_view arg = rest;

  if (arg.substr(0, 7) == "private") {
    // tor requires "private:PORTS"; it means both families even after accept6.
    const std::string_view after = arg.substr(7);
    if (after.empty() || after.front() != ':') return Unexpected{PolicyParseError::BadAddress};
    auto ports = parse_ports(after.substr(1));
    if (!ports) return Unexpected{ports.error()};
    e.target = PolicyTarget::Private;
    e.ports = *ports;
    return e;
  }

  std::string_view addr_part;
  std::string_view tail;
  const bool bracketed = arg.front() == '[';
  if (bracketed) {
    const auto close = arg.find(']');
    if (close == std::string_view::npos) return Unexpected{PolicyParseError::UnclosedBracket};
    addr_part = arg.substr(1, close - 1);
    tail = arg.substr(close + 1);
  } else {
    const auto stop = arg.find_first_of("/:");
    addr_part = arg.substr(0, stop);
    tail = stop == std::string_view::npos ? std::string_view{} : arg.substr(stop);
  }

  std::optional<std::string_view> mask_part;
  std::optional<std::string_view> port_part;
  if (!tail.empty() && tail.front() == '/') {
    const auto colon = tail.find(':');
    mask_part = tail.substr(1, colon == std::string_view::npos ? std::string_view::npos : colon - 1);
    tail = colon == std::string_view::npos ? std::string_view{} : tail.substr(colon);
  }
  if (!tail.empty()) {
    if (tail.front() != ':') return Unexpected{PolicyParseError::BadAddress};
    port_part = tail.substr(1);
  }

  bool is_wildcard = false;
  if (bracketed) {
    const auto v6 = parse_ipv6(addr_part);
    if (!v6) return Unexpected{PolicyParseError::BadAddress};
    e.target = PolicyTarget::Ipv6;
    e.addr = *v6;
    e.prefix_len = 128;
  } else if (addr_part == "*") {
    e.target = six ? PolicyTarget::Any6 : PolicyTarget::Any;
    is_wildcard = true;
  } else if (addr_part == "*4") {
    e.target = PolicyTarget::Any4;
    is_wildcard = true;
  } else if (addr_part == "*6") {
    e.target = PolicyTarget::Any6;
    is_wildcard = true;
  } else if (const auto v4 = parse_ipv4(addr_part)) {
    e.target = PolicyTarget::Ipv4;
    std::copy(v4->begin(), v4->end(), e.addr.begin());
    e.prefix_len = 32;
  } else {
    return Unexpected{PolicyParseError::BadAddress};
  }

  if (mask_part) {
    if (is_wildcard) return Unexpected{PolicyParseError::MaskOnWildcard};
    const std::uint8_t max_bits = e.target == PolicyTarget::Ipv4 ? 32 : 128;
    if (const auto bits = parse_decimal(*mask_part, 3)) {
      if (*bits > max_bits) return Unexpected{PolicyParseError::BadMask};
      e.prefix_len = static_cast<std::uint8_t>(*bits);
    } else if (e.target == PolicyTarget::Ipv4) {
      const auto dotted = parse_ipv4(*mask_part);
      if (!dotted) return Unexpected{PolicyParseError::BadMask};
      const auto dotted_bits = prefix_of_dotted_mask(*dotted);
      if (!dotted_bits) return Unexpected{PolicyParseError::NonPrefixMask};
      e.prefix_len = static_cast<std::uint8_t>(*dotted_bits);
    } else {
      return Unexpected{PolicyParseError::BadMask};
    }
  }
  apply_mask(e.addr, e.prefix_len);

  if (port_part) {
    auto ports = parse_ports(*port_part);
    if (!ports) return Unexpected{ports.error()};
    e.ports = *ports;
  }

  if (six && (e.target == PolicyTarget::Ipv4 || e.target == PolicyTarget::Any4)) {
    return Unexpected{PolicyParseError::Ipv4WithAccept6};
  }
  return e;
}

std::vector<std::string_view> split_policy_value(std::string_view value) {
  std::vector<std::string_view> out;
  while (true) {
    const auto comma = value.find(',');
    const std::string_view item = trim(value.substr(0, comma));
    if (!item.empty()) out.push_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

std::string PolicyEntry::to_string() const {
  std::string s = action_word(action);
  s += ' ';
  switch (target) {
    case PolicyTarget::Any: s += '*'; break;
    case PolicyTarget::Any4: s += "*4"; break;
    case PolicyTarget::Any6: s += "*6"; break;
    case PolicyTarget::Private: s += "private"; break;
    case PolicyTarget::Ipv4:
    case PolicyTarget::Ipv6: {
      const AddrFamily f = target == PolicyTarget::Ipv4 ? AddrFamily::Ipv4 : AddrFamily::Ipv6;
      s += format_addr(f, addr);
      if (prefix_len != family_bits(f)) s += "/" + std::to_string(prefix_len);
      break;
    }
  }
  s += ':';
  s += format_ports(ports);
  return s;
}

bool PolicyRule::matches_addr(const cell::RelayIpAddr& a) const noexcept {
  if (family_of(a) != family) return false;
  return prefix_equal(widen(a), addr, prefix_len);
}

std::string PolicyRule::to_string() const {
  std::string s = action_word(action);
  s += ' ';
  if (prefix_len == 0) {
    s += family == AddrFamily::Ipv4 ? "*4" : "*6";
  } else {
    s += format_addr(family, addr);
    if (prefix_len != family_bits(family)) s += "/" + std::to_string(prefix_len);
  }
  s += ':';
  s += format_ports(ports);
  return s;
}

std::span<const PrivateNet> private_nets() noexcept { return kPrivateNets; }

bool is_private_address(const cell::RelayIpAddr& addr) noexcept {
  const AddrFamily f = family_of(addr);
  const Bytes16 a = widen(addr);
  return std::any_of(kPrivateNets.begin(), kPrivateNets.end(), [&](const PrivateNet& n) {
    return n.family == f && prefix_equal(a, n.addr, n.prefix_len);
  });
}

ExitPolicy ExitPolicy::from_entries(std::span<const PolicyEntry> entries) {
  std::vector<PolicyRule> rules;
  for (const PolicyEntry& e : entries) {
    switch (e.target) {
      case PolicyTarget::Any:
        rules.push_back(wildcard(e.action, AddrFamily::Ipv4, e.ports));
        rules.push_back(wildcard(e.action, AddrFamily::Ipv6, e.ports));
        break;
      case PolicyTarget::Any4: rules.push_back(wildcard(e.action, AddrFamily::Ipv4, e.ports)); break;
      case PolicyTarget::Any6: rules.push_back(wildcard(e.action, AddrFamily::Ipv6, e.ports)); break;
      case PolicyTarget::Private:
        for (const PrivateNet& n : kPrivateNets) {
          PolicyRule r = wildcard(e.action, n.family, e.ports);
          r.addr = n.addr;
          r.prefix_len = n.prefix_len;
          rules.push_back(r);
        }
        break;
      case PolicyTarget::Ipv4:
      case PolicyTarget::Ipv6: {
        PolicyRule r = wildcard(e.action, e.target == PolicyTarget::Ipv4 ? AddrFamily::Ipv4 : AddrFamily::Ipv6,
                                e.ports);
        r.addr = e.addr;
        r.prefix_len = e.prefix_len;
        rules.push_back(r);
        break;
      }
    }
  }
  return from_rules(std::move(rules));
}

ExitPolicy ExitPolicy::from_rules(std::vector<PolicyRule> rules) {
  ExitPolicy p;
  p.rules_ = std::move(rules);
  return p;
}

PolicyAction ExitPolicy::check(const cell::RelayIpAddr& addr, std::uint16_t port) const noexcept {
  if (port == 0) return PolicyAction::Reject;
  for (const PolicyRule& r : rules_) {
    if (r.ports.contains(port) && r.matches_addr(addr)) return r.action;
  }
  return PolicyAction::Accept;
}

PortVerdict ExitPolicy::check_port(std::uint16_t port, std::optional<AddrFamily> family) const noexcept {
  if (port == 0) return PortVerdict::Rejected;
  if (!family) {
    return std::max(check_port(port, AddrFamily::Ipv4), check_port(port, AddrFamily::Ipv6));
  }
  // tor's compare_unknown_tor_addr_to_addr_policy, one family at a time: a
  // rule for every address decides, unless an address-dependent rule with
  // the other outcome came first.
  bool maybe_accept = false;
  bool maybe_reject = false;
  for (const PolicyRule& r : rules_) {
    if (r.family != *family || !r.ports.contains(port)) continue;
    if (r.prefix_len == 0) {
      if (r.action == PolicyAction::Accept) {
        return maybe_reject ? PortVerdict::ProbablyAccepted : PortVerdict::Accepted;
      }
      return maybe_accept ? PortVerdict::ProbablyRejected : PortVerdict::Rejected;
    }
    (r.action == PolicyAction::Reject ? maybe_reject : maybe_accept) = true;
  }
  return maybe_reject ? PortVerdict::ProbablyAccepted : PortVerdict::Accepted;
}

bool ExitPolicy::is_reject_star(AddrFamily family) const noexcept {
  for (const PolicyRule& r : rules_) {
    if (r.family != family) continue;
    if (r.action == PolicyAction::Accept) return false;
    if (r.is_catch_all()) return true;
  }
  return false;  // no rule decided: check() accepts
}

std::string ExitPolicy::to_string() const {
  std::string s;
  for (const PolicyRule& r : rules_) {
    if (!s.empty()) s += ',';
    s += r.to_string();
  }
  return s;
}

}  // namespace conflux::proto
