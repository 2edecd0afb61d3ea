#include "controller/report/write_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace iofleet::controller {

Status WriteTextFile(const std::filesystem::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError(path.string(), errno);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;  // 0 bytes for a non-empty write: nothing will go
      ::close(fd);
      return PosixError(path.string(), err);
    }
    done += static_cast<size_t>(n);
  }
  // close reports a delayed write error (NFS, quotas): the file is not known written before.
  if (::close(fd) != 0 && errno != EINTR) return PosixError(path.string(), errno);
  return Status::Ok();
}

}  // namespace iofleet::controller
