#pragma once
// One bridge on the connected screen: its address and transport, the
// nickname its descriptor gave, whether the proxy reached it and how many
// circuits and Conflux legs start there, the smallest RTT of those legs, and
// its share of the traffic the legs carried (with its KiB/s now), and the
// last "Test bridges" verdicts: TCP (bridge_probe.hpp) and Tor (the proxy's
// CONFLUX_TESTBRIDGES: its descriptor fetched from it now).
#include <QFrame>
#include <QLabel>
#include <QString>

namespace conflux::gui {

struct BridgeCardState {
  QString nickname;       // "" until its descriptor was fetched
  int circuits = 0;       // open or building circuits whose first hop it is
  int legs = 0;           // Conflux legs through it
  double best_rtt_ms = 0; // the smallest smoothed RTT of its legs
  bool seen_alive = false;  // it had circuits or its descriptor once
  double share = -1;        // its legs' part of all legs' bytes since connecting; < 0: none yet
  double kib_s = 0;         // its legs' KiB/s in the last second
};

class BridgeCard : public QFrame {
  Q_OBJECT
 public:
  BridgeCard(QString address, QString transport, QWidget* parent = nullptr);
  void update_state(const BridgeCardState& s);
  void set_probe(const QString& text, bool bad);
  void set_tor_test(const QString& text, bool bad, const QString& detail = {});

  [[nodiscard]] const QString& address() const noexcept { return address_; }
  [[nodiscard]] QString status_text() const { return status_->text(); }
  [[nodiscard]] QString probe_text() const { return probe_->text(); }
  [[nodiscard]] QString tor_test_text() const { return tor_test_->text(); }

 private:
  QString address_;
  QString base_title_;
  QLabel* title_;
  QLabel* status_;
  QLabel* probe_;
  QLabel* tor_test_;
};

}  // namespace conflux::gui
