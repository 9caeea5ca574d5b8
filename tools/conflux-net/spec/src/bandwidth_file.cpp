#include "conflux/netspec/bandwidth_file.hpp"

#include <algorithm>

#include "conflux/config/values.hpp"

namespace conflux::netspec {
namespace {

// A validated rate ("2 MBytes": tor's units are 1024-based) in KB/s of 1000 bytes.
std::uint64_t kb_of(const std::string& rate) {
  auto bytes = config::parse_memunit(rate);
  return bytes ? std::max<std::uint64_t>(*bytes / 1000, 1) : 1;
}

}  // namespace

std::map<std::string, std::uint64_t> measured_kb(const NetSpec& spec) {
  std::map<std::string, std::uint64_t> out;
  if (!spec.measured_bandwidths) return out;
  const MeasuredBandwidthsSpec& m = *spec.measured_bandwidths;
  if (!m.link) {
    for (const auto& [name, rate] : m.rates) out[name] = kb_of(rate);
    return out;
  }
  if (!spec.emulation) return out;
  for (const auto& name : listed_relay_names(spec)) {
    auto it = spec.emulation->hosts.find(name);
    const auto& rate = it != spec.emulation->hosts.end() ? it->second.rate : spec.emulation->defaults.rate;
    if (!rate.empty()) out[name] = kb_of(rate);
  }
  return out;
}

std::string render_bandwidth_file(std::uint64_t timestamp, const std::vector<MeasuredRelay>& relays) {
  std::string t = std::to_string(timestamp) + "\nversion=1.4.0\nsoftware=conflux-net\nnumber_eligible_relays=" +
                  std::to_string(relays.size()) + "\n=====\n";
  for (const auto& r : relays)
    t += "node_id=$" + r.rsa_fingerprint + " bw=" + std::to_string(r.kb) + " nick=" + r.name + "\n";
  return t;
}

}  // namespace conflux::netspec
