#pragma once
// What the connect page shows at start. The proxy's settings (bridges,
// Conflux, legs per set) come from the torrc the proxy saved (SAVECONF) in
// DATA_DIR; the app's own preferences, which are no proxy option ("connect
// automatically next time", built-in bridges chosen), from
// DATA_DIR/conflux-gui.ini, as Tor Browser keeps its own in its prefs.
#include <QString>

namespace conflux::gui {

struct SavedSettings {
  QString bridge_text;
  bool conflux = true;
  int legs = 2;
  bool auto_connect = false;
  bool builtin = false;  // the built-in bridges, not the pasted lines
};

// DATA_DIR/torrc (as the proxy saved it) and DATA_DIR/conflux-gui.ini.
[[nodiscard]] SavedSettings load_settings(const QString& data_dir);
// The app's preferences only (the proxy saves the rest); false when the
// file cannot be written (the caller shows it).
bool save_preferences(const QString& data_dir, const SavedSettings& s);

}  // namespace conflux::gui
