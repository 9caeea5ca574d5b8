#include "proxy_session.hpp"

namespace conflux::gui {

ProxySession::ProxySession(ProxyLaunch launch, QObject* parent) : QObject(parent), launch_(std::move(launch)) {
  connect(&control_, &ControlClient::ready, this, &ProxySession::on_ready);
  connect(&control_, &ControlClient::event, this, &ProxySession::on_event);
  connect(&control_, &ControlClient::failed, this, [this](const QString& why) {
    poll_timer_.stop();
    if (running() && !shutting_down_) emit failed(why);
  });
  poll_timer_.setInterval(1000);
  connect(&poll_timer_, &QTimer::timeout, this, &ProxySession::poll);
}

ProxySession::~ProxySession() { shutdown(); }

void ProxySession::start(const ProxySettings& settings) {
  shutdown();
  progress_ = -1;
  socks_.clear();
  paths_.clear();
  last_lines_.clear();
  process_ = std::make_unique<ProxyProcess>(launch_);
  connect(process_.get(), &ProxyProcess::output_line, this, &ProxySession::on_output);
  connect(process_.get(), &ProxyProcess::exited, this, [this](const QString& why) {
    poll_timer_.stop();
    control_.close();
    // Its last words say why (an option refused, a port in use).
    emit failed(last_lines_.isEmpty() ? why : why + QStringLiteral(":\n") + last_lines_.join(QLatin1Char('\n')));
  });
  connect(process_.get(), &ProxyProcess::control_port_ready, this,
          [this](quint16 port, const QString& cookie) { control_.connect_to(port, cookie); });
  QString error;
  if (!process_->start(settings, error)) emit failed(error);
}

void ProxySession::shutdown() {
  poll_timer_.stop();
  if (!process_) return;
  shutting_down_ = true;
  int grace = 0;
  if (control_.authenticated() && control_.send(QStringLiteral("SIGNAL SHUTDOWN"))) {
    control_.flush(1000);
    grace = 10000;  // it exits 200 ms after its reply; sanitizer builds take longer
  }
  process_->stop(grace);
  control_.close();
  process_.reset();
  shutting_down_ = false;
}

void ProxySession::on_ready() {
  control_.send(QStringLiteral("SETEVENTS STATUS_CLIENT BW WARN ERR NOTICE CIRC"), [this](const ControlReplyMsg& r) {
    if (!r.ok()) emit failed(QStringLiteral("SETEVENTS refused: %1").arg(QString::fromStdString(r.status_text())));
  });
  control_.send(QStringLiteral("GETINFO status/bootstrap-phase"), [this](const ControlReplyMsg& r) {
    if (auto p = parse_bootstrap_phase(getinfo_value(r, "status/bootstrap-phase"))) set_phase(*p);
  });
  poll_timer_.start();
}

void ProxySession::set_phase(const BootstrapPhase& p) {
  if (p.progress == progress_) return;
  progress_ = p.progress;
  emit bootstrap(p);
}

void ProxySession::on_event(const QString& name, const QString& body) {
  const std::string text = body.toStdString();
  if (name == QLatin1String("STATUS_CLIENT")) {
    if (auto p = parse_bootstrap_phase(text.substr(text.find(' ') + 1))) set_phase(*p);
  } else if (name == QLatin1String("BW")) {
    if (auto s = parse_bw_event(text)) emit bandwidth(s->read, s->written);
  } else if (name == QLatin1String("WARN") || name == QLatin1String("ERR")) {
    emit warning(body.section(QLatin1Char(' '), 1));
  }
}

void ProxySession::on_output(const QString& line) {
  last_lines_.append(line);
  if (last_lines_.size() > kLastLines) last_lines_.removeFirst();
  emit log_line(line);
  if (auto named = parse_bridge_descriptor_notice(line.toStdString()))
    emit bridge_named(QString::fromStdString(named->first), QString::fromStdString(named->second));
}

void ProxySession::poll() {
  if (progress_ >= 100 && socks_.isEmpty())
    control_.send(QStringLiteral("GETINFO net/listeners/socks"), [this](const ControlReplyMsg& r) {
      socks_ = QString::fromStdString(first_socks_listener(getinfo_value(r, "net/listeners/socks")));
      if (!socks_.isEmpty()) emit socks_ready(socks_);
    });
  control_.send(QStringLiteral("GETINFO circuit-status"), [this](const ControlReplyMsg& r) {
    paths_ = parse_circuit_paths(getinfo_value(r, "circuit-status"));
    emit circuits(paths_);
  });
  control_.send(QStringLiteral("GETINFO conflux/sets"), [this](const ControlReplyMsg& r) {
    std::vector<LegView> out;
    for (const auto& leg : parse_conflux_sets(getinfo_value(r, "conflux/sets"))) {
      const auto it = paths_.find(leg.circuit);
      out.push_back({leg, it == paths_.end() ? std::vector<std::string>{} : it->second});
    }
    emit legs(out);
  });
}

}  // namespace conflux::gui
