#pragma once
// Addresses and ports as they appear in torrc: IPv4 dotted quads, IPv6 (in
// brackets when a port follows), "ADDR:PORT", and tor's port lines
// "[ADDR:]PORT|auto [flags]".
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "conflux/config/values.hpp"

namespace conflux::config {

struct IpAddress {
  enum class Family : std::uint8_t { V4, V6 };
  Family family = Family::V4;
  std::array<std::uint8_t, 16> bytes{};  // network order; V4 uses the first 4

  [[nodiscard]] static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) noexcept;
  [[nodiscard]] bool is_v4() const noexcept { return family == Family::V4; }
  // 127.0.0.0/8 or ::1: reachable from this host only.
  [[nodiscard]] bool is_loopback() const noexcept;
  // "1.2.3.4" or the RFC 5952 form "2001:db8::1" (no brackets).
  [[nodiscard]] std::string to_string() const;
  bool operator==(const IpAddress&) const = default;
};

// "1.2.3.4", "2001:db8::1" or "[2001:db8::1]". IPv4 is strict (four decimal
// parts, no leading zeros); no zone ids.
[[nodiscard]] ValueResult<IpAddress> parse_ip(std::string_view text);

// 1..65535, or 0..65535 with allow_zero.
[[nodiscard]] ValueResult<std::uint16_t> parse_port(std::string_view text, bool allow_zero = false);

struct AddrPort {
  IpAddress addr;
  std::uint16_t port = 0;
  // "1.2.3.4:9001" or "[::1]:9001".
  [[nodiscard]] std::string to_string() const;
  bool operator==(const AddrPort&) const = default;
};
// "1.2.3.4:PORT" or "[V6]:PORT"; port 1..65535.
[[nodiscard]] ValueResult<AddrPort> parse_addr_port(std::string_view text);

// A listener line as tor's ORPort/DirPort: "[ADDR:]PORT|auto [FLAGS]".
// "0" (or no line at all) means the port is off.
struct PortConfig {
  bool is_auto = false;                // let the OS choose ("auto", "ADDR:auto")
  std::uint16_t port = 0;              // 0 and !is_auto: off
  std::optional<IpAddress> address;    // absent: every address of that family
  bool no_listen = false;              // NoListen: advertise only
  bool no_advertise = false;           // NoAdvertise: listen only
  bool ipv4_only = false;              // IPv4Only
  bool ipv6_only = false;              // IPv6Only
  [[nodiscard]] bool enabled() const noexcept { return is_auto || port != 0; }
  bool operator==(const PortConfig&) const = default;
};

// Flags (case-insensitive) allowed after the port: none, or tor's ORPort set
// (NoAdvertise, NoListen, IPv4Only, IPv6Only; not both *Only, not both No*).
enum class PortFlags : std::uint8_t { None, Listener };
[[nodiscard]] ValueResult<PortConfig> parse_port_config(std::string_view text, PortFlags flags);

}  // namespace conflux::config
