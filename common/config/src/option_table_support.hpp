#pragma once
// Building blocks of the option tables (relay_option_table.cpp,
// proxy_option_table.cpp): generic appliers that parse a value and store it
// in, or append it to, a member of the options struct, and the reset to the
// member's default. The struct is deduced from the member pointer, so a row
// reads set_value<&RelayOptions::nickname, parse_nickname>.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "conflux/config/address.hpp"
#include "conflux/config/torrc_parser.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config::table {

using Applied = std::optional<std::string>;

template <class M>
struct member_of;
template <class C, class T>
struct member_of<T C::*> {
  using type = C;
};
template <auto Member>
using options_of = typename member_of<decltype(Member)>::type;

template <auto Member, auto Parse>
Applied set_value(options_of<Member>& o, const ConfigEntry& e) {
  auto v = Parse(e.value);
  if (!v) return v.error();
  o.*Member = std::move(*v);
  return std::nullopt;
}

template <auto Member, auto Parse>
Applied add_value(options_of<Member>& o, const ConfigEntry& e) {
  auto v = Parse(e.value);
  if (!v) return v.error();
  (o.*Member).push_back(std::move(*v));
  return std::nullopt;
}

template <auto Member>
void reset_value(options_of<Member>& o) {
  o.*Member = options_of<Member>{}.*Member;
}

// The same for a field of a sub-struct (RelayOptions::dos.cc_rate).
template <auto Sub, auto Member, auto Parse>
Applied set_sub_value(options_of<Sub>& o, const ConfigEntry& e) {
  auto v = Parse(e.value);
  if (!v) return v.error();
  (o.*Sub).*Member = std::move(*v);
  return std::nullopt;
}

template <auto Sub, auto Member>
void reset_sub_value(options_of<Sub>& o) {
  (o.*Sub).*Member = options_of<Member>{}.*Member;
}

template <class T, std::int64_t Min, std::int64_t Max>
ValueResult<T> bounded(std::string_view s) {
  auto v = parse_int(s, Min, Max);
  if (!v) return Unexpected{v.error()};
  return static_cast<T>(*v);
}

// An interval no longer than Max seconds (and at least Min).
template <std::int64_t Min, std::int64_t Max>
ValueResult<std::chrono::seconds> interval_within(std::string_view s) {
  auto v = parse_interval(s);
  if (!v) return v;
  if (v->count() < Min || v->count() > Max)
    return Unexpected{"must be between " + std::to_string(Min) + " and " + std::to_string(Max) + " seconds"};
  return v;
}

inline ValueResult<std::string> any_text(std::string_view s) { return std::string(s); }

// tor: "MetricsPort [address:]port [format]"; the only format is prometheus,
// and a port without address listens on 127.0.0.1.
inline ValueResult<PortConfig> metrics_port(std::string_view s) {
  auto last_blank = s.find_last_of(" \t");
  if (last_blank != std::string_view::npos && key_equals(s.substr(last_blank + 1), "prometheus"))
    s = s.substr(0, last_blank);
  auto pc = parse_port_config(s, PortFlags::None);
  if (!pc) return pc;
  if (!pc->address) pc->address = IpAddress::v4(127, 0, 0, 1);
  return pc;
}

}  // namespace conflux::config::table
