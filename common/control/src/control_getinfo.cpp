#include "conflux/control/control_getinfo.hpp"

#include <vector>

#include "conflux/control/control_args.hpp"
#include "conflux/control/control_reply.hpp"

namespace conflux::control {

void ControlInfo::add(std::string key, std::string help, Provider provider, Missing missing) {
  exact_[std::move(key)] = Entry{std::move(help), std::move(provider), missing};
}

void ControlInfo::add_prefix(std::string prefix, std::string help, Provider provider, Missing missing, Check check) {
  prefixes_[std::move(prefix)] = Entry{std::move(help), std::move(provider), missing, std::move(check)};
}

// nullopt: no such key. A Found without a value: a known key without one now.
std::optional<ControlInfo::Found> ControlInfo::lookup(std::string_view key) const {
  if (key == "info/names") return Found{names()};
  if (auto it = exact_.find(key); it != exact_.end()) return Found{it->second.provider(key), it->second.missing};
  for (const auto& [prefix, entry] : prefixes_)
    if (key.size() > prefix.size() && key.starts_with(prefix)) {
      const auto arg = key.substr(prefix.size());
      if (entry.check)
        if (auto why = entry.check(arg)) return Found{std::nullopt, entry.missing, std::move(why)};
      return Found{entry.provider(arg), entry.missing};
    }
  return std::nullopt;
}

ControlAnswer ControlInfo::getinfo(std::string_view args) const {
  auto parsed = parse_control_args(args);
  if (!parsed || parsed->empty()) return {control_line(512, "Missing key for GETINFO"), false};
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& a : *parsed) {
    const std::string key = a.key ? *a.key + "=" + a.value : a.value;
    auto v = lookup(key);
    if (v && v->error) return {control_line(551, *v->error), false};
    if (!v || (!v->value && v->missing == Missing::Unrecognized))
      return {control_line(552, "Unrecognized key \"" + key + "\""), false};
    if (!v->value) return {control_line(551, "Unable to answer \"" + key + "\" now"), false};
    values.emplace_back(key, std::move(*v->value));
  }
  ControlReply r;
  for (const auto& [key, value] : values) {
    if (value.find('\n') == std::string::npos) {
      r.mid(250, key + "=" + value);
    } else {
      r.data(250, key, value);
    }
  }
  return {r.end(250, "OK"), false};
}

std::string ControlInfo::names() const {
  std::map<std::string, std::string> all;
  all["info/names"] = "List of GETINFO options, types, and documentation.";
  for (const auto& [key, e] : exact_) all[key] = e.help;
  for (const auto& [prefix, e] : prefixes_) all[prefix + "*"] = e.help;
  std::string out;
  for (const auto& [key, help] : all) out += key + " -- " + help + "\n";
  return out;
}

}  // namespace conflux::control
