// conflux-net serve-files: the network's web server. HTTP/1.1 GET and HEAD
// of the plain files directly under the root, with Content-Length,
// Content-Type, single byte ranges and keep-alive. Beast parses requests
// (bounded: 8 KiB of header, no body); the file is streamed in 64 KiB
// pieces, so a 50 MiB download costs 64 KiB of memory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/netspec/http_files.hpp"

namespace conflux::netapp {

namespace fs = std::filesystem;
namespace asio = net::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kMaxConnections = 256;
constexpr std::size_t kMaxRequestsPerConnection = 10000;
constexpr std::size_t kHeaderLimit = 8192;
constexpr std::size_t kChunk = 64 * 1024;
constexpr auto kIdleTimeout = 30s;
constexpr auto kWriteTimeout = 120s;  // per 64 KiB piece: a stalled reader is dropped

struct Server {
  fs::path root;
  std::size_t connections = 0;
};

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

std::string head(unsigned status, std::string_view reason, std::string_view type, std::uint64_t length,
                 bool keep_alive, std::string_view extra = {}) {
  std::string h = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\nServer: conflux-net\r\n";
  if (!type.empty()) h += "Content-Type: " + std::string(type) + "\r\n";
  h += "Content-Length: " + std::to_string(length) + "\r\nAccept-Ranges: bytes\r\n";
  h += extra;
  h += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  return h;
}

asio::awaitable<bool> send(beast::tcp_stream& stream, const std::string& text) {
  stream.expires_after(kWriteTimeout);
  auto [ec, n] = co_await asio::async_write(stream, asio::buffer(text), net::use_nothrow);
  co_return !ec;
}

asio::awaitable<bool> send_error(beast::tcp_stream& stream, unsigned status, std::string_view reason,
                                 bool keep_alive, std::string_view extra = {}) {
  const std::string body = std::to_string(status) + " " + std::string(reason) + "\n";
  co_return co_await send(stream, head(status, reason, "text/plain; charset=utf-8", body.size(), keep_alive, extra) +
                                      body);
}

// Answers one request; false when the connection must close.
asio::awaitable<bool> answer(beast::tcp_stream& stream, const Server& server,
                             const http::request<http::empty_body>& req) {
  const bool keep_alive = req.keep_alive();
  const bool is_head = req.method() == http::verb::head;
  if (req.method() != http::verb::get && !is_head)
    co_return co_await send_error(stream, 405, "Method Not Allowed", keep_alive, "Allow: GET, HEAD\r\n") && keep_alive;
  const auto name = netspec::file_for_target(std::string_view(req.target().data(), req.target().size()));
  const int raw = name ? ::open((server.root / *name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
  Fd fd(raw);
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    co_return co_await send_error(stream, 404, "Not Found", keep_alive) && keep_alive;

  const auto size = static_cast<std::uint64_t>(st.st_size);
  const auto range_header = req[http::field::range];
  const auto decision = netspec::decide_range(std::string_view(range_header.data(), range_header.size()), size);
  if (decision.kind == netspec::RangeKind::Unsatisfiable)
    co_return co_await send_error(stream, 416, "Range Not Satisfiable", keep_alive,
                                  "Content-Range: bytes */" + std::to_string(size) + "\r\n") &&
        keep_alive;
  std::uint64_t first = 0, length = size;
  std::string header;
  if (decision.kind == netspec::RangeKind::Partial) {
    first = decision.range.first;
    length = decision.range.last - decision.range.first + 1;
    header = head(206, "Partial Content", netspec::content_type_for(*name), length, keep_alive,
                  "Content-Range: bytes " + std::to_string(decision.range.first) + "-" +
                      std::to_string(decision.range.last) + "/" + std::to_string(size) + "\r\n");
  } else {
    header = head(200, "OK", netspec::content_type_for(*name), length, keep_alive);
  }
  if (!co_await send(stream, header)) co_return false;
  if (is_head) co_return keep_alive;

  std::vector<char> buf(kChunk);
  std::uint64_t sent = 0;
  while (sent < length) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, length - sent));
    const auto got = ::pread(fd.get(), buf.data(), want, static_cast<off_t>(first + sent));
    if (got <= 0) co_return false;  // the file shrank: the length we promised cannot be met
    stream.expires_after(kWriteTimeout);
    auto [ec, n] =
        co_await asio::async_write(stream, asio::buffer(buf.data(), static_cast<std::size_t>(got)), net::use_nothrow);
    if (ec) co_return false;
    sent += static_cast<std::uint64_t>(got);
  }
  co_return keep_alive;
}

asio::awaitable<void> serve(std::shared_ptr<Server> server, net::tcp::socket socket) {
  ++server->connections;
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer(kHeaderLimit);
  for (std::size_t n = 0; n < kMaxRequestsPerConnection; ++n) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(0);
    stream.expires_after(kIdleTimeout);
    auto [ec, bytes] = co_await http::async_read(stream, buffer, parser, net::use_nothrow);
    if (ec) {
      // Answer what the client got wrong; just close on EOF, timeouts and resets.
      if (ec == http::error::header_limit) {
        (void)co_await send_error(stream, 431, "Request Header Fields Too Large", false);
      } else if (ec == http::error::body_limit) {
        (void)co_await send_error(stream, 413, "Content Too Large", false);
      } else if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
                 ec != http::error::end_of_stream && ec != http::error::partial_message) {
        (void)co_await send_error(stream, 400, "Bad Request", false);
      }
      break;
    }
    if (!co_await answer(stream, *server, parser.get())) break;
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(net::tcp::socket::shutdown_both, ignored);
  --server->connections;
}

asio::awaitable<void> accept_loop(std::shared_ptr<Server> server, net::tcp::acceptor& acceptor) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(net::use_nothrow);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) continue;
    if (server->connections >= kMaxConnections) continue;  // the socket closes here
    asio::co_spawn(acceptor.get_executor(), serve(server, std::move(socket)), asio::detached);
  }
}

}  // namespace

int run_serve_files(const fs::path& root, const std::string& listen) {
  const auto colon = listen.rfind(':');
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(listen.substr(0, colon == std::string::npos ? 0 : colon), ec);
  unsigned long port = 0;
  try {
    port = colon == std::string::npos ? 0 : std::stoul(listen.substr(colon + 1));
  } catch (const std::exception&) {
    port = 0;
  }
  if (ec || port == 0 || port > 65535) {
    std::fprintf(stderr, "conflux-net serve-files: --listen wants ADDRESS:PORT, not '%s'\n", listen.c_str());
    return 2;
  }
  asio::io_context io;
  net::tcp::acceptor acceptor(io);
  const net::tcp::endpoint ep(address, static_cast<std::uint16_t>(port));
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(net::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::fprintf(stderr, "conflux-net serve-files: Could not bind %s: %s\n", listen.c_str(), ec.message().c_str());
    return 1;
  }
  auto server = std::make_shared<Server>();
  server->root = root;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  asio::co_spawn(io, accept_loop(server, acceptor), asio::detached);
  std::printf("conflux-net serve-files: serving %s on http://%s/\n", root.c_str(), listen.c_str());
  std::fflush(stdout);
  io.run();
  return 0;
}

}  // namespace conflux::netapp
