#include "stock_tor_control.hpp"

#include <fstream>
#include <iterator>

#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include "conflux/bytes/hex.hpp"

namespace conflux::netapp {

namespace asio = net::asio;

namespace {

constexpr std::size_t kMaxReply = 64 * 1024;  // an ns/id entry is a few hundred bytes

// One reply: lines up to the final "NNN text" (skipping a "NNN+" data block
// up to its "." line). Returns the final line, or nullopt when the
// connection failed or the reply is too long.
asio::awaitable<std::optional<std::string>> read_reply(net::tcp::socket& s, std::string& buf) {
  bool in_data = false;
  for (;;) {
    const auto eol = buf.find("\r\n");
    if (eol == std::string::npos) {
      if (buf.size() > kMaxReply) co_return std::nullopt;
      auto [ec, n] = co_await asio::async_read_until(s, asio::dynamic_buffer(buf, kMaxReply + 2), "\r\n",
                                                     net::use_nothrow);
      if (ec) co_return std::nullopt;
      continue;
    }
    std::string line = buf.substr(0, eol);
    buf.erase(0, eol + 2);
    if (in_data) {
      in_data = line != ".";
    } else if (line.size() >= 4 && line[3] == '+') {
      in_data = true;
    } else if (line.size() >= 4 && line[3] == ' ') {
      co_return line;
    }
  }
}

asio::awaitable<std::optional<std::string>> exchange(net::tcp::socket& s, std::string& buf, std::string command) {
  auto [ec, n] = co_await asio::async_write(s, asio::buffer(command), net::use_nothrow);
  if (ec) co_return std::nullopt;
  co_return co_await read_reply(s, buf);
}

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
  std::string buf;
  const std::string auth = "AUTHENTICATE " +
                           bytes::to_hex({reinterpret_cast<const std::uint8_t*>(secret.data()), secret.size()}) + "\r\n";
  auto a = co_await exchange(s, buf, auth);
  if (!a || !a->starts_with("250")) co_return "control port: authentication failed";
  for (const auto& fp : relays) {
    const std::string hex = bytes::to_hex(fp, true);
    auto r = co_await exchange(s, buf, "GETINFO ns/id/" + hex + "\r\n");
    if (!r) co_return "control port: no answer";
    if (!r->starts_with("250")) co_return "its consensus does not list $" + hex + " yet";
  }
  co_return std::nullopt;
}

}  // namespace conflux::netapp
