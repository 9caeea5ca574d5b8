#include "saved_settings.hpp"

#include <QDir>
#include <QSettings>
#include <algorithm>

namespace conflux::gui {

namespace {

QString file_in(const QString& data_dir) { return QDir(data_dir).filePath(QStringLiteral("conflux-gui.ini")); }

}  // namespace

SavedSettings load_settings(const QString& data_dir) {
  QSettings ini(file_in(data_dir), QSettings::IniFormat);
  SavedSettings s;
  s.bridge_text = ini.value(QStringLiteral("bridges")).toString();
  s.conflux = ini.value(QStringLiteral("conflux"), true).toBool();
  s.legs = std::clamp(ini.value(QStringLiteral("legs"), 2).toInt(), 2, 8);
  s.auto_connect = ini.value(QStringLiteral("auto_connect"), false).toBool();
  return s;
}

bool save_settings(const QString& data_dir, const SavedSettings& s) {
  QSettings ini(file_in(data_dir), QSettings::IniFormat);
  ini.setValue(QStringLiteral("bridges"), s.bridge_text);
  ini.setValue(QStringLiteral("conflux"), s.conflux);
  ini.setValue(QStringLiteral("legs"), s.legs);
  ini.setValue(QStringLiteral("auto_connect"), s.auto_connect);
  ini.sync();
  return ini.status() == QSettings::NoError;
}

}  // namespace conflux::gui
