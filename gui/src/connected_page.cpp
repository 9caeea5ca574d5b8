#include "connected_page.hpp"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <algorithm>

#include "conflux/gui/config_words.hpp"

namespace conflux::gui {

namespace {

QLabel* heading(const QString& text, QWidget* parent) { return new QLabel(QStringLiteral("<b>%1</b>").arg(text), parent); }

QString kib(quint64 bytes) { return QString::number(static_cast<double>(bytes) / 1024.0, 'f', 1); }

}  // namespace

ConnectedPage::ConnectedPage(QWidget* parent)
    : QWidget(parent),
      socks_(new QLineEdit(this)),
      copy_(new QPushButton(tr("Copy"), this)),
      test_(new QPushButton(tr("Test bridges"), this)),
      cards_layout_(new QVBoxLayout),
      legs_(new QTableWidget(0, 6, this)),
      graph_(new LegGraph(this)),
      throughput_(new QLabel(this)),
      log_(new QPlainTextEdit(this)),
      disconnect_(new QPushButton(tr("Disconnect"), this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("<h2>Connected</h2>"), this));
  auto* socks_row = new QHBoxLayout;
  socks_row->addWidget(new QLabel(tr("SOCKS5 proxy for your applications:"), this));
  socks_->setReadOnly(true);
  socks_row->addWidget(socks_, 1);
  socks_row->addWidget(copy_);
  layout->addLayout(socks_row);
  auto* bridges_row = new QHBoxLayout;
  bridges_row->addWidget(heading(tr("Bridges"), this));
  bridges_row->addStretch(1);
  bridges_row->addWidget(test_);
  layout->addLayout(bridges_row);
  layout->addLayout(cards_layout_);
  layout->addWidget(heading(tr("Conflux legs"), this));
  legs_->setHorizontalHeaderLabels({tr("Set"), tr("Circuit"), tr("Path"), tr("State"), tr("RTT (ms)"), tr("Cells sent")});
  legs_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
  legs_->verticalHeader()->hide();
  legs_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  legs_->setMinimumHeight(150);
  legs_->setMaximumHeight(190);
  layout->addWidget(legs_);
  layout->addWidget(graph_);
  throughput_->setText(tr("Throughput: waiting for the first second"));
  layout->addWidget(throughput_);
  auto* log_row = new QHBoxLayout;
  log_row->addWidget(heading(tr("Log"), this));
  log_row->addStretch(1);
  auto* copy_log = new QPushButton(tr("Copy log"), this);
  log_row->addWidget(copy_log);
  layout->addLayout(log_row);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(kMaxLogLines);
  layout->addWidget(log_, 1);
  layout->addWidget(disconnect_, 0, Qt::AlignRight);
  connect(copy_, &QPushButton::clicked, this, [this] { QGuiApplication::clipboard()->setText(socks_->text()); });
  connect(copy_log, &QPushButton::clicked, this,
          [this] { QGuiApplication::clipboard()->setText(log_->toPlainText()); });
  connect(disconnect_, &QPushButton::clicked, this, &ConnectedPage::disconnect_requested);
  connect(test_, &QPushButton::clicked, this, &ConnectedPage::test_bridges);
  connect(&probe_, &BridgeProbe::result, this, [this](const ProbeResult& r) {
    for (auto* card : cards_)
      if (card->address() == r.address) card->set_probe(r.text(), r.verdict != ProbeResult::Verdict::Alive);
  });
  connect(&probe_, &BridgeProbe::finished, this, [this] { test_->setEnabled(true); });
}

void ConnectedPage::test_bridges() {
  QStringList addresses;
  for (auto* card : cards_) {
    card->set_probe(tr("Test: trying…"), false);
    card->set_tor_test(tr("Tor: asking the proxy…"), false);
    addresses << card->address();
  }
  test_->setEnabled(false);
  probe_.probe(addresses);
  emit tor_test_requested();
}

void ConnectedPage::set_tor_test(const BridgeTest& t) {
  const QString address = QString::fromStdString(t.address);
  for (auto* card : cards_) {
    if (card->address() != address) continue;
    if (t.ok)
      card->set_tor_test(tr("Tor: the bridge gave its descriptor in %1 ms").arg(t.ms), false);
    else  // the reason's last step on the card, the whole chain in its tooltip
      card->set_tor_test(tr("Tor: no answer after %1 ms (%2)")
                             .arg(t.ms)
                             .arg(QString::fromStdString(t.reason).section(QStringLiteral(": "), -1)),
                         true, QString::fromStdString(t.reason));
  }
}

void ConnectedPage::tor_test_refused(const QString& why) {
  for (auto* card : cards_) card->set_tor_test(tr("Tor: not tested (%1)").arg(why), true);
}

