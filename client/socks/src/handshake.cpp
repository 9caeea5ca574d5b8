// The handshake's state machine: dispatch on the first byte, then SOCKS5's
// greeting, optional RFC 1929 sub-negotiation and request, or the single
// SOCKS4 request.
#include "conflux/socks/handshake.hpp"

#include <algorithm>

#include "conflux/socks/reply.hpp"
#include "messages.hpp"

namespace conflux::socks {
namespace {

using detail::Outcome;

// tor answers these first bytes (GET, HEAD, POST/PUT, CONNECT) with an HTTP
// page, since a browser configured with an HTTP proxy sends them.
bool looks_like_http(std::uint8_t first) noexcept {
  return first == 'G' || first == 'H' || first == 'P' || first == 'C';
}

std::optional<std::string> non_empty(std::string s) {
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace

void ServerHandshake::fail(Step& step, std::vector<std::uint8_t> reply, std::string error) {
  step.to_send.insert(step.to_send.end(), reply.begin(), reply.end());
  step.status = Step::Status::Close;
  step.error = std::move(error);
  phase_ = Phase::Done;
  buffer_.clear();
}

bool ServerHandshake::advance(Step& step) {
  while (!buffer_.empty()) {
    bytes::ByteSpan data(buffer_);
    Outcome outcome;
    Request request;
    bool is_request = false;  // this message is the request (not greeting or auth)
    switch (phase_) {
      case Phase::Start: {
        std::uint8_t first = buffer_.front();
        if (first == 5) {
          detail::Greeting greeting;
          outcome = detail::parse_greeting(data, greeting);
          if (outcome.kind != Outcome::Kind::Done) break;
          bool user_pass = greeting.user_pass && !(greeting.no_auth && options_.prefer_no_auth);
          auto choice = detail::method_choice(user_pass);
          step.to_send.insert(step.to_send.end(), choice.begin(), choice.end());
          phase_ = user_pass ? Phase::Socks5Auth : Phase::Socks5Request;
        } else if (first == 4) {
          outcome = detail::parse_socks4_request(data, options_, request);
          is_request = true;
        } else if (looks_like_http(first)) {
          fail(step, http_not_a_proxy_response(), "HTTP request on the SOCKS port");
          return true;
        } else {
          // Neither SOCKS4 nor SOCKS5: there is no reply format to use.
          fail(step, {}, "first byte is not SOCKS version 4 or 5");
          return true;
        }
        break;
      }
      case Phase::Socks5Auth: {
        detail::Credentials credentials;
        outcome = detail::parse_userpass(data, credentials);
        if (outcome.kind != Outcome::Kind::Done) break;
        // Never checked: the credentials only isolate streams (Tor's rule).
        username_ = non_empty(std::move(credentials.username));
        password_ = non_empty(std::move(credentials.password));
        step.to_send.insert(step.to_send.end(), {0x01, 0x00});
        phase_ = Phase::Socks5Request;
        break;
      }
      case Phase::Socks5Request:
        outcome = detail::parse_socks5_request(data, options_, request);
        is_request = true;
        if (outcome.kind == Outcome::Kind::Done) {
          request.username = username_;
          request.password = password_;
        }
        break;
      case Phase::Done:
        return true;
    }

    if (outcome.kind == Outcome::Kind::NeedMore) return false;
    if (outcome.kind == Outcome::Kind::Fail) {
      fail(step, std::move(outcome.reply), std::move(outcome.error));
      return true;
    }
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(outcome.consumed));
    if (is_request) {
      step.status = Step::Status::Request;
      step.request = std::move(request);
      phase_ = Phase::Done;
      return true;
    }
  }
  return false;
}

ServerHandshake::Step ServerHandshake::feed(bytes::ByteSpan data) {
  Step step;
  if (phase_ == Phase::Done) {
    step.status = Step::Status::Close;
    step.error = "handshake already finished";
    return step;
  }
  std::size_t used = 0;
  for (;;) {
    // Take only what fits: a huge read that starts with a valid request is
    // fine (the rest is early data), but nothing unbounded is held.
    std::size_t n = std::min(kMaxBuffered - buffer_.size(), data.size() - used);
    buffer_.insert(buffer_.end(), data.begin() + static_cast<std::ptrdiff_t>(used),
                   data.begin() + static_cast<std::ptrdiff_t>(used + n));
    used += n;
    if (advance(step)) break;
    if (used == data.size()) return step;  // NeedMore
    if (buffer_.size() >= kMaxBuffered) {
      fail(step, {}, "handshake message longer than the buffer");
      break;
    }
  }
  if (step.status == Step::Status::Request) {
    step.early_data = std::move(buffer_);
    step.early_data.insert(step.early_data.end(), data.begin() + static_cast<std::ptrdiff_t>(used), data.end());
  }
  buffer_.clear();
  buffer_.shrink_to_fit();
  return step;
}

ServerHandshake::Step ServerHandshake::end_of_input() {
  Step step;
  step.status = Step::Status::Close;
  step.error = phase_ == Phase::Done ? "handshake already finished" : "client closed before completing the request";
  phase_ = Phase::Done;
  buffer_.clear();
  return step;
}

}  // namespace conflux::socks
