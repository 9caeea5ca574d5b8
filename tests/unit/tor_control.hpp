#pragma once
// A stock tor's control port as a test uses it (control-spec): cookie
// authentication, one command at a time, and a listener that keeps every
// asynchronous event line (650) of the events it subscribed to, read by a
// thread of its own until the listener goes. 127.0.0.1 only.
#include <sys/socket.h>

#include <boost/asio.hpp>
#include <catch2/catch.hpp>
#include <algorithm>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "conflux/bytes/hex.hpp"
#include "test_net_processes_support.hpp"

namespace conflux::test::stocktor {

class TorControl {
 public:
  TorControl(std::uint16_t port, const std::string& cookie_path) : socket_(io_) {
    socket_.connect({boost::asio::ip::address_v4::loopback(), port});
    const std::string cookie = procs::read_text(cookie_path);
    const auto reply = command(
        "AUTHENTICATE " + bytes::to_hex(bytes::ByteSpan(reinterpret_cast<const std::uint8_t*>(cookie.data()),
                                                         cookie.size())));
    INFO("control port " << port << ": " << reply);
    REQUIRE(reply.rfind("250", 0) == 0);
  }
  ~TorControl() {
    // Wakes the listener's blocking read; it ends on the error.
    ::shutdown(socket_.native_handle(), SHUT_RDWR);
    if (listener_.joinable()) listener_.join();
  }
  TorControl(const TorControl&) = delete;
  TorControl& operator=(const TorControl&) = delete;

  // The first line of the reply ("250 OK", "552 ...").
  std::string command(const std::string& line) {
    boost::asio::write(socket_, boost::asio::buffer(line + "\r\n"));
    return read_line().value_or("(closed)");
  }

  // The whole reply, its lines joined with "\n" (a GETINFO's data lines too).
  std::string reply(const std::string& line) {
    boost::asio::write(socket_, boost::asio::buffer(line + "\r\n"));
    std::string out;
    bool in_data = false;  // after "250+key=", until a line "."
    while (auto l = read_line()) {
      out += *l + "\n";
      if (in_data) {
        in_data = *l != ".";
        continue;
      }
      const bool status = l->size() >= 4 && std::all_of(l->begin(), l->begin() + 3, [](char c) { return c >= '0' && c <= '9'; });
      if (status && (*l)[3] == '+') in_data = true;
      if (status && (*l)[3] == ' ') break;  // "250 OK", "552 ...": the last line
    }
    return out;
  }

  // SETEVENTS `events`; from then on the connection only listens.
  void listen(const std::string& events) {
    REQUIRE(command("SETEVENTS " + events) == "250 OK");
    listener_ = std::thread([this] {
      while (auto line = read_line()) {
        std::lock_guard lock(mutex_);
        if (line->rfind("650", 0) == 0) events_.push_back(std::move(*line));
      }
    });
  }

  [[nodiscard]] std::vector<std::string> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  // The event lines that match `pattern`, with its first group each.
  [[nodiscard]] std::vector<std::string> matches(const std::string& pattern) const {
    const std::regex re(pattern);
    std::vector<std::string> out;
    for (const auto& e : events()) {
      std::smatch m;
      if (std::regex_search(e, m, re)) out.push_back(m.size() > 1 ? std::string(m[1]) : e);
    }
    return out;
  }

 private:
  std::optional<std::string> read_line() {
    boost::system::error_code ec;
    boost::asio::read_until(socket_, buffer_, "\r\n", ec);
    if (ec) return std::nullopt;
    std::istream in(&buffer_);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::streambuf buffer_;
  std::thread listener_;
  mutable std::mutex mutex_;
  std::vector<std::string> events_;
};

}  // namespace conflux::test::stocktor
