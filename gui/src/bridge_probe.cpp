#include "bridge_probe.hpp"

#include <QHostAddress>

namespace conflux::gui {

QString ProbeResult::text() const {
  switch (verdict) {
    case Verdict::Alive: return QObject::tr("Test: answered in %1 ms").arg(ms);
    case Verdict::Slow: return QObject::tr("Test: slow, answered in %1 ms").arg(ms);
    case Verdict::Dead: return QObject::tr("Test: dead (%1)").arg(error);
  }
  return {};
}

BridgeProbe::BridgeProbe(QObject* parent) : QObject(parent) {
  deadline_.setSingleShot(true);
  connect(&deadline_, &QTimer::timeout, this, [this] {
    for (auto& a : attempts_)
      if (!a->done) conclude(*a, {a->address, ProbeResult::Verdict::Dead, 0, tr("no answer in %1 s").arg(kTimeout.count() / 1000)});
  });
}

void BridgeProbe::probe(const QStringList& addresses) {
  deadline_.stop();
  for (auto& a : attempts_) {
    a->done = true;
    a->socket->disconnect(this);
    a->socket->abort();
  }
  attempts_.clear();
  left_ = 0;
  for (const auto& address : addresses) {
    auto a = std::make_unique<Attempt>();
    a->address = address;
    a->socket = std::make_unique<QTcpSocket>();
    const auto colon = address.lastIndexOf(QLatin1Char(':'));
    QString host = address.left(colon);
    if (host.startsWith(QLatin1Char('['))) host = host.mid(1, host.size() - 2);
    const auto port = address.mid(colon + 1).toUShort();
    Attempt* raw = a.get();
    connect(raw->socket.get(), &QTcpSocket::connected, this, [this, raw] {
      const qint64 ms = raw->since.elapsed();
      conclude(*raw, {raw->address, ms > kSlow.count() ? ProbeResult::Verdict::Slow : ProbeResult::Verdict::Alive, ms, {}});
    });
    connect(raw->socket.get(), &QTcpSocket::errorOccurred, this, [this, raw](QAbstractSocket::SocketError) {
      conclude(*raw, {raw->address, ProbeResult::Verdict::Dead, 0, raw->socket->errorString()});
    });
    attempts_.push_back(std::move(a));
    ++left_;
    raw->since.start();
    raw->socket->connectToHost(QHostAddress(host), port);
  }
  if (left_ == 0) {
    emit finished();
    return;
  }
  deadline_.start(kTimeout);
}

void BridgeProbe::conclude(Attempt& a, ProbeResult r) {
  if (a.done) return;
  a.done = true;
  a.socket->disconnect(this);
  a.socket->abort();
  emit result(r);
  if (--left_ == 0) {
    deadline_.stop();
    emit finished();
  }
}

}  // namespace conflux::gui
