#include "proxy_process.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSaveFile>

namespace conflux::gui {

ProxyProcess::ProxyProcess(ProxyLaunch launch, QObject* parent) : QObject(parent), launch_(std::move(launch)) {
  process_.setProcessChannelMode(QProcess::MergedChannels);
  connect(&process_, &QProcess::readyReadStandardOutput, this, &ProxyProcess::read_output);
  connect(&process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    port_poll_.stop();
    read_output();
    if (stopping_) return;
    emit exited(status == QProcess::CrashExit ? QStringLiteral("conflux-proxy crashed")
                                              : QStringLiteral("conflux-proxy exited with status %1").arg(code));
  });
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart && !stopping_)
      emit exited(QStringLiteral("cannot start %1: %2").arg(launch_.program, process_.errorString()));
  });
  port_poll_.setInterval(100);
  connect(&port_poll_, &QTimer::timeout, this, &ProxyProcess::poll_port_file);
}

ProxyProcess::~ProxyProcess() { stop(2000); }

QString ProxyProcess::torrc_path() const { return QDir(launch_.data_dir).filePath(QStringLiteral("torrc")); }
QString ProxyProcess::defaults_path() const {
  return QDir(launch_.data_dir).filePath(QStringLiteral("torrc-defaults"));
}
QString ProxyProcess::port_file() const { return QDir(launch_.data_dir).filePath(QStringLiteral("control-port")); }
QString ProxyProcess::cookie_path() const {
  return QDir(launch_.data_dir).filePath(QStringLiteral("control_auth_cookie"));
}

bool ProxyProcess::start(QString& error) {
  if (running()) {
    error = QStringLiteral("the proxy is already running");
    return false;
  }
  const QDir dir(launch_.data_dir);
  if (!dir.mkpath(QStringLiteral("proxy-data"))) {
    error = QStringLiteral("cannot create %1").arg(dir.filePath(QStringLiteral("proxy-data")));
    return false;
  }
  QFile::remove(port_file());  // a stale one from a previous run would name a dead port
  QByteArray extra;
  if (!launch_.defaults_torrc.isEmpty()) {
    QFile user_defaults(launch_.defaults_torrc);
    if (!user_defaults.open(QIODevice::ReadOnly)) {
      error = QStringLiteral("cannot read %1: %2").arg(launch_.defaults_torrc, user_defaults.errorString());
      return false;
    }
    extra = user_defaults.readAll();
  }
  const ProxyPaths paths{dir.filePath(QStringLiteral("proxy-data")).toStdString(), port_file().toStdString(),
                         cookie_path().toStdString()};
  if (!write_text(defaults_path(), proxy_defaults_torrc(paths, extra.toStdString()), error)) return false;
  // The proxy's own torrc: SAVECONF writes it; it must exist to be saved to.
  if (!QFile::exists(torrc_path()) && !write_text(torrc_path(), empty_saved_torrc(), error)) return false;
  // "__" options are never saved (SAVECONF), as Tor Browser passes its own.
  const QStringList args{QStringLiteral("-f"), torrc_path(), QStringLiteral("--defaults-torrc"), defaults_path(),
                         QStringLiteral("--__OwningControllerProcess"),
                         QString::number(QCoreApplication::applicationPid())};
  stopping_ = false;
  partial_.clear();
  process_.start(launch_.program, args);
  port_poll_.start();
  return true;
}

bool ProxyProcess::write_text(const QString& path, const std::string& text, QString& error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(text)) < 0 || !f.commit()) {
    error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

void ProxyProcess::poll_port_file() {
  QFile f(port_file());
  if (!f.open(QIODevice::ReadOnly)) return;
  const QByteArray line = f.readLine().trimmed();  // "PORT=127.0.0.1:N"
  const auto colon = line.lastIndexOf(':');
  if (!line.startsWith("PORT=") || colon < 0) return;
  bool ok = false;
  const auto port = line.mid(colon + 1).toUShort(&ok);
  if (!ok || port == 0) return;
  port_poll_.stop();
  emit control_port_ready(port, cookie_path());
}

void ProxyProcess::read_output() {
  partial_ += process_.readAllStandardOutput();
  for (auto nl = partial_.indexOf('\n'); nl >= 0; nl = partial_.indexOf('\n')) {
    emit output_line(QString::fromUtf8(partial_.left(nl)));
    partial_.remove(0, nl + 1);
  }
  if (partial_.size() > (1 << 16)) partial_.clear();  // bounded: a line that never ends
}

void ProxyProcess::stop(int grace_ms) {
  port_poll_.stop();
  if (!running()) return;
  stopping_ = true;
  if (process_.waitForFinished(grace_ms)) return;
  process_.terminate();
  if (process_.waitForFinished(3000)) return;
  process_.kill();
  process_.waitForFinished(2000);
}

}  // namespace conflux::gui
