// Fuzzes the exit's parsers of client-supplied names (RESOLVE and BEGIN).
//
// Invariants, trapping on violation:
//  - an accepted reverse-lookup name is the canonical reverse_name() of its
//    address, up to case and one trailing dot, and that name parses back to
//    the same address;
//  - an accepted IP literal prints (inet_ntop) and re-parses to the same
//    address;
//  - the RESOLVED body built for any name or address list encodes within a
//    relay cell and decodes back to the same message.
//
// The exit library is built with the Asio runtime, which fuzz builds leave
// out; its pure rules file is compiled in here instead.
#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../../exit/src/exit_rules.cpp"
#include "conflux/cell/relay_msg.hpp"

using namespace conflux;
using namespace conflux::exit;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

void check_resolved(const cell::ResolvedMsg& msg) {
  const auto body = cell::encode_relay_msg(msg);
  check(body.size() <= cell::kRelayBodyMaxLen);
  auto decoded = cell::decode_relay_msg(cell::RelayCommand::Resolved, body);
  check(decoded.has_value());
  check(std::get<cell::ResolvedMsg>(*decoded) == msg);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  if (auto addr = parse_reverse_name(input)) {
    std::string_view trimmed = input;
    if (!trimmed.empty() && trimmed.back() == '.') trimmed.remove_suffix(1);
    const std::string canonical = reverse_name(*addr);
    check(lower(trimmed) == canonical);
    check(parse_reverse_name(canonical) == addr);
    check_resolved(resolved_hostname(canonical, 300));
  }

  if (auto addr = parse_ip_literal(input)) {
    char text[INET6_ADDRSTRLEN] = {};
    if (const auto* v4 = std::get_if<cell::Ipv4Bytes>(&*addr)) {
      check(inet_ntop(AF_INET, v4->data(), text, sizeof text) != nullptr);
      check_resolved(resolved_addresses(std::span(v4, 1), {}, 60));
    } else {
      check(inet_ntop(AF_INET6, std::get<cell::Ipv6Bytes>(*addr).data(), text, sizeof text) != nullptr);
    }
    check(parse_ip_literal(text) == addr);
  }

  // A PTR answer for whatever a resolver might return (printable or not).
  if (!input.empty() && input.size() <= 255) check_resolved(resolved_hostname(input, 300));

  // Address lists of any length: bounded, deduplicated, IPv4 first.
  std::vector<cell::Ipv4Bytes> v4;
  std::vector<cell::Ipv6Bytes> v6;
  for (std::size_t i = 0; i + 4 <= size && i < 200; i += 4) v4.push_back({data[i], data[i + 1], data[i + 2], data[i + 3]});
  for (std::size_t i = 0; i + 16 <= size && i < 400; i += 16) {
    cell::Ipv6Bytes b{};
    for (std::size_t j = 0; j < 16; ++j) b[j] = data[i + j];
    v6.push_back(b);
  }
  const auto list = resolved_addresses(v4, v6, 300);
  check(!list.answers.empty());
  bool seen_v6 = false;
  for (const auto& a : list.answers) {
    if (a.type == cell::ResolvedType::Ipv6) seen_v6 = true;
    check(!(seen_v6 && a.type == cell::ResolvedType::Ipv4));
  }
  check_resolved(list);
  return 0;
}
