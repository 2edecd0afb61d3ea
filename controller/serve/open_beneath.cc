#include "controller/serve/open_beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace iofleet::controller {
namespace {

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It is cleared again
// once the file is known to be regular.
constexpr int kFileFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;

Result<std::vector<std::string>> SplitRelative(const std::string& relative) {
  if (relative.empty()) return InvalidArgument("empty file path");
  if (relative.find('\0') != std::string::npos) return InvalidArgument("file path holds NUL");
  if (relative[0] == '/') return InvalidArgument("file path \"" + relative + "\" is absolute");
  std::vector<std::string> components;
  size_t start = 0;
  while (true) {
    size_t slash = relative.find('/', start);
    std::string component = relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (component.empty() || component == "." || component == "..") {
      return InvalidArgument("file path \"" + relative + "\" has an empty, \".\" or \"..\" component");
    }
    components.push_back(std::move(component));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return components;
}

Status OpenError(const std::string& relative, int err) {
  switch (err) {
    case ENOENT:
      return {Code::kNotFound, "\"" + relative + "\": not found"};
    case ELOOP:   // a symbolic link (O_NOFOLLOW, RESOLVE_NO_SYMLINKS)
    case EXDEV:   // RESOLVE_BENEATH: the path would leave the root
    case ENOTDIR:  // a symbolic link where a directory was expected (O_PATH | O_NOFOLLOW)
      return {Code::kPermissionDenied,
              "\"" + relative + "\": refused (a symbolic link, a file used as a directory, or outside the results directory)"};
    default:
      return PosixError("\"" + relative + "\"", err);
  }
}

Result<UniqueFd> RequireRegularFile(UniqueFd fd, const std::string& relative) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return PosixError("fstat \"" + relative + "\"", errno);
  if (!S_ISREG(st.st_mode)) return Status(Code::kPermissionDenied, "\"" + relative + "\": not a regular file");
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return PosixError("fcntl \"" + relative + "\"", errno);
  }
  return fd;
}

Result<UniqueFd> OpenRoot(const std::string& root) {
  UniqueFd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return PosixError("results directory " + root, errno);
  return fd;
}

}  // namespace

namespace serve_internal {

Result<UniqueFd> OpenBeneathByComponents(const std::string& root, const std::string& relative) {
  auto components = SplitRelative(relative);
  if (!components.ok()) return components.status();
  auto dir = OpenRoot(root);
  if (!dir.ok()) return dir.status();
  UniqueFd current = std::move(dir).value();
  for (size_t i = 0; i + 1 < components->size(); ++i) {
    // O_PATH | O_NOFOLLOW opens a symbolic link itself, which O_DIRECTORY then refuses.
    UniqueFd next(::openat(current.get(), (*components)[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return OpenError(relative, errno);
    current = std::move(next);
  }
  UniqueFd file(::openat(current.get(), components->back().c_str(), kFileFlags));
  if (!file.valid()) return OpenError(relative, errno);
  return RequireRegularFile(std::move(file), relative);
}

}  // namespace serve_internal

Result<UniqueFd> OpenBeneath(const std::string& root, const std::string& relative) {
  auto components = SplitRelative(relative);
  if (!components.ok()) return components.status();
  auto dir = OpenRoot(root);
  if (!dir.ok()) return dir.status();
  open_how how{};
  how.flags = kFileFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, dir->get(), relative.c_str(), &how, sizeof(how));
  if (fd < 0) {
    int err = errno;
    // ENOSYS: a kernel before 5.6. EPERM: a container runtime's seccomp profile that refuses
    // system calls it does not know (no other cause gives openat2 EPERM for these flags).
    if (err == ENOSYS || err == EPERM) return serve_internal::OpenBeneathByComponents(root, relative);
    return OpenError(relative, err);
  }
  return RequireRegularFile(UniqueFd(static_cast<int>(fd)), relative);
}

}  // namespace iofleet::controller
