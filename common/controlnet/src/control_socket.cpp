// ControlSocket: the control protocol on a unix socket (ControlPort's other
// half, control_port.hpp), with tor's checks on the directory and the
// socket file's mode.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "conflux/controlnet/control_port.hpp"

namespace conflux::controlnet {
namespace {

// tor's check_location_for_unix_socket: the directory is the user's and
// closed to others (group may read with GroupWritable).
bool directory_private(const ControlSocketConfig& s, std::string& dir_out) {
  const std::filesystem::path path(s.path);
  dir_out = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  struct stat st {};
  if (::stat(dir_out.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  if (s.relax_dir_mode_check) return true;
  const mode_t closed = s.group_writable ? 0027 : 0077;
  return st.st_uid == ::geteuid() && (st.st_mode & closed) == 0;
}

}  // namespace

bool ControlPort::open_socket(const ControlSocketConfig& s) {
  auto fail = [this](const std::string& why) {
    if (log_) log_(log::Severity::Err, why);
    return false;
  };
  std::string dir;
  if (!directory_private(s, dir))
    return fail("Before Tor can create a control socket in \"" + s.path + "\", the directory \"" + dir +
                "\" needs to exist, and to be accessible only by the user" +
                (s.group_writable ? std::string(" and group") : std::string()) +
                " account that is running Tor.  (On some Unix systems, anybody who can list a socket can connect "
                "to it, so Tor is being careful.)");
  struct stat old {};
  if (::lstat(s.path.c_str(), &old) == 0) {
    if (!S_ISSOCK(old.st_mode)) return fail("Cannot open ControlSocket " + s.path + ": a file that is not a socket is there");
    ::unlink(s.path.c_str());  // a stale socket of an earlier run, as tor removes it
  }
  auto server = ControlServer::create_local(io_.get_executor(), s.path, session_factory());
  if (!server) return fail("Could not bind ControlSocket " + s.path + ": " + server.error().message());
  socket_paths_.push_back(s.path);
  const mode_t mode = s.world_writable ? 0666 : (s.group_writable ? 0660 : 0600);
  if (::chmod(s.path.c_str(), mode) != 0) {
    (*server)->stop();
    return fail("Could not set the mode of ControlSocket " + s.path + ": " + std::strerror(errno));
  }
  serve(*server, s.path);
  return true;
}

void ControlPort::remove_sockets() {
  for (const auto& p : socket_paths_) ::unlink(p.c_str());
  socket_paths_.clear();
}

}  // namespace conflux::controlnet
