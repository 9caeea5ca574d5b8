#pragma once
// The app's window: the three pages in a stack, driven by one ProxySession.
// The proxy starts with the window, its network held, and stays between
// attempts (as Tor Browser keeps tor): Connect lets its network go, Cancel and
// Disconnect hold it again; 100% shows the connected page; an error (bad
// settings, the proxy died, a port in use) goes back to the connect page with
// the message. Closing the window stops the proxy.
#include <QCloseEvent>
#include <QMainWindow>
#include <QStackedWidget>

#include "bootstrap_page.hpp"
#include "connect_page.hpp"
#include "connected_page.hpp"
#include "proxy_session.hpp"

namespace conflux::gui {

struct AppOptions {
  ProxyLaunch launch;
  QString obfs4proxy = QStringLiteral("/usr/bin/obfs4proxy");
  QString builtin_bridges;  // the built-in bridges' file (builtin_bridges.hpp); "" = none
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(AppOptions options, QWidget* parent = nullptr);

  [[nodiscard]] ConnectPage* connect_page() const noexcept { return connect_; }
  [[nodiscard]] BootstrapPage* bootstrap_page() const noexcept { return bootstrap_; }
  [[nodiscard]] ConnectedPage* connected_page() const noexcept { return connected_; }
  [[nodiscard]] QWidget* current_page() const { return stack_->currentWidget(); }
  [[nodiscard]] ProxySession& session() noexcept { return session_; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void start(const ProxySettings& settings);
  void fail(const QString& why);
  void hold_network();
  void wire_session();

  AppOptions options_;
  ProxySession session_;
  QStackedWidget* stack_;
  ConnectPage* connect_;
  BootstrapPage* bootstrap_;
  ConnectedPage* connected_;
  QString last_warning_;
  bool warning_continues_ = false;
};

}  // namespace conflux::gui
