#include "conflux/config/file_source.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace conflux::config {
namespace fs = std::filesystem;

namespace {

std::string normal(const std::string& path) {
  std::string s = fs::path(path).lexically_normal().generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

PathKind RealFileSource::kind(const std::string& path) const {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || st.type() == fs::file_type::not_found) return PathKind::Missing;
  if (st.type() == fs::file_type::regular) return PathKind::File;
  if (st.type() == fs::file_type::directory) return PathKind::Directory;
  return PathKind::Other;
}

Result<std::string, std::string> RealFileSource::read_file(const std::string& path) const {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) return Unexpected{std::string("cannot read: ") + ec.message()};
  if (size > max_bytes_) return Unexpected{std::string("file is larger than ") + std::to_string(max_bytes_) + " bytes"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected{std::string("cannot open for reading")};
  std::string data;
  data.reserve(static_cast<std::size_t>(size));
  // Read at most one byte past the limit, in case the file grew meanwhile.
  char buf[4096];
  while (in && data.size() <= max_bytes_) {
    in.read(buf, sizeof buf);
    data.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return Unexpected{std::string("read error")};
  if (data.size() > max_bytes_) return Unexpected{std::string("file is larger than ") + std::to_string(max_bytes_) + " bytes"};
  return data;
}

Result<std::vector<std::string>, std::string> RealFileSource::list_dir(const std::string& path) const {
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  if (ec) return Unexpected{std::string("cannot list directory: ") + ec.message()};
  std::vector<std::string> names;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Unexpected{std::string("cannot list directory: ") + ec.message()};
    names.push_back(it->path().filename().string());
  }
  if (ec) return Unexpected{std::string("cannot list directory: ") + ec.message()};
  return names;
}

std::string RealFileSource::identity(const std::string& path) const {
  std::error_code ec;
  auto canon = fs::weakly_canonical(path, ec);
  if (ec) return normal(path);
  return canon.generic_string();
}

void MemoryFileSource::add_file(const std::string& path, std::string contents) {
  files_[normal(path)] = std::move(contents);
}

void MemoryFileSource::add_dir(const std::string& path) { dirs_.insert(normal(path)); }

PathKind MemoryFileSource::kind(const std::string& path) const {
  auto p = normal(path);
  if (files_.count(p) != 0) return PathKind::File;
  if (dirs_.count(p) != 0) return PathKind::Directory;
  auto prefix = p == "/" ? p : p + "/";
  auto it = files_.lower_bound(prefix);
  if (it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0) return PathKind::Directory;
  auto dit = dirs_.lower_bound(prefix);
  if (dit != dirs_.end() && dit->compare(0, prefix.size(), prefix) == 0) return PathKind::Directory;
  return PathKind::Missing;
}

Result<std::string, std::string> MemoryFileSource::read_file(const std::string& path) const {
  auto it = files_.find(normal(path));
  if (it == files_.end()) return Unexpected{std::string("no such file")};
  return it->second;
}

Result<std::vector<std::string>, std::string> MemoryFileSource::list_dir(const std::string& path) const {
  if (kind(path) != PathKind::Directory) return Unexpected{std::string("not a directory")};
  auto p = normal(path);
  auto prefix = p == "/" ? p : p + "/";
  std::set<std::string> names;
  auto collect = [&](const std::string& full) {
    if (full.size() <= prefix.size() || full.compare(0, prefix.size(), prefix) != 0) return;
    auto rest = full.substr(prefix.size());
    names.insert(rest.substr(0, rest.find('/')));
  };
  for (const auto& [name, contents] : files_) collect(name);
  for (const auto& d : dirs_) collect(d);
  return std::vector<std::string>(names.begin(), names.end());
}

std::string MemoryFileSource::identity(const std::string& path) const { return normal(path); }

}  // namespace conflux::config
