#include "agent/fs/confined_fs.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
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

// Where openat2 is missing (kernels before 5.6, or valgrind), the same guarantee by walking the
// path one component at a time: no "..", and O_NOFOLLOW on every component, so a symlink
// anywhere fails (ENOTDIR or ELOOP) exactly as RESOLVE_NO_SYMLINKS would.
int OpenByWalking(int dir_fd, const std::string& relative, int flags, mode_t mode) noexcept {
  if (relative.empty() || relative[0] == '/') return -EXDEV;
  int current = dir_fd;
  size_t start = 0;
  while (true) {
    size_t slash = relative.find('/', start);
    std::string part = relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") {
      if (current != dir_fd) close(current);
      return -EXDEV;
    }
    const bool last = slash == std::string::npos;
    int fd;
    do {
      fd = last ? openat(current, part.empty() ? "." : part.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode)
                : openat(current, part.empty() ? "." : part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    int err = errno;
    if (current != dir_fd) close(current);
    if (fd < 0) return -(err == ENOTDIR && !last ? ELOOP : err);
    if (last) return fd;
    current = fd;
    start = slash + 1;
  }
}

int OpenBeneath(int dir_fd, const std::string& relative, int flags, mode_t mode) noexcept {
  static std::atomic<bool> no_openat2{false};
  if (!no_openat2.load(std::memory_order_relaxed)) {
    open_how how{};
    how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do {
      fd = syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno != ENOSYS) return -errno;
    no_openat2.store(true, std::memory_order_relaxed);
  }
  return OpenByWalking(dir_fd, relative, flags, (flags & O_CREAT) ? mode : 0);
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

const char* NonRegularKind(mode_t mode) noexcept {
  switch (mode & S_IFMT) {
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symlink";
    default: return "not a file";
  }
}

namespace {

// The rest of a regular file's open, `fd` (or -errno) from an O_NONBLOCK open; `what_is_there`
// stats the name without opening it, for an open that failed with ENXIO (a FIFO opened for
// writing with no reader, a device without its hardware).
template <typename StatName>
RegularFile FinishRegular(int fd, int flags, const StatName& what_is_there) noexcept {
  RegularFile file;
  if (fd < 0) {
    struct stat st;
    if (fd == -ENXIO && what_is_there(st) && !S_ISREG(st.st_mode)) file.kind = NonRegularKind(st.st_mode);
    else file.err = -fd;
    return file;
  }
  if (fstat(fd, &file.st) < 0) {
    file.err = errno;
    close(fd);
    return file;
  }
  if (!S_ISREG(file.st.st_mode)) {
    file.kind = NonRegularKind(file.st.st_mode);
    close(fd);
    return file;
  }
  // F_SETFL takes only the status flags (O_DIRECT, O_APPEND, ...) of `flags`, without O_NONBLOCK.
  if (fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    file.err = errno;
    close(fd);
    return file;
  }
  file.fd = fd;
  return file;
}

}  // namespace

RegularFile OpenRegularBeneath(int dir_fd, const std::string& relative, int flags) noexcept {
  flags &= ~(O_CREAT | O_EXCL);
  int fd = OpenBeneath(dir_fd, relative, flags | O_NONBLOCK);
  return FinishRegular(fd, flags, [&](struct stat& st) {
    int path = OpenBeneath(dir_fd, relative, O_PATH);
    if (path < 0) return false;
    bool ok = fstat(path, &st) == 0;
    close(path);
    return ok;
  });
}

RegularFile OpenRegularAt(int dir_fd, const char* name, int flags) noexcept {
  flags &= ~(O_CREAT | O_EXCL);
  int fd;
  do {
    fd = openat(dir_fd, name, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  return FinishRegular(fd < 0 ? -errno : fd, flags,
                       [&](struct stat& st) { return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0; });
}

}  // namespace iofleet::agent
