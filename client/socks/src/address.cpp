// Addresses: debug text, tor's destination-name rules, IP literals.
#include <arpa/inet.h>

#include <cstdio>

#include "conflux/socks/types.hpp"

namespace conflux::socks {
namespace {

bool is_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// tor's string_is_valid_nonrfc_hostname: labels of letters, digits, '-' and
// '_' ("nonrfc": underscores occur in real names), none empty and none
// starting with '-' or '_'; one trailing dot marks a fully qualified name.
bool is_valid_hostname(std::string_view name) noexcept {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  if (name.empty()) return false;
  std::size_t label_start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '.') {
      if (i == label_start) return false;
      char first = name[label_start];
      if (first == '-' || first == '_') return false;
      label_start = i + 1;
      continue;
    }
    char c = name[i];
    if (!is_alnum(c) && c != '-' && c != '_') return false;
  }
  return true;
}

// inet_pton wants a NUL-terminated string; the longest IPv6 text form
// (with an embedded IPv4) is 45 characters.
template <typename Out>
bool pton(int family, std::string_view text, Out& out) noexcept {
  char buf[64];
  if (text.empty() || text.size() >= sizeof buf) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0') return false;
    buf[i] = text[i];
  }
  buf[text.size()] = '\0';
  return inet_pton(family, buf, out.data()) == 1;
}

}  // namespace

std::optional<Address> parse_ip_literal(std::string_view text) {
  Ipv4 v4{};
  if (pton(AF_INET, text, v4)) return Address{v4};
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  Ipv6 v6{};
  if (pton(AF_INET6, text, v6)) return Address{v6};
  return std::nullopt;
}

bool is_valid_destination(std::string_view name) {
  if (name.empty() || name.size() > 255) return false;
  return parse_ip_literal(name).has_value() || is_valid_hostname(name);
}

std::string to_string(const Address& address) {
  if (const Ipv4* v4 = address.ipv4()) {
    char buf[INET_ADDRSTRLEN];
    return inet_ntop(AF_INET, v4->data(), buf, sizeof buf) ? std::string(buf) : std::string("?");
  }
  if (const Ipv6* v6 = address.ipv6()) {
    char buf[INET6_ADDRSTRLEN];
    return inet_ntop(AF_INET6, v6->data(), buf, sizeof buf) ? "[" + std::string(buf) + "]" : std::string("[?]");
  }
  std::string out;
  for (char c : *address.hostname()) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '\\') {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned>(u));
      out += esc;
    } else {
      out += c;
    }
  }
  return out;
}

std::string isolation_key(const Request& request) {
  const std::string empty;
  const std::string& user = request.username ? *request.username : empty;
  const std::string& pass = request.password ? *request.password : empty;
  if (user.empty() && pass.empty()) return {};
  return std::to_string(user.size()) + ":" + user + std::to_string(pass.size()) + ":" + pass;
}

}  // namespace conflux::socks
