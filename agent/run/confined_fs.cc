#include "agent/run/confined_fs.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace iofleet::agent {
namespace {

// Splits "a/b/c" into the parent "a/b" (or "." at top level) and the name "c".
void SplitParent(const std::string& relative, std::string& parent, std::string& name) {
  size_t slash = relative.rfind('/');
  if (slash == std::string::npos) {
    parent = ".";
    name = relative;
  } else {
    parent = relative.substr(0, slash);
    name = relative.substr(slash + 1);
  }
}

}  // namespace

int OpenBeneath(int dir_fd, const std::string& relative, int flags, mode_t mode) noexcept {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd;
  do {
    fd = syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
  } while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

int MkdirBeneath(int dir_fd, const std::string& relative, mode_t mode) noexcept {
  std::string parent, name;
  SplitParent(relative, parent, name);
  if (name.empty() || name == "." || name == "..") return -EINVAL;
  int parent_fd = OpenBeneath(dir_fd, parent, O_PATH | O_DIRECTORY);
  if (parent_fd < 0) return parent_fd;
  int rc = mkdirat(parent_fd, name.c_str(), mode);
  int err = errno;
  close(parent_fd);
  return rc < 0 ? -err : 0;
}

int UnlinkBeneath(int dir_fd, const std::string& relative, bool directory) noexcept {
  std::string parent, name;
  SplitParent(relative, parent, name);
  if (name.empty() || name == "." || name == "..") return -EINVAL;
  int parent_fd = OpenBeneath(dir_fd, parent, O_PATH | O_DIRECTORY);
  if (parent_fd < 0) return parent_fd;
  int rc = unlinkat(parent_fd, name.c_str(), directory ? AT_REMOVEDIR : 0);
  int err = errno;
  close(parent_fd);
  return rc < 0 ? -err : 0;
}

}  // namespace iofleet::agent
