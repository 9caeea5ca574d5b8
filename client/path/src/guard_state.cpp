#include "conflux/path/guard_state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "conflux/bytes/base64.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::path {
namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 4;

struct TooDeep {};

std::optional<std::uint64_t> u64_field(const Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::uint64_t>();
}

std::optional<GuardRecord> decode_record(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  GuardRecord g;
  auto id = j.find("identity");
  if (id == j.end() || !id->is_string()) return std::nullopt;
  auto raw = bytes::base64_decode(id->get_ref<const std::string&>());
  if (!raw || raw->size() != g.identity.size()) return std::nullopt;
  std::copy(raw->begin(), raw->end(), g.identity.begin());
  if (auto nick = j.find("nickname"); nick != j.end()) {
    if (!nick->is_string() || !dir::valid_nickname(nick->get_ref<const std::string&>())) return std::nullopt;
    g.nickname = nick->get<std::string>();
  }
  auto added = u64_field(j, "added_on");
  if (!added) return std::nullopt;
  g.added_on = *added;
  for (auto [key, field] : {std::pair{"confirmed_on", &GuardRecord::confirmed_on},
                            std::pair{"unlisted_since", &GuardRecord::unlisted_since}}) {
    if (!j.contains(key)) continue;
    auto v = u64_field(j, key);
    if (!v) return std::nullopt;
    g.*field = *v;
  }
  return g;
}

std::string errno_text(const std::string& what, const std::filesystem::path& p) {
  return what + " " + p.string() + ": " + std::strerror(errno);
}

}  // namespace

std::string encode_guard_state(const GuardSet& guards) {
  Json list = Json::array();
  for (const GuardRecord& g : guards.records()) {
    Json o;
    o["identity"] = bytes::base64_encode(g.identity);
    if (!g.nickname.empty()) o["nickname"] = g.nickname;
    o["added_on"] = g.added_on;
    if (g.confirmed_on) o["confirmed_on"] = *g.confirmed_on;
    if (g.unlisted_since) o["unlisted_since"] = *g.unlisted_since;
    list.push_back(std::move(o));
  }
  Json doc;
  doc["format"] = kGuardStateFormat;
  doc["guards"] = std::move(list);
  return doc.dump(1, ' ', true, Json::error_handler_t::replace) + "\n";
}

GuardStateDecode decode_guard_state(std::string_view text) {
  GuardStateDecode out;
  if (text.size() > kMaxGuardStateSize) {
    out.error = "larger than " + std::to_string(kMaxGuardStateSize) + " bytes";
    return out;
  }
  Json doc;
  try {
    auto cb = [](int depth, Json::parse_event_t, Json&) -> bool {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    };
    doc = Json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (...) {
    out.error = "not valid JSON";
    return out;
  }
  if (!doc.is_object()) {
    out.error = "not a JSON object";
    return out;
  }
  auto fmt = doc.find("format");
  if (fmt == doc.end() || !fmt->is_string() || fmt->get_ref<const std::string&>() != kGuardStateFormat) {
    out.error = "not a " + std::string(kGuardStateFormat) + " document";
    return out;
  }
  auto list = doc.find("guards");
  if (list == doc.end() || !list->is_array()) {
    out.error = "no guard list";
    return out;
  }
  std::set<crypto::Ed25519Public> seen;
  for (const Json& j : *list) {
    auto g = decode_record(j);
    if (!g || out.records.size() >= kMaxPersistedGuards || !seen.insert(g->identity).second) {
      ++out.dropped;
      continue;
    }
    out.records.push_back(std::move(*g));
  }
  return out;
}

GuardStateLoad load_guard_state(const std::filesystem::path& file, GuardParams params) {
  GuardStateLoad out{GuardSet(params), GuardStateLoad::Status::Missing, {}};
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    out.warning = "no guard state at " + file.string() + "; choosing new guards";
    return out;
  }
  std::string text;
  text.resize(kMaxGuardStateSize + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  auto d = decode_guard_state(text);
  if (d.error) {
    out.status = GuardStateLoad::Status::Corrupt;
    out.warning = "guard state " + file.string() + " is unusable (" + *d.error + "); choosing new guards";
    return out;
  }
  out.status = GuardStateLoad::Status::Loaded;
  out.guards = GuardSet(std::move(params), std::move(d.records));
  if (d.dropped > 0)
    out.warning = "guard state " + file.string() + ": dropped " + std::to_string(d.dropped) + " malformed entries";
  return out;
}

std::optional<std::string> save_guard_state(const std::filesystem::path& file, const GuardSet& guards) {
  const std::string text = encode_guard_state(guards);
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) return errno_text("cannot remove", tmp);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return errno_text("cannot create", tmp);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto e = errno_text("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  // fsync before rename: after a crash the file is the old or the new state, never empty.
  if (::fsync(fd) != 0) {
    auto e = errno_text("cannot fsync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::close(fd) != 0) {
    auto e = errno_text("cannot close", tmp);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    auto e = errno_text("cannot rename into", file);
    ::unlink(tmp.c_str());
    return e;
  }
  return std::nullopt;
}

}  // namespace conflux::path
