#include "controller/workload/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/units.h"

namespace iofleet::controller {
namespace {

Status TooLarge(const std::string& file, const std::string& size) {
  return InvalidArgument(file + ": " + size + " is more than a workload file may hold (" + FormatSize(kMaxInputFileBytes) + ")");
}

}  // namespace

Result<std::string> ReadInputFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument(path + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxInputFileBytes) {
    close(fd);
    return TooLarge(path, std::to_string(st.st_size) + " bytes");
  }
  // Read one byte past the limit: a pipe or /proc file has no size to check beforehand.
  std::string text(kMaxInputFileBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return InvalidArgument(path + ": cannot read: " + std::strerror(err));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  if (got > kMaxInputFileBytes) return TooLarge(path, "more than " + FormatSize(kMaxInputFileBytes));
  text.resize(got);
  return text;
}

Status CheckInputSize(const std::string& text, const std::string& file) {
  if (text.size() > kMaxInputFileBytes) return TooLarge(file, std::to_string(text.size()) + " bytes");
  return Status::Ok();
}

std::optional<SourcePosition> FindNul(const std::string& text) {
  size_t at = text.find('\0');
  if (at == std::string::npos) return std::nullopt;
  size_t line_start = text.rfind('\n', at);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  int line = 1;
  for (size_t i = 0; i < line_start; ++i) line += text[i] == '\n';
  return SourcePosition{line, static_cast<int>(at - line_start) + 1};
}

}  // namespace iofleet::controller
