#include "conflux/cell/relay_stream_msgs.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace conflux::cell {
namespace {

using bytes::ByteSpan;
using bytes::Reader;
using bytes::Writer;

std::string_view as_chars(ByteSpan b) {
  // Bytes and chars share representation; this only reinterprets the view.
  return {reinterpret_cast<const char*>(b.data()), b.size()};  // NOLINT
}

void put_string(Writer& w, std::string_view s) {
  w.put(ByteSpan(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));  // NOLINT
}

// Printable ASCII without space: what a DNS name, an address literal or a
// reverse-lookup name can contain on the wire (IDNs travel as punycode).
bool is_name_char(char c) noexcept { return c >= 0x21 && c <= 0x7e; }

// Splits the body at its first NUL; nullopt if there is none.
std::optional<std::string_view> nul_terminated(ByteSpan body) {
  const auto nul = std::find(body.begin(), body.end(), std::uint8_t{0});
  if (nul == body.end()) return std::nullopt;
  return as_chars(body.first(static_cast<std::size_t>(nul - body.begin())));
}

// Decimal 1..65535, digits only, no leading zero (the canonical form tor sends).
std::optional<std::uint16_t> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5 || s[0] == '0') return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

template <class Bytes>
bool parse_ip(int family, std::string_view text, Bytes& out) {
  // inet_pton needs a NUL-terminated string; literals are short.
  char buf[64];
  if (text.size() >= sizeof(buf)) return false;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  return inet_pton(family, buf, out.data()) == 1;
}

void put_addr(Writer& w, const RelayIpAddr& a) {
  std::visit([&w](const auto& bytes) { w.put(bytes); }, a);
}

}  // namespace

// ---- BEGIN ---------------------------------------------------------------

Decoded<BeginMsg> BeginMsg::decode(ByteSpan body) {
  auto addrport = nul_terminated(body);
  if (!addrport) return fail(DecodeError::Truncated);
  std::string_view s = *addrport;

  BeginMsg m;
  std::string_view host;
  std::string_view port;
  if (!s.empty() && s[0] == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return fail(DecodeError::BadValue);
    host = s.substr(1, close - 1);
    port = s.substr(close + 2);
    Ipv6Bytes ip{};
    if (!parse_ip(AF_INET6, host, ip)) return fail(DecodeError::BadValue);
    m.kind = BeginAddrKind::Ipv6;
  } else {
    const auto colon = s.find(':');
    if (colon == std::string_view::npos) return fail(DecodeError::BadValue);
    host = s.substr(0, colon);
    port = s.substr(colon + 1);
    if (!std::all_of(host.begin(), host.end(),
                     [](char c) { return is_name_char(c) && c != '[' && c != ']'; }))
      return fail(DecodeError::BadValue);
    Ipv4Bytes ip{};
    m.kind = parse_ip(AF_INET, host, ip) ? BeginAddrKind::Ipv4 : BeginAddrKind::Hostname;
  }
  auto p = parse_port(port);
  if (!p) return fail(DecodeError::BadValue);
  m.host = std::string(host);
  m.port = *p;

  Reader r(body.subspan(s.size() + 1));
  if (r.remaining() >= 4) m.flags = r.u32();
  return m;
}

void BeginMsg::encode(Writer& w) const {
  if (kind == BeginAddrKind::Ipv6) w.u8('[');
  put_string(w, host);
  if (kind == BeginAddrKind::Ipv6) w.u8(']');
  put_string(w, ":" + std::to_string(port));
  w.u8(0);
  if (flags != 0) w.u32(flags);
}

// ---- BEGIN_DIR -----------------------------------------------------------

Decoded<BeginDirMsg> BeginDirMsg::decode(ByteSpan) { return BeginDirMsg{}; }
void BeginDirMsg::encode(Writer&) const {}

// ---- CONNECTED -----------------------------------------------------------

Decoded<ConnectedMsg> ConnectedMsg::decode(ByteSpan body) {
  ConnectedMsg m;
  if (body.empty()) return m;
  Reader r(body);
  Ipv4Bytes v4{};
  r.copy_to(v4);
  if (v4 != Ipv4Bytes{}) {
    const std::uint32_t ttl = r.u32();
    if (!r.ok()) return fail(DecodeError::Truncated);
    m.addr = RelayAddrTtl{v4, ttl};
    return m;
  }
  // Four zero bytes announce the IPv6 form.
  const std::uint8_t type = r.u8();
  Ipv6Bytes v6{};
  r.copy_to(v6);
  const std::uint32_t ttl = r.u32();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (type != 6) return fail(DecodeError::BadValue);
  m.addr = RelayAddrTtl{v6, ttl};
  return m;
}

