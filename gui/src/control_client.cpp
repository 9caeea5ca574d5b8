#include "control_client.hpp"

#include <QFile>
#include <QHostAddress>

namespace conflux::gui {

ControlClient::ControlClient(QObject* parent) : QObject(parent) {
  connect(&socket_, &QTcpSocket::readyRead, this, &ControlClient::on_bytes);
  connect(&socket_, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
    fail(QStringLiteral("control port: %1").arg(socket_.errorString()));
  });
  connect(&socket_, &QTcpSocket::connected, this, [this] {
    write_line(QStringLiteral("PROTOCOLINFO 1"), [this](const ControlReplyMsg& r) { on_protocolinfo(r); });
  });
}

void ControlClient::connect_to(quint16 port, const QString& cookie_file) {
  cookie_file_ = cookie_file;
  authenticated_ = false;
  reader_ = ReplyReader();
  pending_.clear();
  socket_.connectToHost(QHostAddress::LocalHost, port);
}

void ControlClient::on_protocolinfo(const ControlReplyMsg& r) {
  bool cookie = false;
  for (const auto& l : r.lines)
    if (l.text.starts_with("AUTH METHODS=") && l.text.find("COOKIE") != std::string::npos) cookie = true;
  if (!r.ok() || !cookie) {
    fail(QStringLiteral("the proxy does not offer cookie authentication: %1")
             .arg(QString::fromStdString(r.status_text())));
    return;
  }
  QFile f(cookie_file_);
  if (!f.open(QIODevice::ReadOnly)) {
    fail(QStringLiteral("cannot read the control cookie %1: %2").arg(cookie_file_, f.errorString()));
    return;
  }
  const QByteArray cookie_bytes = f.read(64);
  if (cookie_bytes.size() != 32) {
    fail(QStringLiteral("the control cookie %1 is not 32 bytes").arg(cookie_file_));
    return;
  }
  write_line(QStringLiteral("AUTHENTICATE ") + QString::fromLatin1(cookie_bytes.toHex()),
             [this](const ControlReplyMsg& a) {
               if (!a.ok()) {
                 fail(QStringLiteral("authentication refused: %1").arg(QString::fromStdString(a.status_text())));
                 return;
               }
               authenticated_ = true;
               emit ready();
             });
}

bool ControlClient::send(const QString& command, Callback on_reply) {
  if (!authenticated_ || pending_.size() >= kMaxPending) return false;
  write_line(command, std::move(on_reply));
  return true;
}

void ControlClient::write_line(const QString& command, Callback on_reply) {
  pending_.push_back(std::move(on_reply));
  socket_.write((command + QStringLiteral("\r\n")).toUtf8());
}

void ControlClient::flush(int ms) {
  while (socket_.bytesToWrite() > 0 && socket_.waitForBytesWritten(ms)) {
  }
}

void ControlClient::close() {
  authenticated_ = false;
  pending_.clear();
  socket_.abort();
}

void ControlClient::on_bytes() {
  const QByteArray bytes = socket_.readAll();
  for (const auto& reply : reader_.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())))) {
    if (socket_.state() != QAbstractSocket::ConnectedState) return;  // a callback closed it
    if (reply.is_event()) {
      const QString body = QString::fromStdString(reply.lines.front().text);
      emit event_received(body.section(QLatin1Char(' '), 0, 0), body);
      continue;
    }
    if (pending_.empty()) {
      fail(QStringLiteral("control port: a reply to no command"));
      return;
    }
    auto cb = std::move(pending_.front());
    pending_.pop_front();
    if (cb) cb(reply);
  }
  if (!reader_.ok()) fail(QStringLiteral("control port: %1").arg(QString::fromStdString(reader_.error())));
}

void ControlClient::fail(const QString& why) {
  close();
  emit failed(why);
}

}  // namespace conflux::gui
