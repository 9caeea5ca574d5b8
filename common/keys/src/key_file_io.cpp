// Reading and writing key files and checking the key directory, with POSIX
// calls: std::filesystem cannot tell us owners, nor open with O_NOFOLLOW.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "conflux/crypto/secret.hpp"
#include "conflux/keys/key_file.hpp"

namespace conflux::keys {
namespace {

constexpr mode_t kGroupOtherWrite = S_IWGRP | S_IWOTH;
constexpr mode_t kGroupOtherAll = S_IRWXG | S_IRWXO;

KeyStoreError err(KeyStoreErrorKind kind, const std::filesystem::path& path, std::string detail) {
  return KeyStoreError{kind, path.string(), std::move(detail)};
}

KeyStoreError errno_error(const std::filesystem::path& path, const char* what) {
  return err(KeyStoreErrorKind::Io, path, std::string(what) + ": " + std::strerror(errno));
}

std::string mode_string(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const noexcept { return fd_; }
  int release() noexcept {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

}  // namespace

std::optional<KeyStoreError> check_private_dir(const std::filesystem::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return errno_error(dir, "cannot stat directory");
    if (::mkdir(dir.c_str(), 0700) != 0) return errno_error(dir, "cannot create directory");
    if (::stat(dir.c_str(), &st) != 0) return errno_error(dir, "cannot stat directory");
  }
  if (!S_ISDIR(st.st_mode)) return err(KeyStoreErrorKind::NotADirectory, dir, "exists but is not a directory");
  if (st.st_uid != ::geteuid()) {
    return err(KeyStoreErrorKind::WrongOwner, dir,
               "is owned by uid " + std::to_string(st.st_uid) + ", not by us (uid " +
                   std::to_string(::geteuid()) + "); refusing to keep keys there");
  }
  if ((st.st_mode & kGroupOtherWrite) != 0) {
    return err(KeyStoreErrorKind::InsecureDirectory, dir,
               "is group- or world-writable (mode " + mode_string(st.st_mode) +
                   "); refusing to start. Run: chmod 700 '" + dir.string() + "'");
  }
  if ((st.st_mode & kGroupOtherAll) != 0) {
    if (::chmod(dir.c_str(), 0700) != 0) return errno_error(dir, "cannot chmod 0700");
  }
  return std::nullopt;
}

Result<std::optional<std::vector<std::uint8_t>>, KeyStoreError> read_raw_key_file(const std::filesystem::path& path,
                                                                                 bool secret) {
  using R = Result<std::optional<std::vector<std::uint8_t>>, KeyStoreError>;
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return R(std::optional<std::vector<std::uint8_t>>{});
    return Unexpected{errno_error(path, "cannot open key file")};
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Unexpected{errno_error(path, "cannot stat key file")};
  if (!S_ISREG(st.st_mode)) return Unexpected{err(KeyStoreErrorKind::BadKeyFile, path, "not a regular file")};
  if (st.st_uid != ::geteuid()) {
    return Unexpected{err(KeyStoreErrorKind::WrongOwner, path,
                          "is owned by uid " + std::to_string(st.st_uid) + ", not by us")};
  }
  const mode_t forbidden = secret ? kGroupOtherAll : kGroupOtherWrite;
  if ((st.st_mode & forbidden) != 0) {
    return Unexpected{err(KeyStoreErrorKind::InsecureFile, path,
                          "has mode " + mode_string(st.st_mode) + "; expected 0600. Refusing to use it")};
  }
  if (st.st_size < 0 || static_cast<std::uint64_t>(st.st_size) > kMaxKeyFileLen) {
    return Unexpected{err(KeyStoreErrorKind::BadKeyFile, path, "too large for a key file")};
  }
  std::vector<std::uint8_t> buf(kMaxKeyFileLen + 1);
  std::size_t got = 0;
  while (got < buf.size()) {
    const ssize_t n = ::read(fd.get(), buf.data() + got, buf.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      crypto::secure_wipe(buf.data(), buf.size());
      return Unexpected{errno_error(path, "cannot read key file")};
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > kMaxKeyFileLen) {
    crypto::secure_wipe(buf.data(), buf.size());
    return Unexpected{err(KeyStoreErrorKind::BadKeyFile, path, "too large for a key file")};
  }
  std::vector<std::uint8_t> out(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(got));
  crypto::secure_wipe(buf.data(), buf.size());
  return R(std::move(out));
}

Result<std::optional<KeyFileContents>, KeyStoreError> read_key_file(const std::filesystem::path& path,
                                                                    KeyKind expected) {
  using R = Result<std::optional<KeyFileContents>, KeyStoreError>;
  auto raw = read_raw_key_file(path, is_secret(expected));
  if (!raw) return Unexpected{raw.error()};
  if (!raw->has_value()) return R(std::optional<KeyFileContents>{});
  auto decoded = decode_key_file(**raw, expected);
  crypto::secure_wipe((*raw)->data(), (*raw)->size());
  if (!decoded) {
    return Unexpected{err(KeyStoreErrorKind::BadKeyFile, path,
                          "is not a valid '" + std::string(to_string(expected)) + "' key file")};
  }
  return R(std::move(decoded));
}

std::optional<KeyStoreError> write_key_file(const std::filesystem::path& path, KeyKind kind,
                                            std::uint64_t created, std::span<const std::uint8_t> payload) {
  std::vector<std::uint8_t> bytes = encode_key_file(kind, created, payload);
  struct Wipe {
    std::vector<std::uint8_t>& v;
    ~Wipe() { crypto::secure_wipe(v.data(), v.size()); }
  } wipe{bytes};
  if (bytes.empty()) return err(KeyStoreErrorKind::BadKeyFile, path, "refusing to write a malformed key");
  return write_raw_key_file(path, bytes);
}

std::optional<KeyStoreError> write_raw_key_file(const std::filesystem::path& path,
                                                std::span<const std::uint8_t> bytes) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) return errno_error(tmp, "cannot remove stale file");
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) return errno_error(tmp, "cannot create key file");
  if (::fchmod(fd.get(), 0600) != 0) return errno_error(tmp, "cannot chmod 0600");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(tmp, "cannot write key file");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return errno_error(tmp, "cannot fsync key file");
  if (::close(fd.release()) != 0) return errno_error(tmp, "cannot close key file");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_error(path, "cannot rename key file into place");
  return std::nullopt;
}

std::optional<KeyStoreError> remove_key_file(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_error(path, "cannot remove key file");
  return std::nullopt;
}

}  // namespace conflux::keys
