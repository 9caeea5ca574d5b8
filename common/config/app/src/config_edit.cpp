#include "conflux/config/config_edit.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace conflux::config {

namespace {

// The values `lines` give `key`, from the defaults file or from the others.
std::vector<std::string> values_of(const Entries& lines, std::string_view key, std::string_view defaults_file,
                                   bool from_defaults) {
  std::vector<std::string> out;
  for (const auto& e : lines)
    if (key_equals(e.key, key) && (e.where.file == defaults_file) == from_defaults) out.push_back(e.value);
  return out;
}

}  // namespace

// tor's SAVECONF writes an option only where it differs from the defaults,
// torrc-defaults included: SETCONF DisableNetwork=1 over a defaults file's
// DisableNetwork 1 is not written (conflux-gui holds its proxy's network so).
std::string running_config_text(const Entries& lines, std::string_view defaults_file) {
  Entries kept;
  for (const auto& e : lines) {
    if (!defaults_file.empty() && e.where.file == defaults_file) continue;
    if (e.key.starts_with("__")) continue;
    if (!defaults_file.empty()) {
      const auto defaults = values_of(lines, e.key, defaults_file, true);
      if (!defaults.empty() && defaults == values_of(lines, e.key, defaults_file, false)) continue;
    }
    kept.push_back(e);
  }
  return to_torrc(kept);
}

std::string saved_torrc_text(const Entries& lines, std::string_view defaults_file) {
  return std::string(kGeneratedTorrcPrefix) + "\n" + std::string(kGeneratedTorrcComment) + "\n\n" +
         running_config_text(lines, defaults_file);
}

bool include_used(const Entries& lines, std::string_view torrc, std::string_view defaults_file) {
  for (const auto& e : lines) {
    const std::string& f = e.where.file;
    if (f == torrc || f == defaults_file || f == kCommandLineSource || f == kControlSource || f == kStringSource)
      continue;
    return true;
  }
  return false;
}

namespace {

bool starts_with_prefix(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kGeneratedTorrcPrefix.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in && head == kGeneratedTorrcPrefix;
}

}  // namespace

bool write_torrc_file(const std::string& path, std::string_view text, std::string& why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st)) {
      why = "Config file \"" + path + "\" is not a file? Failing.";
      return false;
    }
    if (!starts_with_prefix(path)) {
      const std::string backup = path + ".orig.1";
      fs::rename(path, backup, ec);
      if (ec) {
        why = "Couldn't rename configuration file \"" + path + "\" to \"" + backup + "\": " + ec.message();
        return false;
      }
    }
  }
  // Write beside it, then rename: a crash leaves the old file or the new.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      why = "Couldn't write \"" + tmp + "\": " + std::strerror(errno);
      return false;
    }
  }
  fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
  fs::rename(tmp, path, ec);
  if (ec) {
    why = "Couldn't rename \"" + tmp + "\" to \"" + path + "\": " + ec.message();
    return false;
  }
  return true;
}

control::ConfigOutcome save_running_config(const Entries& lines, const ControlOptions& control, bool force,
                                           std::string& why) {
  const control::ConfigOutcome failed{551, "Unable to write configuration to disk."};
  if (control.config_file.empty()) {
    why = "Not saving the configuration: it was not read from a torrc.";
    return failed;
  }
  if (!force && include_used(lines, control.config_file, control.defaults_file)) {
    why = "Not saving the configuration: it was read with %include (SAVECONF FORCE overwrites it).";
    return failed;
  }
  // SETCONF dropped the defaults file's lines of the options it set; they are still what "default" means.
  Entries with_defaults = lines;
  std::ifstream in(control.defaults_file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto defaults = parse_torrc_text(text, control.defaults_file); in && defaults) {
    for (const auto& d : *defaults)
      if (values_of(lines, d.key, control.defaults_file, true).empty()) with_defaults.push_back(d);
  }
  if (!write_torrc_file(control.config_file, saved_torrc_text(with_defaults, control.defaults_file), why))
    return failed;
  return {};
}

}  // namespace conflux::config
