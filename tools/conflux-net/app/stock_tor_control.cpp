#include "stock_tor_control.hpp"

#include <array>
#include <deque>
#include <fstream>
#include <iterator>

#include <boost/asio/write.hpp>

#include "conflux/bytes/hex.hpp"
#include "conflux/control/reply_reader.hpp"

namespace conflux::netapp {

namespace asio = net::asio;

namespace {

constexpr std::size_t kMaxReply = 64 * 1024;  // an ns/id entry is a few hundred bytes

// Commands and their replies on one connection, the replies read with
// common/control's ReplyReader.
class Exchange {
 public:
  explicit Exchange(net::tcp::socket& s) : s_(s) {}

  // `command`'s reply; nullopt when the connection failed, the relay broke
  // the protocol, or the reply went past kMaxReply bytes.
  asio::awaitable<std::optional<control::ControlReplyMsg>> operator()(std::string command) {
    auto [ec, n] = co_await asio::async_write(s_, asio::buffer(command), net::use_nothrow);
    if (ec) co_return std::nullopt;
    std::size_t read = 0;
    std::array<char, 4096> buf{};
    for (;;) {
      // Asynchronous events were not asked for, but a relay may send them.
      while (!ready_.empty()) {
        auto reply = std::move(ready_.front());
        ready_.pop_front();
        if (!reply.is_event()) co_return reply;
      }
      if (!reader_.ok() || read > kMaxReply) co_return std::nullopt;
      auto [rec, got] = co_await s_.async_read_some(asio::buffer(buf), net::use_nothrow);
      if (rec) co_return std::nullopt;
      read += got;
      for (auto& r : reader_.feed({buf.data(), got})) ready_.push_back(std::move(r));
    }
  }

 private:
  net::tcp::socket& s_;
  control::ReplyReader reader_;
  std::deque<control::ControlReplyMsg> ready_;
};

}  // namespace

asio::awaitable<std::optional<std::string>> stock_tor_unknown_relay(net::tcp::endpoint control,
                                                                    std::filesystem::path cookie,
                                                                    std::vector<crypto::RsaFingerprint> relays,
                                                                    std::chrono::milliseconds timeout) {
  std::ifstream in(cookie, std::ios::binary);
  const std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (secret.size() != 32) co_return "no control cookie yet";
  net::tcp::socket s(co_await asio::this_coro::executor);
  // A relay that stops answering is closed under us: the read then fails.
  asio::steady_timer deadline(s.get_executor(), timeout * static_cast<int>(relays.size() + 2));
  deadline.async_wait([&s](std::error_code ec) {
    if (!ec) s.close();
  });
  auto [cec] = co_await s.async_connect(control, net::use_nothrow);
  if (cec) co_return "control port: " + cec.message();
  Exchange exchange(s);
  const std::string auth = "AUTHENTICATE " +
                           bytes::to_hex({reinterpret_cast<const std::uint8_t*>(secret.data()), secret.size()}) + "\r\n";
  auto a = co_await exchange(auth);
  if (!a || !a->ok()) co_return "control port: authentication failed";
  for (const auto& fp : relays) {
    const std::string hex = bytes::to_hex(fp, true);
    auto r = co_await exchange("GETINFO ns/id/" + hex + "\r\n");
    if (!r) co_return "control port: no answer";
    if (!r->ok()) co_return "its consensus does not list $" + hex + " yet";
  }
  co_return std::nullopt;
}

}  // namespace conflux::netapp
