#pragma once
// The third screen, once the proxy reached 100%: the SOCKS address to give
// applications (with a copy button), one card per bridge, the Conflux legs
// with their RTTs, the total throughput from BW events, and the proxy's log.
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
#include "proxy_session.hpp"
#include "proxy_torrc.hpp"

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

  [[nodiscard]] QString socks_text() const { return socks_->text(); }
  [[nodiscard]] QString throughput_text() const { return throughput_->text(); }
  [[nodiscard]] QTableWidget* legs_table() const noexcept { return legs_; }
  [[nodiscard]] const std::vector<BridgeCard*>& cards() const noexcept { return cards_; }
  [[nodiscard]] QPushButton* copy_button() const noexcept { return copy_; }

 signals:
  void disconnect_requested();

 private:
  void refresh_cards();

  QLineEdit* socks_;
  QPushButton* copy_;
  QVBoxLayout* cards_layout_;
  std::vector<BridgeCard*> cards_;
  std::map<QString, BridgeCardState> card_state_;  // by address
  QTableWidget* legs_;
  QLabel* throughput_;
  QPlainTextEdit* log_;
  std::map<std::uint32_t, std::vector<std::string>> paths_;
  std::vector<LegView> legs_now_;
  quint64 total_read_ = 0;
  quint64 total_written_ = 0;
};

}  // namespace conflux::gui
