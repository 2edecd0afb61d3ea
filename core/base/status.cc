#include "core/base/status.h"

namespace iofleet {

const char* ErrnoName(int err) {
  switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EIO: return "EIO";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case EROFS: return "EROFS";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ENOTEMPTY: return "ENOTEMPTY";
    case ELOOP: return "ELOOP";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EDQUOT: return "EDQUOT";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EADDRINUSE: return "EADDRINUSE";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case ENOTSOCK: return "ENOTSOCK";
    default: return "errno";
  }
}

Status PosixError(const std::string& context, int err) {
  std::string message = context + ": " + std::strerror(err) + " (" + ErrnoName(err) + ")";
  switch (err) {
    case ENOENT: return {Code::kNotFound, std::move(message)};
    case EACCES:
    case EPERM:
    case EXDEV:
    case ELOOP: return {Code::kPermissionDenied, std::move(message)};
    case ENOSPC:
    case EDQUOT: return {Code::kResourceExhausted, std::move(message)};
    case EINVAL:
    case EOPNOTSUPP: return {Code::kFailedPrecondition, std::move(message)};
    default: return {Code::kInternal, std::move(message)};
  }
}

}  // namespace iofleet
