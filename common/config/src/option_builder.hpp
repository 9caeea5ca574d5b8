#pragma once
// The entry loop every program's options share: each merged entry is looked
// up in the program's table and applied, with tor's rules (unknown option:
// error with file:line; empty value: a singleton is reset, a list line is
// skipped with a warning; a repeated singleton: the last line wins, with a
// warning). The builder remembers each option's last line so that
// cross-option checks can point at it.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/config/address.hpp"
#include "conflux/config/command_line.hpp"
#include "conflux/config/error.hpp"
#include "conflux/config/file_source.hpp"
#include "conflux/config/option_spec.hpp"
#include "conflux/config/option_values.hpp"
#include "conflux/config/torrc_parser.hpp"

namespace conflux::config {

class OptionBuilder {
 public:
  explicit OptionBuilder(std::string_view main_source) : main_(main_source) {}

  // Options must have a `std::vector<ConfigError> warnings` member.
  template <class Options>
  void entry(Options& o, std::span<const BasicOptionSpec<Options>> table, const ConfigEntry& e) {
    if (key_equals(e.key, kIncludeKey)) {
      errors_.emplace_back(e.where, "%include was not resolved (parse with a FileSource)");
      return;
    }
    const auto* spec = find_option(table, e.key);
    if (spec == nullptr) {
      errors_.emplace_back(e.where, "unknown option '" + e.key + "'");
      return;
    }
    if (e.value.empty()) {
      if (spec->repeatable) {
        o.warnings.emplace_back(e.where, std::string(spec->name) + " has no value; line skipped");
      } else {
        spec->reset(o);
        seen_[spec->name] = e.where;
      }
      return;
    }
    if (!spec->repeatable && seen(spec->name))
      o.warnings.emplace_back(e.where, std::string(spec->name) + " is given more than once; the last value wins");
    if (auto err = spec->apply(o, e)) errors_.emplace_back(e.where, std::string(spec->name) + ": " + *err);
    seen_[spec->name] = e.where;
  }

  // Whether a line of the option (canonical name) was applied or reset.
  [[nodiscard]] bool seen(std::string_view option) const { return seen_.count(option) != 0; }
  // The option's last line, or the configuration as a whole (line 0).
  [[nodiscard]] SourcePos pos(std::string_view option) const;
  void error(std::string_view option, std::string message) { error_at(pos(option), std::move(message)); }
  void error_at(const SourcePos& where, std::string message) { errors_.emplace_back(where, std::move(message)); }
  [[nodiscard]] ConfigErrors take_errors() { return std::move(errors_); }

 private:
  std::string main_;
  std::map<std::string_view, SourcePos, std::less<>> seen_;  // canonical name -> last line
  ConfigErrors errors_;
};

// Checks both programs make: no two DirAuthority lines share a nickname or
// an identity (error); a MetricsPort beyond loopback (warning).
void check_dir_authorities(OptionBuilder& b, const std::vector<DirAuthorityLine>& authorities);
void warn_public_metrics(const OptionBuilder& b, const std::vector<PortConfig>& ports, ConfigErrors& warnings);

// Entries of one layer: Append/Clear ops applied, ready for OptionBuilder.
[[nodiscard]] Entries single_layer(const Entries& entries);

// --defaults-torrc, the torrc (with includes) and the command-line overrides,
// merged. A missing torrc is an error when given with -f (unless
// --ignore-missing-torrc) and skipped when it is only the default path.
[[nodiscard]] Result<Entries, ConfigErrors> load_layers(const CommandLine& cl, const FileSource& files);
// What errors that belong to no line are attributed to: the torrc path, or
// the command line when there is no torrc.
[[nodiscard]] std::string_view main_source(const CommandLine& cl) noexcept;

}  // namespace conflux::config
