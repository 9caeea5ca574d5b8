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
  legs_burst_.setSingleShot(true);
  legs_burst_.setInterval(100);
  connect(&legs_burst_, &QTimer::timeout, this, &ProxySession::emit_legs);
  connect(&poll_timer_, &QTimer::timeout, this, &ProxySession::poll);
}

ProxySession::~ProxySession() { shutdown(); }

void ProxySession::start(const ProxySettings& settings) {
  shutdown();
  progress_ = -1;
  settings_ = settings;
  socks_.clear();
  paths_.clear();
  legs_.clear();
  legs_stale_ = true;
  last_legs_.invalidate();
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
  if (!process_->start(error)) emit failed(error);
}

void ProxySession::shutdown() {
  poll_timer_.stop();
  legs_burst_.stop();
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
  control_.send(QStringLiteral("SETEVENTS STATUS_CLIENT BW WARN ERR NOTICE CIRC CONFLUX_LEG CONFLUX_BRIDGE"),
                [this](const ControlReplyMsg& r) {
                  if (!r.ok())
                    emit failed(QStringLiteral("SETEVENTS refused: %1").arg(QString::fromStdString(r.status_text())));
                });
  control_.send(QStringLiteral("GETINFO status/bootstrap-phase"), [this](const ControlReplyMsg& r) {
    if (auto p = parse_bootstrap_phase(getinfo_value(r, "status/bootstrap-phase"))) set_phase(*p);
  });
  send_settings();
  poll_timer_.start();
}

// Each step once the one before was answered: a refused setting must not be
// saved, nor the network let go with the old bridges.
void ProxySession::send_settings() {
  control_.send(QString::fromStdString(settings_setconf(settings_)), [this](const ControlReplyMsg& set) {
    if (!set.ok()) {
      emit failed(QStringLiteral("the proxy refused the settings: %1").arg(QString::fromStdString(set.status_text())));
      return;
    }
    control_.send(QStringLiteral("SAVECONF"), [this](const ControlReplyMsg& save) {
      if (!save.ok()) emit save_failed(QString::fromStdString(save.status_text()));
      control_.send(QStringLiteral("SETCONF DisableNetwork=0"), [this](const ControlReplyMsg& go) {
        if (!go.ok())
          emit failed(QStringLiteral("the proxy did not connect: %1").arg(QString::fromStdString(go.status_text())));
      });
    });
  });
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
  } else if (name == QLatin1String("CONFLUX_LEG")) {
    if (auto ev = parse_conflux_leg_event(text)) on_leg_event(*ev);
  } else if (name == QLatin1String("CONFLUX_BRIDGE")) {
    if (auto t = parse_bridge_test_event(text)) emit bridge_tested(*t);
  } else if (name == QLatin1String("CIRC")) {
    if (auto ev = parse_circ_event(text)) on_circ_event(*ev);
  }
}

void ProxySession::test_bridges() {
  const bool sent = control_.send(QStringLiteral("CONFLUX_TESTBRIDGES"), [this](const ControlReplyMsg& r) {
    if (!r.ok()) emit bridge_test_refused(QString::fromStdString(r.status_text()));
  });
  if (!sent) emit bridge_test_refused(tr("the proxy is not connected"));
}

void ProxySession::on_leg_event(const LegEvent& ev) {
  if (ev.status == "CLOSED") {
    legs_.erase(ev.leg.circuit);
    return;
  }
  auto it = legs_.find(ev.leg.circuit);
  if (it == legs_.end() || ev.status == "LINKED") {
    legs_stale_ = true;  // its state and share come with conflux/sets
    it = legs_.insert_or_assign(ev.leg.circuit, ev.leg).first;
    if (it->second.state.empty()) it->second.state = "OPEN";
  }
  it->second.srtt_ms = ev.leg.srtt_ms;
  it->second.read = ev.leg.read;
  it->second.written = ev.leg.written;
  // The proxy sends each leg's BW in one burst a second: the page gets them
  // together, once the burst is read, so each leg's second is whole.
  if (ev.status == "BW" && !legs_burst_.isActive()) legs_burst_.start();
}

void ProxySession::on_circ_event(const CircEvent& ev) {
  if (ev.status == "CLOSED" || ev.status == "FAILED") {
    paths_.erase(ev.circuit);
  } else if (!ev.hops.empty() || !paths_.contains(ev.circuit)) {
    paths_[ev.circuit] = ev.hops;
  }
  emit circuits(paths_);
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
  // The shares of the cells sent are in conflux/sets only: read every kSharesEvery polls.
  if (legs_stale_ || ++polls_ % kSharesEvery == 0) {
    legs_stale_ = false;
    control_.send(QStringLiteral("GETINFO conflux/sets"), [this](const ControlReplyMsg& r) {
      legs_.clear();
      for (const auto& leg : parse_conflux_sets(getinfo_value(r, "conflux/sets"))) legs_[leg.circuit] = leg;
    });
  }
  // While legs move cells their events pace the page; without them, this.
  if (!last_legs_.isValid() || last_legs_.elapsed() > 1500) emit_legs();
}

void ProxySession::emit_legs() {
  last_legs_.start();
  std::vector<LegView> out;
  for (const auto& [circuit, leg] : legs_) {
    const auto it = paths_.find(circuit);
    out.push_back({leg, it == paths_.end() ? std::vector<std::string>{} : it->second});
  }
  emit legs(out);
}

}  // namespace conflux::gui
