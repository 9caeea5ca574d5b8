// controlnet::ControlPort over real TCP on 127.0.0.1: the cookie file (32
// bytes, mode 0600) that authenticates, ControlPortWriteToFile's line, BW
// once a second from the program's byte counts, log lines as NOTICE events,
// a SIGNAL's action after its 250, and nothing after stop().
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "conflux/bytes/hex.hpp"
#include "conflux/controlnet/control_port.hpp"
#include "conflux/log/log.hpp"
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

struct Reader {
  Reader(asio::io_context& io, const tcp::endpoint& at) : socket(io) {
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

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("control port: cookie, port file, BW each second, log events, deferred signals", "[controlnet]") {
  const auto dir = std::filesystem::temp_directory_path() / ("conflux-cport-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  asio::io_context io;
  control::ControlProgram program({"BW", "NOTICE", "SIGNAL"}, control::ConfigView{});
  int signalled = 0;
  program.add_signal("NEWNYM", [&] { ++signalled; });
  std::uint64_t read = 1000, written = 10;
  controlnet::ControlPortConfig config;
  config.listen = {{asio::ip::address_v4::loopback(), 0}};
  config.write_to_file = (dir / "port").string();
  config.cookie_authentication = true;
  config.cookie_file = (dir / "cookie").string();
  config.version = "0.4.9.0-conflux";
  controlnet::ControlPort port(io, config, program, [&] { return std::make_pair(read, written); }, {});
  REQUIRE(port.start());

  const std::string cookie = slurp(dir / "cookie");
  REQUIRE(cookie.size() == 32);
  struct stat st {};
  REQUIRE(::stat(config.cookie_file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const auto at = port.endpoints().at(0);
  CHECK(slurp(dir / "port") == "PORT=127.0.0.1:" + std::to_string(at.port()) + "\n");

  Reader c(io, at);
  const auto hex = bytes::to_hex(bytes::ByteSpan(reinterpret_cast<const std::uint8_t*>(cookie.data()), 32));
  c.send("AUTHENTICATE " + hex + "\r\nSETEVENTS BW NOTICE SIGNAL\r\nSIGNAL NEWNYM\r\n");
  REQUIRE(run_until(io, [&] { return c.got.size() >= 24; }));
  CHECK(c.got == "250 OK\r\n250 OK\r\n250 OK\r\n");
  CHECK(signalled == 1);  // ran after its reply was queued

  read += 500;
  written += 7;
  REQUIRE(run_until(io, [&] { return c.got.find("650 BW") != std::string::npos; }, std::chrono::seconds(5)));
  CHECK(c.got.find("650 BW 500 7\r\n") != std::string::npos);

  log::write(log::Severity::Notice, "a line\nfor the controller");
  REQUIRE(run_until(io, [&] { return c.got.find("650 NOTICE") != std::string::npos; }));
  CHECK(c.got.find("650 NOTICE a line for the controller\r\n") != std::string::npos);

  port.stop();
  REQUIRE(run_until(io, [&] { return c.eof; }));
  std::filesystem::remove_all(dir);
}

TEST_CASE("control port: ControlSocket, mode 0600 (0660 GroupWritable), a private directory, removed at stop",
          "[controlnet]") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("conflux-csock-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  asio::io_context io;
  control::ControlProgram program({"BW"}, control::ConfigView{});
  controlnet::ControlPortConfig config;
  const std::string path = (dir / "control").string();
  { std::ofstream(dir / "group"); }
  config.sockets = {{path, false, false, false}, {(dir / "group").string(), true, false, false}};
  {
    // A stale socket of an earlier run is replaced; a plain file is not.
    controlnet::ControlPort refused(io, config, program, {}, {});
    CHECK_FALSE(refused.start());
    refused.stop();
    fs::remove(dir / "group");
  }
  controlnet::ControlPort port(io, config, program, {}, {});
  REQUIRE(port.start());
  CHECK(port.endpoints().empty());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((dir / "group").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0660);

  asio::local::stream_protocol::socket s(io);
  s.connect(asio::local::stream_protocol::endpoint(path));
  asio::write(s, asio::buffer(std::string("AUTHENTICATE\r\nGETINFO events/names\r\n")));
  std::string got;
  bool closed = false;
  std::array<char, 256> buf{};
  std::function<void()> read_more = [&] {
    s.async_read_some(asio::buffer(buf), [&](boost::system::error_code ec, std::size_t n) {
      if (ec) {
        closed = true;
        return;
      }
      got.append(buf.data(), n);
      read_more();
    });
  };
  read_more();
  REQUIRE(run_until(io, [&] { return got == "250 OK\r\n250-events/names=BW\r\n250 OK\r\n"; }));
  port.stop();
  REQUIRE(run_until(io, [&] { return closed; }));
  CHECK_FALSE(fs::exists(path));
  CHECK_FALSE(fs::exists(dir / "group"));

  // A directory others may enter is refused (tor's check), unless RelaxDirModeCheck.
  fs::permissions(dir, fs::perms::owner_all | fs::perms::others_exec, fs::perm_options::replace);
  config.sockets = {{path, false, false, false}};
  controlnet::ControlPort open_dir(io, config, program, {}, {});
  CHECK_FALSE(open_dir.start());
  open_dir.stop();
  config.sockets = {{path, false, false, true}};
  controlnet::ControlPort relaxed(io, config, program, {}, {});
  CHECK(relaxed.start());
  relaxed.stop();
  fs::remove_all(dir);
}

TEST_CASE("control port: a wrong cookie is refused and closed, a port in use fails start", "[controlnet]") {
  asio::io_context io;
  control::ControlProgram program({"BW"}, control::ConfigView{});
  const auto dir = std::filesystem::temp_directory_path() / ("conflux-cport2-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  controlnet::ControlPortConfig config;
  config.listen = {{asio::ip::address_v4::loopback(), 0}};
  config.cookie_authentication = true;
  config.cookie_file = (dir / "cookie").string();
  controlnet::ControlPort port(io, config, program, {}, {});
  REQUIRE(port.start());
  Reader c(io, port.endpoints().at(0));
  c.send("AUTHENTICATE " + std::string(64, '0') + "\r\n");
  REQUIRE(run_until(io, [&] { return c.eof; }));
  CHECK(c.got.starts_with("515 "));

  controlnet::ControlPortConfig same = config;
  same.listen = port.endpoints();
  same.cookie_file = (dir / "cookie2").string();
  controlnet::ControlPort second(io, same, program, {}, {});
  CHECK_FALSE(second.start());
  port.stop();
  std::filesystem::remove_all(dir);
}
