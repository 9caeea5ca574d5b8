#pragma once
// The two things %include needs from a file system, behind an interface so
// that parsing stays testable (and fuzzable) without touching the disk.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::config {

enum class PathKind { Missing, File, Directory, Other };

class FileSource {
 public:
  virtual ~FileSource() = default;
  [[nodiscard]] virtual PathKind kind(const std::string& path) const = 0;
  // The whole file; the error is a human-readable reason (no contents).
  [[nodiscard]] virtual Result<std::string, std::string> read_file(const std::string& path) const = 0;
  // Names (not paths) of the entries directly inside the directory, any order.
  [[nodiscard]] virtual Result<std::vector<std::string>, std::string> list_dir(const std::string& path) const = 0;
  // Two paths naming the same file give the same identity (include cycle detection).
  [[nodiscard]] virtual std::string identity(const std::string& path) const = 0;
};

// The real file system (std::filesystem). Files larger than max_file_bytes are refused.
class RealFileSource final : public FileSource {
 public:
  explicit RealFileSource(std::size_t max_file_bytes = std::size_t{1} << 20) : max_bytes_(max_file_bytes) {}
  [[nodiscard]] PathKind kind(const std::string& path) const override;
  [[nodiscard]] Result<std::string, std::string> read_file(const std::string& path) const override;
  [[nodiscard]] Result<std::vector<std::string>, std::string> list_dir(const std::string& path) const override;
  [[nodiscard]] std::string identity(const std::string& path) const override;

 private:
  std::size_t max_bytes_;
};

// An in-memory tree for tests: files by path; directories are implied by the
// files under them or added explicitly. Paths are compared after lexical
// normalisation ("a/./b" == "a/b").
class MemoryFileSource final : public FileSource {
 public:
  void add_file(const std::string& path, std::string contents);
  void add_dir(const std::string& path);
  [[nodiscard]] PathKind kind(const std::string& path) const override;
  [[nodiscard]] Result<std::string, std::string> read_file(const std::string& path) const override;
  [[nodiscard]] Result<std::vector<std::string>, std::string> list_dir(const std::string& path) const override;
  [[nodiscard]] std::string identity(const std::string& path) const override;

 private:
  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_;
};

}  // namespace conflux::config
