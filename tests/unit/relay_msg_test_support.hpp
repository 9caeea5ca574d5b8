#pragma once
// Helpers shared by test_relay_header.cpp and test_relay_msgs.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

#include "conflux/cell/relay_msg.hpp"
#include "test_support.hpp"

namespace conflux::test::relay {

using namespace conflux::cell;

inline std::string rep(std::string_view h, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += h;
  return s;
}

// Deterministic "random" padding so whole payloads can be compared.
inline void pad_ee(std::span<std::uint8_t> s) { std::fill(s.begin(), s.end(), std::uint8_t{0xEE}); }

inline std::size_t g_pad_calls = 0;
inline void pad_count(std::span<std::uint8_t> s) {
  ++g_pad_calls;
  pad_ee(s);
}

// decode(hex) == msg and encode(msg) == hex.
template <class T>
void roundtrip(const std::string& body_hex, const T& msg) {
  const auto body = unhex(body_hex);
  auto d = decode_relay_msg(T::kCommand, body);
  INFO("body " << body_hex);
  REQUIRE(d.has_value());
  REQUIRE(std::holds_alternative<T>(*d));
  CHECK(std::get<T>(*d) == msg);
  CHECK(hex(encode_relay_msg(RelayMsg(msg))) == hex(body));
  CHECK(command_of(*d) == T::kCommand);
}

// decode(hex) == msg, but the canonical encoding is different.
template <class T>
void decodes_to(const std::string& body_hex, const T& msg, const std::string& canonical_hex) {
  const auto body = unhex(body_hex);
  auto d = decode_relay_msg(T::kCommand, body);
  INFO("body " << body_hex);
  REQUIRE(d.has_value());
  REQUIRE(std::holds_alternative<T>(*d));
  CHECK(std::get<T>(*d) == msg);
  CHECK(hex(encode_relay_msg(*d)) == hex(unhex(canonical_hex)));
}

inline void rejects(RelayCommand cmd, const std::string& body_hex, DecodeError want) {
  const auto body = unhex(body_hex);
  auto d = decode_relay_msg(cmd, body);
  INFO("command " << to_string(cmd) << " body " << body_hex);
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error() == want);
}

inline std::vector<std::uint8_t> str_bytes(std::string_view s) { return {s.begin(), s.end()}; }

template <std::size_t N>
std::array<std::uint8_t, N> seq_array(std::uint8_t first) {
  std::array<std::uint8_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<std::uint8_t>(first + i);
  return a;
}

inline const Ipv4Bytes kV4{0xc0, 0x00, 0x02, 0x01};  // 192.0.2.1
inline const Ipv6Bytes kV6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};  // 2001:db8::1
inline const std::string kV6Hex = "20010db8000000000000000000000001";

}  // namespace conflux::test::relay
