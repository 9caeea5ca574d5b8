#include "saved_settings.hpp"

#include <QDir>
#include <QFile>
#include <QSettings>

#include "conflux/gui/proxy_torrc.hpp"

namespace conflux::gui {

namespace {

QString ini_in(const QString& data_dir) { return QDir(data_dir).filePath(QStringLiteral("conflux-gui.ini")); }

}  // namespace

SavedSettings load_settings(const QString& data_dir) {
  SavedSettings s;
  QFile torrc(QDir(data_dir).filePath(QStringLiteral("torrc")));
  if (torrc.open(QIODevice::ReadOnly)) {
    if (auto saved = settings_from_torrc(torrc.readAll().toStdString())) {
      QStringList lines;
      for (const auto& b : saved->bridges) lines << QString::fromStdString(b);
      s.bridge_text = lines.join(QLatin1Char('\n'));
      s.conflux = saved->conflux;
      s.legs = static_cast<int>(saved->conflux_legs);
    }
  }
  QSettings ini(ini_in(data_dir), QSettings::IniFormat);
  s.auto_connect = ini.value(QStringLiteral("auto_connect"), false).toBool();
  s.builtin = ini.value(QStringLiteral("builtin_bridges"), false).toBool();
  return s;
}

bool save_preferences(const QString& data_dir, const SavedSettings& s) {
  QSettings ini(ini_in(data_dir), QSettings::IniFormat);
  ini.setValue(QStringLiteral("auto_connect"), s.auto_connect);
  ini.setValue(QStringLiteral("builtin_bridges"), s.builtin);
  ini.sync();
  return ini.status() == QSettings::NoError;
}

}  // namespace conflux::gui
