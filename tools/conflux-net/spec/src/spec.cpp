#include "conflux/netspec/spec.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <set>

#include "conflux/config/values.hpp"
#include "conflux/netspec/json_lines.hpp"
#include "conflux/netspec/plan.hpp"

namespace conflux::netspec {

using Json = nlohmann::json;

std::string SpecError::to_string(std::string_view file) const {
  std::string out(file);
  if (line != 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!pointer.empty()) out += pointer + ": ";
  return out + message;
}

NetSpec default_spec() {
  NetSpec s;
  // issue 5 measures one bridge at 100 KiB/s and one at 1 MiB/s (tor's
  // "KBytes" and "MByte" are 1024-based).
  s.bridges = {{"bridge100k", "100 KBytes"}, {"bridge1m", "1 MByte"}};
  s.proxies = {{"proxy", true, false, true}, {"proxy-bridges", false, true, true}};
  s.files = {{"320KiB.bin", 320 * 1024}, {"1MiB.bin", 1024 * 1024}, {"5MiB.bin", 5 * 1024 * 1024},
             {"50MiB.bin", 50 * 1024 * 1024}};
  return s;
}

namespace {

using Check = std::optional<SpecError>;

class Context {
 public:
  explicit Context(const LineIndex* index) : index_(index) {}
  [[nodiscard]] SpecError error(const std::string& pointer, std::string message) const {
    return {index_ ? line_of(*index_, pointer) : 0, pointer, std::move(message)};
  }

 private:
  const LineIndex* index_;
};

bool is_nickname(std::string_view s) {
  return !s.empty() && s.size() <= 19 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

bool is_proxy_name(std::string_view s) {
  return !s.empty() && s.size() <= 32 && s.front() != '-' && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-';
  });
}

bool is_file_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && s.front() != '.' && s != "index.html" &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
         });
}

