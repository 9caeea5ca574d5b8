// The ControlPort's network side (controlnet::ControlServer) over real TCP on
// 127.0.0.1: sessions answer in order, events reach only the controllers that
// subscribed and authenticated, an unauthenticated command gets 514 and the
// connection closes, and a controller that stops reading is closed alone.
#include <catch2/catch.hpp>

#include "conflux/control/control_reply.hpp"
#include "conflux/controlnet/control_server.hpp"
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

struct Commands final : control::ControlCommands {
  control::ControlAnswer on_command(const control::ControlCommand& cmd) override {
    if (cmd.keyword == "GETINFO" && cmd.args == "version")
      return {control::ControlReply().mid(250, "version=0.4.9.11 (conflux)").end(250, "OK"), false};
    return {control::control_line(510, "Unrecognized command \"" + cmd.keyword + "\""), false};
  }
  const std::set<std::string>& event_names() const override { return names; }
  std::set<std::string> names{"BW", "CIRC"};
};

// A controller: writes lines, collects what comes back.
struct Controller {
  Controller(asio::io_context& io, const tcp::endpoint& at) : socket(io) {
    socket.connect(at);
    read();
  }
  void send(const std::string& text) { asio::write(socket, asio::buffer(text)); }
  void read() {
    socket.async_read_some(asio::buffer(buf), [this](boost::system::error_code ec, std::size_t n) {
      if (ec) {
        eof = true;
        return;
      }
      got.append(buf.data(), n);
      read();
    });
  }
  tcp::socket socket;
  std::array<char, 4096> buf{};
  std::string got;
  bool eof = false;
};

}  // namespace

TEST_CASE("control server: replies in order, events to subscribers, the gate closes strangers", "[controlnet]") {
  asio::io_context io;
  Commands commands;
  control::ControlCookie nonce{};
  auto server = controlnet::ControlServer::create(io.get_executor(), {asio::ip::address_v4::loopback(), 0}, [&] {
    return std::make_unique<control::ControlSession>(control::ControlAuthConfig{}, [&] { return nonce; }, commands);
  });
  REQUIRE(server);
  (*server)->start();
  const auto at = (*server)->local_endpoint();

  Controller a(io, at);
  a.send("AUTHENTICATE\r\nGETINFO version\r\nSETEVENTS bw\r\nFROB\r\n");
  const std::string expect = "250 OK\r\n250-version=0.4.9.11 (conflux)\r\n250 OK\r\n250 OK\r\n510 Unrecognized command \"FROB\"\r\n";
  REQUIRE(run_until(io, [&] { return a.got.size() >= expect.size(); }));
  CHECK(a.got == expect);

  Controller b(io, at);  // connected, never authenticates
  REQUIRE(run_until(io, [&] { return (*server)->active_connections() == 2; }));
  (*server)->publish("BW", "650 BW 10 20\r\n");
  (*server)->publish("CIRC", "650 CIRC 1 BUILT\r\n");
  REQUIRE(run_until(io, [&] { return a.got.size() >= expect.size() + 14; }));
  CHECK(a.got.substr(expect.size()) == "650 BW 10 20\r\n");

  b.send("GETINFO version\r\n");
  REQUIRE(run_until(io, [&] { return b.eof; }));
  CHECK(b.got == "514 Authentication required.\r\n");
  CHECK_FALSE(a.eof);

  SECTION("a controller that stops reading is closed alone") {
    // `c` subscribes and then reads nothing while events pour in.
    Controller c(io, at);
    c.send("AUTHENTICATE\r\nSETEVENTS BW\r\n");
    REQUIRE(run_until(io, [&] { return c.got.size() >= 16; }));
    c.socket.cancel();  // no more reads: the kernel buffers fill, then our queue
    const std::string event = "650 BW " + std::string(1000, '7') + "\r\n";
    for (int i = 0; i < 20000 && (*server)->overflowed_connections() == 0; ++i) {
      (*server)->publish("BW", event);
      io.poll();
    }
    CHECK((*server)->overflowed_connections() == 1);
    a.send("GETINFO version\r\n");
    const auto before = a.got.size();
    REQUIRE(run_until(io, [&] { return a.got.find("version=", before) != std::string::npos; }));
  }
  (*server)->stop();
  REQUIRE(run_until(io, [&] { return a.eof; }));
}

TEST_CASE("control server: the owner's connection closing calls the hook, others' do not", "[controlnet]") {
  asio::io_context io;
  Commands commands;
  control::ControlCookie nonce{};
  auto server = controlnet::ControlServer::create(io.get_executor(), {asio::ip::address_v4::loopback(), 0}, [&] {
    return std::make_unique<control::ControlSession>(control::ControlAuthConfig{}, [&] { return nonce; }, commands);
  });
  REQUIRE(server);
  int owner_gone = 0;
  (*server)->set_owner_closed([&] { ++owner_gone; });
  (*server)->start();
  const auto at = (*server)->local_endpoint();
  {
    Controller dropped(io, at);
    dropped.send("AUTHENTICATE\r\nTAKEOWNERSHIP\r\nDROPOWNERSHIP\r\nQUIT\r\n");
    REQUIRE(run_until(io, [&] { return dropped.eof; }));
  }
  REQUIRE(run_until(io, [&] { return (*server)->active_connections() == 0; }));
  CHECK(owner_gone == 0);
  Controller owner(io, at);
  owner.send("AUTHENTICATE\r\nTAKEOWNERSHIP\r\n");
  REQUIRE(run_until(io, [&] { return owner.got == "250 OK\r\n250 OK\r\n"; }));
  owner.socket.close();  // its pending read ends (eof) before the test ends
  REQUIRE(run_until(io, [&] { return owner_gone == 1 && owner.eof; }));
  // stop() is not a controller leaving.
  Controller last(io, at);
  last.send("AUTHENTICATE\r\nTAKEOWNERSHIP\r\n");
  REQUIRE(run_until(io, [&] { return last.got.size() == 16; }));
  (*server)->stop();
  REQUIRE(run_until(io, [&] { return last.eof; }));
  CHECK(owner_gone == 1);
}

TEST_CASE("control server: connections beyond the limit are closed at accept", "[controlnet]") {
  asio::io_context io;
  Commands commands;
  auto server = controlnet::ControlServer::create(
      io.get_executor(), {asio::ip::address_v4::loopback(), 0},
      [&] { return std::make_unique<control::ControlSession>(control::ControlAuthConfig{}, [] { return control::ControlCookie{}; }, commands); },
      controlnet::ControlServerLimits{2, 1 << 20});
  REQUIRE(server);
  (*server)->start();
  Controller a(io, (*server)->local_endpoint());
  Controller b(io, (*server)->local_endpoint());
  REQUIRE(run_until(io, [&] { return (*server)->active_connections() == 2; }));
  Controller c(io, (*server)->local_endpoint());
  REQUIRE(run_until(io, [&] { return c.eof; }));
  CHECK((*server)->refused_connections() == 1);
  CHECK_FALSE(a.eof);
  (*server)->stop();
  io.poll();
}
