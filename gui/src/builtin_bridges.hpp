#pragma once
// The built-in bridges: a list shipped with the app (gui/data/
// builtin-bridges.txt, installed as share/conflux-gui/builtin-bridges.txt),
// Bridge lines in tor's form, which the connect page offers instead of
// pasted ones. CONFLUX_GUI_BUILTIN_BRIDGES or --builtin-bridges names
// another file (the tests' list points at a conflux-net network).
#include <QString>
#include <QStringList>

namespace conflux::gui {

// The list's file: $CONFLUX_GUI_BUILTIN_BRIDGES, else share/conflux-gui/ next
// to the program's bin/, else the source tree's (a build tree's program).
[[nodiscard]] QString find_builtin_bridges_file();

// Its lines as the bridge text box would hold them ("Bridge " dropped,
// comments and blank lines skipped); empty when the file cannot be read.
[[nodiscard]] QStringList load_builtin_bridges(const QString& path);

}  // namespace conflux::gui
