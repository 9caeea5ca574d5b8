#pragma once
// Test support: a tiny DNS server on 127.0.0.1 (UDP, a random port) that the
// exit's resolver is pointed at, so exit tests never ask a real nameserver.
// It answers A and AAAA questions from its table, slowly or never when told
// to, NXDOMAIN for names it does not know, and counts the questions it got.
// It parses only what c-ares sends; anything else is dropped.
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/exit/exit_config.hpp"
#include <boost/asio/ip/udp.hpp>
#include <cctype>

#include "conflux/net/asio.hpp"

namespace conflux::test {

struct DnsRecord {
  std::vector<cell::Ipv4Bytes> v4;
  std::vector<cell::Ipv6Bytes> v6;
  std::uint32_t ttl = 60;
  std::chrono::milliseconds delay{0};  // answer this much later
  bool never = false;                  // do not answer at all
  bool servfail = false;               // answer SERVFAIL
};

class DnsTestServer {
 public:
  explicit DnsTestServer(boost::asio::io_context& io)
      : io_(io), socket_(io, boost::asio::ip::udp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
    receive();
  }
  DnsTestServer(const DnsTestServer&) = delete;
  DnsTestServer& operator=(const DnsTestServer&) = delete;
  ~DnsTestServer() { *alive_ = false; }

  void add(const std::string& name, DnsRecord r) { records_[name] = std::move(r); }
  [[nodiscard]] std::uint16_t port() const { return socket_.local_endpoint().port(); }
  [[nodiscard]] exit::DnsServer server() const { return exit::DnsServer{cell::Ipv4Bytes{127, 0, 0, 1}, port()}; }
  // Questions received for `name` (A and AAAA each count).
  [[nodiscard]] int questions(const std::string& name) const {
    auto it = asked_.find(name);
    return it == asked_.end() ? 0 : it->second;
  }
  [[nodiscard]] int total_questions() const { return total_; }

 private:
  struct Question {
    std::uint16_t id = 0;
    std::string name;
    std::uint16_t type = 0;
    std::size_t end = 0;  // offset after the question section
  };

  static std::optional<Question> parse(const std::uint8_t* p, std::size_t n) {
    if (n < 12 || p[4] != 0 || p[5] != 1) return std::nullopt;
    Question q;
    q.id = static_cast<std::uint16_t>(p[0] << 8 | p[1]);
    std::size_t i = 12;
    while (i < n && p[i] != 0) {
      const std::size_t len = p[i];
      if (len > 63 || i + 1 + len >= n) return std::nullopt;
      if (!q.name.empty()) q.name += '.';
      for (std::size_t k = 0; k < len; ++k) q.name += static_cast<char>(std::tolower(p[i + 1 + k]));
      i += 1 + len;
    }
    if (i + 5 > n) return std::nullopt;
    q.type = static_cast<std::uint16_t>(p[i + 1] << 8 | p[i + 2]);
    q.end = i + 5;
    return q;
  }

  static void put16(std::vector<std::uint8_t>& out, std::uint32_t v) {
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v));
  }

  std::vector<std::uint8_t> answer(const std::uint8_t* query, const Question& q) const {
    const auto it = records_.find(q.name);
    std::uint16_t rcode = 0;
    if (it == records_.end()) rcode = 3;  // NXDOMAIN
    else if (it->second.servfail) rcode = 2;
    std::vector<std::vector<std::uint8_t>> rdata;
    if (rcode == 0 && q.type == 1)
      for (const auto& a : it->second.v4) rdata.emplace_back(a.begin(), a.end());
    if (rcode == 0 && q.type == 28)
      for (const auto& a : it->second.v6) rdata.emplace_back(a.begin(), a.end());
    std::vector<std::uint8_t> out;
    put16(out, q.id);
    put16(out, 0x8180u | rcode);  // response, recursion desired and available
    put16(out, 1);
    put16(out, static_cast<std::uint32_t>(rdata.size()));
    put16(out, 0);
    put16(out, 0);
    out.insert(out.end(), query + 12, query + q.end);
    for (const auto& r : rdata) {
      put16(out, 0xC00C);  // the question's name
      put16(out, q.type);
      put16(out, 1);
      put16(out, it->second.ttl >> 16);
      put16(out, it->second.ttl & 0xffff);
      put16(out, static_cast<std::uint32_t>(r.size()));
      out.insert(out.end(), r.begin(), r.end());
    }
    return out;
  }

  void receive() {
    socket_.async_receive_from(boost::asio::buffer(buf_), from_,
                               [this, alive = alive_](const boost::system::error_code& ec, std::size_t n) {
                                 if (!*alive || ec) return;
                                 on_query(n);
                                 receive();
                               });
  }

  void on_query(std::size_t n) {
    const auto q = parse(buf_.data(), n);
    if (!q) return;
    ++asked_[q->name];
    ++total_;
    const auto it = records_.find(q->name);
    if (it != records_.end() && it->second.never) return;
    auto reply = std::make_shared<std::vector<std::uint8_t>>(answer(buf_.data(), *q));
    const auto to = from_;
    const auto delay = it == records_.end() ? std::chrono::milliseconds(0) : it->second.delay;
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, delay);
    timer->async_wait([this, alive = alive_, timer, reply, to](const boost::system::error_code& ec) {
      if (!*alive || ec) return;
      boost::system::error_code ignored;
      socket_.send_to(boost::asio::buffer(*reply), to, 0, ignored);
    });
  }

  boost::asio::io_context& io_;
  boost::asio::ip::udp::socket socket_;
  std::array<std::uint8_t, 1500> buf_{};
  boost::asio::ip::udp::endpoint from_;
  std::map<std::string, DnsRecord> records_;
  std::map<std::string, int> asked_;
  int total_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace conflux::test
