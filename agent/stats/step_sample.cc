#include "agent/stats/step_sample.h"

#include <cerrno>

namespace iofleet::agent {
namespace {

struct Reason {
  int err;
  std::string_view name;
};

// The errors storage and file systems give; anything else is "other". Fixed: a label's values
// must stay few whatever the kernel returns.
constexpr std::array<Reason, kErrorReasonCount - 2> kErrnoReasons = {{
    {EIO, "EIO"},       {ENOSPC, "ENOSPC"},   {EDQUOT, "EDQUOT"},       {ENODATA, "ENODATA"},
    {EROFS, "EROFS"},   {EAGAIN, "EAGAIN"},   {EINTR, "EINTR"},         {EINVAL, "EINVAL"},
    {EBADF, "EBADF"},   {EFAULT, "EFAULT"},   {ENOMEM, "ENOMEM"},       {EFBIG, "EFBIG"},
    {ENXIO, "ENXIO"},   {ESTALE, "ESTALE"},   {ETIMEDOUT, "ETIMEDOUT"}, {ECANCELED, "ECANCELED"},
    {EOPNOTSUPP, "EOPNOTSUPP"}, {EPERM, "EPERM"}, {EACCES, "EACCES"},   {ENOENT, "ENOENT"},
}};
constexpr size_t kVerifyReason = kErrorReasonCount - 2;
constexpr size_t kOtherReason = kErrorReasonCount - 1;

}  // namespace

std::string_view ErrorReasonName(size_t reason) {
  if (reason < kErrnoReasons.size()) return kErrnoReasons[reason].name;
  return reason == kVerifyReason ? "verify" : "other";
}

size_t ErrorReasonOf(int slot) {
  if (slot == 0) return kVerifyReason;
  for (size_t r = 0; r < kErrnoReasons.size(); ++r) {
    if (kErrnoReasons[r].err == slot) return r;
  }
  return kOtherReason;
}

void AddFolded(FoldedHistogram& into, const FoldedHistogram& from) {
  for (size_t i = 0; i < into.cumulative.size(); ++i) into.cumulative[i] += from.cumulative[i];
  into.count += from.count;
  into.sum_seconds += from.sum_seconds;
}

void IoSample::Add(const IoSample& other) {
  ops += other.ops;
  bytes += other.bytes;
  fsyncs += other.fsyncs;
  inflight += other.inflight;
  for (size_t r = 0; r < errors.size(); ++r) errors[r] += other.errors[r];
  AddFolded(latency, other.latency);
}

void FilesSample::Add(const FilesSample& other) {
  ops += other.ops;
  AddFolded(latency, other.latency);
}

void CopySample::Add(const CopySample& other) {
  bytes += other.bytes;
  files += other.files;
}

}  // namespace iofleet::agent
