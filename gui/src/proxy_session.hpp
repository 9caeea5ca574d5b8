#pragma once
// One connection attempt of the app: the proxy process and its controller,
// and what the pages show, as signals. The proxy starts with its network held
// (DisableNetwork 1); once authenticated the session subscribes to
// STATUS_CLIENT BW WARN ERR NOTICE CIRC CONFLUX_LEG, sends the settings
// (SETCONF), saves them in the proxy's torrc (SAVECONF), then lets the
// network go (SETCONF DisableNetwork=0), as Tor Browser drives tor. Circuits'
// paths follow the CIRC events and the legs' figures their CONFLUX_LEG
// events; conflux/sets is read again when a leg links and every 5 s (for
// the legs' states and shares of the cells sent). The legs go to
// the page after each second's burst of CONFLUX_LEG BW events (once a second
// without them). shutdown() ends the proxy cleanly: SIGNAL
// SHUTDOWN, then terminate.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <map>
#include <memory>
#include <vector>

#include "control_client.hpp"
#include "proxy_process.hpp"
#include "conflux/gui/status_parsing.hpp"

namespace conflux::gui {

struct LegView {
  ConfluxLeg leg;
  std::vector<std::string> path;  // hop nicknames; the first is the bridge
};

class ProxySession : public QObject {
  Q_OBJECT
 public:
  static constexpr qsizetype kLastLines = 3;  // of the proxy's output, shown when it exits early
  static constexpr unsigned kSharesEvery = 5;  // seconds between two reads of conflux/sets

  explicit ProxySession(ProxyLaunch launch, QObject* parent = nullptr);
  ~ProxySession() override;
  ProxySession(const ProxySession&) = delete;
  ProxySession& operator=(const ProxySession&) = delete;

  // Starts the proxy with these settings (a running one is shut down first).
  void start(const ProxySettings& settings);
  // SIGNAL SHUTDOWN, then terminate; blocks until the proxy is gone.
  void shutdown();
  // CONFLUX_TESTBRIDGES: each bridge answers bridge_tested (or
  // bridge_test_refused says why the proxy will not test them now).
  void test_bridges();
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
  void save_failed(const QString& why);
  void bridge_tested(const conflux::gui::BridgeTest& result);
  void bridge_test_refused(const QString& why);  // SAVECONF refused: the settings hold until the app closes
  void failed(const QString& why);

 private:
  void on_ready();
  void send_settings();
  void on_event(const QString& name, const QString& body);
  void on_leg_event(const LegEvent& ev);
  void on_circ_event(const CircEvent& ev);
  void on_output(const QString& line);
  void poll();
  void emit_legs();
  void set_phase(const BootstrapPhase& p);

  ProxyLaunch launch_;
  std::unique_ptr<ProxyProcess> process_;
  ControlClient control_;
  ProxySettings settings_;
  QTimer poll_timer_;
  QTimer legs_burst_;          // a burst of CONFLUX_LEG BW events read: the legs go to the page
  QElapsedTimer last_legs_;    // since the legs last went to the page
  std::map<std::uint32_t, std::vector<std::string>> paths_;
  std::map<std::uint32_t, ConfluxLeg> legs_;  // by circuit
  bool legs_stale_ = true;                    // a leg linked: read conflux/sets again
  unsigned polls_ = 0;
  QString socks_;
  QStringList last_lines_;
  int progress_ = -1;
  bool shutting_down_ = false;
};

}  // namespace conflux::gui