// Text that goes into a torrc line as is: printable ASCII only, so no value
// can end its line and start another option.
bool is_torrc_text(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Check check_rate(const Context& cx, const std::string& pointer, const std::string& rate) {
  if (rate.empty()) return std::nullopt;
  if (!is_torrc_text(rate)) return cx.error(pointer, "control characters in a bandwidth rate");
  auto bytes = config::parse_memunit(rate);
  if (!bytes) return cx.error(pointer, "not a bandwidth rate (\"100 KBytes\", \"1 MByte\"): " + bytes.error());
  if (*bytes == 0 || *bytes > 2147483647) return cx.error(pointer, "a bandwidth rate must be 1 byte to 2147483647 bytes");
  return std::nullopt;
}

Check check_link(const Context& cx, const std::string& p, const HostLinkSpec& l) {
  if (!(l.latency_ms >= 0 && l.latency_ms <= 10000)) return cx.error(p + "/latency_ms", "milliseconds, 0 to 10000");
  if (!(l.jitter_ms >= 0 && l.jitter_ms <= 10000)) return cx.error(p + "/jitter_ms", "milliseconds, 0 to 10000");
  if (!(l.loss >= 0 && l.loss <= 0.5)) return cx.error(p + "/loss", "a probability, 0 to 0.5");
  return check_rate(cx, p + "/rate", l.rate);
}

// Host names are the processes' names exactly (the router's config and
// network.json use them as they are).
Check check_emulation(const Context& cx, const NetSpec& s) {
  const EmulationSpec& e = *s.emulation;
  if (s.file_origins != 1)
    return cx.error("/file_origins", "1 in an emulated network (the file server has one address there)");
  std::set<std::string> names;
  for (const auto& p : plan_processes(s))
    if (p.role != Role::Router) names.insert(p.name);
  if (!parse_subnet24(e.subnet))
    return cx.error("/emulation/subnet", "a private /24: \"10.X.Y.0/24\", \"172.16-31.Y.0/24\" or \"192.168.Y.0/24\"");
  if (auto err = check_link(cx, "/emulation/default", e.defaults)) return err;
  for (const auto& [name, link] : e.hosts) {
    const auto p = "/emulation/hosts/" + pointer_token(name);
    if (!names.contains(name)) return cx.error(p, "no process is named '" + name + "'");
    if (auto err = check_link(cx, p, link)) return err;
  }
  return std::nullopt;
}

// Each named relay or proxy exists and each implementation is known. A stock
// tor proxy is a tor client (tor's own Conflux when "conflux" is true); it
// takes no bridges here.
Check check_implementations(const NetSpec& s, const Context& cx) {
  bool stock = false;
  for (const auto& [name, impl] : s.implementation) {
    const auto p = "/implementation/" + pointer_token(name);
    bool known = false;
    for (unsigned i = 1; i <= s.relays - s.exits; ++i) known = known || name == "relay" + std::to_string(i);
    for (unsigned i = 1; i <= s.exits; ++i) known = known || name == "exit" + std::to_string(i);
    const ProxySpec* proxy = nullptr;
    for (const auto& x : s.proxies)
      if (x.name == name) proxy = &x;
    if (!known && !proxy)
      return cx.error(p, "names no relay, exit or proxy of this network (relay1.., exit1.., a proxy's name; "
                         "authorities and bridges are always conflux-relay)");
    if (impl != "conflux" && impl != "tor") return cx.error(p, "\"conflux\" (ours) or \"tor\" (stock tor)");
    if (proxy && impl == "tor" && proxy->use_bridges)
      return cx.error(p, "a stock tor proxy uses the network's guards, not its bridges (\"use_bridges\": false)");
    stock = stock || impl == "tor";
  }
  if (!stock) return std::nullopt;
  if (s.tor.empty() || s.tor.front() != '/') return cx.error("/tor", "an absolute path to tor");
  return std::nullopt;
}

// Each name is a relay the consensus lists (bridges are in none), once.
Check check_guard_relays(const NetSpec& s, const Context& cx) {
  const auto names = listed_relay_names(s);
  const std::set<std::string> listed(names.begin(), names.end());
  std::set<std::string> seen;
  for (std::size_t i = 0; i < s.guard_relays.size(); ++i) {
    const auto& name = s.guard_relays[i];
    const auto p = "/guard_relays/" + std::to_string(i);
    if (!listed.contains(name))
      return cx.error(p, "names no authority, relay or exit of this network (auth1.., relay1.., exit1..)");
    if (!seen.insert(name).second) return cx.error(p, "'" + name + "' is listed twice");
  }
  return std::nullopt;
}

// "link": an emulated network where every listed relay has a link rate;
// an object: listed relays, each with a rate.
Check check_measured_bandwidths(const NetSpec& s, const Context& cx) {
  const MeasuredBandwidthsSpec& m = *s.measured_bandwidths;
  const std::string p = "/measured_bandwidths";
  const auto listed = listed_relay_names(s);
  if (m.link) {
    if (!s.emulation) return cx.error(p, "\"link\" needs an emulated network (\"emulation\"): links have no rate on loopback");
    for (const auto& name : listed) {
      auto it = s.emulation->hosts.find(name);
      const auto& rate = it != s.emulation->hosts.end() ? it->second.rate : s.emulation->defaults.rate;
      if (rate.empty())
        return cx.error(p, "\"link\": '" + name + "' has no link rate (give it one, or a default rate, in \"emulation\")");
    }
    return std::nullopt;
  }
  for (const auto& [name, rate] : m.rates) {
    const auto q = p + "/" + pointer_token(name);
    if (std::find(listed.begin(), listed.end(), name) == listed.end())
      return cx.error(q, "names no authority, relay or exit of this network (auth1.., relay1.., exit1..)");
    if (rate.empty()) return cx.error(q, "a rate (\"2 MBytes\")");
    if (auto e = check_rate(cx, q, rate)) return e;
  }
  return std::nullopt;
}

Check validate(const NetSpec& s, const Context& cx) {
  if (s.authorities < 1 || s.authorities > kMaxAuthorities)
    return cx.error("/authorities", "must be 1 to " + std::to_string(kMaxAuthorities));
  if (s.relays > kMaxRelays) return cx.error("/relays", "at most " + std::to_string(kMaxRelays));
  if (s.exits > s.relays) return cx.error("/exits", "more exits than relays (exits are counted among the relays)");
  if (s.relay_bandwidth_rate == kLinkRate) {
    if (!s.emulation) return cx.error("/relay_bandwidth_rate", "\"link\" needs an emulated network (\"emulation\")");
  } else if (auto e = check_rate(cx, "/relay_bandwidth_rate", s.relay_bandwidth_rate)) {
    return e;
  }
  if (s.consensus_interval < 10 || s.consensus_interval > 86400 || 86400 % s.consensus_interval != 0)
    return cx.error("/consensus_interval", "seconds, 10 to 86400, dividing a day");
  if (s.file_origins < 1 || s.file_origins > kMaxFileOrigins)
    return cx.error("/file_origins", "must be 1 to " + std::to_string(kMaxFileOrigins));
  for (std::size_t i = 0; i < s.relay_options.size(); ++i) {
    if (!is_torrc_text(s.relay_options[i]) || s.relay_options[i].empty())
      return cx.error("/relay_options/" + std::to_string(i), "an empty line or control characters in a torrc line");
  }
  for (std::size_t i = 0; i < s.exit_policy.size(); ++i) {
    const auto& line = s.exit_policy[i];
    const auto p = "/exit_policy/" + std::to_string(i);
    if (!is_torrc_text(line)) return cx.error(p, "control characters in an exit policy line");
    if (line.rfind("accept ", 0) != 0 && line.rfind("reject ", 0) != 0)
      return cx.error(p, "an exit policy line starts with \"accept \" or \"reject \"");
  }

  // Every process has a directory named after it, so names are unique
  // (ignoring case, as file systems and people may).
  std::set<std::string> names;
  for (unsigned i = 1; i <= s.authorities; ++i) names.insert("auth" + std::to_string(i));
  for (unsigned i = 1; i <= s.relays - s.exits; ++i) names.insert("relay" + std::to_string(i));
  for (unsigned i = 1; i <= s.exits; ++i) names.insert("exit" + std::to_string(i));
  names.insert(std::string(kFilesDirName));
  names.insert(std::string(kFileServerName));
  if (s.emulation) names.insert(std::string(kRouterName));
  auto taken = [&](const std::string& name) { return !names.insert(lower(name)).second; };

  if (s.bridges.size() > kMaxBridges) return cx.error("/bridges", "at most " + std::to_string(kMaxBridges));
  for (std::size_t i = 0; i < s.bridges.size(); ++i) {
    const auto p = "/bridges/" + std::to_string(i);
    const auto& b = s.bridges[i];
    if (!is_nickname(b.name)) return cx.error(p + "/name", "a bridge's name is its nickname: 1-19 letters and digits");
    if (taken(b.name)) return cx.error(p + "/name", "the name '" + b.name + "' is already used");
    if (auto e = check_rate(cx, p + "/bandwidth_rate", b.bandwidth_rate)) return e;
    if (!b.transport.empty() && b.transport != "obfs4")
      return cx.error(p + "/transport", "\"obfs4\" or none (a plain bridge)");
    if (!b.transport.empty() && (s.obfs4proxy.empty() || s.obfs4proxy.front() != '/'))
      return cx.error("/obfs4proxy", "an absolute path to obfs4proxy");
  }

  if (s.proxies.size() > kMaxProxies) return cx.error("/proxies", "at most " + std::to_string(kMaxProxies));
  for (std::size_t i = 0; i < s.proxies.size(); ++i) {
    const auto p = "/proxies/" + std::to_string(i);
    const auto& x = s.proxies[i];
    if (!is_proxy_name(x.name))
      return cx.error(p + "/name", "a proxy's name: 1-32 letters, digits and '-', not starting with '-'");
    if (taken(x.name)) return cx.error(p + "/name", "the name '" + x.name + "' is already used");
    if (x.use_bridges && s.bridges.empty()) return cx.error(p + "/use_bridges", "the spec has no bridges");
    if (!x.use_bridges && (s.relays < 3 || s.exits < 1))
      return cx.error(p, "a proxy needs at least 3 relays, one of them an exit");
    if (x.use_bridges && (s.relays < 2 || s.exits < 1))
      return cx.error(p, "a bridge-using proxy needs at least 2 relays, one of them an exit");
  }

  if (auto e = check_implementations(s, cx)) return e;
  if (auto e = check_guard_relays(s, cx)) return e;
  if (s.measured_bandwidths)
    if (auto e = check_measured_bandwidths(s, cx)) return e;

  if (s.files.size() > kMaxFiles) return cx.error("/files", "at most " + std::to_string(kMaxFiles));
  std::set<std::string> file_names;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < s.files.size(); ++i) {
    const auto p = "/files/" + std::to_string(i);
    const auto& f = s.files[i];
    if (!is_file_name(f.name))
      return cx.error(p + "/name", "1-64 letters, digits, '.', '_' and '-', not starting with '.', not index.html");
    if (!file_names.insert(f.name).second) return cx.error(p + "/name", "the file '" + f.name + "' is already listed");
    if (f.size > kMaxFileSize) return cx.error(p + "/size", "at most " + std::to_string(kMaxFileSize) + " bytes");
    total += f.size;
    if (total > kMaxTotalFileSize)
      return cx.error(p + "/size", "the files add up to more than " + std::to_string(kMaxTotalFileSize) + " bytes");
  }
  if (s.emulation) return check_emulation(cx, s);
  return std::nullopt;
}

