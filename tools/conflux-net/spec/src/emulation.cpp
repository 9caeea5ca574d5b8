#include "conflux/netspec/emulation.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "conflux/config/values.hpp"

namespace conflux::netspec {

using Json = nlohmann::json;

bool EmulatedHost::operator==(const EmulatedHost& o) const {
  return name == o.name && device == o.device && netns == o.netns && address == o.address &&
         link.latency == o.link.latency && link.jitter == o.link.jitter && link.loss == o.link.loss &&
         link.rate == o.link.rate && link.queue_packets == o.link.queue_packets &&
         link.queue_bytes == o.link.queue_bytes;
}

namespace {

std::chrono::microseconds micros(double ms) {
  return std::chrono::microseconds(static_cast<std::int64_t>(std::llround(ms * 1000.0)));
}

LinkParams link_of(const HostLinkSpec& s) {
  LinkParams l;
  l.latency = micros(s.latency_ms);
  l.jitter = micros(s.jitter_ms);
  l.loss = s.loss;
  if (!s.rate.empty())
    if (auto bytes = config::parse_memunit(s.rate)) l.rate = *bytes;
  if (l.rate > 0) {
    // The link's buffer: what it sends in 100 ms, on top of what is on the way (latency + jitter),
    // at least 64 KiB; a rate-limited link with the default 8 MiB would hold seconds of packets.
    const auto on_the_way = static_cast<double>((l.latency + l.jitter).count()) / 1e6;
    l.queue_bytes = std::max<std::size_t>(64 << 10, static_cast<std::size_t>(static_cast<double>(l.rate) * (0.1 + on_the_way)));
  }
  return l;
}

}  // namespace

RouterConfig router_config(const EmulationSpec& spec, const std::vector<ProcessPlan>& plan, std::uint32_t tag) {
  RouterConfig c;
  c.subnet = parse_subnet24(spec.subnet).value_or(0);
  c.seed = spec.seed;
  c.mtu = spec.mtu;
  c.tcp_congestion_control = spec.tcp_congestion_control;
  const std::string short_tag = std::to_string(tag % 100000);
  std::uint32_t index = 0;
  for (const auto& p : plan) {
    if (p.role == Role::Router) continue;
    ++index;
    const auto it = spec.hosts.find(p.name);
    c.hosts.push_back({p.name, "cfx" + short_tag + "-" + std::to_string(index),
                       "cfx-" + std::to_string(tag) + "-" + p.name, c.subnet | index,
                       link_of(it == spec.hosts.end() ? spec.defaults : it->second)});
  }
  c.hosts.push_back({std::string(kMachineHostName), "cfx" + short_tag + "-m", "", c.subnet | kMachineHost, LinkParams{}});
  return c;
}

std::string encode_router_config(const RouterConfig& c) {
  nlohmann::ordered_json j;
  j["subnet"] = ipv4_text(c.subnet) + "/24";
  j["seed"] = c.seed;
  j["mtu"] = c.mtu;
  j["tcp_congestion_control"] = c.tcp_congestion_control;
  j["hosts"] = nlohmann::ordered_json::array();
  for (const auto& h : c.hosts)
    j["hosts"].push_back({{"name", h.name},
                          {"device", h.device},
                          {"netns", h.netns},
                          {"address", ipv4_text(h.address)},
                          {"latency_us", h.link.latency.count()},
                          {"jitter_us", h.link.jitter.count()},
                          {"loss", h.link.loss},
                          {"rate", h.link.rate},
                          {"queue_packets", h.link.queue_packets},
                          {"queue_bytes", h.link.queue_bytes}});
  return j.dump(2) + "\n";
}

namespace {

std::uint64_t whole(const Json& h, const char* key, std::uint64_t max) {
  const auto& v = h.at(key);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max)
    throw std::invalid_argument(std::string(key) + ": a whole number 0 to " + std::to_string(max));
  return v.get<std::uint64_t>();
}

std::string text(const Json& h, const char* key) {
  if (!h.at(key).is_string()) throw std::invalid_argument(std::string(key) + ": expected a string");
  return h.at(key).get<std::string>();
}

EmulatedHost decode_host(const Json& h, std::uint32_t subnet) {
  if (!h.is_object()) throw std::invalid_argument("a host is an object");
  EmulatedHost e;
  e.name = text(h, "name");
  e.device = text(h, "device");
  e.netns = text(h, "netns");
  if (e.name.empty() || e.name.size() > 64) throw std::invalid_argument("a host name has 1 to 64 bytes");
  if (e.device.empty() || e.device.size() > 15 || e.device.find('/') != std::string::npos)
    throw std::invalid_argument("a device name has 1 to 15 bytes, no '/'");
  if (e.netns.size() > 128 || e.netns.find('/') != std::string::npos || e.netns == "." || e.netns == "..")
    throw std::invalid_argument("a namespace name has at most 128 bytes and is a plain file name");
  const auto last = text(h, "address");
  const auto dot = last.rfind('.');
  const auto host_part = dot == std::string::npos ? std::string() : last.substr(dot + 1);
  if (host_part.empty() || host_part.size() > 3 || 
      !std::all_of(host_part.begin(), host_part.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    throw std::invalid_argument("address: an IPv4 address in the subnet");
  const auto octet = static_cast<std::uint32_t>(std::stoul(host_part));
  const auto prefix = last.substr(0, dot) + ".0/24";
  if (octet < 1 || octet > 254 || parse_subnet24(prefix) != subnet) throw std::invalid_argument("address: not a host of the subnet");
  e.address = subnet | octet;
  e.link.latency = std::chrono::microseconds(whole(h, "latency_us", 10'000'000));
  e.link.jitter = std::chrono::microseconds(whole(h, "jitter_us", 10'000'000));
  if (!h.at("loss").is_number() || !(h.at("loss").get<double>() >= 0 && h.at("loss").get<double>() <= 1))
    throw std::invalid_argument("loss: 0 to 1");
  e.link.loss = h.at("loss").get<double>();
  e.link.rate = whole(h, "rate", 1ULL << 40);
  e.link.queue_packets = whole(h, "queue_packets", 1 << 20);
  e.link.queue_bytes = whole(h, "queue_bytes", 1ULL << 30);
  return e;
}

}  // namespace

Result<RouterConfig, std::string> decode_router_config(std::string_view json_text) {
  if (json_text.size() > (1 << 20)) return Unexpected{std::string("larger than 1 MiB")};
  try {
    const Json j = Json::parse(json_text.begin(), json_text.end());
    RouterConfig c;
    const auto subnet = parse_subnet24(text(j, "subnet"));
    if (!subnet) throw std::invalid_argument("subnet: a private /24");
    c.subnet = *subnet;
    c.seed = whole(j, "seed", UINT64_MAX);
    if (j.contains("mtu")) {
      c.mtu = static_cast<unsigned>(whole(j, "mtu", kMaxMtu));
      if (c.mtu < kMinMtu) throw std::invalid_argument("mtu: " + std::to_string(kMinMtu) + " to " + std::to_string(kMaxMtu));
    }
    if (j.contains("tcp_congestion_control")) {
      c.tcp_congestion_control = text(j, "tcp_congestion_control");
      if (!is_congestion_control_name(c.tcp_congestion_control))
        throw std::invalid_argument("tcp_congestion_control: 1-15 of a-z, 0-9, _");
    }
    const auto& hosts = j.at("hosts");
    if (!hosts.is_array() || hosts.empty() || hosts.size() > 255) throw std::invalid_argument("hosts: 1 to 255");
    std::set<std::uint32_t> addresses;
    std::set<std::string> devices;
    for (const auto& h : hosts) {
      c.hosts.push_back(decode_host(h, c.subnet));
      if (!addresses.insert(c.hosts.back().address).second) throw std::invalid_argument("two hosts with one address");
      if (!devices.insert(c.hosts.back().device).second) throw std::invalid_argument("two hosts with one device");
    }
    return c;
  } catch (const std::exception& e) {
    return Unexpected{std::string(e.what())};
  }
}

}  // namespace conflux::netspec
