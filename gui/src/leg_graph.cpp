#include "leg_graph.hpp"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace conflux::gui {

namespace {

void push(std::deque<double>& d, double v) {
  d.push_back(v);
  while (d.size() > LegGraph::kSamples) d.pop_front();
}

double max_of(const std::deque<double>& d) { return d.empty() ? 0.0 : *std::max_element(d.begin(), d.end()); }

QColor line_color(std::size_t index) {
  static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                  QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
  return colors[index % std::size(colors)];
}

}  // namespace

LegGraph::LegGraph(QWidget* parent) : QWidget(parent) { setMinimumHeight(140); }

void LegGraph::clear() {
  lines_.clear();
  total_.clear();
  update();
}

void LegGraph::add_second(const std::map<std::uint32_t, double>& kib_s_by_leg) {
  double total = 0;
  for (const auto& [circ, v] : kib_s_by_leg) {
    auto [it, fresh] = lines_.try_emplace(circ);
    // A leg that appears mid-window is zero before it.
    if (fresh) it->second.assign(total_.size(), 0.0);
    push(it->second, v);
    total += v;
  }
  for (auto it = lines_.begin(); it != lines_.end();) {
    if (kib_s_by_leg.count(it->first) == 0) push(it->second, 0.0);
    // A leg silent for the whole window is dropped.
    it = max_of(it->second) == 0 && it->second.size() >= kSamples ? lines_.erase(it) : std::next(it);
  }
  push(total_, total);
  update();
}

double LegGraph::peak(std::uint32_t circuit) const {
  auto it = lines_.find(circuit);
  return it == lines_.end() ? 0.0 : max_of(it->second);
}

double LegGraph::total_peak() const { return max_of(total_); }

void LegGraph::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QRectF area = QRectF(rect()).adjusted(50, 8, -8, -22);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().mid().color());
  p.drawRect(area);
  const double top = std::max(1.0, total_peak() * 1.1);
  p.setPen(palette().text().color());
  p.drawText(QRectF(0, area.top() - 6, 46, 14), Qt::AlignRight, QString::number(top, 'f', 0));
  p.drawText(QRectF(0, area.bottom() - 8, 46, 14), Qt::AlignRight, QStringLiteral("0"));
  p.drawText(QRectF(area.left(), area.bottom() + 4, area.width(), 16), Qt::AlignLeft,
             tr("KiB/s over the last %1 s").arg(kSamples));
  auto draw = [&](const std::deque<double>& d, const QColor& c, qreal width) {
    if (d.size() < 2) return;
    QPainterPath path;
    const double step = area.width() / static_cast<double>(kSamples - 1);
    const double x0 = area.right() - step * static_cast<double>(d.size() - 1);
    for (std::size_t i = 0; i < d.size(); ++i) {
      const QPointF pt(x0 + step * static_cast<double>(i), area.bottom() - area.height() * d[i] / top);
      if (i == 0) path.moveTo(pt); else path.lineTo(pt);
    }
    p.setPen(QPen(c, width));
    p.drawPath(path);
  };
  draw(total_, palette().text().color(), 1.0);
  std::size_t index = 0;
  qreal legend_x = area.left() + 6;
  for (const auto& [circ, line] : lines_) {
    const QColor c = line_color(index++);
    draw(line, c, 2.0);
    const QString label = tr("leg %1").arg(circ);
    p.setPen(c);
    p.drawText(QPointF(legend_x, area.top() + 14), label);
    legend_x += p.fontMetrics().horizontalAdvance(label) + 12;
  }
  p.setPen(palette().text().color());
  p.drawText(QPointF(legend_x, area.top() + 14), tr("total"));
}

}  // namespace conflux::gui
