#pragma once
// SETCONF, RESETCONF, LOADCONF and SAVECONF on a program's torrc lines
// (control_program.hpp), as tor's options_trial_assign and
// options_save_current: a change is new lines for the options it names (the
// old lines of each go, aliases included; "Key" alone leaves none, so the
// default comes back), the program validates the whole result with the
// parser --verify-config uses, and CONF_CHANGED lists the options whose
// lines differ. SAVECONF writes the lines in torrc form under tor's header.
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/config/control_options.hpp"
#include "conflux/config/option_spec.hpp"
#include "conflux/control/control_program.hpp"

namespace conflux::config {

// Where SETCONF's lines say they come from (errors name no file line).
inline constexpr const char* kControlSource = "SETCONF";

// The lines after `settings`: the named options' old lines removed, the new
// values (in the order given) at the end. Names must be known to `table`.
template <class Options>
[[nodiscard]] Entries edited_entries(std::span<const BasicOptionSpec<Options>> table, const Entries& current,
                                     const std::vector<control::ConfigSetting>& settings) {
  auto spec_of = [table](std::string_view key) { return find_option(table, key); };
  Entries out;
  for (const auto& e : current) {
    const auto* spec = spec_of(e.key);
    bool named = false;
    for (const auto& s : settings) named = named || (spec != nullptr && spec_of(s.key) == spec);
    if (!named) out.push_back(e);
  }
  std::uint32_t n = 0;
  for (const auto& s : settings) {
    ++n;
    if (!s.value || s.value->empty()) continue;
    ConfigEntry e;
    e.key = std::string(spec_of(s.key)->name);
    e.value = *s.value;
    e.where = SourcePos{kControlSource, n};
    out.push_back(std::move(e));
  }
  return out;
}

// Every line of the option `spec` (its aliases too), values in order.
template <class Options>
[[nodiscard]] std::vector<std::string> option_values(const BasicOptionSpec<Options>& spec, const Entries& lines) {
  std::vector<std::string> out;
  for (const auto& e : lines)
    if (key_equals(e.key, spec.name) || (!spec.alias.empty() && key_equals(e.key, spec.alias))) out.push_back(e.value);
  return out;
}

// The canonical names of the options whose lines differ, in table order.
template <class Options>
[[nodiscard]] std::vector<std::string> changed_options(std::span<const BasicOptionSpec<Options>> table,
                                                       const Entries& before, const Entries& after) {
  std::vector<std::string> out;
  for (const auto& spec : table)
    if (option_values(spec, before) != option_values(spec, after)) out.emplace_back(spec.name);
  return out;
}

// CONF_CHANGED's lines (tor's control_event_conf_changed): "Key=Value" per
// line of each changed option, "Key" for one left without lines.
template <class Options>
[[nodiscard]] std::vector<std::string> conf_changed_lines(std::span<const BasicOptionSpec<Options>> table,
                                                          const Entries& after, const std::vector<std::string>& changed) {
  std::vector<std::string> out;
  for (const auto& name : changed) {
    const auto values = option_values(*find_option(table, name), after);
    if (values.empty()) out.push_back(name);
    for (const auto& v : values) out.push_back(name + "=" + v);
  }
  return out;
}

// tor's options_trial_assign: `next_lines` built by `parse` (the parser
// --verify-config uses: Entries -> Result<Options, ConfigErrors>); a bad
// one is 513 (552 for LOADCONF) with the first error's message; no change is
// 250 with `changed` empty; else `apply(Options, changed)` answers, all or
// nothing.
template <class Options, class Parse, class Apply>
[[nodiscard]] control::ConfigOutcome trial_assign(std::span<const BasicOptionSpec<Options>> table,
                                                  const Entries& current, const Entries& next_lines, bool loadconf,
                                                  Parse&& parse, Apply&& apply, std::vector<std::string>& changed) {
  changed.clear();
  auto next = parse(next_lines);
  if (!next)
    return {loadconf ? 552 : 513,
            std::string(loadconf ? "Invalid config file: " : "Unacceptable option value: ") + next.error().front().message};
  changed = changed_options(table, current, next->config_lines);
  if (changed.empty()) return {};
  return apply(std::move(*next), changed);
}

// SETCONF/RESETCONF/LOADCONF as both programs answer them: trial_assign with
// the program's `reconfigure` (a std::function; empty: nothing can change
// while running, tor's 553), and the CONF_CHANGED event's lines when it
// applied a change. `running` is the program's own lines, which
// `reconfigure` replaced by then.
struct ControllerAssign {
  control::ConfigOutcome outcome;
  std::vector<std::string> conf_changed_event;  // empty: nothing to publish
};
template <class Options, class Parse, class Reconfigure>
[[nodiscard]] ControllerAssign assign_from_controller(std::span<const BasicOptionSpec<Options>> table,
                                                      const Entries& running, const Entries& next_lines,
                                                      bool loadconf, Parse&& parse, const Reconfigure& reconfigure) {
  ControllerAssign r;
  std::vector<std::string> changed;
  r.outcome = trial_assign(
      table, running, next_lines, loadconf, std::forward<Parse>(parse),
      [&reconfigure](Options next, const std::vector<std::string>& names) -> control::ConfigOutcome {
        if (!reconfigure)
          return {553, "Transition not allowed: While Tor is running, changing " + names.front() + " is not allowed."};
        return reconfigure(std::move(next), names);
      },
      changed);
  if (r.outcome.code == 250 && !changed.empty()) {
    r.conf_changed_event = conf_changed_lines(table, running, changed);
    r.conf_changed_event.insert(r.conf_changed_event.begin(), "CONF_CHANGED");
    r.conf_changed_event.emplace_back("OK");
  }
  return r;
}

// tor's header (GENERATED_FILE_PREFIX, which marks a file SAVECONF may
// overwrite without a backup, and GENERATED_FILE_COMMENT).
inline constexpr std::string_view kGeneratedTorrcPrefix =
    "# This file was generated by Tor; if you edit it, comments will not be preserved";
inline constexpr std::string_view kGeneratedTorrcComment =
    "# The old torrc file was renamed to torrc.orig.1, and Tor will ignore it";

// What SAVECONF writes: the header, then the lines that came from the torrc,
// the command line or a controller (not those of `defaults_file`, nor
// "__" options, which tor never saves).
[[nodiscard]] std::string saved_torrc_text(const Entries& lines, std::string_view defaults_file);
// Those lines without the header: GETINFO config-text.
[[nodiscard]] std::string running_config_text(const Entries& lines, std::string_view defaults_file);

// Whether any line came from a file other than the torrc and the defaults
// file (%include): SAVECONF without FORCE refuses then, as tor's IncludeUsed.
[[nodiscard]] bool include_used(const Entries& lines, std::string_view torrc, std::string_view defaults_file);

// tor's write_configuration_file: a torrc that SAVECONF did not write (no
// prefix) is kept as PATH.orig.1 first. False, with `why`, when a step fails.
[[nodiscard]] bool write_torrc_file(const std::string& path, std::string_view text, std::string& why);

// SAVECONF [FORCE] of a program's running `lines` to control.config_file:
// 250, or 551 with `why` set for the log.
[[nodiscard]] control::ConfigOutcome save_running_config(const Entries& lines, const ControlOptions& control,
                                                         bool force, std::string& why);

}  // namespace conflux::config
