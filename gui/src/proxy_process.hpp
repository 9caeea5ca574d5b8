#pragma once
// The conflux-proxy process the app owns (QProcess): started with -f
// DATA_DIR/torrc (its own, which SAVECONF writes) and --defaults-torrc
// DATA_DIR/torrc-defaults (the app's lines, written at each start: network
// held, proxy_torrc.hpp), its log lines passed on, the control port it wrote to
// ControlPortWriteToFile announced once there. Stopping is the session's
// SIGNAL SHUTDOWN first; stop() then waits and terminates, kills last.
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

#include "conflux/gui/proxy_torrc.hpp"

namespace conflux::gui {

struct ProxyLaunch {
  QString program;         // conflux-proxy
  QString data_dir;        // the app's data directory: torrc, proxy-data/, control files
  QString defaults_torrc;  // optional: --defaults-torrc (a test network's DirAuthority lines)
};

class ProxyProcess : public QObject {
  Q_OBJECT
 public:
  explicit ProxyProcess(ProxyLaunch launch, QObject* parent = nullptr);
  ~ProxyProcess() override;
  ProxyProcess(const ProxyProcess&) = delete;
  ProxyProcess& operator=(const ProxyProcess&) = delete;

  // Writes the defaults torrc (and an empty torrc the first time) and starts
  // the proxy, its network held; false with `error` set when it cannot.
  bool start(QString& error);
  // Waits up to `grace_ms` for the proxy to exit (after SIGNAL SHUTDOWN), then
  // terminates it (SIGTERM), then kills it. Blocks; returns once it is gone.
  void stop(int grace_ms);
  [[nodiscard]] bool running() const { return process_.state() != QProcess::NotRunning; }
  [[nodiscard]] qint64 pid() const { return process_.processId(); }
  [[nodiscard]] QString torrc_path() const;
  [[nodiscard]] QString cookie_path() const;

 signals:
  void control_port_ready(quint16 port, const QString& cookie_file);
  void output_line(const QString& line);
  void exited(const QString& why);  // it ended without being asked to

 private:
  [[nodiscard]] QString port_file() const;
  [[nodiscard]] QString defaults_path() const;
  static bool write_text(const QString& path, const std::string& text, QString& error);
  void poll_port_file();
  void read_output();

  ProxyLaunch launch_;
  QProcess process_;
  QTimer port_poll_;
  QByteArray partial_;
  bool stopping_ = false;
};

}  // namespace conflux::gui
