#pragma once
// What the connect page remembers between runs, in DATA_DIR/conflux-gui.ini:
// the bridge lines as typed, Conflux on/off, legs per set, and whether to
// connect at once next time. (The proxy's own torrc is rewritten on each connect.)
#include <QString>

namespace conflux::gui {

struct SavedSettings {
  QString bridge_text;
  bool conflux = true;
  int legs = 2;
  bool auto_connect = false;
};

[[nodiscard]] SavedSettings load_settings(const QString& data_dir);
// False when the file cannot be written (the caller shows it).
bool save_settings(const QString& data_dir, const SavedSettings& s);

}  // namespace conflux::gui
