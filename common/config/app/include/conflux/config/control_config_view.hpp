#pragma once
// GETCONF and config/names (control_program.hpp) from a program's option
// table and the torrc lines it runs with: an option's value is every line
// of it (any alias, in order); without lines, what the program holds when
// `held` knows it (DataDirectory's resolved path), else the table's default
// when it is a value ("1", "auto"), else none ("250 Key").
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "conflux/config/option_spec.hpp"
#include "conflux/control/control_program.hpp"

namespace conflux::config {

template <class Options>
[[nodiscard]] control::ConfigView control_config_view(
    std::span<const BasicOptionSpec<Options>> table, const Entries& lines,
    std::function<std::optional<std::string>(std::string_view name)> held) {
  control::ConfigView view;
  for (const auto& o : table) {
    const std::string type = o.repeatable ? "LineList" : (o.type == "0|1" ? "Boolean" : "String");
    view.names.emplace_back(std::string(o.name), type);
  }
  view.lookup = [table, &lines, held = std::move(held)](std::string_view key) -> std::optional<control::ConfigValue> {
    const auto* spec = find_option(table, key);
    if (spec == nullptr) return std::nullopt;
    control::ConfigValue v{std::string(spec->name), {}};
    for (const auto& e : lines)
      if (key_equals(e.key, spec->name) || (!spec->alias.empty() && key_equals(e.key, spec->alias)))
        v.values.push_back(e.value);
    if (!v.values.empty()) return v;
    if (held)
      if (auto h = held(spec->name)) {
        v.values.push_back(*h);
        return v;
      }
    const std::string_view d = spec->default_text;
    if (!d.empty() && d.front() != '(' && d.find(' ') == std::string_view::npos && d.find('~') == std::string_view::npos)
      v.values.emplace_back(d);
    return v;
  };
  return view;
}

}  // namespace conflux::config
