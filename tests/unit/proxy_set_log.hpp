#pragma once
// What a conflux-proxy's info log and metrics say about its Conflux sets:
// the path of each leg, the legs each set linked, the set the last stream
// took, and per-leg metric samples. For the process tests, against our
// relays and stock tor's.
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "proxy_network_support.hpp"

namespace conflux::test::proxynet {

// Per-leg samples of one metric family: "set=..,leg=.." labels -> value.
inline std::map<std::string, double> per_leg(const std::string& page, const std::string& family) {
  std::map<std::string, double> out;
  const std::regex line("^" + family + "\\{([^}]*)\\} ([0-9.eE+-]+)$");
  std::istringstream in(page);
  std::string l;
  while (std::getline(in, l)) {
    std::smatch m;
    if (std::regex_match(l, m, line)) out[m[1]] = std::stod(m[2]);
  }
  return out;
}

// What the proxy's info log says about its Conflux sets.
struct SetLog {
  std::map<std::string, std::vector<std::string>> circuit_path;  // circuit serial -> relays
  std::map<std::string, std::string> leg_circuit;                 // "S/L" -> circuit serial
  std::map<std::string, std::vector<std::string>> linked;         // set -> its legs, in link order
  std::string last_stream_set;                                    // the set the last stream attached to
};

inline SetLog read_set_log(const TestProxy& proxy) {
  SetLog out;
  const auto log = conflux::test::procs::read_text(proxy.log());
  auto each = [&](const char* pattern, auto&& f) {
    const std::regex re(pattern);
    for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it) f(*it);
  };
  each("[Cc]ircuit (\\d+) launched: ([^\\n]+)", [&](const std::smatch& m) { out.circuit_path[m[1]] = split_path(m[2]); });
  each("Conflux set (\\d+) leg (\\d+) launched \\(circuit (\\d+)\\)",
       [&](const std::smatch& m) { out.leg_circuit[std::string(m[1]) + "/" + std::string(m[2])] = m[3]; });
  each("Conflux set (\\d+) linked leg (\\d+)", [&](const std::smatch& m) { out.linked[m[1]].push_back(m[2]); });
  each("Stream \\d+ attached to Conflux set (\\d+)", [&](const std::smatch& m) { out.last_stream_set = m[1]; });
  return out;
}

// The relays of leg `leg` of set `set`.
inline std::vector<std::string> leg_path(const SetLog& l, const std::string& set, const std::string& leg) {
  const auto c = l.leg_circuit.find(set + "/" + leg);
  if (c == l.leg_circuit.end()) return {};
  const auto p = l.circuit_path.find(c->second);
  return p == l.circuit_path.end() ? std::vector<std::string>{} : p->second;
}

inline double received_bytes(const TestProxy& proxy) {
  return metric(scrape(proxy.metrics_url()), "conflux_proxy_bytes_total{direction=\"received\"}").value_or(0);
}

}  // namespace conflux::test::proxynet
