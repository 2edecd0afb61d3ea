// File system calls confined beneath a directory descriptor: openat2 with RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS, so neither "..", an absolute path nor a symlink anywhere in the path can
// leave the root. Every path the agent touches goes through here.
#pragma once

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

}  // namespace iofleet::agent