void ConnectedMsg::encode(Writer& w) const {
  if (!addr) return;
  if (std::holds_alternative<Ipv6Bytes>(addr->addr)) {
    w.zeros(4);
    w.u8(6);
  }
  put_addr(w, addr->addr);
  w.u32(addr->ttl);
}

// ---- DATA ----------------------------------------------------------------

Decoded<DataMsg> DataMsg::decode(ByteSpan body) {
  if (body.empty()) return fail(DecodeError::BadLength);
  return DataMsg{std::vector<std::uint8_t>(body.begin(), body.end())};
}

void DataMsg::encode(Writer& w) const { w.put(data); }

// ---- END -----------------------------------------------------------------

Decoded<EndMsg> EndMsg::decode(ByteSpan body) {
  EndMsg m;
  if (body.empty()) return m;  // tor-spec 6.3: empty means REASON_MISC
  m.reason = static_cast<EndReason>(body[0]);
  if (m.reason != EndReason::ExitPolicy) return m;
  // Only these lengths carry an address; others are processed without one.
  Reader r(body.subspan(1));
  const std::size_t n = r.remaining();
  constexpr std::uint32_t kNoTtl = 0xffffffff;
  if (n == 4 || n == 8) {
    Ipv4Bytes a{};
    r.copy_to(a);
    m.exit_policy_addr = RelayAddrTtl{a, n == 8 ? r.u32() : kNoTtl};
  } else if (n == 16 || n == 20) {
    Ipv6Bytes a{};
    r.copy_to(a);
    m.exit_policy_addr = RelayAddrTtl{a, n == 20 ? r.u32() : kNoTtl};
  }
  return m;
}

void EndMsg::encode(Writer& w) const {
  w.u8(static_cast<std::uint8_t>(reason));
  if (reason == EndReason::ExitPolicy && exit_policy_addr) {
    put_addr(w, exit_policy_addr->addr);
    w.u32(exit_policy_addr->ttl);
  }
}

// ---- RESOLVE -------------------------------------------------------------

Decoded<ResolveMsg> ResolveMsg::decode(ByteSpan body) {
  auto name = nul_terminated(body);
  if (!name) return fail(DecodeError::Truncated);
  if (name->empty() || !std::all_of(name->begin(), name->end(), is_name_char))
    return fail(DecodeError::BadValue);
  return ResolveMsg{std::string(*name)};
}

void ResolveMsg::encode(Writer& w) const {
  put_string(w, name);
  w.u8(0);
}

bool is_reverse_lookup_name(std::string_view name) noexcept {
  auto ends_with_nocase = [name](std::string_view suffix) {
    if (name.size() < suffix.size()) return false;
    auto tail = name.substr(name.size() - suffix.size());
    return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
      return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
    });
  };
  return ends_with_nocase(".in-addr.arpa") || ends_with_nocase(".ip6.arpa");
}

// ---- RESOLVED ------------------------------------------------------------

Decoded<ResolvedMsg> ResolvedMsg::decode(ByteSpan body) {
  ResolvedMsg m;
  Reader r(body);
  while (!r.empty()) {
    ResolvedAnswer a;
    a.type = static_cast<ResolvedType>(r.u8());
    const std::uint8_t len = r.u8();
    ByteSpan value = r.take(len);
    a.ttl = r.u32();
    if (!r.ok()) return fail(DecodeError::Truncated);
    switch (a.type) {
      case ResolvedType::Ipv4:
        if (len != 4) return fail(DecodeError::BadLength);
        break;
      case ResolvedType::Ipv6:
        if (len != 16) return fail(DecodeError::BadLength);
        break;
      case ResolvedType::Hostname:
        if (len == 0) return fail(DecodeError::BadLength);
        break;
      default:  // errors and unknown types: content is opaque
        break;
    }
    a.value.assign(value.begin(), value.end());
    m.answers.push_back(std::move(a));
  }
  return m;
}

void ResolvedMsg::encode(Writer& w) const {
  for (const auto& a : answers) {
    w.u8(static_cast<std::uint8_t>(a.type));
    w.u8(static_cast<std::uint8_t>(a.value.size()));
    w.put(a.value);
    w.u32(a.ttl);
  }
}

}  // namespace conflux::cell
