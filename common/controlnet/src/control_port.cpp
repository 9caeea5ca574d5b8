#include "conflux/controlnet/control_port.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "conflux/control/control_reply.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/log/log.hpp"

namespace conflux::controlnet {
namespace {

std::string endpoint_text(const tcp::endpoint& e) {
  return e.address().to_string() + ":" + std::to_string(e.port());
}

// The whole of `bytes` to `path`, created or truncated, mode 0600.
bool write_private_file(const std::string& path, std::string_view bytes, std::string& error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = ::fchmod(fd, 0600) == 0;
  std::size_t done = 0;
  while (ok && done < bytes.size()) {
    const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  if (!ok) error = std::strerror(errno);
  if (::close(fd) != 0 && ok) {
    error = std::strerror(errno);
    ok = false;
  }
  return ok;
}

std::string_view event_name(log::Severity s) {
  switch (s) {
    case log::Severity::Warn: return "WARN";
    case log::Severity::Err: return "ERR";
    default: return "NOTICE";
  }
}

}  // namespace

ControlPort::ControlPort(net::asio::io_context& io, ControlPortConfig config, control::ControlProgram& program,
                         Traffic traffic, log::Sink log)
    : io_(io), config_(std::move(config)), program_(program), traffic_(std::move(traffic)), log_(std::move(log)),
      bw_timer_(io) {
  program_.set_defer([this, alive = std::weak_ptr<int>(life_)](std::function<void()> action) {
    net::asio::post(io_, [alive, action = std::move(action)] {
      if (!alive.expired()) action();
    });
  });
}

ControlPort::~ControlPort() { stop(); }

bool ControlPort::write_cookie() {
  control::ControlCookie cookie = crypto::random_array<control::kCookieLen>();
  std::string error;
  const std::string_view bytes(reinterpret_cast<const char*>(cookie.data()), cookie.size());
  if (!write_private_file(config_.cookie_file, bytes, error)) {
    if (log_) log_(log::Severity::Err, "Cannot write the control cookie " + config_.cookie_file + ": " + error);
    return false;
  }
  auth_.cookie = cookie;
  auth_.cookie_file = config_.cookie_file;
  return true;
}

bool ControlPort::write_port_file() {
  if (config_.write_to_file.empty()) return true;
  std::string text;
  for (const auto& e : endpoints()) text += "PORT=" + endpoint_text(e) + "\n";
  std::string error;
  if (!write_private_file(config_.write_to_file, text, error)) {
    if (log_) log_(log::Severity::Err, "Cannot write ControlPortWriteToFile " + config_.write_to_file + ": " + error);
    return false;
  }
  return true;
}

bool ControlPort::start() {
  if (config_.cookie_authentication && !write_cookie()) return false;
  auth_.hashed_passwords = config_.hashed_passwords;
  auth_.version = config_.version;
  for (const auto& at : config_.listen) {
    auto server = ControlServer::create(io_.get_executor(), at, session_factory());
    if (!server) {
      if (log_) log_(log::Severity::Err, "Could not bind ControlPort " + endpoint_text(at) + ": " + server.error().message());
      return false;
    }
    serve(*server, endpoint_text((*server)->local_endpoint()));
  }
  for (const auto& s : config_.sockets)
    if (!open_socket(s)) return false;
  if (!write_port_file()) return false;
  if (traffic_) last_traffic_ = traffic_();
  arm_bw();
  observe_log();
  return true;
}

ControlServer::SessionFactory ControlPort::session_factory() {
  return [this] {
    return std::make_unique<control::ControlSession>(
        auth_, [] { return crypto::random_array<control::kCookieLen>(); }, program_);
  };
}

void ControlPort::serve(const std::shared_ptr<ControlServer>& server, const std::string& where) {
  server->set_owner_closed([this] {
    if (log_) log_(log::Severity::Notice, "Owning controller connection has closed -- exiting now.");
    if (config_.owner_closed) config_.owner_closed();
  });
  server->start();
  if (log_) log_(log::Severity::Notice, "Opened Control listener on " + where);
  servers_.push_back(server);
}

void ControlPort::stop() {
  if (stopped_) return;
  stopped_ = true;
  life_.reset();
  if (observing_) log::set_observer({});
  bw_timer_.cancel();
  for (auto& s : servers_) s->stop();
  servers_.clear();
  remove_sockets();
}

void ControlPort::publish_lines(std::string_view event, const std::vector<std::string>& lines) {
  if (stopped_ || servers_.empty() || lines.empty()) return;
  control::ControlReply r;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) r.mid(650, lines[i]);
  const std::string bytes = r.end(650, lines.back());
  for (auto& s : servers_) s->publish(event, bytes);
}

void ControlPort::publish_data(std::string_view event, std::string_view body) {
  if (stopped_ || servers_.empty()) return;
  control::ControlReply r;
  r.block(650, event, body);
  const std::string bytes = r.end(650, "OK");
  for (auto& s : servers_) s->publish(event, bytes);
}

void ControlPort::publish(std::string_view event, std::string_view body) {
  if (stopped_ || servers_.empty()) return;
  const std::string line = control::control_event(body);
  for (auto& s : servers_) s->publish(event, line);
}

std::vector<tcp::endpoint> ControlPort::endpoints() const {
  std::vector<tcp::endpoint> out;
  for (const auto& s : servers_)
    if (!s->is_local()) out.push_back(s->local_endpoint());
  return out;
}

std::string ControlPort::listeners_text() const {
  std::string out = listener_list(endpoints());
  for (const auto& s : config_.sockets) out += (out.empty() ? "\"unix:" : " \"unix:") + s.path + "\"";
  return out;
}

std::string listener_list(const std::vector<tcp::endpoint>& endpoints) {
  std::string out;
  for (const auto& e : endpoints) {
    const std::string addr = e.address().is_v6() ? "[" + e.address().to_string() + "]" : e.address().to_string();
    out += (out.empty() ? "\"" : " \"") + addr + ":" + std::to_string(e.port()) + "\"";
  }
  return out;
}

// BW (control-spec 4.1.4): bytes read and written in the last second, every second.
void ControlPort::arm_bw() {
  bw_timer_.expires_after(std::chrono::seconds(1));
  bw_timer_.async_wait([this, alive = std::weak_ptr<int>(life_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    if (traffic_) {
      const auto now = traffic_();
      publish("BW", "BW " + std::to_string(now.first - last_traffic_.first) + " " +
                        std::to_string(now.second - last_traffic_.second));
      last_traffic_ = now;
    }
    arm_bw();
  });
}

// Log lines may be written on any thread: the event is posted to ours.
void ControlPort::observe_log() {
  if (servers_.empty()) return;
  observing_ = true;
  log::set_observer([this, &io = io_, alive = std::weak_ptr<int>(life_)](log::Severity s, std::string_view message) {
    std::string body = std::string(event_name(s)) + " " + std::string(message);
    for (auto& c : body)
      if (c == '\r' || c == '\n') c = ' ';
    net::asio::post(io, [this, alive, event = std::string(event_name(s)), body = std::move(body)] {
      if (!alive.expired()) publish(event, body);
    });
  });
}

}  // namespace conflux::controlnet
