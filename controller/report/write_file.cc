#include "controller/report/write_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace iofleet::controller {
namespace {

// 0, or the errno of the write that failed.
int WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;  // no progress on a non-empty write: nothing more will go
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

Status WriteTextFile(const std::filesystem::path& path, const std::string& text) {
  // Written beside it and renamed into place, so `path` is the whole text or is not there: a
  // truncated report.json would be read as the run's figures.
  std::filesystem::path temp = path;
  temp += ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError(path.string(), errno);
  int err = WriteAll(fd, text);
  // close reports a delayed write error (NFS, quotas): the file is not known written before.
  if (::close(fd) != 0 && errno != EINTR && err == 0) err = errno;
  if (err == 0 && std::rename(temp.c_str(), path.c_str()) != 0) err = errno;
  if (err == 0) return Status::Ok();
  ::unlink(temp.c_str());
  return PosixError(path.string(), err);
}

}  // namespace iofleet::controller
