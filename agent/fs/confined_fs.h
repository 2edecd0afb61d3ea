// File system calls confined beneath a directory descriptor: openat2 with RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS, so neither "..", an absolute path nor a symlink anywhere in the path can
// leave the root. Every path the agent touches goes through here.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include "core/base/status.h"

namespace iofleet::agent {

// Opens `relative` beneath `dir_fd`. Returns the descriptor or -errno. Falls back to
// OpenByWalking where the kernel (or valgrind) has no openat2.
int OpenBeneath(int dir_fd, const std::string& relative, int flags, mode_t mode = 0) noexcept;
int OpenByWalking(int dir_fd, const std::string& relative, int flags, mode_t mode = 0) noexcept;

// mkdir of the last component of `relative`, its parent opened beneath `dir_fd`. 0 or -errno.
int MkdirBeneath(int dir_fd, const std::string& relative, mode_t mode) noexcept;

// unlinkat (AT_REMOVEDIR for directories) of the last component, parent opened beneath. 0 or -errno.
int UnlinkBeneath(int dir_fd, const std::string& relative, bool directory) noexcept;

// What a file that is not a regular one is, for messages: "a FIFO", "a directory", ...
const char* NonRegularKind(mode_t mode) noexcept;

// A file opened that had to be a regular one.
struct RegularFile {
  int fd = -1;                 // the descriptor; -1 when the open failed or `kind` is set
  int err = 0;                 // errno of a failed open
  const char* kind = nullptr;  // something other than a regular file is there (NonRegularKind)
  struct stat st {};           // the file's, when fd >= 0
};

// Opens `relative` beneath `dir_fd` as OpenBeneath does (no O_CREAT), with O_NONBLOCK so that a
// FIFO or device put at the name (by anyone who can write there) cannot hold the caller in
// open(); what it opened must be a regular file, and O_NONBLOCK is cleared before it returns.
RegularFile OpenRegularBeneath(int dir_fd, const std::string& relative, int flags) noexcept;
// The same for one name in `dir_fd` (openat with O_NOFOLLOW): the files step's tree.
RegularFile OpenRegularAt(int dir_fd, const char* name, int flags) noexcept;

}  // namespace iofleet::agent