// ---- reading JSON fields, each error naming its pointer ----

Check check_keys(const Context& cx, const Json& obj, const std::string& pointer,
                 std::initializer_list<std::string_view> known) {
  if (!obj.is_object()) return cx.error(pointer.empty() ? "/" : pointer, "expected an object");
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return cx.error(pointer + "/" + pointer_token(key), "unknown field (known: " + list + ")");
  }
  return std::nullopt;
}

Check read_uint(const Context& cx, const Json& obj, std::string_view key, const std::string& pointer,
                std::uint64_t max, std::uint64_t& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  const auto p = pointer + "/" + std::string(key);
  if (!it->is_number_unsigned()) return cx.error(p, "expected a whole number >= 0");
  const auto v = it->get<std::uint64_t>();
  if (v > max) return cx.error(p, "at most " + std::to_string(max));
  out = v;
  return std::nullopt;
}

Check read_unsigned(const Context& cx, const Json& obj, std::string_view key, const std::string& pointer,
                    unsigned& out) {
  std::uint64_t v = out;
  if (auto e = read_uint(cx, obj, key, pointer, 1'000'000, v)) return e;
  out = static_cast<unsigned>(v);
  return std::nullopt;
}

Check read_string(const Context& cx, const Json& obj, std::string_view key, const std::string& pointer,
                  std::string& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_string()) return cx.error(pointer + "/" + std::string(key), "expected a string");
  out = it->get<std::string>();
  return std::nullopt;
}

