#include "conflux/netspec/network_file.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace conflux::netspec {

using OJson = nlohmann::ordered_json;
using Json = nlohmann::json;

namespace {

constexpr std::size_t kMaxNetworkFile = 4 << 20;
constexpr std::int64_t kMaxPid = 4194304;  // PID_MAX_LIMIT on 64-bit Linux

struct BadNumber : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// nlohmann's get<integer>() casts a float (undefined behaviour when it is
// out of range) and wraps a negative: whole numbers in range only.
std::uint64_t unsigned_of(const Json& v) {
  if (!v.is_number_unsigned()) throw BadNumber("expected a whole number >= 0, got " + v.dump());
  return v.get<std::uint64_t>();
}

std::int64_t signed_of(const Json& v) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX))
    throw BadNumber("expected a whole number, got " + v.dump());
  return v.get<std::int64_t>();
}

OJson encode_ports(const Ports& p) {
  OJson j = OJson::object();
  if (p.or_port != 0) j["or"] = p.or_port;
  if (p.dir_port != 0) j["dir"] = p.dir_port;
  if (p.socks_port != 0) j["socks"] = p.socks_port;
  if (p.metrics_port != 0) j["metrics"] = p.metrics_port;
  if (p.http_port != 0) j["http"] = p.http_port;
  if (p.pt_port != 0) j["pt"] = p.pt_port;
  if (p.control_port != 0) j["control"] = p.control_port;
  return j;
}

// nlohmann narrows silently (70001 would become a port): range-check here.
std::optional<Ports> decode_ports(const Json& j) {
  Ports p;
  bool ok = true;
  auto port = [&](const char* key) {
    if (!j.contains(key)) return std::uint16_t{0};
    const auto v = unsigned_of(j.at(key));
    if (v == 0 || v > 65535) ok = false;
    return static_cast<std::uint16_t>(v);
  };
  p.or_port = port("or");
  p.dir_port = port("dir");
  p.socks_port = port("socks");
  p.metrics_port = port("metrics");
  p.http_port = port("http");
  p.pt_port = port("pt");
  p.control_port = port("control");
  if (!ok) return std::nullopt;
  return p;
}

}  // namespace

std::string encode_network(const NetworkInfo& info) {
  OJson j;
  j["version"] = kNetworkFileVersion;
  j["state"] = info.state;
  j["dir"] = info.dir;
  j["created"] = info.created;
  j["up_pid"] = info.up_pid;
  if (info.proxy) {
    j["proxy"] = {{"name", info.proxy->name}, {"socks", info.proxy->socks}, {"metrics", info.proxy->metrics}};
  } else {
    j["proxy"] = nullptr;
  }
  j["file_server"] = info.file_server;
  j["file_origins"] = info.file_origins;
  j["tor_dir_authorities"] = info.tor_dir_authorities;
  if (!info.namespaces.empty()) j["namespaces"] = info.namespaces;
  j["files"] = OJson::array();
  for (const auto& f : info.files)
    j["files"].push_back({{"name", f.name}, {"size", f.size}, {"url", f.url}, {"sha256", f.sha256}});
  j["processes"] = OJson::array();
  for (const auto& p : info.processes) {
    OJson r;
    r["name"] = p.name;
    r["role"] = std::string(to_string(p.role));
    r["started"] = p.started;
    r["pid"] = p.pid;
    r["start_time"] = p.start_time;
    r["ports"] = encode_ports(p.ports);
    if (!p.identity.empty()) r["identity"] = p.identity;
    if (!p.rsa_fingerprint.empty()) r["rsa_fingerprint"] = p.rsa_fingerprint;
    if (!p.implementation.empty()) r["implementation"] = p.implementation;
    r["binary"] = p.binary;
    r["args"] = p.args;
    r["dir"] = p.dir;
    r["torrc"] = p.torrc;
    r["data_dir"] = p.data_dir;
    r["log"] = p.log;
    r["output"] = p.output;
    if (!p.address.empty()) r["address"] = p.address;
    if (!p.netns.empty()) r["netns"] = p.netns;
    j["processes"].push_back(std::move(r));
  }
  return j.dump(2) + "\n";
}

