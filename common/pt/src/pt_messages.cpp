#include "conflux/pt/pt_messages.hpp"

#include <arpa/inet.h>

#include <charconv>

#include "conflux/control/control_args.hpp"

namespace conflux::pt {

namespace {

std::pair<std::string_view, std::string_view> split_word(std::string_view s) {
  const auto sp = s.find(' ');
  if (sp == std::string_view::npos) return {s, {}};
  return {s.substr(0, sp), s.substr(sp + 1)};
}

bool valid_ip(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

PtError error(std::string text) { return PtError{std::move(text)}; }

}  // namespace

std::optional<std::pair<std::string, std::uint16_t>> parse_pt_address(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return std::nullopt;
    host = host.substr(1, host.size() - 2);
    if (host.find(':') == std::string_view::npos) return std::nullopt;  // brackets only around IPv6
  } else if (host.find(':') != std::string_view::npos) {
    return std::nullopt;  // IPv6 without brackets
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 || port > 65535 ||
      port_text.front() == '0')
    return std::nullopt;
  std::string h(host);
  if (!valid_ip(h)) return std::nullopt;
  return std::pair{std::move(h), static_cast<std::uint16_t>(port)};
}

std::variant<PtMessage, PtError> PtMessages::method(std::string_view keyword, std::string_view args) {
  const bool client = mode_ == PtMode::Client;
  if (keyword != (client ? "CMETHOD" : "SMETHOD")) return error(std::string(keyword) + " from a " + (client ? "client" : "server") + " transport");
  if (!version_) return error(std::string(keyword) + " before VERSION");
  if (done_) return error(std::string(keyword) + " after " + (client ? "CMETHODS" : "SMETHODS") + " DONE");
  PtMethod m;
  auto [name, rest] = split_word(args);
  m.transport = std::string(name);
  if (transports_.count(m.transport) == 0) return error("a method for \"" + m.transport + "\", which was not asked for");
  std::string_view addr;
  if (client) {
    auto [proto, after] = split_word(rest);
    if (proto != "socks4" && proto != "socks5") return error("CMETHOD with proxy type \"" + std::string(proto) + "\"");
    m.protocol = std::string(proto);
    addr = split_word(after).first;
  } else {
    auto [a, options] = split_word(rest);
    addr = a;
    while (!options.empty()) {
      auto [opt, more] = split_word(options);
      if (opt.starts_with("ARGS:")) m.args = std::string(opt.substr(5));
      options = more;
    }
  }
  auto at = parse_pt_address(addr);
  if (!at) return error(std::string(keyword) + " with address \"" + std::string(addr) + "\"");
  m.host = std::move(at->first);
  m.port = at->second;
  methods_.push_back(m);
  return PtMessage{std::move(m)};
}

std::variant<PtMessage, PtError> PtMessages::line(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  auto [keyword, args] = split_word(text);
  if (keyword == "VERSION") {
    if (version_) return error("VERSION twice");
    if (args != "1") return error("VERSION " + std::string(args) + " (we speak 1)");
    version_ = true;
    return PtMessage{PtVersion{}};
  }
  if (keyword == "VERSION-ERROR" || keyword == "ENV-ERROR") return error(std::string(keyword) + ": " + std::string(args));
  if (keyword == "CMETHOD" || keyword == "SMETHOD") return method(keyword, args);
  if (keyword == "CMETHOD-ERROR" || keyword == "SMETHOD-ERROR") {
    auto [name, message] = split_word(args);
    return PtMessage{PtMethodError{std::string(name), std::string(message)}};
  }
  if (keyword == "CMETHODS" || keyword == "SMETHODS") {
    if (args != "DONE") return PtMessage{PtIgnored{}};
    if (!version_) return error(std::string(keyword) + " DONE before VERSION");
    done_ = true;
    return PtMessage{PtDone{}};
  }
  if (keyword == "PROXY") return PtMessage{PtProxy{args == "DONE", {}}};
  if (keyword == "PROXY-ERROR") return PtMessage{PtProxy{false, std::string(args)}};
  if (keyword == "LOG" || keyword == "STATUS") {
    auto kv = control::parse_control_args(args);
    if (!kv) return error(std::string(keyword) + " with arguments that do not parse");
    std::map<std::string, std::string> fields;
    for (const auto& a : *kv)
      if (a.key) fields[*a.key] = a.value;
    if (keyword == "STATUS") return PtMessage{PtStatus{std::move(fields)}};
    return PtMessage{PtLog{fields["SEVERITY"], fields["MESSAGE"]}};
  }
  return PtMessage{PtIgnored{}};
}

PtRead PtMessages::feed(std::span<const std::uint8_t> bytes) {
  PtRead out;
  if (failed_) return out;
  for (const std::uint8_t b : bytes) {
    if (b != '\n') {
      if (buffer_.size() >= kMaxPtLine) {
        out.error = error("a line longer than " + std::to_string(kMaxPtLine) + " bytes");
        break;
      }
      buffer_.push_back(static_cast<char>(b));
      continue;
    }
    auto m = line(buffer_);
    buffer_.clear();
    if (auto* e = std::get_if<PtError>(&m)) {
      out.error = std::move(*e);
      break;
    }
    out.messages.push_back(std::move(std::get<PtMessage>(m)));
  }
  if (out.error) {
    failed_ = true;
    buffer_.clear();
  }
  return out;
}

}  // namespace conflux::pt
