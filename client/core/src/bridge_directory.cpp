#include "conflux/client/bridge_directory.hpp"

#include <algorithm>

#include "conflux/cell/relay_header.hpp"
#include "conflux/client/client_stream.hpp"
#include "conflux/dir/paths.hpp"

namespace conflux::client {
namespace {

constexpr std::size_t kMaxResponse = dir::kMaxDescriptorSize + 4096;

std::string endpoint_text(const net::tcp::endpoint& e) {
  return e.address().to_string() + ":" + std::to_string(e.port());
}

}  // namespace

BridgeDirectory::BridgeDirectory(net::asio::io_context& io, LinkPool& links, const net::Clock& clock,
                                 std::vector<BridgeTarget> bridges, Options options, net::LogSink log)
    : io_(io), links_(links), clock_(clock), options_(options), log_(std::move(log)) {
  for (auto& b : bridges) bridges_.push_back(BridgeStatus{b, std::nullopt, "not tried yet", 0});
}

BridgeDirectory::~BridgeDirectory() { stop(); }

void BridgeDirectory::start() {
  for (std::size_t i = 0; i < bridges_.size(); ++i) net::asio::co_spawn(io_, keep_fresh(i), net::asio::detached);
}

void BridgeDirectory::stop() { stopped_ = true; }

std::size_t BridgeDirectory::usable() const {
  return static_cast<std::size_t>(
      std::count_if(bridges_.begin(), bridges_.end(), [](const BridgeStatus& b) { return b.descriptor.has_value(); }));
}

net::awaitable<void> BridgeDirectory::keep_fresh(std::size_t index) {
  std::weak_ptr<int> life = life_;
  auto backoff = options_.retry_initial;
  net::asio::steady_timer timer(io_);
  while (!life.expired() && !stopped_) {
    auto error = co_await fetch_once(index);
    if (life.expired() || stopped_) co_return;
    auto& b = bridges_[index];
    ++b.attempts;
    std::chrono::seconds wait = backoff;
    if (!error) {
      b.last_error.clear();
      backoff = options_.retry_initial;
      wait = options_.refresh;
      net::emit(log_, net::LogLevel::Notice, "Bridge " + b.descriptor->nickname + " (" + endpoint_text(b.target.at) +
                                                 "): descriptor fetched and verified.");
      if (on_change) on_change();
    } else {
      b.last_error = *error;
      net::emit(log_, net::LogLevel::Info, "Bridge " + endpoint_text(b.target.at) + ": " + *error);
      backoff = std::min(backoff * 2, options_.retry_max);
      if (on_change) on_change();
    }
    timer.expires_after(wait);
    (void)co_await timer.async_wait(net::use_nothrow);
  }
}

net::awaitable<std::optional<std::string>> BridgeDirectory::fetch_once(std::size_t index) {
  const BridgeTarget target = bridges_[index].target;
  const auto deadline = clock_.now() + options_.fetch_timeout;
  CircuitInfo info;
  PathHop hop;
  hop.target.identity = target.identity;
  hop.nickname = "bridge";
  info.path.push_back(std::move(hop));
  info.one_hop_fast = true;

  // The circuit reports through a small shared state: it may outlive this
  // coroutine's interest, or die before it.
  struct State {
    bool built = false;
    std::optional<std::string> closed;
    Wakeup* wake = nullptr;
  };
  auto state = std::make_shared<State>();
  Wakeup wake(co_await net::asio::this_coro::executor);
  state->wake = &wake;
  Circuit::Hooks hooks;
  hooks.built = [state](Circuit&) {
    state->built = true;
    if (state->wake) state->wake->notify();
  };
  hooks.closed = [state](Circuit&, std::string_view why) {
    state->closed = std::string(why);
    if (state->wake) state->wake->notify();
  };
  Circuit* circ = links_.launch(std::move(info), {target.at}, std::move(hooks));
  struct Unhook {
    std::shared_ptr<State> s;
    ~Unhook() { s->wake = nullptr; }
  } unhook{state};
  if (circ == nullptr) co_return std::string("no circuit ID free on the link");
  while (!state->built && !state->closed && clock_.now() < deadline) co_await wake.wait_until(deadline);
  if (!state->built) {
    if (!state->closed) circ->close(cell::DestroyReason::Finished, "bridge fetch timed out");
    co_return state->closed ? "could not reach it: " + *state->closed : std::string("timed out connecting");
  }

  ClientStream stream(co_await net::asio::this_coro::executor, proto::StreamKind::Dir, clock_);
  if (!stream.open_on(*circ, cell::BeginDirMsg{})) {
    circ->close(cell::DestroyReason::Finished, "done");
    co_return std::string("could not open a directory stream");
  }
  while (!stream.connected() && !stream.peer_end() && !stream.failed() && clock_.now() < deadline)
    co_await stream.rx_wakeup().wait_until(deadline);
  if (!stream.connected()) {
    circ->close(cell::DestroyReason::Finished, "done");
    co_return stream.peer_end() ? std::string("the bridge refused the directory request (END reason ") +
                                      std::to_string(static_cast<int>(*stream.peer_end())) + ")"
                                : std::string("no answer to BEGIN_DIR");
  }
  const std::string request = "GET " + std::string(dir::kSelfDescriptor) + " HTTP/1.0\r\nHost: " +
                              endpoint_text(target.at) + "\r\nConnection: close\r\n\r\n";
  (void)stream.send_data(bytes::ByteSpan(reinterpret_cast<const std::uint8_t*>(request.data()), request.size()));
  std::string response;
  while (!stream.failed() && clock_.now() < deadline && response.size() <= kMaxResponse) {
    auto got = stream.take_received(64 * 1024);
    response.append(got.begin(), got.end());
    if (got.empty()) {
      if (stream.peer_end()) break;
      co_await stream.rx_wakeup().wait_until(deadline);
    }
  }
  stream.close();
  if (circ->phase() != Circuit::Phase::Closed) circ->close(cell::DestroyReason::Finished, "done");
  if (!stream.peer_end()) co_return std::string("the descriptor did not arrive in time");
  const auto header_end = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.", 0) != 0 || header_end == std::string::npos)
    co_return std::string("not an HTTP answer");
  if (response.compare(9, 3, "200") != 0) co_return "HTTP status " + response.substr(9, 3);
  auto d = dir::parse_and_verify_descriptor(std::string_view(response).substr(header_end + 4), clock_.unix_seconds());
  if (!d) co_return std::string("its descriptor does not verify");
  if (!d->is_bridge || d->identity != target.identity)
    co_return std::string("its descriptor is not the bridge's of the Bridge line");
  bridges_[index].descriptor = std::move(*d);
  co_return std::nullopt;
}

}  // namespace conflux::client