Result<NetworkInfo, std::string> decode_network(std::string_view json_text) {
  if (json_text.size() > kMaxNetworkFile) return Unexpected{std::string("larger than 4 MiB")};
  // nlohmann reports wrong types by throwing (and so do unsigned_of and
  // signed_of); every such exception becomes
  // the error value here, none leaves.
  try {
    const Json j = Json::parse(json_text.begin(), json_text.end());
    if (signed_of(j.at("version")) != kNetworkFileVersion)
      return Unexpected{"version " + j.at("version").dump() + " (this conflux-net reads version " +
                        std::to_string(kNetworkFileVersion) + ")"};
    NetworkInfo info;
    info.state = j.at("state").get<std::string>();
    if (info.state != "starting" && info.state != "ready" && info.state != "failed" && info.state != "stopped")
      return Unexpected{"unknown state '" + info.state + "'"};
    info.dir = j.at("dir").get<std::string>();
    info.created = unsigned_of(j.at("created"));
    info.up_pid = signed_of(j.at("up_pid"));
    if (const auto& x = j.at("proxy"); !x.is_null())
      info.proxy = ProxyAddresses{x.at("name").get<std::string>(), x.at("socks").get<std::string>(),
                                  x.at("metrics").get<std::string>()};
    info.file_server = j.at("file_server").get<std::string>();
    if (j.contains("file_origins")) info.file_origins = j.at("file_origins").get<std::vector<std::string>>();
    if (j.contains("tor_dir_authorities"))
      info.tor_dir_authorities = j.at("tor_dir_authorities").get<std::vector<std::string>>();
    if (j.contains("namespaces")) info.namespaces = j.at("namespaces").get<std::vector<std::string>>();
    for (const auto& f : j.at("files"))
      info.files.push_back({f.at("name").get<std::string>(), unsigned_of(f.at("size")),
                            f.at("url").get<std::string>(), f.at("sha256").get<std::string>()});
    for (const auto& r : j.at("processes")) {
      ProcessRecord p;
      p.name = r.at("name").get<std::string>();
      const auto role = role_from_string(r.at("role").get<std::string>());
      if (!role) return Unexpected{"process '" + p.name + "': unknown role " + r.at("role").dump()};
      p.role = *role;
      p.started = r.at("started").get<bool>();
      p.pid = signed_of(r.at("pid"));
      if (p.started && (p.pid < 2 || p.pid > kMaxPid))
        return Unexpected{"process '" + p.name + "': pid " + std::to_string(p.pid) + " is not a process's"};
      p.start_time = unsigned_of(r.at("start_time"));
      const auto ports = decode_ports(r.at("ports"));
      if (!ports) return Unexpected{"process '" + p.name + "': a port outside 1-65535"};
      p.ports = *ports;
      if (r.contains("identity")) p.identity = r.at("identity").get<std::string>();
      if (r.contains("rsa_fingerprint")) p.rsa_fingerprint = r.at("rsa_fingerprint").get<std::string>();
      if (r.contains("implementation")) p.implementation = r.at("implementation").get<std::string>();
      p.binary = r.at("binary").get<std::string>();
      p.args = r.at("args").get<std::vector<std::string>>();
      p.dir = r.at("dir").get<std::string>();
      p.torrc = r.at("torrc").get<std::string>();
      p.data_dir = r.at("data_dir").get<std::string>();
      p.log = r.at("log").get<std::string>();
      p.output = r.at("output").get<std::string>();
      if (r.contains("address")) p.address = r.at("address").get<std::string>();
      if (r.contains("netns")) p.netns = r.at("netns").get<std::string>();
      info.processes.push_back(std::move(p));
    }
    return info;
  } catch (const Json::exception& e) {
    return Unexpected{std::string(e.what())};
  } catch (const BadNumber& e) {
    return Unexpected{std::string(e.what())};
  }
}

}  // namespace conflux::netspec
