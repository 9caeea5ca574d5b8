// A spec back to JSON: every field, defaults included, so `up` records the
// network it made in DIR/spec.json and parse_spec reads it back as it was.
#include <nlohmann/json.hpp>

#include "conflux/netspec/spec.hpp"

namespace conflux::netspec {

std::string encode_spec(const NetSpec& s) {
  nlohmann::ordered_json j;
  j["authorities"] = s.authorities;
  j["relays"] = s.relays;
  j["exits"] = s.exits;
  j["relay_bandwidth_rate"] = s.relay_bandwidth_rate;
  j["consensus_interval"] = s.consensus_interval;
  j["exit_policy"] = s.exit_policy;
  j["relay_options"] = s.relay_options;
  j["bridges"] = nlohmann::ordered_json::array();
  for (const auto& b : s.bridges)
    j["bridges"].push_back({{"name", b.name}, {"bandwidth_rate", b.bandwidth_rate}, {"transport", b.transport}});
  j["proxies"] = nlohmann::ordered_json::array();
  for (const auto& x : s.proxies)
    j["proxies"].push_back({{"name", x.name},
                            {"start", x.start},
                            {"use_bridges", x.use_bridges},
                            {"conflux", x.conflux},
                            {"options", x.options}});
  j["files"] = nlohmann::ordered_json::array();
  for (const auto& f : s.files) j["files"].push_back({{"name", f.name}, {"size", f.size}});
  j["file_seed"] = s.file_seed;
  j["file_origins"] = s.file_origins;
  j["obfs4proxy"] = s.obfs4proxy;
  if (s.emulation) {
    auto link = [](const HostLinkSpec& l) {
      return nlohmann::ordered_json{
          {"latency_ms", l.latency_ms}, {"jitter_ms", l.jitter_ms}, {"loss", l.loss}, {"rate", l.rate}};
    };
    auto& e = j["emulation"];
    e["subnet"] = s.emulation->subnet;
    e["seed"] = s.emulation->seed;
    e["mtu"] = s.emulation->mtu;
    if (!s.emulation->tcp_congestion_control.empty())
      e["tcp_congestion_control"] = s.emulation->tcp_congestion_control;
    e["default"] = link(s.emulation->defaults);
    e["hosts"] = nlohmann::ordered_json::object();
    for (const auto& [name, l] : s.emulation->hosts) e["hosts"][name] = link(l);
  }
  j["implementation"] = nlohmann::ordered_json::object();
  for (const auto& [name, impl] : s.implementation) j["implementation"][name] = impl;
  j["tor"] = s.tor;
  j["guard_relays"] = s.guard_relays;
  if (!s.log_detail.empty()) j["log_detail"] = s.log_detail;
  if (s.measured_bandwidths) {
    if (s.measured_bandwidths->link)
      j["measured_bandwidths"] = "link";
    else
      j["measured_bandwidths"] = s.measured_bandwidths->rates;
  }
  return j.dump(2) + "\n";
}

}  // namespace conflux::netspec
