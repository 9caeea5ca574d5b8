#include "conflux/log/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <stdexcept>

namespace conflux::log {
namespace {

// spdlog has six levels; tor has five. Map tor's onto spdlog's in order and
// print tor's names, so lines read like tor's: "Nov 23 11:52:30.123 [notice] ...".
spdlog::level::level_enum to_spdlog(Severity s) {
  switch (s) {
    case Severity::Debug: return spdlog::level::trace;
    case Severity::Info: return spdlog::level::debug;
    case Severity::Notice: return spdlog::level::info;
    case Severity::Warn: return spdlog::level::warn;
    case Severity::Err: return spdlog::level::err;
  }
  return spdlog::level::err;
}

Severity from_spdlog(spdlog::level::level_enum l) {
  switch (l) {
    case spdlog::level::trace: return Severity::Debug;
    case spdlog::level::debug: return Severity::Info;
    case spdlog::level::info: return Severity::Notice;
    case spdlog::level::warn: return Severity::Warn;
    default: return Severity::Err;
  }
}

class TorLevelFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    auto name = to_string(from_spdlog(msg.level));
    dest.append(name.data(), name.data() + name.size());
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<TorLevelFlag>();
  }
};

// A sink that passes only an inclusive severity range (spdlog sinks have a
// minimum only).
class RangeSink final : public spdlog::sinks::sink {
 public:
  RangeSink(spdlog::sink_ptr inner, Severity min, Severity max) : inner_(std::move(inner)), min_(min), max_(max) {}
  void log(const spdlog::details::log_msg& msg) override {
    Severity s = from_spdlog(msg.level);
    if (s >= min_ && s <= max_) inner_->log(msg);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> f) override { inner_->set_formatter(std::move(f)); }

 private:
  spdlog::sink_ptr inner_;
  Severity min_, max_;
};

std::mutex g_mutex;
std::shared_ptr<spdlog::logger> g_logger;
std::shared_ptr<const std::function<void(Severity, std::string_view)>> g_observer;
thread_local bool t_observing = false;

void notify(Severity s, std::string_view message) {
  if (s < Severity::Notice || t_observing) return;
  std::shared_ptr<const std::function<void(Severity, std::string_view)>> obs;
  {
    std::lock_guard lock(g_mutex);
    obs = g_observer;
  }
  if (!obs) return;
  t_observing = true;
  (*obs)(s, message);
  t_observing = false;
}

std::shared_ptr<spdlog::logger> logger() {
  std::lock_guard lock(g_mutex);
  if (!g_logger) {
    // Until configure() runs: notice and above on stdout, as tor does.
    auto out = std::make_shared<RangeSink>(std::make_shared<spdlog::sinks::stdout_sink_mt>(), Severity::Notice,
                                           Severity::Err);
    g_logger = std::make_shared<spdlog::logger>("conflux", spdlog::sink_ptr(out));
    auto f = std::make_unique<spdlog::pattern_formatter>();
    f->add_flag<TorLevelFlag>('*').set_pattern("%b %d %H:%M:%S.%e [%*] %v");
    g_logger->set_formatter(std::move(f));
    g_logger->set_level(spdlog::level::trace);
  }
  return g_logger;
}

}  // namespace

std::string_view to_string(Severity s) noexcept {
  switch (s) {
    case Severity::Debug: return "debug";
    case Severity::Info: return "info";
    case Severity::Notice: return "notice";
    case Severity::Warn: return "warn";
    case Severity::Err: return "err";
  }
  return "err";
}

void configure(const std::vector<Destination>& destinations) {
  std::vector<spdlog::sink_ptr> sinks;
  for (const auto& d : destinations) {
    spdlog::sink_ptr inner;
    switch (d.kind) {
      case Destination::Kind::Stdout: inner = std::make_shared<spdlog::sinks::stdout_sink_mt>(); break;
      case Destination::Kind::Stderr: inner = std::make_shared<spdlog::sinks::stderr_sink_mt>(); break;
      case Destination::Kind::File:
        try {
          inner = std::make_shared<spdlog::sinks::basic_file_sink_mt>(d.path, false);
        } catch (const spdlog::spdlog_ex& e) {
          throw std::runtime_error("cannot open log file " + d.path + ": " + e.what());
        }
        break;
    }
    sinks.push_back(std::make_shared<RangeSink>(inner, d.min, d.max));
  }
  auto l = std::make_shared<spdlog::logger>("conflux", sinks.begin(), sinks.end());
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<TorLevelFlag>('*').set_pattern("%b %d %H:%M:%S.%e [%*] %v");
  l->set_formatter(std::move(f));
  l->set_level(spdlog::level::trace);
  // Every line reaches its file at once, as tor writes its logs: an operator
  // tailing the log (or a test reading a SIGUSR1 heartbeat) sees it now.
  l->flush_on(spdlog::level::trace);
  std::lock_guard lock(g_mutex);
  g_logger = std::move(l);
}

void write(Severity s, std::string_view message) {
  logger()->log(to_spdlog(s), "{}", message);
  notify(s, message);
}

void set_observer(std::function<void(Severity, std::string_view)> observer) {
  std::lock_guard lock(g_mutex);
  g_observer = observer ? std::make_shared<const std::function<void(Severity, std::string_view)>>(std::move(observer))
                        : nullptr;
}

Sink sink(std::string component) {
  if (component.empty()) return [](Severity s, std::string_view m) { write(s, m); };
  return [prefix = component + ": "](Severity s, std::string_view m) {
    std::string line = prefix;
    line.append(m);
    write(s, line);
  };
}

void shutdown() {
  std::lock_guard lock(g_mutex);
  if (g_logger) g_logger->flush();
  g_logger.reset();
}

}  // namespace conflux::log
