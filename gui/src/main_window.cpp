#include "main_window.hpp"

#include "builtin_bridges.hpp"
#include "conflux/gui/config_words.hpp"

namespace conflux::gui {

MainWindow::MainWindow(AppOptions options, QWidget* parent)
    : QMainWindow(parent),
      options_(std::move(options)),
      session_(options_.launch),
      stack_(new QStackedWidget(this)),
      connect_(new ConnectPage(options_.obfs4proxy, load_builtin_bridges(options_.builtin_bridges), stack_)),
      bootstrap_(new BootstrapPage(stack_)),
      connected_(new ConnectedPage(stack_)) {
  setWindowTitle(tr("Conflux"));
  setWindowIcon(QIcon(QStringLiteral(":/conflux-gui.svg")));
  stack_->addWidget(connect_);
  stack_->addWidget(bootstrap_);
  stack_->addWidget(connected_);
  setCentralWidget(stack_);
  resize(780, 720);
  connect(connect_, &ConnectPage::connect_requested, this, &MainWindow::start);
  // Cancel and Disconnect hold the network; the proxy stays for the next attempt.
  connect(bootstrap_, &BootstrapPage::cancel_requested, this, &MainWindow::hold_network);
  connect(connected_, &ConnectedPage::disconnect_requested, this, &MainWindow::hold_network);
  wire_session();
  connect_->load(load_settings(options_.launch.data_dir));
  // As Tor Browser starts tor: once, at start, its network held; once the window is up.
  QMetaObject::invokeMethod(&session_, &ProxySession::start_proxy, Qt::QueuedConnection);
  if (connect_->saved().auto_connect && connect_->connect_button()->isEnabled())
    QMetaObject::invokeMethod(connect_->connect_button(), &QPushButton::click, Qt::QueuedConnection);
}

void MainWindow::hold_network() {
  session_.disconnect_network();
  stack_->setCurrentWidget(connect_);
}

void MainWindow::wire_session() {
  connect(&session_, &ProxySession::bootstrap, this, [this](const BootstrapPhase& p) {
    bootstrap_->set_phase(p);
    if (p.progress >= 100) stack_->setCurrentWidget(connected_);
  });
  connect(&session_, &ProxySession::warning, this, [this](const QString& w) {
    last_warning_ = w;
    bootstrap_->set_warning(w);
  });
  connect(&session_, &ProxySession::log_line, connected_, &ConnectedPage::append_log);
  // Start-up errors (a port in use, a bad option) come before the control port: from the log. A
  // warning's further lines are indented.
  connect(&session_, &ProxySession::log_line, this, [this](const QString& line) {
    if (line.contains(QLatin1String("[warn]")) || line.contains(QLatin1String("[err]"))) {
      last_warning_ = line.section(QLatin1Char(']'), 1).trimmed();
      warning_continues_ = true;
    } else if (warning_continues_ && line.startsWith(QLatin1Char(' '))) {
      last_warning_ += QLatin1Char(' ') + line.trimmed();
    } else {
      warning_continues_ = false;
      return;
    }
    bootstrap_->set_warning(last_warning_);
  });
  connect(&session_, &ProxySession::socks_ready, connected_, &ConnectedPage::set_socks);
  connect(&session_, &ProxySession::legs, connected_, &ConnectedPage::set_legs);
  connect(&session_, &ProxySession::circuits, connected_, &ConnectedPage::set_circuits);
  connect(&session_, &ProxySession::bandwidth, connected_, &ConnectedPage::add_bandwidth);
  connect(&session_, &ProxySession::bridge_named, connected_, &ConnectedPage::set_bridge_name);
  connect(&session_, &ProxySession::save_failed, this, [this](const QString& why) {
    last_warning_ = tr("The proxy could not save the settings (%1); they hold until the app closes.").arg(why);
    bootstrap_->set_warning(last_warning_);
  });
  connect(&session_, &ProxySession::failed, this, &MainWindow::fail);
  connect(connected_, &ConnectedPage::tor_test_requested, &session_, &ProxySession::test_bridges);
  connect(&session_, &ProxySession::bridge_tested, connected_, &ConnectedPage::set_tor_test);
  connect(&session_, &ProxySession::bridge_test_refused, connected_, &ConnectedPage::tor_test_refused);
}

void MainWindow::start(const ProxySettings& settings) {
  connect_->show_error({});
  if (!save_preferences(options_.launch.data_dir, connect_->saved()))
    connect_->show_error(tr("Could not save the settings in %1").arg(options_.launch.data_dir));
  last_warning_.clear();
  bootstrap_->reset();
  connected_->set_bridges(settings);
  QStringList addresses;
  for (const auto& b : settings.bridges) addresses << QString::fromStdString(bridge_transport_and_address(b).second);
  bootstrap_->set_bridges(addresses);
  stack_->setCurrentWidget(bootstrap_);
  session_.connect_network(settings);
}

void MainWindow::fail(const QString& why) {
  QString text = tr("Could not connect: %1").arg(why);
  if (!last_warning_.isEmpty()) text += tr("\nThe proxy's last warning: %1").arg(last_warning_);
  connect_->show_error(text);
  stack_->setCurrentWidget(connect_);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  session_.shutdown();
  event->accept();
}

}  // namespace conflux::gui
