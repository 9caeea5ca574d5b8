#pragma once
// One row of a program's option table, for any options struct (RelayOptions,
// ProxyOptions): name, alias, whether it may repeat, its parser, its
// documentation. The tables drive parsing (option_builder.hpp),
// --list-torrc-options and docs/CONFIG.md.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/config/error.hpp"
#include "conflux/config/torrc_parser.hpp"

namespace conflux::config {

using ConfigErrors = std::vector<ConfigError>;

// Where an option's meaning stands relative to tor's option of the same name.
enum class TorCompat : std::uint8_t { Same, Restricted, Ours };

template <class Options>
struct BasicOptionSpec {
  std::string_view name;   // canonical spelling
  std::string_view alias;  // another accepted name, or empty
  bool repeatable;         // a list option: every line counts
  // Parses one non-empty value into the options; returns an error message.
  std::optional<std::string> (*apply)(Options&, const ConfigEntry&);
  // Restores the default (singletons given an empty value).
  void (*reset)(Options&);
  std::string_view type;
  std::string_view default_text;
  TorCompat compat;
  std::string_view summary;
};

// The row whose name or alias equals `key` (case-insensitively), or null.
template <class Options>
[[nodiscard]] const BasicOptionSpec<Options>* find_option(std::span<const BasicOptionSpec<Options>> table,
                                                          std::string_view key) noexcept {
  for (const auto& o : table)
    if (key_equals(o.name, key) || (!o.alias.empty() && key_equals(o.alias, key))) return &o;
  return nullptr;
}

// For --list-torrc-options: every name and alias, one per line, in table order.
template <class Options>
[[nodiscard]] std::string list_options(std::span<const BasicOptionSpec<Options>> table) {
  std::string out;
  for (const auto& o : table) {
    out.append(o.name).push_back('\n');
    if (!o.alias.empty()) out.append(o.alias).push_back('\n');
  }
  return out;
}

}  // namespace conflux::config
