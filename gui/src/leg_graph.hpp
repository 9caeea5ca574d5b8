#pragma once
// The connected screen's throughput graph: one line per Conflux leg (KiB/s
// each second, from the change in its READ+WRITTEN bytes in its CONFLUX_LEG
// events) and one for their total, over the last kSamples seconds.
// Painted with QPainter (QtCharts would add a package for one line chart).
#include <QColor>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <deque>
#include <map>

namespace conflux::gui {

class LegGraph : public QWidget {
  Q_OBJECT
 public:
  static constexpr std::size_t kSamples = 60;  // seconds kept per line

  explicit LegGraph(QWidget* parent = nullptr);
  // One second: each live leg's KiB/s (legs absent get 0 until they age out).
  void add_second(const std::map<std::uint32_t, double>& kib_s_by_leg);
  // A new connection attempt: no line of the last one.
  void clear();

  [[nodiscard]] std::size_t line_count() const noexcept { return lines_.size(); }
  // The largest KiB/s leg `circuit` reached in the window; 0 when unknown.
  [[nodiscard]] double peak(std::uint32_t circuit) const;
  [[nodiscard]] double total_peak() const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::map<std::uint32_t, std::deque<double>> lines_;  // by leg circuit id
  std::deque<double> total_;
};

}  // namespace conflux::gui
