#include "conflux/gui/status_parsing.hpp"

#include <charconv>
#include <regex>

#include "conflux/config/values.hpp"
#include "conflux/control/control_args.hpp"

namespace conflux::gui {

namespace {

template <class T>
bool number(std::string_view s, T& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

}  // namespace

std::optional<BootstrapPhase> parse_bootstrap_phase(std::string_view text) {
  auto args = control::parse_control_args(text);
  if (!args || args->size() < 3 || (*args)[1].key || (*args)[1].value != "BOOTSTRAP") return std::nullopt;
  BootstrapPhase p;
  bool have_progress = false;
  for (const auto& a : *args) {
    if (!a.key) continue;
    if (*a.key == "PROGRESS") have_progress = number(a.value, p.progress);
    if (*a.key == "TAG") p.tag = a.value;
    if (*a.key == "SUMMARY") p.summary = a.value;
    if (*a.key == "WARNING") p.warning = a.value;
  }
  if (!have_progress || p.progress < 0 || p.progress > 100) return std::nullopt;
  return p;
}

std::vector<ConfluxLeg> parse_conflux_sets(std::string_view text) {
  std::vector<ConfluxLeg> out;
  for (auto line : lines_of(text)) {
    ConfluxLeg leg;
    bool have_circ = false;
    for (auto word : config::split_words(line)) {
      const auto eq = word.find('=');
      if (eq == std::string_view::npos) continue;
      const auto key = word.substr(0, eq);
      const auto value = word.substr(eq + 1);
      if (key == "SET") (void)number(value, leg.set);
      if (key == "STATE") leg.state = std::string(value);
      if (key == "CIRC") have_circ = number(value, leg.circuit);
      if (key == "SRTT_MS") (void)number(value, leg.srtt_ms);
      if (key == "MIN_RTT_MS") (void)number(value, leg.min_rtt_ms);
      if (key == "SHARE") (void)number(value, leg.share);
      if (key == "READ") (void)number(value, leg.read);
      if (key == "WRITTEN") (void)number(value, leg.written);
    }
    if (have_circ) out.push_back(leg);
  }
  return out;
}

std::optional<LegEvent> parse_conflux_leg_event(std::string_view text) {
  const auto words = config::split_words(text);
  if (words.empty() || words[0] != "CONFLUX_LEG") return std::nullopt;
  LegEvent ev;
  bool have_circ = false;
  for (auto word : words) {
    const auto eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    const auto key = word.substr(0, eq);
    const auto value = word.substr(eq + 1);
    if (key == "SET") (void)number(value, ev.leg.set);
    if (key == "CIRC") have_circ = number(value, ev.leg.circuit);
    if (key == "STATUS") ev.status = std::string(value);
    if (key == "RTT_MS") (void)number(value, ev.leg.srtt_ms);
    if (key == "READ") (void)number(value, ev.leg.read);
    if (key == "WRITTEN") (void)number(value, ev.leg.written);
  }
  if (!have_circ || ev.status.empty()) return std::nullopt;
  return ev;
}

std::optional<CircEvent> parse_circ_event(std::string_view text) {
  const auto words = config::split_words(text);
  if (words.size() < 3 || words[0] != "CIRC") return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(words[1].data() - text.data()));  // views into text
  const auto paths = parse_circuit_paths(text);
  if (paths.size() != 1) return std::nullopt;
  return CircEvent{paths.begin()->first, std::string(words[2]), paths.begin()->second};
}

std::map<std::uint32_t, std::vector<std::string>> parse_circuit_paths(std::string_view text) {
  std::map<std::uint32_t, std::vector<std::string>> out;
  for (auto line : lines_of(text)) {
    const auto words = config::split_words(line);
    std::uint32_t id = 0;
    if (words.size() < 2 || !number(words[0], id)) continue;
    auto& hops = out[id];
    if (words.size() < 3 || words[2].find('=') != std::string_view::npos) continue;  // no path yet
    std::string_view path = words[2];
    while (!path.empty()) {
      const auto comma = path.find(',');
      auto hop = path.substr(0, comma);
      const auto tilde = hop.find('~');
      if (tilde != std::string_view::npos) hop.remove_prefix(tilde + 1);
      hops.emplace_back(hop);
      if (comma == std::string_view::npos) break;
      path.remove_prefix(comma + 1);
    }
  }
  return out;
}

std::optional<BridgeTest> parse_bridge_test_event(std::string_view text) {
  auto args = control::parse_control_args(text);
  if (!args || args->empty() || (*args)[0].key || (*args)[0].value != "CONFLUX_BRIDGE") return std::nullopt;
  BridgeTest t;
  bool have_status = false;
  for (const auto& a : *args) {
    if (!a.key) continue;
    if (*a.key == "ADDR") t.address = a.value;
    if (*a.key == "STATUS") {
      have_status = a.value == "OK" || a.value == "FAILED";
      t.ok = a.value == "OK";
    }
    if (*a.key == "MS") (void)number(std::string_view(a.value), t.ms);
    if (*a.key == "REASON") t.reason = a.value;
  }
  if (t.address.empty() || !have_status) return std::nullopt;
  return t;
}

std::optional<BandwidthSample> parse_bw_event(std::string_view text) {
  const auto words = config::split_words(text);
  BandwidthSample s;
  if (words.size() < 3 || words[0] != "BW" || !number(words[1], s.read) || !number(words[2], s.written))
    return std::nullopt;
  return s;
}

std::string first_socks_listener(std::string_view text) {
  auto args = control::parse_control_args(text);
  if (!args || args->empty() || (*args)[0].key) return {};
  return (*args)[0].value;
}

std::optional<std::pair<std::string, std::string>> parse_bridge_descriptor_notice(std::string_view line) {
  static const std::regex re(R"(Bridge (\S+) \((\S+)\): descriptor fetched and verified\.)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(line.begin(), line.end(), m, re)) return std::nullopt;
  return std::pair{m[2].str(), m[1].str()};
}

}  // namespace conflux::gui