void ConnectedPage::set_bridges(const ProxySettings& settings) {
  // A new attempt (the proxy stays between them): nothing of the last one shows.
  for (auto* c : cards_) c->deleteLater();
  cards_.clear();
  card_state_.clear();
  socks_->clear();
  paths_.clear();
  legs_now_.clear();
  leg_bytes_.clear();
  legs_updated_ = false;
  bridge_bytes_.clear();
  bridge_kib_s_.clear();
  graph_->clear();
  total_read_ = 0;
  total_written_ = 0;
  throughput_->clear();
  for (const auto& b : settings.bridges) {
    const auto [transport, address] = bridge_transport_and_address(b);
    auto* card = new BridgeCard(QString::fromStdString(address), QString::fromStdString(transport), this);
    cards_layout_->addWidget(card);
    cards_.push_back(card);
  }
}

void ConnectedPage::set_socks(const QString& address) { socks_->setText(address); }

void ConnectedPage::set_bridge_name(const QString& address, const QString& nickname) {
  auto& s = card_state_[address];
  s.nickname = nickname;
  s.seen_alive = true;
  refresh_cards();
}

void ConnectedPage::set_circuits(const std::map<std::uint32_t, std::vector<std::string>>& paths) {
  paths_ = paths;
  refresh_cards();
}

void ConnectedPage::count_leg_bytes(const std::vector<LegView>& legs) {
  std::map<std::uint32_t, std::uint64_t> now;
  std::map<std::uint32_t, double> kib_s;
  bridge_kib_s_.clear();
  for (const auto& l : legs) {
    const std::uint64_t bytes = l.leg.read + l.leg.written;
    now[l.leg.circuit] = bytes;
    // A leg born since the last update carried all its bytes in this second
    // (a short download can start and end between two updates).
    const auto before = leg_bytes_.find(l.leg.circuit);
    const std::uint64_t delta = before != leg_bytes_.end() ? (bytes >= before->second ? bytes - before->second : 0)
                                : legs_updated_ ? bytes
                                                : 0;
    kib_s[l.leg.circuit] = static_cast<double>(delta) / 1024.0;  // updated once a second
    if (l.path.empty()) continue;
    bridge_bytes_[l.path.front()] += delta;
    bridge_kib_s_[l.path.front()] += static_cast<double>(delta) / 1024.0;
  }
  leg_bytes_ = std::move(now);
  legs_updated_ = true;
  graph_->add_second(kib_s);
}

void ConnectedPage::set_legs(const std::vector<LegView>& legs) {
  legs_now_ = legs;
  count_leg_bytes(legs);
  legs_->setRowCount(static_cast<int>(legs.size()));
  for (int row = 0; row < static_cast<int>(legs.size()); ++row) {
    const auto& l = legs[static_cast<std::size_t>(row)];
    QStringList path;
    for (const auto& hop : l.path) path << QString::fromStdString(hop);
    const QStringList cells{QString::number(l.leg.set),        QString::number(l.leg.circuit),
                            path.join(QStringLiteral(" → ")), QString::fromStdString(l.leg.state),
                            QString::number(l.leg.srtt_ms, 'f', 1), QString::number(l.leg.share * 100, 'f', 0) + "%"};
    for (int col = 0; col < cells.size(); ++col) legs_->setItem(row, col, new QTableWidgetItem(cells[col]));
  }
  refresh_cards();
}

void ConnectedPage::refresh_cards() {
  for (auto* card : cards_) {
    auto& s = card_state_[card->address()];
    s.circuits = 0;
    s.legs = 0;
    s.best_rtt_ms = 0;
    s.share = -1;
    if (!s.nickname.isEmpty()) {
      const auto name = s.nickname.toStdString();
      std::uint64_t all = 0;
      for (const auto& [bridge, bytes] : bridge_bytes_) all += bytes;
      if (all > 0) {
        const auto mine = bridge_bytes_.find(name);
        s.share = mine == bridge_bytes_.end() ? 0.0 : static_cast<double>(mine->second) / static_cast<double>(all);
        const auto rate = bridge_kib_s_.find(name);
        s.kib_s = rate == bridge_kib_s_.end() ? 0.0 : rate->second;
      }
      for (const auto& [id, hops] : paths_)
        if (!hops.empty() && hops.front() == name) ++s.circuits;
      for (const auto& l : legs_now_) {
        if (l.path.empty() || l.path.front() != name) continue;
        ++s.legs;
        if (l.leg.srtt_ms > 0 && (s.best_rtt_ms == 0 || l.leg.srtt_ms < s.best_rtt_ms)) s.best_rtt_ms = l.leg.srtt_ms;
      }
    }
    card->update_state(s);
  }
}

void ConnectedPage::add_bandwidth(quint64 read, quint64 written) {
  total_read_ += read;
  total_written_ += written;
  throughput_->setText(tr("Throughput: ↓ %1 KiB/s  ↑ %2 KiB/s   (since connecting: ↓ %3 KiB, ↑ %4 KiB)")
                           .arg(kib(read), kib(written), kib(total_read_), kib(total_written_)));
}

void ConnectedPage::append_log(const QString& line) { log_->appendPlainText(line); }

}  // namespace conflux::gui