Check read_bool(const Context& cx, const Json& obj, std::string_view key, const std::string& pointer, bool& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_boolean()) return cx.error(pointer + "/" + std::string(key), "expected true or false");
  out = it->get<bool>();
  return std::nullopt;
}

Check read_number(const Context& cx, const Json& obj, std::string_view key, const std::string& pointer, double& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_number()) return cx.error(pointer + "/" + std::string(key), "expected a number");
  out = it->get<double>();
  return std::nullopt;
}

// A link's fields over `link` (the default's values, for a host).
Check read_link(const Context& cx, const Json& v, const std::string& p, HostLinkSpec& link) {
  if (auto e = check_keys(cx, v, p, {"latency_ms", "jitter_ms", "loss", "rate"})) return e;
  if (auto e = read_number(cx, v, "latency_ms", p, link.latency_ms)) return e;
  if (auto e = read_number(cx, v, "jitter_ms", p, link.jitter_ms)) return e;
  if (auto e = read_number(cx, v, "loss", p, link.loss)) return e;
  return read_string(cx, v, "rate", p, link.rate);
}

Check read_emulation(const Context& cx, const Json& j, std::optional<EmulationSpec>& out) {
  auto it = j.find("emulation");
  if (it == j.end()) return std::nullopt;
  const std::string p = "/emulation";
  if (it->is_null()) return std::nullopt;  // the default: loopback
  if (auto e = check_keys(cx, *it, p, {"subnet", "seed", "mtu", "tcp_congestion_control", "default", "hosts"}))
    return e;
  EmulationSpec em;
  if (auto e = read_string(cx, *it, "subnet", p, em.subnet)) return e;
  if (auto e = read_uint(cx, *it, "seed", p, UINT64_MAX, em.seed)) return e;
  std::uint64_t mtu = em.mtu;
  if (auto e = read_uint(cx, *it, "mtu", p, kMaxMtu, mtu)) return e;
  em.mtu = static_cast<unsigned>(mtu);
  if (em.mtu < kMinMtu) return cx.error(p + "/mtu", "bytes, " + std::to_string(kMinMtu) + " to " + std::to_string(kMaxMtu));
  if (auto e = read_string(cx, *it, "tcp_congestion_control", p, em.tcp_congestion_control)) return e;
  if (!is_congestion_control_name(em.tcp_congestion_control))
    return cx.error(p + "/tcp_congestion_control", "an algorithm's name (\"reno\", \"cubic\", \"bbr\"): 1-15 of a-z, 0-9, _");
  if (it->contains("default"))
    if (auto e = read_link(cx, (*it)["default"], p + "/default", em.defaults)) return e;
  if (it->contains("hosts")) {
    const auto& hosts = (*it)["hosts"];
    if (!hosts.is_object()) return cx.error(p + "/hosts", "expected an object: process name -> link");
    if (hosts.size() > kMaxAuthorities + kMaxRelays + kMaxBridges + kMaxProxies + 1)
      return cx.error(p + "/hosts", "more hosts than processes");
    for (const auto& [name, v] : hosts.items()) {
      HostLinkSpec link = em.defaults;
      if (auto e = read_link(cx, v, p + "/hosts/" + pointer_token(name), link)) return e;
      em.hosts[name] = link;
    }
  }
  out = std::move(em);
  return std::nullopt;
}

