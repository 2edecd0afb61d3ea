// Opening a report file by a path a client chose, without leaving the results directory: no
// "..", no symbolic link (inside the tree or pointing out of it), nothing but a regular file.
#pragma once

#include <string>

#include "core/base/status.h"
#include "core/base/unique_fd.h"

namespace iofleet::controller {

// Opens `relative` under the directory `root` for reading (O_RDONLY, close-on-exec). The root
// itself may be reached through symbolic links; nothing below it may be one. Errors:
// InvalidArgument for a path refused before any lookup (empty, absolute, NUL, an empty, "." or
// ".." component); NotFound when nothing is there; PermissionDenied for a symbolic link, a path
// leaving the root, a directory, a FIFO, a device or a socket; other errors as the system
// reports them. Uses openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
// on kernels without it, one openat(O_NOFOLLOW) per component.
Result<UniqueFd> OpenBeneath(const std::string& root, const std::string& relative);

namespace serve_internal {
// The fallback walk, exposed for its tests (the test machine's kernel has openat2).
Result<UniqueFd> OpenBeneathByComponents(const std::string& root, const std::string& relative);
}  // namespace serve_internal

}  // namespace iofleet::controller
