#include "proxy_torrc.hpp"

#include "conflux/config/torrc_parser.hpp"

namespace conflux::gui {

namespace {

config::ConfigEntry line(std::string key, std::string value) {
  config::ConfigEntry e;
  e.key = std::move(key);
  e.value = std::move(value);
  return e;
}

}  // namespace

std::string proxy_torrc(const ProxySettings& s, const ProxyPaths& p, std::uint32_t owner_pid) {
  config::Entries e;
  e.push_back(line("DataDirectory", p.data_directory));
  e.push_back(line("SocksPort", "auto"));
  e.push_back(line("ControlPort", "auto"));
  e.push_back(line("ControlPortWriteToFile", p.control_port_file));
  e.push_back(line("CookieAuthentication", "1"));
  e.push_back(line("CookieAuthFile", p.cookie_file));
  e.push_back(line("__OwningControllerProcess", std::to_string(owner_pid)));
  e.push_back(line("Log", "notice stdout"));
  e.push_back(line("UseBridges", "1"));
  for (const auto& b : s.bridges) e.push_back(line("Bridge", b));
  if (s.uses_transport) e.push_back(line("ClientTransportPlugin", "obfs4 exec " + s.obfs4proxy));
  e.push_back(line("ConfluxEnabled", s.conflux ? "1" : "0"));
  if (s.conflux) e.push_back(line("ConfluxNumLegs", std::to_string(s.conflux_legs)));
  return "# Written by conflux-gui: your changes are replaced when it connects.\n" + config::to_torrc(e);
}

}  // namespace conflux::gui
