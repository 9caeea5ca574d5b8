// conflux-net serve-files: the network's web server. HTTP/1.1 GET and HEAD
// of the plain files directly under the root, with Content-Length,
// Content-Type, single byte ranges and keep-alive; and POST /echo, which
// answers with the request's body (upload tests). Beast parses requests
// (bounded: 8 KiB of header; no body except for /echo, which takes at most
// 8 MiB with a Content-Length); files and echoes are sent in 64 KiB pieces,
// so a 50 MiB download or upload costs 64 KiB of memory. Every response allows any origin (CORS), so a test page on one
// origin can fetch and hash resources from the others.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

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

constexpr std::size_t kMaxConnections = 256;  // over all addresses
constexpr std::size_t kMaxListen = 16;
constexpr std::size_t kMaxRequestsPerConnection = 10000;
constexpr std::size_t kHeaderLimit = 8192;
constexpr std::size_t kChunk = 64 * 1024;
constexpr auto kIdleTimeout = 30s;
constexpr auto kWriteTimeout = 120s;  // per 64 KiB piece: a stalled reader is dropped
// Each connection's kernel send buffer. Left to autotuning it grows to MiBs
// on loopback, and the kernel wakes a blocked writer only once about half of
// it has drained: a reader taking a few kB/s (an exit sharing one slow
// circuit between two 5 MiB downloads under load) then left one piece
// unwritten past kWriteTimeout while its bytes kept moving (issue 14). With
// 256 KiB a piece waits for about 128 KiB to be read, so the timeout drops
// readers slower than about 1 kB/s, not slow ones.
constexpr int kSendBuffer = 256 * 1024;
constexpr std::uint64_t kMaxEchoBody = 8 * 1024 * 1024;
constexpr auto kEchoIdleTimeout = 120s;  // per piece of an upload, as kWriteTimeout per piece sent

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
  h += "Access-Control-Allow-Origin: *\r\n";
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

// Sends `data` in 64 KiB pieces, each with its own write timeout.
asio::awaitable<bool> send_pieces(beast::tcp_stream& stream, std::string_view data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const auto n = std::min(kChunk, data.size() - sent);
    stream.expires_after(kWriteTimeout);
    auto [ec, w] = co_await asio::async_write(stream, asio::buffer(data.data() + sent, n), net::use_nothrow);
    if (ec) co_return false;
    sent += n;
  }
  co_return true;
}

bool is_echo_target(std::string_view target) { return target == "/echo" || target.rfind("/echo?", 0) == 0; }

// POST /echo: the header is read; answers 200 at once and sends the body
// back piece by piece as it arrives (Content-Length only, at most
// kMaxEchoBody), so an upload's progress shows in the response: a client
// waiting for the whole body to come back would otherwise see nothing while
// its bytes sat in socket buffers and crossed the circuit (issue 14). A
// client must read while it sends, as browsers and curl do. false when the
// connection must close.
asio::awaitable<bool> echo(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                           http::request_parser<http::empty_body>& header) {
  const auto& h = header.get();
  const bool keep_alive = h.keep_alive();
  if (header.is_done()) {  // no body at all: echo nothing
    co_return co_await send(stream, head(200, "OK", "application/octet-stream", 0, keep_alive)) && keep_alive;
  }
  if (h.chunked() || !header.content_length()) {
    (void)co_await send_error(stream, 411, "Length Required", false);
    co_return false;
  }
  std::uint64_t left = *header.content_length();
  if (left > kMaxEchoBody) {  // the header parser's body limit refuses these already
    (void)co_await send_error(stream, 413, "Content Too Large", false);
    co_return false;
  }
  if (!co_await send(stream, head(200, "OK", "application/octet-stream", left, keep_alive))) co_return false;
  // What the header read took past the header first (it may hold a
  // pipelined next request after the body: only `left` bytes are ours).
  const auto buffered = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), left));
  if (buffered > 0) {
    const auto* first = static_cast<const char*>(buffer.data().data());
    if (!co_await send_pieces(stream, std::string_view(first, buffered))) co_return false;
    buffer.consume(buffered);
    left -= buffered;
  }
  std::vector<char> piece(kChunk);
  while (left > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, left));
    stream.expires_after(kEchoIdleTimeout);
    auto [ec, n] = co_await stream.async_read_some(asio::buffer(piece.data(), want), net::use_nothrow);
    if (ec) co_return false;  // EOF, timeout or reset inside the body: the promised length cannot be met
    if (!co_await send_pieces(stream, std::string_view(piece.data(), n))) co_return false;
    left -= n;
  }
  co_return keep_alive;
}

