#pragma once
// The third screen, once the proxy reached 100%: the SOCKS address to give
// applications (with a copy button), one card per bridge, the Conflux legs
// with their RTTs, a graph of each leg's throughput (from the legs' byte
// counts in their CONFLUX_LEG events, once a second), the total throughput from BW
// events, and the proxy's log. Each bridge card shows its share of the
// legs' bytes since connecting and its KiB/s now.
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QWidget>
#include <map>
#include <vector>

#include "bridge_card.hpp"
#include "bridge_probe.hpp"
#include "leg_graph.hpp"
#include "proxy_session.hpp"
#include "conflux/gui/proxy_torrc.hpp"

namespace conflux::gui {

class ConnectedPage : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxLogLines = 5000;

  explicit ConnectedPage(QWidget* parent = nullptr);
  void set_bridges(const ProxySettings& settings);
  void set_socks(const QString& address);
  void set_bridge_name(const QString& address, const QString& nickname);
  void set_circuits(const std::map<std::uint32_t, std::vector<std::string>>& paths);
  void set_legs(const std::vector<LegView>& legs);
  void add_bandwidth(quint64 read, quint64 written);
  void append_log(const QString& line);
  // The proxy's verdict on one bridge (CONFLUX_BRIDGE), or why it gave none.
  void set_tor_test(const BridgeTest& t);
  void tor_test_refused(const QString& why);

  [[nodiscard]] QString socks_text() const { return socks_->text(); }
  [[nodiscard]] QString throughput_text() const { return throughput_->text(); }
  [[nodiscard]] QTableWidget* legs_table() const noexcept { return legs_; }
  [[nodiscard]] const LegGraph* leg_graph() const noexcept { return graph_; }
  [[nodiscard]] const std::vector<BridgeCard*>& cards() const noexcept { return cards_; }
  [[nodiscard]] QPushButton* copy_button() const noexcept { return copy_; }
  [[nodiscard]] QPushButton* test_button() const noexcept { return test_; }
  [[nodiscard]] QPushButton* disconnect_button() const noexcept { return disconnect_; }
  [[nodiscard]] bool testing() const noexcept { return probe_.running(); }

 signals:
  void disconnect_requested();
  void tor_test_requested();  // "Test bridges": the proxy's test too

 private:
  void refresh_cards();
  void test_bridges();
  // Each leg's bytes since the last update: the graph's next second and the
  // bridges' running totals.
  void count_leg_bytes(const std::vector<LegView>& legs);

  QLineEdit* socks_;
  QPushButton* copy_;
  QPushButton* test_;
  BridgeProbe probe_;
  QVBoxLayout* cards_layout_;
  std::vector<BridgeCard*> cards_;
  std::map<QString, BridgeCardState> card_state_;  // by address
  QTableWidget* legs_;
  LegGraph* graph_;
  QLabel* throughput_;
  QPlainTextEdit* log_;
  QPushButton* disconnect_;  // holds the network; the proxy stays
  std::map<std::uint32_t, std::vector<std::string>> paths_;
  std::vector<LegView> legs_now_;
  std::map<std::uint32_t, std::uint64_t> leg_bytes_;  // live legs: READ+WRITTEN at the last update
  bool legs_updated_ = false;  // an update since connecting: legs new after it carried all their bytes since
  std::map<std::string, std::uint64_t> bridge_bytes_;  // by bridge nickname: leg bytes since connecting
  std::map<std::string, double> bridge_kib_s_;        // by bridge nickname: in the last second
  quint64 total_read_ = 0;
  quint64 total_written_ = 0;
};

}  // namespace conflux::gui
