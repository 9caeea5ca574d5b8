#include "man_sections.hpp"

#include <span>

#include "conflux/config/default_directories.hpp"
#include "conflux/config/option_spec.hpp"
#include "conflux/config/proxy_options.hpp"
#include "conflux/config/relay_options.hpp"

namespace conflux::man {
namespace {

using config::TorCompat;

std::string_view compat_words(TorCompat c) {
  switch (c) {
    case TorCompat::Same: return "as tor's option of this name";
    case TorCompat::Restricted: return "tor's meaning, fewer forms accepted";
    case TorCompat::Ours: return "not a tor option";
  }
  return "";
}

// One .TP entry per row: name (and alias), type, summary, default, tor.
template <class Options>
std::string option_entries(std::span<const config::BasicOptionSpec<Options>> table) {
  std::string out;
  for (const auto& o : table) {
    out += ".TP\n\\fB" + roff_escape(o.name) + "\\fR \\fI" + roff_escape(o.type) + "\\fR\n";
    if (!o.summary.empty()) out += roff_escape(o.summary) + ".\n";
    out += ".br\nDefault: " + roff_escape(o.default_text) + "; " + std::string(compat_words(o.compat));
    if (o.repeatable) out += "; may be repeated";
    if (!o.alias.empty()) out += "; also spelt \\fB" + roff_escape(o.alias) + "\\fR";
    out += ".\n";
  }
  return out;
}

// The command line that common/config's parse_command_line() reads, the
// same for both programs.
constexpr std::string_view kFormat =
    "[OPTIONS]\n"
    ".TP\n\\fB\\-f\\fR \\fIFILE\\fR, \\fB\\-\\-torrc\\-file\\fR \\fIFILE\\fR\n"
    "the torrc; a missing one is an error (a missing default one is skipped).\n"
    ".TP\n\\fB\\-\\-defaults\\-torrc\\fR \\fIFILE\\fR\nlower-priority defaults, read before the torrc.\n"
    ".TP\n\\fB\\-\\-ignore\\-missing\\-torrc\\fR\na missing torrc or defaults file is not an error.\n"
    ".TP\n\\fB\\-\\-verify\\-config\\fR\n"
    "check the configuration, print every error and warning, and exit (0 and \"Configuration was valid\" when it is).\n"
    ".TP\n\\fB\\-\\-\\fR\\fIKey value\\fR, \\fB\\-\\-+\\fR\\fIKey value\\fR, \\fB\\-\\-/\\fR\\fIKey\\fR\n"
    "replace, add to, or remove the torrc's lines of an option (TORRC OPTIONS below).\n"
    ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR, \\fB\\-\\-version\\fR, \\fB\\-\\-list\\-torrc\\-options\\fR\n"
    "as tor's.\n"
    "[CONFIGURATION FILE]\n"
    "The torrc has tor's format: one \\fIKey value\\fR per line, keys case-insensitive, \\fB#\\fR starts a\n"
    "comment, a trailing backslash continues a line, \\fB%include\\fR \\fIPATH\\fR reads a file or every\n"
    "file of a directory. \\fB\\-\\-Key\\fR \\fIvalue\\fR on the command line replaces the file's lines of\n"
    "that key, \\fB\\-\\-+Key\\fR adds to them and \\fB\\-\\-/Key\\fR removes them. Layers, lowest first:\n"
    "built-in defaults, \\fB\\-\\-defaults\\-torrc\\fR, the torrc, the command line.\n"
    "\\fB\\-\\-verify\\-config\\fR checks the whole configuration and prints every error with its file and line.\n"
    "[TORRC OPTIONS]\n";

std::string see_also(std::string_view other) {
  return "[SEE ALSO]\n.BR " + std::string(other) +
         " (1),\n.BR tor (1).\n.PP\n/usr/share/doc/conflux\\-relay/OPERATORS.md (operators: install, configure, "
         "upgrade, monitor, the service's hardening) and the project's docs/CONFIG.md (every option, with tor's "
         "differences).\n";
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string relay_sections() {
  const std::string service_dir = config::default_relay_data_directory({true, ""});
  std::string out(kFormat);
  out += option_entries(config::relay_option_table());
  out += "[FILES]\n"
         ".TP\n.I /etc/conflux/torrc\nthe torrc read when \\fB\\-f\\fR is not given (a missing one is skipped).\n"
         ".TP\n.I /usr/share/conflux/relay\\-service\\-defaults\\-torrc\n"
         "the packaged service's \\fB\\-\\-defaults\\-torrc\\fR: its DataDirectory.\n"
         ".TP\n.I " + roff_escape(service_dir) + "\n"
         "DataDirectory of root and of the packaged service: keys/ (the relay's identity: back it up) and state.\n"
         ".TP\n.I ~/.conflux\nDataDirectory of any other user.\n"
         ".TP\n.I /var/log/conflux/\nlog files, when a \\fBLog\\fR line names one there (rotated by logrotate).\n"
         "[SIGNALS]\n"
         ".TP\n.B SIGHUP\nread the torrc again; what can change while running changes, the rest at the next start.\n"
         ".TP\n.B SIGUSR1\nlog the counters (connections, circuits, bytes).\n"
         ".TP\n.BR SIGTERM \", \" SIGINT\nclose the listeners and channels, and exit.\n";
  out += see_also("conflux\\-proxy");
  return out;
}

std::string proxy_sections() {
  const std::string root_dir = config::default_proxy_data_directory({true, ""});
  std::string out(kFormat);
  out += option_entries(config::proxy_option_table());
  out += "[FILES]\n"
         ".TP\n.I /etc/conflux/proxy\\-torrc\nthe torrc read when \\fB\\-f\\fR is not given (a missing one is skipped).\n"
         ".TP\n.I ~/.conflux\\-proxy\nDataDirectory: guard state and the cached directory.\n"
         ".TP\n.I " + roff_escape(root_dir) + "\nDataDirectory when run by root.\n"
         "[SIGNALS]\n"
         ".TP\n.B SIGUSR1\nlog the counters.\n"
         ".TP\n.BR SIGTERM \", \" SIGINT\nclose the SOCKS ports and circuits, and exit.\n";
  out += see_also("conflux\\-relay");
  return out;
}

}  // namespace conflux::man
