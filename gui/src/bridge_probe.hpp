#pragma once
// "Test bridges": each bridge's address is tried with a TCP connection, all
// at once, each for at most kTimeout. A bridge that refuses or does not
// answer in time is dead; one that takes longer than kSlow to accept is
// slow. This says whether anything listens at the address the line gives
// (the address an obfs4 bridge's transport listens on), not that the bridge
// speaks Tor behind it: the cards' "Reachable" (the proxy's circuits through
// it) says that.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTcpSocket>
#include <QTimer>
#include <chrono>
#include <memory>
#include <vector>

namespace conflux::gui {

struct ProbeResult {
  enum class Verdict { Alive, Slow, Dead };
  QString address;  // ADDR:PORT as the bridge line gives it
  Verdict verdict = Verdict::Dead;
  qint64 ms = 0;    // time to connect (Alive, Slow)
  QString error;    // why (Dead)
  [[nodiscard]] QString text() const;  // the card's line
};

class BridgeProbe : public QObject {
  Q_OBJECT
 public:
  static constexpr std::chrono::milliseconds kTimeout{10000};
  static constexpr std::chrono::milliseconds kSlow{1000};

  explicit BridgeProbe(QObject* parent = nullptr);
  // Probes each "ADDR:PORT" (an IPv6 address in brackets); a run in progress is abandoned.
  void probe(const QStringList& addresses);
  [[nodiscard]] bool running() const noexcept { return left_ > 0; }

 signals:
  void result(const conflux::gui::ProbeResult& r);
  void finished();

 private:
  struct Attempt {
    QString address;
    std::unique_ptr<QTcpSocket> socket;
    QElapsedTimer since;
    bool done = false;
  };
  void conclude(Attempt& a, ProbeResult r);

  std::vector<std::unique_ptr<Attempt>> attempts_;
  QTimer deadline_;
  int left_ = 0;
};

}  // namespace conflux::gui