// An array field; `each` reads one element at its pointer.
template <class T, class F>
Check read_array(const Context& cx, const Json& obj, std::string_view key, std::size_t max, std::vector<T>& out,
                 F each, std::string_view parent = "") {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  const auto p = std::string(parent) + "/" + std::string(key);
  if (!it->is_array()) return cx.error(p, "expected an array");
  if (it->size() > max) return cx.error(p, "at most " + std::to_string(max) + " entries");
  out.clear();
  for (std::size_t i = 0; i < it->size(); ++i) {
    T item{};
    if (auto e = each((*it)[i], p + "/" + std::to_string(i), item)) return e;
    out.push_back(std::move(item));
  }
  return std::nullopt;
}

// {"relay2": "tor", ...}: names and values are checked by validate().
Check read_implementations(const Context& cx, const Json& j, std::map<std::string, std::string>& out) {
  auto it = j.find("implementation");
  if (it == j.end()) return std::nullopt;
  if (!it->is_object()) return cx.error("/implementation", "expected an object: {\"relay1\": \"tor\", ...}");
  if (it->size() > kMaxRelays) return cx.error("/implementation", "at most " + std::to_string(kMaxRelays) + " entries");
  out.clear();
  for (const auto& [name, value] : it->items()) {
    if (!value.is_string()) return cx.error("/implementation/" + pointer_token(name), "expected a string");
    out[name] = value.get<std::string>();
  }
  return std::nullopt;
}

// "link", or {"relay1": "2 MBytes", ...}; names and rates are checked by validate().
Check read_measured_bandwidths(const Context& cx, const Json& j, std::optional<MeasuredBandwidthsSpec>& out) {
  auto it = j.find("measured_bandwidths");
  if (it == j.end() || it->is_null()) return std::nullopt;
  const std::string p = "/measured_bandwidths";
  MeasuredBandwidthsSpec m;
  if (it->is_string()) {
    if (it->get<std::string>() != "link") return cx.error(p, "\"link\", or an object: relay name -> rate");
    m.link = true;
  } else if (it->is_object()) {
    if (it->size() > kMaxAuthorities + kMaxRelays) return cx.error(p, "more entries than relays");
    for (const auto& [name, value] : it->items()) {
      if (!value.is_string()) return cx.error(p + "/" + pointer_token(name), "expected a rate (\"2 MBytes\")");
      m.rates[name] = value.get<std::string>();
    }
  } else {
    return cx.error(p, "\"link\", or an object: relay name -> rate");
  }
  out = std::move(m);
  return std::nullopt;
}

