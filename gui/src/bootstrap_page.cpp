#include "bootstrap_page.hpp"

#include <QVBoxLayout>

namespace conflux::gui {

QString phase_in_words(const BootstrapPhase& phase) {
  QString summary = QString::fromStdString(phase.summary);
  if (summary.isEmpty()) summary = QObject::tr("Starting");
  return QObject::tr("%1 (%2%)").arg(summary).arg(phase.progress);
}

QString stuck_advice(const BootstrapPhase& phase, const QString& last_warning) {
  QString where;
  if (phase.progress < 75)
    where = QObject::tr("The proxy has not reached enough of the network through your bridges: they may be down "
                        "or blocked, or a line may be mistyped.");
  else
    where = QObject::tr("The proxy knows the network but cannot build a circuit through your bridges.");
  QString text = QObject::tr("Stuck at: %1.\n%2").arg(phase_in_words(phase), where);
  if (!last_warning.isEmpty()) text += QObject::tr("\nLast warning: %1").arg(last_warning);
  text += QObject::tr("\nWhat to try: test the bridges (below); check each bridge line; ask for other bridges or "
                      "use the built-in ones; cancel and connect without the ones that do not answer.");
  return text;
}

BootstrapPage::BootstrapPage(QWidget* parent)
    : QWidget(parent),
      bar_(new QProgressBar(this)),
      phase_(new QLabel(this)),
      stuck_(new QLabel(this)),
      test_(new QPushButton(tr("Test bridges"), this)),
      tested_(new QLabel(this)),
      cancel_(new QPushButton(tr("Cancel"), this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("<h2>Connecting</h2>"), this));
  bar_->setRange(0, 100);
  layout->addWidget(bar_);
  layout->addWidget(phase_);
  stuck_->setWordWrap(true);
  stuck_->setStyleSheet(QStringLiteral("color: #8a4b00"));
  layout->addWidget(stuck_);
  layout->addWidget(test_, 0, Qt::AlignLeft);
  layout->addWidget(tested_);
  layout->addStretch(1);
  layout->addWidget(cancel_, 0, Qt::AlignRight);
  stuck_timer_.setSingleShot(true);
  stuck_timer_.setInterval(kStuckAfter);
  connect(&stuck_timer_, &QTimer::timeout, this, &BootstrapPage::show_stuck);
  connect(cancel_, &QPushButton::clicked, this, &BootstrapPage::cancel_requested);
  connect(test_, &QPushButton::clicked, this, [this] {
    tested_->clear();
    test_->setEnabled(false);
    probe_.probe(addresses_);
  });
  connect(&probe_, &BridgeProbe::result, this, [this](const ProbeResult& r) {
    tested_->setText(tested_->text() + (tested_->text().isEmpty() ? QString() : QStringLiteral("\n")) + r.address +
                     QStringLiteral(": ") + r.text());
  });
  connect(&probe_, &BridgeProbe::finished, this, [this] { test_->setEnabled(true); });
  reset();
}

void BootstrapPage::reset() {
  last_ = BootstrapPhase{};
  last_warning_.clear();
  bar_->setValue(0);
  phase_->setText(tr("Starting conflux-proxy"));
  stuck_->hide();
  test_->hide();
  tested_->clear();
  stuck_shown_ = false;
  stuck_timer_.start();
}

void BootstrapPage::set_phase(const BootstrapPhase& phase) {
  last_ = phase;
  bar_->setValue(phase.progress);
  phase_->setText(phase_in_words(phase));
  if (!phase.warning.empty()) last_warning_ = QString::fromStdString(phase.warning);
  stuck_->hide();
  stuck_shown_ = false;
  if (phase.progress < 100) stuck_timer_.start();
  else stuck_timer_.stop();
}

void BootstrapPage::set_warning(const QString& warning) {
  last_warning_ = warning;
  if (stuck_shown_) show_stuck();
}

void BootstrapPage::show_stuck() {
  stuck_->setText(stuck_advice(last_, last_warning_));
  stuck_->show();
  test_->show();
  stuck_shown_ = true;
}

}  // namespace conflux::gui
