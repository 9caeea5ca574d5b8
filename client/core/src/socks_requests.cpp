#include "conflux/client/socks_requests.hpp"

#include <cstdio>

namespace conflux::client {
namespace {

std::string reverse_name(const socks::Address& a) {
  std::string out;
  char buf[8];
  if (const auto* v4 = a.ipv4()) {
    for (int i = 3; i >= 0; --i) {
      std::snprintf(buf, sizeof buf, "%u.", static_cast<unsigned>((*v4)[static_cast<std::size_t>(i)]));
      out += buf;
    }
    return out + "in-addr.arpa";
  }
  if (const auto* v6 = a.ipv6()) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
      const auto b = (*v6)[static_cast<std::size_t>(i)];
      out += kHex[b & 0xf];
      out += '.';
      out += kHex[b >> 4];
      out += '.';
    }
    return out + "ip6.arpa";
  }
  return *a.hostname();
}

}  // namespace

bool is_resolve(const socks::Request& r) { return r.command != socks::Command::Connect; }

cell::RelayMsg opening_message(const socks::Request& r) {
  if (is_resolve(r)) return cell::ResolveMsg{reverse_name(r.address)};
  cell::BeginMsg b;
  b.port = r.port;
  b.flags = cell::kBeginFlagIpv6Ok;
  if (const auto* host = r.address.hostname()) {
    b.host = *host;
    b.kind = cell::BeginAddrKind::Hostname;
  } else if (r.address.ipv4() != nullptr) {
    b.host = socks::to_string(r.address);
    b.kind = cell::BeginAddrKind::Ipv4;
  } else {
    // to_string gives "[...]"; BeginMsg keeps IPv6 without brackets.
    auto text = socks::to_string(r.address);
    b.host = text.substr(1, text.size() - 2);
    b.kind = cell::BeginAddrKind::Ipv6;
  }
  return b;
}

std::vector<std::uint8_t> success_reply(const socks::Request& r) {
  return socks::encode_reply(r.version, socks::Reply::Succeeded);
}

std::vector<std::uint8_t> failure_reply(const socks::Request& r, socks::Reply why) {
  return socks::encode_reply(r.version, why);
}

std::vector<std::uint8_t> resolved_reply(const socks::Request& r, const cell::ResolvedMsg& answer) {
  for (const auto& a : answer.answers) {
    socks::Address out;
    if (a.type == cell::ResolvedType::Ipv4 && a.value.size() == 4) {
      socks::Ipv4 v{};
      std::copy(a.value.begin(), a.value.end(), v.begin());
      out.value = v;
    } else if (a.type == cell::ResolvedType::Ipv6 && a.value.size() == 16) {
      socks::Ipv6 v{};
      std::copy(a.value.begin(), a.value.end(), v.begin());
      out.value = v;
    } else if (a.type == cell::ResolvedType::Hostname && !a.value.empty()) {
      out.value = std::string(a.value.begin(), a.value.end());
    } else {
      continue;
    }
    return socks::encode_resolve_reply(r.version, out);
  }
  return socks::encode_reply(r.version, socks::Reply::HostUnreachable);
}

}  // namespace conflux::client
