#pragma once
// The second screen: a progress bar following the proxy's bootstrap phase.
// When no phase has come for kStuckAfter, it says where the proxy stopped and
// the last warning it gave, in plain words, and what to try, with a "Test
// bridges" button (bridge_probe.hpp) whose verdicts it lists.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QWidget>
#include <chrono>

#include "bridge_probe.hpp"
#include "conflux/gui/status_parsing.hpp"

namespace conflux::gui {

class BootstrapPage : public QWidget {
  Q_OBJECT
 public:
  static constexpr std::chrono::seconds kStuckAfter{30};

  explicit BootstrapPage(QWidget* parent = nullptr);
  void reset();
  void set_phase(const BootstrapPhase& phase);
  void set_warning(const QString& warning);
  void set_bridges(const QStringList& addresses) { addresses_ = addresses; }
  void set_stuck_after(std::chrono::milliseconds after) { stuck_timer_.setInterval(after); }

  [[nodiscard]] int progress() const { return bar_->value(); }
  [[nodiscard]] QString phase_text() const { return phase_->text(); }
  [[nodiscard]] QString stuck_text() const { return stuck_shown_ ? stuck_->text() : QString(); }
  [[nodiscard]] QPushButton* cancel_button() const noexcept { return cancel_; }
  [[nodiscard]] QPushButton* test_button() const noexcept { return test_; }
  [[nodiscard]] bool testing() const noexcept { return probe_.running(); }
  [[nodiscard]] QString test_text() const { return tested_->text(); }

 signals:
  void cancel_requested();

 private:
  void show_stuck();

  QProgressBar* bar_;
  QLabel* phase_;
  QLabel* stuck_;
  QPushButton* test_;
  QLabel* tested_;
  QPushButton* cancel_;
  BridgeProbe probe_;
  QStringList addresses_;
  QTimer stuck_timer_;
  BootstrapPhase last_;
  QString last_warning_;
  bool stuck_shown_ = false;
};

// The phase as a sentence ("Loading relay descriptors (50%)").
[[nodiscard]] QString phase_in_words(const BootstrapPhase& phase);
// What to tell a person stuck at `phase` after `last_warning`.
[[nodiscard]] QString stuck_advice(const BootstrapPhase& phase, const QString& last_warning);

}  // namespace conflux::gui
