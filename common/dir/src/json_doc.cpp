#include "json_doc.hpp"

#include <set>

#include "conflux/bytes/base64.hpp"

namespace conflux::dir::detail {
namespace {

struct Reject {
  DirErrc code;
};

}  // namespace

DirResult<Json> parse_json(std::string_view text, std::size_t max_size) {
  if (text.size() > max_size) return dir_fail(DirErrc::TooLarge);
  // One key set per open object, to catch repeated keys (nlohmann would keep
  // the last silently, and two readers of one document could then disagree).
  std::vector<std::set<std::string>> open;
  auto cb = [&open](int depth, Json::parse_event_t ev, Json& parsed) -> bool {
    if (depth > kMaxDepth) throw Reject{DirErrc::BadJson};
    switch (ev) {
      case Json::parse_event_t::object_start:
        open.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case Json::parse_event_t::key:
        if (open.empty() || !open.back().insert(parsed.get<std::string>()).second)
          throw Reject{DirErrc::DuplicateKey};
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const Reject& r) {
    return dir_fail(r.code);
  } catch (...) {
    return dir_fail(DirErrc::BadJson);
  }
}

std::string dump(const Json& j) {
  // `replace` never throws; our encoders only write printable ASCII anyway.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ObjectReader::ObjectReader(const Json& j, std::string_view what) : j_(j) {
  if (!j.is_object()) fail(DirErrc::BadType, what);
}

void ObjectReader::fail(DirErrc c, std::string_view field) {
  if (!err_) err_ = DirError{c, field};
}

bool ObjectReader::has(std::string_view key) const {
  return ok() && j_.contains(key);
}

const Json* ObjectReader::get(std::string_view key, Json::value_t type) {
  if (!ok()) return nullptr;
  auto it = j_.find(key);
  if (it == j_.end()) {
    fail(DirErrc::MissingField, key);
    return nullptr;
  }
  ++read_;
  // nlohmann types a non-negative integer as number_unsigned; we never use
  // negative numbers, so an unsigned request matches nothing else.
  if (it->type() != type) {
    fail(DirErrc::BadType, key);
    return nullptr;
  }
  return &*it;
}

std::string ObjectReader::str(std::string_view key) {
  const Json* v = get(key, Json::value_t::string);
  return v ? v->get<std::string>() : std::string{};
}

std::uint64_t ObjectReader::u64(std::string_view key, std::uint64_t min, std::uint64_t max) {
  const Json* v = get(key, Json::value_t::number_unsigned);
  if (!v) return 0;
  const auto x = v->get<std::uint64_t>();
  if (x < min || x > max) {
    fail(DirErrc::BadValue, key);
    return 0;
  }
  return x;
}

bool ObjectReader::boolean(std::string_view key) {
  const Json* v = get(key, Json::value_t::boolean);
  return v ? v->get<bool>() : false;
}

std::vector<std::uint8_t> ObjectReader::blob(std::string_view key, std::size_t max_len) {
  const std::string s = str(key);
  if (!ok()) return {};
  if (s.size() > (max_len * 4 + 2) / 3) {
    fail(DirErrc::BadValue, key);
    return {};
  }
  auto v = bytes::base64_decode(s);
  if (!v || v->empty()) {
    fail(DirErrc::BadValue, key);
    return {};
  }
  return std::move(*v);
}

void ObjectReader::finish() {
  if (ok() && read_ != j_.size()) fail(DirErrc::UnknownField, {});
}

std::optional<std::vector<std::uint8_t>> decode_b64_fixed(const std::string& s, std::size_t n) {
  if (s.size() != (n * 4 + 2) / 3) return std::nullopt;
  auto v = bytes::base64_decode(s);
  if (!v || v->size() != n) return std::nullopt;
  return v;
}

}  // namespace conflux::dir::detail
