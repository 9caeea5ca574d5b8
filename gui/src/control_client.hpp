#pragma once
// A controller of conflux-proxy's ControlPort over QTcpSocket: PROTOCOLINFO,
// then AUTHENTICATE with the cookie file; commands answered in order through
// callbacks; 650 events as a signal. At most kMaxPending commands wait for
// their replies.
#include <QObject>
#include <QString>
#include <QTcpSocket>
#include <deque>
#include <functional>

#include "conflux/control/reply_reader.hpp"

namespace conflux::gui {

// The controller's reading of replies is common/control's (conflux-net reads a stock tor relay's with it too).
using control::ControlReplyMsg;
using control::getinfo_value;
using control::ReplyReader;

class ControlClient : public QObject {
  Q_OBJECT
 public:
  using Callback = std::function<void(const ControlReplyMsg&)>;
  static constexpr std::size_t kMaxPending = 64;

  explicit ControlClient(QObject* parent = nullptr);
  // Connects to 127.0.0.1:port and authenticates with the cookie in `cookie_file`.
  void connect_to(quint16 port, const QString& cookie_file);
  // Sends one command line (without CRLF); false when not authenticated or too many wait.
  bool send(const QString& command, Callback on_reply = {});
  // Waits (blocking, up to `ms`) until what was sent is written.
  void flush(int ms);
  void close();
  [[nodiscard]] bool authenticated() const noexcept { return authenticated_; }

 signals:
  void ready();                                   // authenticated
  void event_received(const QString& name, const QString& body);  // body: the line after "650 "
  void failed(const QString& why);

 private:
  void on_bytes();
  void on_protocolinfo(const ControlReplyMsg& r);
  void write_line(const QString& command, Callback on_reply);
  void fail(const QString& why);

  QTcpSocket socket_;
  ReplyReader reader_;
  std::deque<Callback> pending_;
  QString cookie_file_;
  bool authenticated_ = false;
};

}  // namespace conflux::gui
