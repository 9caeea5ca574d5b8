#include "proxy_session.hpp"

namespace conflux::gui {

ProxySession::ProxySession(ProxyLaunch launch, QObject* parent) : QObject(parent), launch_(std::move(launch)) {
  connect(&control_, &ControlClient::ready, this, &ProxySession::on_ready);
  connect(&control_, &ControlClient::event_received, this, &ProxySession::on_event);
  connect(&control_, &ControlClient::failed, this, [this](const QString& why) {
    poll_timer_.stop();
    if (!running() || shutting_down_) return;
    fail(why);
    // A proxy the app cannot drive is of no use: the next Connect starts another.
    QMetaObject::invokeMethod(
        this,
        [this, generation = process_generation_] {
          if (generation == process_generation_) stop_process();
        },
        Qt::QueuedConnection);
  });
  poll_timer_.setInterval(1000);
  legs_burst_.setSingleShot(true);
  legs_burst_.setInterval(100);
  connect(&legs_burst_, &QTimer::timeout, this, &ProxySession::emit_legs);
  connect(&poll_timer_, &QTimer::timeout, this, &ProxySession::poll);
}

ProxySession::~ProxySession() { shutdown(); }

void ProxySession::start_proxy() {
  if (running()) return;
  stop_process();  // one that exited: its QProcess goes
  ++process_generation_;
  proxy_phase_ = {};
  last_lines_.clear();
  process_ = std::make_unique<ProxyProcess>(launch_);
  connect(process_.get(), &ProxyProcess::output_line, this, &ProxySession::on_output);
  connect(process_.get(), &ProxyProcess::exited, this, [this](const QString& why) {
    poll_timer_.stop();
    control_.close();
    // Its last words say why (an option refused, a port in use).
    fail(last_lines_.isEmpty() ? why : why + QStringLiteral(":\n") + last_lines_.join(QLatin1Char('\n')));
  });
  connect(process_.get(), &ProxyProcess::control_port_ready, this,
          [this](quint16 port, const QString& cookie) { control_.connect_to(port, cookie); });
  QString error;
  if (!process_->start(error)) fail(error);
}

void ProxySession::connect_network(const ProxySettings& settings) {
  settings_ = settings;
  ++attempt_;
  reset_attempt();
  connecting_ = true;
  if (!running()) {
    start_proxy();  // on_ready sends the settings
    return;
  }
  if (control_.authenticated()) {
    poll_timer_.start();
    send_settings();
  }
}

void ProxySession::disconnect_network() {
  const bool was = connecting_;
  connecting_ = false;
  legs_burst_.stop();
  if (was && control_.authenticated())
    control_.send(QStringLiteral("SETCONF DisableNetwork=1"), [this](const ControlReplyMsg& r) {
      if (!r.ok()) emit warning(tr("The proxy kept its network: %1").arg(QString::fromStdString(r.status_text())));
    });
}

void ProxySession::reset_attempt() {
  progress_ = -1;
  usable_ = false;
  socks_.clear();
  paths_.clear();
  legs_.clear();
  legs_stale_ = true;
  last_legs_.invalidate();
}

void ProxySession::fail(const QString& why) {
  connecting_ = false;
  emit failed(why);
}

void ProxySession::shutdown() {
  connecting_ = false;
  stop_process();
}

void ProxySession::stop_process() {
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
                    fail(QStringLiteral("SETEVENTS refused: %1").arg(QString::fromStdString(r.status_text())));
                });
  control_.send(QStringLiteral("GETINFO status/bootstrap-phase"), [this](const ControlReplyMsg& r) {
    if (auto p = parse_bootstrap_phase(getinfo_value(r, "status/bootstrap-phase"))) set_phase(*p);
  });
  if (!connecting_) return;
  poll_timer_.start();
  send_settings();
}

// Each step once the one before was answered: a refused setting must not be
// saved, nor the network let go with the old bridges; nor by an attempt that
// was cancelled meanwhile.
void ProxySession::send_settings() {
  const quint64 attempt = attempt_;
  control_.send(QString::fromStdString(settings_setconf(settings_)), [this, attempt](const ControlReplyMsg& set) {
    if (!current(attempt)) return;
    if (!set.ok()) {
      fail(QStringLiteral("the proxy refused the settings: %1").arg(QString::fromStdString(set.status_text())));
      return;
    }
    control_.send(QStringLiteral("SAVECONF"), [this, attempt](const ControlReplyMsg& save) {
      if (!current(attempt)) return;
      if (!save.ok()) emit save_failed(QString::fromStdString(save.status_text()));
      control_.send(QStringLiteral("SETCONF DisableNetwork=0"), [this, attempt](const ControlReplyMsg& go) {
        if (current(attempt) && !go.ok())
          fail(QStringLiteral("the proxy did not connect: %1").arg(QString::fromStdString(go.status_text())));
      });
    });
  });
}

void ProxySession::set_phase(const BootstrapPhase& p) {
  proxy_phase_ = p;
  show_phase();
}

void ProxySession::show_phase() {
  if (!connecting_) return;
  BootstrapPhase shown = proxy_phase_;
  if (shown.progress >= 100 && !usable_) shown = {90, "circuit_create", "Establishing a Tor circuit", {}};
  if (shown.progress == progress_) return;
  progress_ = shown.progress;
  emit bootstrap(shown);
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
  if (ev.status == "LINKED" && !usable_) {
    usable_ = true;
    show_phase();
  }
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
  // Without Conflux a built circuit is what streams wait for.
  if (!settings_.conflux && ev.status == "BUILT" && ev.hops.size() >= 3 && !usable_) {
    usable_ = true;
    show_phase();
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
  if (!connecting_) return;
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
