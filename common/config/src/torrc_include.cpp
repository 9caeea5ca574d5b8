// %include resolution: files and directories, cycle and depth limits.
#include <algorithm>
#include <filesystem>
#include <optional>

#include "conflux/config/torrc_parser.hpp"

namespace conflux::config {
namespace {

bool is_real_source(std::string_view name) {
  return !name.empty() && name != kStringSource && name != kCommandLineSource;
}

std::string resolve(std::string_view including, const std::string& target) {
  std::filesystem::path p(target);
  if (p.is_absolute() || !is_real_source(including)) return p.lexically_normal().string();
  return (std::filesystem::path(including).parent_path() / p).lexically_normal().string();
}

class Expander {
 public:
  explicit Expander(const FileSource& files) : files_(files) {}

  std::optional<ConfigError> text(std::string_view contents, const std::string& name, std::size_t depth) {
    auto parsed = parse_torrc_text(contents, name);
    if (!parsed) return parsed.error();
    for (auto& e : *parsed) {
      if (!key_equals(e.key, kIncludeKey)) {
        if (out_.size() >= kMaxEntries) return ConfigError(e.where, "too many configuration entries");
        out_.push_back(std::move(e));
        continue;
      }
      if (auto err = include(e, name, depth)) return err;
    }
    return std::nullopt;
  }

  std::optional<ConfigError> file(const std::string& path, const SourcePos& from, std::size_t depth) {
    auto id = files_.identity(path);
    if (std::find(stack_.begin(), stack_.end(), id) != stack_.end())
      return ConfigError(from, "%include cycle: " + path + " is already being read");
    auto contents = files_.read_file(path);
    if (!contents) return ConfigError(from, "cannot read " + path + ": " + contents.error());
    stack_.push_back(id);
    auto err = text(*contents, path, depth);
    stack_.pop_back();
    return err;
  }

  void enter(const std::string& top) { stack_.push_back(files_.identity(top)); }
  Entries take() { return std::move(out_); }

 private:
  std::optional<ConfigError> include(const ConfigEntry& e, const std::string& name, std::size_t depth) {
    if (e.op != EntryOp::Set) return ConfigError(e.where, "%include cannot be appended to or cleared");
    if (e.value.empty()) return ConfigError(e.where, "%include needs a path");
    if (depth + 1 > kMaxIncludeDepth)
      return ConfigError(e.where, "%include nested more than " + std::to_string(kMaxIncludeDepth) + " levels deep");
    auto path = resolve(name, e.value);
    switch (files_.kind(path)) {
      case PathKind::File:
        return file(path, e.where, depth + 1);
      case PathKind::Directory: {
        auto names = files_.list_dir(path);
        if (!names) return ConfigError(e.where, "cannot list " + path + ": " + names.error());
        std::sort(names->begin(), names->end());
        for (const auto& n : *names) {
          if (n.empty() || n.front() == '.') continue;
          auto child = (std::filesystem::path(path) / n).string();
          if (files_.kind(child) != PathKind::File) continue;  // tor ignores subdirectories
          if (auto err = file(child, e.where, depth + 1)) return err;
        }
        return std::nullopt;
      }
      case PathKind::Missing:
        return ConfigError(e.where, "%include: " + path + " does not exist");
      case PathKind::Other:
        break;
    }
    return ConfigError(e.where, "%include: " + path + " is neither a file nor a directory");
  }

  const FileSource& files_;
  std::vector<std::string> stack_;
  Entries out_;
};

}  // namespace

Result<Entries, ConfigError> parse_torrc(std::string_view text, std::string_view source_name, const FileSource& files) {
  Expander ex(files);
  std::string name(source_name);
  if (is_real_source(name)) ex.enter(name);
  if (auto err = ex.text(text, name, 0)) return Unexpected{std::move(*err)};
  return ex.take();
}

Result<Entries, ConfigError> load_torrc_file(const std::string& path, const FileSource& files) {
  auto contents = files.read_file(path);
  if (!contents) return Unexpected{ConfigError(path, 0, "cannot read configuration file: " + contents.error())};
  return parse_torrc(*contents, path, files);
}

}  // namespace conflux::config
