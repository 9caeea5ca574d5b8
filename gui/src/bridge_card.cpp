#include "bridge_card.hpp"

#include <QVBoxLayout>

namespace conflux::gui {

BridgeCard::BridgeCard(QString address, QString transport, QWidget* parent)
    : QFrame(parent), address_(std::move(address)), title_(new QLabel(this)), status_(new QLabel(this)),
      probe_(new QLabel(this)), tor_test_(new QLabel(this)) {
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QVBoxLayout(this);
  base_title_ = QStringLiteral("<b>%1</b> %2").arg(address_, transport.isEmpty() ? tr("(plain)") : transport);
  title_->setText(base_title_);
  layout->addWidget(title_);
  layout->addWidget(status_);
  layout->addWidget(probe_);
  layout->addWidget(tor_test_);
  probe_->hide();
  tor_test_->hide();
  update_state({});
}

void BridgeCard::set_probe(const QString& text, bool bad) {
  probe_->setText(text);
  probe_->setStyleSheet(bad ? QStringLiteral("color: #b00020") : QString());
  probe_->setVisible(!text.isEmpty());
}

void BridgeCard::set_tor_test(const QString& text, bool bad, const QString& detail) {
  tor_test_->setText(text);
  tor_test_->setToolTip(detail);
  tor_test_->setStyleSheet(bad ? QStringLiteral("color: #b00020") : QString());
  tor_test_->setVisible(!text.isEmpty());
}

void BridgeCard::update_state(const BridgeCardState& s) {
  if (!s.nickname.isEmpty())
    title_->setText(base_title_ + QStringLiteral(" — ") + s.nickname);
  QString text;
  if (s.circuits > 0) {
    text = tr("Reachable: %n circuit(s)", "", s.circuits);
    if (s.legs > 0)
      text += tr(", %n Conflux leg(s), RTT %1 ms", "", s.legs).arg(s.best_rtt_ms, 0, 'f', 1);
    if (s.share >= 0)
      text += tr("; %1% of the traffic, %2 KiB/s now").arg(s.share * 100, 0, 'f', 0).arg(s.kib_s, 0, 'f', 1);
  } else if (s.seen_alive) {
    text = tr("No circuit through it now (it answered before): it may be down");
  } else {
    text = tr("Not reached yet");
  }
  status_->setText(text);
}

}  // namespace conflux::gui