asio::awaitable<void> serve(std::shared_ptr<Server> server, net::tcp::socket socket) {
  ++server->connections;
  boost::system::error_code sndbuf_ec;  // without it, only the timeout's meaning is looser
  socket.set_option(asio::socket_base::send_buffer_size(kSendBuffer), sndbuf_ec);
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer(kHeaderLimit);
  for (std::size_t n = 0; n < kMaxRequestsPerConnection; ++n) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(kMaxEchoBody);  // a body anywhere but POST /echo gets 413 below
    stream.expires_after(kIdleTimeout);
    auto [ec, bytes] = co_await http::async_read_header(stream, buffer, parser, net::use_nothrow);
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
    const auto target = parser.get().target();
    if (is_echo_target(std::string_view(target.data(), target.size()))) {
      if (parser.get().method() != http::verb::post) {
        if (!co_await send_error(stream, 405, "Method Not Allowed", parser.get().keep_alive() && parser.is_done(),
                                 "Allow: POST\r\n") ||
            !parser.is_done() || !parser.get().keep_alive())
          break;
        continue;
      }
      if (!co_await echo(stream, buffer, parser)) break;
      continue;
    }
    if (!parser.is_done()) {  // a body where none belongs: not read, so the connection cannot go on
      const auto method = parser.get().method();
      if (method == http::verb::get || method == http::verb::head)
        (void)co_await send_error(stream, 413, "Content Too Large", false);
      else
        (void)co_await send_error(stream, 405, "Method Not Allowed", false, "Allow: GET, HEAD\r\n");
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
  // ADDRESS:PORT[,ADDRESS:PORT...]: one acceptor each (the network's origins).
  std::vector<net::tcp::endpoint> endpoints;
  std::size_t from = 0;
  while (from <= listen.size() && endpoints.size() <= kMaxListen) {
    const auto comma = listen.find(',', from);
    const auto item = listen.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    from = comma == std::string::npos ? listen.size() + 1 : comma + 1;
    const auto colon = item.rfind(':');
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(item.substr(0, colon == std::string::npos ? 0 : colon), ec);
    unsigned long port = 0;
    try {
      port = colon == std::string::npos ? 0 : std::stoul(item.substr(colon + 1));
    } catch (const std::exception&) {
      port = 0;
    }
    if (ec || port == 0 || port > 65535) {
      std::fprintf(stderr, "conflux-net serve-files: --listen wants ADDRESS:PORT[,ADDRESS:PORT...], not '%s'\n",
                   listen.c_str());
      return 2;
    }
    endpoints.emplace_back(address, static_cast<std::uint16_t>(port));
  }
  if (endpoints.empty() || endpoints.size() > kMaxListen) {
    std::fprintf(stderr, "conflux-net serve-files: --listen takes 1 to %zu addresses\n", kMaxListen);
    return 2;
  }
  asio::io_context io;
  std::vector<std::unique_ptr<net::tcp::acceptor>> acceptors;
  for (const auto& ep : endpoints) {
    boost::system::error_code ec;
    auto acceptor = std::make_unique<net::tcp::acceptor>(io);
    acceptor->open(ep.protocol(), ec);
    if (!ec) acceptor->set_option(net::tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(ep, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      std::fprintf(stderr, "conflux-net serve-files: Could not bind %s:%u: %s\n", ep.address().to_string().c_str(),
                   static_cast<unsigned>(ep.port()), ec.message().c_str());
      return 1;
    }
    acceptors.push_back(std::move(acceptor));
  }
  auto server = std::make_shared<Server>();
  server->root = root;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  for (auto& a : acceptors) asio::co_spawn(io, accept_loop(server, *a), asio::detached);
  std::printf("conflux-net serve-files: serving %s on %s\n", root.c_str(), listen.c_str());
  std::fflush(stdout);
  io.run();
  return 0;
}

}  // namespace conflux::netapp
