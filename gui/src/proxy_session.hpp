#pragma once
// One connection attempt of the app: the proxy process and its controller,
// and what the pages show, as signals. After authenticating it subscribes to
// STATUS_CLIENT BW WARN ERR NOTICE CIRC, reads the bootstrap phase, and once a
// second asks for the Conflux legs and the circuits' paths. shutdown() ends the
// proxy cleanly: SIGNAL SHUTDOWN, then terminate.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <map>
#include <memory>
#include <vector>

#include "control_client.hpp"
#include "proxy_process.hpp"
#include "status_parsing.hpp"

namespace conflux::gui {

struct LegView {
  ConfluxLeg leg;
  std::vector<std::string> path;  // hop nicknames; the first is the bridge
};

class ProxySession : public QObject {
  Q_OBJECT
 public:
  static constexpr qsizetype kLastLines = 3;  // of the proxy's output, shown when it exits early

  explicit ProxySession(ProxyLaunch launch, QObject* parent = nullptr);
  ~ProxySession() override;
  ProxySession(const ProxySession&) = delete;
  ProxySession& operator=(const ProxySession&) = delete;

  // Starts the proxy with these settings (a running one is shut down first).
  void start(const ProxySettings& settings);
  // SIGNAL SHUTDOWN, then terminate; blocks until the proxy is gone.
  void shutdown();
  [[nodiscard]] bool running() const { return process_ && process_->running(); }
  [[nodiscard]] qint64 proxy_pid() const { return process_ ? process_->pid() : 0; }
  [[nodiscard]] const QString& socks_address() const noexcept { return socks_; }

 signals:
  void bootstrap(const conflux::gui::BootstrapPhase& phase);
  void warning(const QString& message);
  void log_line(const QString& line);
  void socks_ready(const QString& address);
  void legs(const std::vector<conflux::gui::LegView>& legs);
  void circuits(const std::map<std::uint32_t, std::vector<std::string>>& paths);
  void bandwidth(quint64 read, quint64 written);
  void bridge_named(const QString& address, const QString& nickname);
  void failed(const QString& why);

 private:
  void on_ready();
  void on_event(const QString& name, const QString& body);
  void on_output(const QString& line);
  void poll();
  void set_phase(const BootstrapPhase& p);

  ProxyLaunch launch_;
  std::unique_ptr<ProxyProcess> process_;
  ControlClient control_;
  QTimer poll_timer_;
  std::map<std::uint32_t, std::vector<std::string>> paths_;
  QString socks_;
  QStringList last_lines_;
  int progress_ = -1;
  bool shutting_down_ = false;
};

}  // namespace conflux::gui
