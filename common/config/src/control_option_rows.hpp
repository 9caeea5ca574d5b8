#pragma once
// The control-port rows' appliers, for any options struct with a
// `ControlOptions control` member (ProxyOptions, RelayOptions): the two
// option tables list the same five rows with these.
#include "conflux/config/control_options.hpp"
#include "option_table_support.hpp"

namespace conflux::config::table {

template <class Options>
Applied add_control_port(Options& o, const ConfigEntry& e) {
  auto v = parse_control_port(e.value);
  if (!v) return v.error();
  if (v->enabled() && !v->address->is_loopback())
    o.warnings.emplace_back(e.where, "ControlPort listens beyond this host: anyone who reaches it may try to "
                                     "authenticate and control this program");
  if (v->enabled()) o.control.ports.push_back(*v);
  return std::nullopt;
}
template <class Options>
void reset_control_ports(Options& o) { o.control.ports.clear(); }

template <class Options>
Applied add_control_socket(Options& o, const ConfigEntry& e) {
  auto v = parse_control_socket(e.value);
  if (!v) return v.error();
  if (*v) o.control.sockets.push_back(std::move(**v));
  return std::nullopt;
}
template <class Options>
void reset_control_sockets(Options& o) { o.control.sockets.clear(); }

template <class Options>
Applied set_control_port_file(Options& o, const ConfigEntry& e) {
  o.control.port_write_to_file = e.value;
  return std::nullopt;
}
template <class Options>
void reset_control_port_file(Options& o) { o.control.port_write_to_file.clear(); }

template <class Options>
Applied set_cookie_authentication(Options& o, const ConfigEntry& e) {
  auto v = parse_bool(e.value);
  if (!v) return v.error();
  o.control.cookie_authentication = *v;
  return std::nullopt;
}
template <class Options>
void reset_cookie_authentication(Options& o) { o.control.cookie_authentication = false; }

template <class Options>
Applied set_cookie_auth_file(Options& o, const ConfigEntry& e) {
  o.control.cookie_auth_file = e.value;
  return std::nullopt;
}
template <class Options>
void reset_cookie_auth_file(Options& o) { o.control.cookie_auth_file.clear(); }

template <class Options>
Applied add_hashed_control_password(Options& o, const ConfigEntry& e) {
  auto v = parse_hashed_control_password(e.value);
  if (!v) return v.error();
  o.control.hashed_passwords.push_back(std::move(*v));
  return std::nullopt;
}
template <class Options>
void reset_hashed_control_passwords(Options& o) { o.control.hashed_passwords.clear(); }

}  // namespace conflux::config::table
