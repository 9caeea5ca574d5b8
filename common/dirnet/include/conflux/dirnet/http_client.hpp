#pragma once
// A minimal HTTP/1.1 client for the directory (Boost.Beast inside the .cpp,
// so this header costs only what the runtime's precompiled Asio header
// already has). One request per connection, as tor's directory clients do
// on a DirPort: the caller never shares a connection between documents.
// Bounded: one deadline covers connect, write and read; the response
// header and body have caps.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/bytes/result.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::dirnet {

using net::asio::ip::tcp;

struct HttpLimits {
  std::chrono::milliseconds timeout{10000};  // the whole exchange
  std::size_t max_header = 8192;
  std::size_t max_body = 64 * 1024;
};

struct HttpResponse {
  unsigned status = 0;
  std::string body;
  std::string reason{};  // the status line's reason phrase (tor's directory says why there)
};

enum class HttpErrc : std::uint8_t {
  Connect,      // refused, unreachable
  Timeout,      // the deadline passed
  Io,           // the connection broke
  BadResponse,  // not HTTP, or a header above the cap
  TooLarge,     // a body above the cap
};
[[nodiscard]] std::string_view to_string(HttpErrc e) noexcept;

template <class T>
using HttpResult = Result<T, HttpErrc>;

// GET `target`; any status is a response (the caller decides what 404 means).
[[nodiscard]] net::awaitable<HttpResult<HttpResponse>> http_get(tcp::endpoint to, std::string target,
                                                                HttpLimits limits);

// POST `body` as `content_type` to `target` (tor's documents are text).
[[nodiscard]] net::awaitable<HttpResult<HttpResponse>> http_post(tcp::endpoint to, std::string target,
                                                                 std::string body, HttpLimits limits,
                                                                 std::string content_type = "text/plain");

}  // namespace conflux::dirnet
