#include "builtin_bridges.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "conflux/gui/bridge_validation.hpp"

namespace conflux::gui {

QString find_builtin_bridges_file() {
  const QString env = qEnvironmentVariable("CONFLUX_GUI_BUILTIN_BRIDGES");
  if (!env.isEmpty()) return env;
  const QDir here(QCoreApplication::applicationDirPath());
  const QString installed = here.filePath(QStringLiteral("../share/conflux-gui/builtin-bridges.txt"));
  if (QFileInfo::exists(installed)) return QFileInfo(installed).canonicalFilePath();
  return QStringLiteral(CONFLUX_GUI_SOURCE_BRIDGES);
}

QStringList load_builtin_bridges(const QString& path) {
  QStringList out;
  if (path.isEmpty()) return out;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return out;
  for (const auto& line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'))) {
    const auto value = bridge_value(line.toStdString());
    if (!value.empty()) out << QString::fromStdString(value);
  }
  return out;
}

}  // namespace conflux::gui
