#include "connect_page.hpp"

#include <QHBoxLayout>
#include <QVBoxLayout>

#include "conflux/gui/bridge_validation.hpp"

namespace conflux::gui {

namespace {

QString describe_ok(const std::string& value) {
  const auto words = QString::fromStdString(value).split(QLatin1Char(' '), Qt::SkipEmptyParts);
  const bool transport = words.size() > 1 && !words[0].contains(QLatin1Char(':'));
  return transport ? QStringLiteral("%1 bridge at %2").arg(words[0], words[1])
                   : QStringLiteral("bridge at %1").arg(words.value(0));
}

QString joined(const std::vector<std::string>& errors) {
  QStringList parts;
  for (const auto& e : errors) parts << QString::fromStdString(e);
  return parts.join(QStringLiteral("; "));
}

}  // namespace

ConnectPage::ConnectPage(QString obfs4proxy, QStringList builtin, QWidget* parent)
    : QWidget(parent),
      obfs4proxy_(std::move(obfs4proxy)),
      builtin_lines_(std::move(builtin)),
      builtin_(new QCheckBox(this)),
      edit_(new QPlainTextEdit(this)),
      checks_(new QListWidget(this)),
      conflux_(new QCheckBox(tr("Use Conflux: spread traffic over several circuits through different bridges"), this)),
      legs_(new QSpinBox(this)),
      auto_connect_(new QCheckBox(tr("Connect automatically next time"), this)),
      error_(new QLabel(this)),
      connect_(new QPushButton(tr("Connect"), this)) {
  auto* layout = new QVBoxLayout(this);
  auto* title = new QLabel(tr("<h2>Connect through bridges</h2>"
                              "Paste your bridge lines, one per line (plain or <tt>obfs4 ...</tt>; "
                              "a leading <tt>Bridge</tt> is fine)."),
                           this);
  title->setWordWrap(true);
  edit_->setPlaceholderText(tr("obfs4 192.0.2.1:443 IDENTITY cert=... iat-mode=0"));
  edit_->setLineWrapMode(QPlainTextEdit::NoWrap);
  checks_->setMaximumHeight(110);
  conflux_->setChecked(true);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #b00020"));
  error_->hide();
  builtin_->setText(builtin_lines_.isEmpty()
                        ? tr("Use the built-in bridges (none found)")
                        : tr("Use the built-in bridges (%n shipped with the app) instead of these lines", "",
                             static_cast<int>(builtin_lines_.size())));
  builtin_->setEnabled(!builtin_lines_.isEmpty());
  layout->addWidget(title);
  layout->addWidget(builtin_);
  layout->addWidget(edit_, 1);
  layout->addWidget(checks_);
  auto* conflux_row = new QHBoxLayout;
  conflux_row->addWidget(conflux_);
  conflux_row->addStretch(1);
  conflux_row->addWidget(new QLabel(tr("Legs per set:"), this));
  legs_->setRange(2, 8);
  conflux_row->addWidget(legs_);
  layout->addLayout(conflux_row);
  layout->addWidget(auto_connect_);
  layout->addWidget(error_);
  layout->addWidget(connect_, 0, Qt::AlignRight);
  connect(conflux_, &QCheckBox::toggled, legs_, &QSpinBox::setEnabled);
  connect(edit_, &QPlainTextEdit::textChanged, this, &ConnectPage::revalidate);
  connect(builtin_, &QCheckBox::toggled, this, [this](bool on) {
    edit_->setEnabled(!on);
    revalidate();
  });
  connect(connect_, &QPushButton::clicked, this, [this] {
    pending_.conflux = conflux_->isChecked();
    pending_.conflux_legs = static_cast<std::uint32_t>(legs_->value());
    emit connect_requested(pending_);
  });
  revalidate();
}

void ConnectPage::set_bridge_text(const QString& text) { edit_->setPlainText(text); }
void ConnectPage::set_conflux(bool on) { conflux_->setChecked(on); }
void ConnectPage::set_builtin(bool on) { builtin_->setChecked(on && builtin_->isEnabled()); }

void ConnectPage::load(const SavedSettings& s) {
  // The torrc holds the built-in lines when they were chosen: the box keeps its own.
  if (!s.builtin) set_bridge_text(s.bridge_text);
  set_builtin(s.builtin);
  conflux_->setChecked(s.conflux);
  legs_->setValue(s.legs);
  auto_connect_->setChecked(s.auto_connect);
}

SavedSettings ConnectPage::saved() const {
  return {edit_->toPlainText(), conflux_->isChecked(), legs_->value(), auto_connect_->isChecked(),
          builtin_->isChecked()};
}

void ConnectPage::show_error(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

void ConnectPage::revalidate() {
  const QString lines = builtin_->isChecked() ? builtin_lines_.join(QLatin1Char('\n')) : edit_->toPlainText();
  const auto check = check_bridge_lines(lines.toStdString(), obfs4proxy_.toStdString());
  checks_->clear();
  pending_ = ProxySettings{};
  pending_.obfs4proxy = obfs4proxy_.toStdString();
  pending_.uses_transport = check.uses_transport();
  for (const auto& l : check.lines) {
    pending_.bridges.push_back(l.value);
    const bool ok = l.errors.empty();
    const QString text = ok ? QStringLiteral("Line %1: ✓ %2").arg(l.line).arg(describe_ok(l.value))
                            : QStringLiteral("Line %1: %2")
                                  .arg(l.line)
                                  .arg(joined(l.errors));
    auto* item = new QListWidgetItem(text, checks_);
    item->setForeground(ok ? QColor(0x1b, 0x5e, 0x20) : QColor(0xb0, 0x00, 0x20));
  }
  for (const auto& g : check.general) {
    if (check.lines.empty()) break;  // an empty box: nothing to complain about yet
    auto* item = new QListWidgetItem(QString::fromStdString(g), checks_);
    item->setForeground(QColor(0xb0, 0x00, 0x20));
  }
  connect_->setEnabled(check.ok());
}

QStringList ConnectPage::validation_messages() const {
  QStringList out;
  for (int i = 0; i < checks_->count(); ++i) out << checks_->item(i)->text();
  return out;
}

}  // namespace conflux::gui