Check read_spec(const Context& cx, const Json& j, NetSpec& s) {
  if (auto e = check_keys(cx, j, "",
                          {"authorities", "relays", "exits", "relay_bandwidth_rate", "consensus_interval",
                           "exit_policy", "relay_options", "bridges", "proxies", "files", "file_seed", "file_origins",
                           "obfs4proxy", "directory", "emulation", "implementation", "tor", "guard_relays",
                           "log_detail", "measured_bandwidths"}))
    return e;
  if (auto e = read_measured_bandwidths(cx, j, s.measured_bandwidths)) return e;
  if (auto e = read_emulation(cx, j, s.emulation)) return e;
  if (auto e = read_string(cx, j, "obfs4proxy", "", s.obfs4proxy)) return e;
  if (auto e = read_string(cx, j, "tor", "", s.tor)) return e;
  if (auto e = read_string(cx, j, "log_detail", "", s.log_detail)) return e;
  if (!s.log_detail.empty() && s.log_detail != "info" && s.log_detail != "debug")
    return cx.error("/log_detail", "\"info\", \"debug\" or \"\"");
  if (auto e = read_implementations(cx, j, s.implementation)) return e;
  // Every network runs on tor's directory since the JSON one retired (issue
  // 15); "directory": "tor" in an older spec still reads.
  std::string directory = "tor";
  if (auto e = read_string(cx, j, "directory", "", directory)) return e;
  if (directory != "tor") return cx.error("/directory", "\"tor\" (the JSON directory retired)");
  if (auto e = read_unsigned(cx, j, "authorities", "", s.authorities)) return e;
  if (auto e = read_unsigned(cx, j, "relays", "", s.relays)) return e;
  if (auto e = read_unsigned(cx, j, "exits", "", s.exits)) return e;
  if (auto e = read_string(cx, j, "relay_bandwidth_rate", "", s.relay_bandwidth_rate)) return e;
  if (auto e = read_unsigned(cx, j, "consensus_interval", "", s.consensus_interval)) return e;
  if (auto e = read_uint(cx, j, "file_seed", "", UINT64_MAX, s.file_seed)) return e;
  if (auto e = read_unsigned(cx, j, "file_origins", "", s.file_origins)) return e;
  if (auto e = read_array(cx, j, "exit_policy", 64, s.exit_policy,
                          [&](const Json& v, const std::string& p, std::string& out) -> Check {
                            if (!v.is_string()) return cx.error(p, "expected a string");
                            out = v.get<std::string>();
                            return std::nullopt;
                          }))
    return e;
  if (auto e = read_array(cx, j, "relay_options", 64, s.relay_options,
                          [&](const Json& v, const std::string& p, std::string& out) -> Check {
                            if (!v.is_string()) return cx.error(p, "expected a string");
                            out = v.get<std::string>();
                            return std::nullopt;
                          }))
    return e;
  if (auto e = read_array(cx, j, "guard_relays", kMaxAuthorities + kMaxRelays, s.guard_relays,
                          [&](const Json& v, const std::string& p, std::string& out) -> Check {
                            if (!v.is_string()) return cx.error(p, "expected a string");
                            out = v.get<std::string>();
                            return std::nullopt;
                          }))
    return e;
  if (auto e = read_array(cx, j, "bridges", kMaxBridges, s.bridges,
                          [&](const Json& v, const std::string& p, BridgeSpec& b) -> Check {
                            if (auto e2 = check_keys(cx, v, p, {"name", "bandwidth_rate", "transport"})) return e2;
                            if (!v.contains("name")) return cx.error(p, "a bridge needs a \"name\"");
                            if (auto e2 = read_string(cx, v, "name", p, b.name)) return e2;
                            if (auto e2 = read_string(cx, v, "transport", p, b.transport)) return e2;
                            return read_string(cx, v, "bandwidth_rate", p, b.bandwidth_rate);
                          }))
    return e;
  if (auto e = read_array(cx, j, "proxies", kMaxProxies, s.proxies,
                          [&](const Json& v, const std::string& p, ProxySpec& x) -> Check {
                            x = ProxySpec{};
                            if (auto e2 = check_keys(cx, v, p, {"name", "start", "use_bridges", "conflux", "options"}))
                              return e2;
                            if (!v.contains("name")) return cx.error(p, "a proxy needs a \"name\"");
                            if (auto e2 = read_string(cx, v, "name", p, x.name)) return e2;
                            if (auto e2 = read_bool(cx, v, "start", p, x.start)) return e2;
                            if (auto e2 = read_bool(cx, v, "use_bridges", p, x.use_bridges)) return e2;
                            if (auto e2 = read_bool(cx, v, "conflux", p, x.conflux)) return e2;
                            return read_array(cx, v, "options", 64, x.options,
                                              [&](const Json& o, const std::string& op, std::string& out) -> Check {
                                                if (!o.is_string()) return cx.error(op, "expected a string");
                                                out = o.get<std::string>();
                                                return std::nullopt;
                                              },
                                              p);
                          }))
    return e;
  return read_array(cx, j, "files", kMaxFiles, s.files,
                    [&](const Json& v, const std::string& p, FileSpec& f) -> Check {
                      if (auto e2 = check_keys(cx, v, p, {"name", "size"})) return e2;
                      if (!v.contains("name") || !v.contains("size"))
                        return cx.error(p, "a file needs a \"name\" and a \"size\"");
                      if (auto e2 = read_string(cx, v, "name", p, f.name)) return e2;
                      const auto& size = v["size"];
                      if (size.is_string()) {
                        auto bytes = config::parse_memunit(size.get<std::string>());
                        if (!bytes) return cx.error(p + "/size", "not a size (bytes, or \"5 MB\"): " + bytes.error());
                        f.size = *bytes;
                        return std::nullopt;
                      }
                      return read_uint(cx, v, "size", p, kMaxFileSize, f.size);
                    });
}

}  // namespace

