#include "conflux/config/address.hpp"

#include <arpa/inet.h>

#include <cstring>
#include <vector>

#include "conflux/config/torrc_parser.hpp"
#include "shown_value.hpp"

namespace conflux::config {
namespace {

// Addresses are the operator's own; echoing a bit of them in errors is fine,
// but keep messages short and printable.
}  // namespace

IpAddress IpAddress::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) noexcept {
  IpAddress ip;
  ip.bytes[0] = a;
  ip.bytes[1] = b;
  ip.bytes[2] = c;
  ip.bytes[3] = d;
  return ip;
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  const int af = is_v4() ? AF_INET : AF_INET6;
  if (inet_ntop(af, bytes.data(), buf, sizeof buf) == nullptr) return "?";
  return buf;
}

ValueResult<IpAddress> parse_ip(std::string_view text) {
  bool bracketed = text.size() >= 2 && text.front() == '[' && text.back() == ']';
  std::string_view inner = bracketed ? text.substr(1, text.size() - 2) : text;
  if (inner.empty() || inner.size() >= INET6_ADDRSTRLEN) return Unexpected{"not an IP address: '" + shown(text, 60) + "'"};
  char buf[INET6_ADDRSTRLEN] = {};
  std::memcpy(buf, inner.data(), inner.size());
  IpAddress ip;
  if (!bracketed && inet_pton(AF_INET, buf, ip.bytes.data()) == 1) return ip;
  if (inet_pton(AF_INET6, buf, ip.bytes.data()) == 1) {
    ip.family = IpAddress::Family::V6;
    return ip;
  }
  return Unexpected{"not an IP address: '" + shown(text, 60) + "'"};
}

ValueResult<std::uint16_t> parse_port(std::string_view text, bool allow_zero) {
  auto v = parse_int(text, allow_zero ? 0 : 1, 65535);
  if (!v) return Unexpected{"invalid port '" + shown(text, 60) + "' (expected " + (allow_zero ? "0" : "1") + "-65535)"};
  return static_cast<std::uint16_t>(*v);
}

bool IpAddress::is_loopback() const noexcept {
  if (is_v4()) return bytes[0] == 127;
  for (std::size_t i = 0; i < 15; ++i)
    if (bytes[i] != 0) return false;
  return bytes[15] == 1;
}

std::string AddrPort::to_string() const {
  auto a = addr.to_string();
  return (addr.is_v4() ? a : "[" + a + "]") + ":" + std::to_string(port);
}

ValueResult<AddrPort> parse_addr_port(std::string_view text) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return Unexpected{"expected ADDRESS:PORT, got '" + shown(text, 60) + "'"};
  auto host = text.substr(0, colon);
  // A bare IPv6 address has colons of its own; require brackets then.
  if (host.find(':') != std::string_view::npos && !(host.size() >= 2 && host.front() == '['))
    return Unexpected{std::string("IPv6 addresses need brackets: [ADDRESS]:PORT")};
  auto ip = parse_ip(host);
  if (!ip) return Unexpected{ip.error()};
  auto port = parse_port(text.substr(colon + 1));
  if (!port) return Unexpected{port.error()};
  return AddrPort{*ip, *port};
}

ValueResult<PortConfig> parse_port_config(std::string_view text, PortFlags flags) {
  auto w = split_words(text);
  if (w.empty()) return Unexpected{std::string("missing port")};
  PortConfig pc;
  std::string_view port_text = w[0];
  auto colon = port_text.rfind(':');
  if (colon != std::string_view::npos) {
    auto host = port_text.substr(0, colon);
    if (host.find(':') != std::string_view::npos && !(host.size() >= 2 && host.front() == '['))
      return Unexpected{std::string("IPv6 addresses need brackets: [ADDRESS]:PORT")};
    auto ip = parse_ip(host);
    if (!ip) return Unexpected{ip.error()};
    pc.address = *ip;
    port_text = port_text.substr(colon + 1);
  }
  if (key_equals(port_text, "auto")) {
    pc.is_auto = true;
  } else {
    auto port = parse_port(port_text, !pc.address.has_value());
    if (!port) return Unexpected{port.error()};
    pc.port = *port;
  }
  for (std::size_t i = 1; i < w.size(); ++i) {
    auto f = w[i];
    bool known = flags == PortFlags::Listener;
    if (known && key_equals(f, "NoListen")) pc.no_listen = true;
    else if (known && key_equals(f, "NoAdvertise")) pc.no_advertise = true;
    else if (known && key_equals(f, "IPv4Only")) pc.ipv4_only = true;
    else if (known && key_equals(f, "IPv6Only")) pc.ipv6_only = true;
    else return Unexpected{"unknown port flag '" + shown(f, 60) + "'"};
  }
  if (pc.no_listen && pc.no_advertise) return Unexpected{std::string("NoListen and NoAdvertise together make the port useless")};
  if (pc.ipv4_only && pc.ipv6_only) return Unexpected{std::string("IPv4Only and IPv6Only together")};
  if (pc.address && ((pc.ipv4_only && !pc.address->is_v4()) || (pc.ipv6_only && pc.address->is_v4())))
    return Unexpected{std::string("IPv4Only/IPv6Only contradicts the address family")};
  return pc;
}

}  // namespace conflux::config
