#pragma once
// The app's proxy and its controller, kept running between connection
// attempts as Tor Browser keeps tor: start_proxy() starts conflux-proxy with
// its network held (DisableNetwork 1, no SOCKS listener); once authenticated
// the session subscribes to STATUS_CLIENT BW WARN ERR NOTICE CIRC CONFLUX_LEG
// CONFLUX_BRIDGE. connect_network() sends the settings (SETCONF), saves them
// in the proxy's torrc (SAVECONF), then lets the network go (SETCONF
// DisableNetwork=0); disconnect_network() holds it again (DisableNetwork=1:
// the proxy closes its circuits, channels and SOCKS listeners) and the proxy
// stays. shutdown() ends the proxy (the app quits): SIGNAL SHUTDOWN, then
// terminate. What the pages show comes as signals, during an attempt only.
// Circuits' paths follow the CIRC events and the legs' figures their
// CONFLUX_LEG events; conflux/sets is read again when a leg links and every
// 5 s (for the legs' states and shares of the cells sent). The legs go to the
// page after each second's burst of CONFLUX_LEG BW events (once a second
// without them). The proxy's bootstrap never goes back (tor's does not), so
// an attempt shows 100% only once a Conflux leg linked (a 3-hop circuit was
// built, without Conflux) since it began; until then, at most 90%.
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

  // Starts the proxy, its network held, unless it is running.
  void start_proxy();
  // Sends `settings` and lets the network go; starts the proxy first when it
  // is not running (it died, or the app was started without it).
  void connect_network(const ProxySettings& settings);
  // Holds the network again (DisableNetwork=1); the proxy keeps running.
  void disconnect_network();
  // SIGNAL SHUTDOWN, then terminate; blocks until the proxy is gone.
  void shutdown();
  // CONFLUX_TESTBRIDGES: each bridge answers bridge_tested (or
  // bridge_test_refused says why the proxy will not test them now).
  void test_bridges();
  [[nodiscard]] bool running() const { return process_ && process_->running(); }
  [[nodiscard]] qint64 proxy_pid() const { return process_ ? process_->pid() : 0; }
  [[nodiscard]] const QString& socks_address() const noexcept { return socks_; }
  [[nodiscard]] bool connecting() const noexcept { return connecting_; }  // the network let go by us
  [[nodiscard]] bool proxy_ready() const noexcept { return control_.authenticated(); }

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
  void failed(const QString& why);  // the attempt ended (or the proxy died between attempts)

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
  void show_phase();
  void fail(const QString& why);
  void stop_process();
  void reset_attempt();
  [[nodiscard]] bool current(quint64 attempt) const { return connecting_ && attempt == attempt_; }

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
  BootstrapPhase proxy_phase_;  // the proxy's last
  int progress_ = -1;           // the attempt's, as shown
  bool usable_ = false;         // a leg linked (a circuit built) in this attempt
  bool connecting_ = false;
  quint64 attempt_ = 0;         // connect_network calls, so an old attempt's replies are ignored
  quint64 process_generation_ = 0;
  bool shutting_down_ = false;
};

}  // namespace conflux::gui