Result<NetSpec, SpecError> parse_spec(std::string_view json_text) {
  if (json_text.size() > kMaxSpecSize)
    return Unexpected{SpecError{0, "", "larger than " + std::to_string(kMaxSpecSize) + " bytes"}};
  Json j;
  try {
    j = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& e) {
    // nlohmann's message says "parse error at line L, column C: why"; keep
    // the why and give the line our way.
    std::string why = e.what();
    if (auto at = why.find(": ", why.find("column")); at != std::string::npos) why = why.substr(at + 2);
    // e.byte is the 1-based offset of the last character read.
    const auto before = json_text.substr(0, std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, json_text.size()));
    const auto line = static_cast<unsigned>(std::count(before.begin(), before.end(), '\n')) + 1;
    return Unexpected{SpecError{line, "", "invalid JSON: " + why}};
  } catch (const Json::exception& e) {
    // A number too large for any type (out_of_range 406) has no position.
    return Unexpected{SpecError{0, "", std::string("invalid JSON: ") + e.what()}};
  }
  const LineIndex index = index_json_lines(json_text);
  const Context cx(&index);
  NetSpec s = default_spec();
  if (auto e = read_spec(cx, j, s)) return Unexpected{std::move(*e)};
  if (auto e = validate(s, cx)) return Unexpected{std::move(*e)};
  return s;
}

std::optional<std::uint32_t> parse_subnet24(std::string_view subnet) {
  unsigned a = 0, b = 0, c = 0, d = 0, len = 0;
  char tail = 0;
  const std::string text(subnet.substr(0, 32));
  if (subnet.size() > 18 || std::sscanf(text.c_str(), "%3u.%3u.%3u.%3u/%2u%c", &a, &b, &c, &d, &len, &tail) != 5)
    return std::nullopt;
  if (b > 255 || c > 255 || d != 0 || len != 24) return std::nullopt;
  const bool is_private = a == 10 || (a == 172 && b >= 16 && b <= 31) || (a == 192 && b == 168);
  if (!is_private) return std::nullopt;
  const auto address = (a << 24) | (b << 16) | (c << 8);
  if (ipv4_text(address) + "/24" != subnet) return std::nullopt;  // one spelling: no "010.", no "+1"
  return address;
}

std::string ipv4_text(std::uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xff) + "." +
         std::to_string((address >> 8) & 0xff) + "." + std::to_string(address & 0xff);
}

Result<NetSpec, SpecError> validate_spec(NetSpec spec) {
  if (auto e = validate(spec, Context(nullptr))) return Unexpected{std::move(*e)};
  return spec;
}

bool runs_stock_tor(const NetSpec& spec, std::string_view name) {
  const auto it = spec.implementation.find(std::string(name));
  return it != spec.implementation.end() && it->second == "tor";
}

std::vector<std::string> listed_relay_names(const NetSpec& s) {
  std::vector<std::string> out;
  for (unsigned i = 1; i <= s.authorities; ++i) out.push_back("auth" + std::to_string(i));
  for (unsigned i = 1; i + s.exits <= s.relays; ++i) out.push_back("relay" + std::to_string(i));
  for (unsigned i = 1; i <= s.exits; ++i) out.push_back("exit" + std::to_string(i));
  return out;
}

}  // namespace conflux::netspec
