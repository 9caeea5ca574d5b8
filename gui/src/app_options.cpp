#include "app_options.hpp"

#include "builtin_bridges.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace conflux::gui {

QString find_proxy_program() {
  const QString env = qEnvironmentVariable("CONFLUX_PROXY");
  if (!env.isEmpty()) return env;
  const QDir here(QCoreApplication::applicationDirPath());
  for (const auto& candidate : {here.filePath(QStringLiteral("conflux-proxy")),
                                here.filePath(QStringLiteral("../client/app/conflux-proxy"))})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  const QString in_path = QStandardPaths::findExecutable(QStringLiteral("conflux-proxy"));
  return in_path.isEmpty() ? QStringLiteral("conflux-proxy") : in_path;
}

AppOptions parse_app_options(const QStringList& arguments) {
  QCommandLineParser p;
  p.setApplicationDescription(QStringLiteral("Conflux for bridge users: drives a conflux-proxy over its ControlPort."));
  p.addHelpOption();
  const QCommandLineOption proxy(QStringLiteral("proxy"), QStringLiteral("The conflux-proxy program."),
                                 QStringLiteral("path"));
  const QCommandLineOption data(QStringLiteral("data-dir"),
                                QStringLiteral("Where the proxy's torrc and state go (default: the app data dir)."),
                                QStringLiteral("dir"));
  const QCommandLineOption defaults(QStringLiteral("defaults-torrc"),
                                    QStringLiteral("Extra torrc lines for the proxy, such as a test network's "
                                                   "DirAuthority lines (passed as --defaults-torrc)."),
                                    QStringLiteral("file"));
  const QCommandLineOption obfs4(QStringLiteral("obfs4proxy"), QStringLiteral("The obfs4 transport program."),
                                 QStringLiteral("path"), QStringLiteral("/usr/bin/obfs4proxy"));
  const QCommandLineOption builtin(QStringLiteral("builtin-bridges"),
                                   QStringLiteral("The built-in bridges' list (default: $CONFLUX_GUI_BUILTIN_BRIDGES, "
                                                  "else the one installed with the app)."),
                                   QStringLiteral("file"));
  p.addOptions({proxy, data, defaults, obfs4, builtin});
  p.process(arguments);
  AppOptions o;
  o.launch.program = p.isSet(proxy) ? p.value(proxy) : find_proxy_program();
  o.launch.data_dir = p.isSet(data) ? p.value(data)
                                    : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  o.launch.defaults_torrc = p.isSet(defaults) ? QFileInfo(p.value(defaults)).absoluteFilePath() : QString();
  o.obfs4proxy = p.value(obfs4);
  o.builtin_bridges = p.isSet(builtin) ? p.value(builtin) : find_builtin_bridges_file();
  return o;
}

}  // namespace conflux::gui
