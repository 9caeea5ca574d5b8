#include "conflux/client/begin_dir.hpp"

#include <algorithm>

#include "conflux/cell/relay_header.hpp"
#include "conflux/client/client_stream.hpp"

namespace conflux::client {
namespace {

using Clock = net::Clock;
using TimePoint = std::chrono::steady_clock::time_point;

// The circuit reports through a small shared state: it may outlive the
// coroutine's interest, or die before it.
struct BuildState {
  bool built = false;
  std::optional<std::string> closed;
  Wakeup* wake = nullptr;
};

net::awaitable<Result<Circuit*, std::string>> build_one_hop(LinkPool& links, const Clock& clock,
                                                            const DirRelay& relay, TimePoint deadline) {
  CircuitInfo info;
  PathHop hop;
  hop.target.identity = relay.identity;
  if (relay.rsa) hop.target.link_specs.push_back(cell::LinkSpecLegacyId{*relay.rsa});  // how LinkPool names it
  hop.nickname = relay.name;
  info.path.push_back(std::move(hop));
  info.one_hop_fast = true;
  auto state = std::make_shared<BuildState>();
  Wakeup wake(co_await net::asio::this_coro::executor);
  state->wake = &wake;
  struct Unhook {
    std::shared_ptr<BuildState> s;
    ~Unhook() { s->wake = nullptr; }
  } unhook{state};
  Circuit::Hooks hooks;
  hooks.built = [state](Circuit&) {
    state->built = true;
    if (state->wake) state->wake->notify();
  };
  hooks.closed = [state](Circuit&, std::string_view why) {
    state->closed = std::string(why);
    if (state->wake) state->wake->notify();
  };
  Circuit* circ = links.launch(std::move(info), {relay.at}, std::move(hooks));
  if (circ == nullptr) co_return Unexpected{std::string("no circuit ID free on the link")};
  while (!state->built && !state->closed && clock.now() < deadline) co_await wake.wait_until(deadline);
  if (state->built) co_return circ;
  if (!state->closed) circ->close(cell::DestroyReason::Finished, "directory fetch timed out");
  co_return Unexpected{state->closed ? "could not reach it: " + *state->closed : std::string("timed out connecting")};
}

// BEGIN_DIR, the request, and the answer until END; `circ` stays open.
net::awaitable<Result<std::string, std::string>> exchange(Circuit& circ, const Clock& clock, const DirRelay& relay,
                                                          const std::string& path, std::size_t max_answer,
                                                          TimePoint deadline) {
  ClientStream stream(co_await net::asio::this_coro::executor, proto::StreamKind::Dir, clock);
  if (!stream.open_on(circ, cell::BeginDirMsg{})) co_return Unexpected{std::string("could not open a directory stream")};
  while (!stream.connected() && !stream.peer_end() && !stream.failed() && clock.now() < deadline)
    co_await stream.rx_wakeup().wait_until(deadline);
  if (!stream.connected())
    co_return Unexpected{stream.peer_end() ? "the relay refused the directory request (END reason " +
                                                 std::to_string(static_cast<int>(*stream.peer_end())) + ")"
                                           : std::string("no answer to BEGIN_DIR")};
  // tor's own request line: HTTP/1.0, the relay's address as Host.
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + relay.at.address().to_string() + ":" +
                              std::to_string(relay.at.port()) + "\r\nConnection: close\r\n\r\n";
  // In cells of at most 498 bytes: a microdescriptor request names 44 bytes
  // a relay, so for more than about nine relays it takes several (one
  // send_data of the whole request sent nothing, and the fetch timed out).
  for (std::size_t at = 0; at < request.size(); at += cell::kRelayBodyMaxLen) {
    const bytes::ByteSpan piece(reinterpret_cast<const std::uint8_t*>(request.data()) + at,
                                std::min(cell::kRelayBodyMaxLen, request.size() - at));
    while (!stream.send_data(piece)) {
      if (stream.failed() || stream.peer_end() || clock.now() >= deadline)
        co_return Unexpected{std::string("could not send the request")};
      co_await stream.tx_wakeup().wait_until(deadline);
    }
  }
  std::string answer;
  while (!stream.failed() && clock.now() < deadline && answer.size() <= max_answer) {
    auto got = stream.take_received(64 * 1024);
    answer.append(got.begin(), got.end());
    if (got.empty()) {
      if (stream.peer_end()) break;
      co_await stream.rx_wakeup().wait_until(deadline);
    }
  }
  const bool ended = stream.peer_end().has_value();
  stream.close();
  if (answer.size() > max_answer) co_return Unexpected{std::string("the answer is larger than its cap")};
  if (!ended) co_return Unexpected{std::string("the answer did not arrive in time")};
  co_return answer;
}

}  // namespace

std::optional<dirnet::HttpResponse> parse_begin_dir_answer(std::string_view answer) {
  const auto header_end = answer.find("\r\n\r\n");
  if (answer.rfind("HTTP/1.", 0) != 0 || header_end == std::string_view::npos || answer.size() < 12 ||
      answer[8] != ' ')
    return std::nullopt;
  unsigned status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (answer[i] < '0' || answer[i] > '9') return std::nullopt;
    status = status * 10 + static_cast<unsigned>(answer[i] - '0');
  }
  return dirnet::HttpResponse{status, std::string(answer.substr(header_end + 4))};
}

net::awaitable<Result<dirnet::HttpResponse, std::string>> begin_dir_get(LinkPool& links, const net::Clock& clock,
                                                                        DirRelay relay, std::string path,
                                                                        std::size_t max_body,
                                                                        std::chrono::milliseconds timeout) {
  const auto deadline = clock.now() + timeout;
  auto circ = co_await build_one_hop(links, clock, relay, deadline);
  if (!circ) co_return Unexpected{circ.error()};
  auto answer = co_await exchange(**circ, clock, relay, path, max_body + 16 * 1024, deadline);
  if ((*circ)->phase() != Circuit::Phase::Closed) (*circ)->close(cell::DestroyReason::Finished, "done");
  if (!answer) co_return Unexpected{answer.error()};
  auto response = parse_begin_dir_answer(*answer);
  if (!response) co_return Unexpected{std::string("not an HTTP answer")};
  if (response->body.size() > max_body) co_return Unexpected{std::string("the document is larger than its cap")};
  co_return std::move(*response);
}

}  // namespace conflux::client
