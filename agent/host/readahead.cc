#include "agent/host/readahead.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace iofleet::agent {
namespace {

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

Result<std::string> ReadValue(const std::string& file) {
  std::ifstream in(file);
  std::string value;
  if (!(in >> value)) return PosixError(file, errno ? errno : EIO);
  return value;
}

// The whole value replaces the old one (O_TRUNC, as `echo N > file`): sysfs takes each write
// whole anyway, and a longer old value in any other file must not leave digits behind.
Status WriteValue(const std::string& file, const std::string& value) {
  int fd = open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return PosixError(file, errno);
  ssize_t n = write(fd, value.data(), value.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(value.size())) return PosixError(file + ": writing " + value, n < 0 ? err : EIO);
  return Status::Ok();
}

}  // namespace

Result<std::string> ReadaheadFileFor(int fd, const std::string& sysfs) {
  struct stat st;
  if (fstat(fd, &st) < 0) return PosixError("fstat", errno);
  const std::string id = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
  const std::string dev = sysfs + "/dev/block/" + id;
  // Canonical (symlinks and ".." resolved), as the record stores it.
  auto canonical = [](const std::string& path) {
    char resolved[PATH_MAX];
    return realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  };
  if (Exists(dev + "/queue/read_ahead_kb")) return canonical(dev + "/queue/read_ahead_kb");
  if (Exists(dev + "/partition") && Exists(dev + "/../queue/read_ahead_kb")) return canonical(dev + "/../queue/read_ahead_kb");
  const std::string bdi = sysfs + "/class/bdi/" + id + "/read_ahead_kb";
  if (Exists(bdi)) return canonical(bdi);
  return Status(Code::kFailedPrecondition, "no block device or backing device (" + id +
                                               ") has a read-ahead setting for this file system (tmpfs or similar)");
}

ReadaheadKeeper::ReadaheadKeeper(std::string state_dir, const std::string& owner)
    : state_dir_(std::move(state_dir)),
      record_path_(state_dir_ + (owner.empty() ? "/readahead.record" : "/readahead-" + owner + ".record")) {}

std::vector<std::string> ReadaheadKeeper::RestoreFromRecord() {
  std::vector<std::string> notes;
  std::ifstream in(record_path_);
  if (!in) return notes;
  std::lock_guard lock(mu_);
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    std::string value = tab == std::string::npos ? "" : line.substr(0, tab);
    std::string file = tab == std::string::npos ? "" : line.substr(tab + 1);
    // Only what this keeper writes: a number for an absolute path to a read_ahead_kb file.
    const std::string kName = "read_ahead_kb";
    const bool sane = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
                      file.rfind("/", 0) == 0 && file.find("/..") == std::string::npos && file.size() > kName.size() &&
                      file.compare(file.size() - kName.size(), kName.size(), kName) == 0;
    if (!sane) {
      notes.push_back("ignored a line of " + record_path_ + " that is not a read-ahead record: \"" + line + "\"");
      continue;
    }
    Status st = WriteValue(file, value);
    if (st.ok()) {
      notes.push_back("restored read-ahead " + value + " KiB to " + file + " (left changed by an earlier agent process)");
    } else {
      // Kept: the next change must not take the changed value for the original, and the next
      // restore tries again.
      originals_[file] = value;
      notes.push_back("could not restore read-ahead: " + st.message());
    }
  }
  in.close();
  if (originals_.empty()) unlink(record_path_.c_str());
  else (void)SaveRecordLocked();
  return notes;
}

Status ReadaheadKeeper::SaveRecordLocked() {
  if (mkdir(state_dir_.c_str(), 0700) < 0 && errno != EEXIST) return PosixError("state_dir " + state_dir_, errno);
  std::string tmp = record_path_ + ".tmp";
  std::ostringstream text;
  for (const auto& [file, value] : originals_) text << value << '\t' << file << '\n';
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return PosixError(tmp, errno);
  std::string s = text.str();
  bool ok = write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size()) && fsync(fd) == 0;
  int err = errno;
  close(fd);
  if (!ok || rename(tmp.c_str(), record_path_.c_str()) < 0) return PosixError(record_path_, ok ? errno : err);
  return Status::Ok();
}

Result<uint32_t> ReadaheadKeeper::Set(const std::string& file, uint32_t kib) {
  std::lock_guard lock(mu_);
  auto current = ReadValue(file);
  if (!current.ok()) return current.status();
  if (!originals_.count(file)) {
    originals_[file] = *current;
    // On disk before the change: a crash after it still finds what to put back.
    Status saved = SaveRecordLocked();
    if (!saved.ok()) {
      originals_.erase(file);
      return Status(saved.code(), "cannot record the original read-ahead, so it is not changed: " + saved.message());
    }
  }
  IOFLEET_RETURN_IF_ERROR(WriteValue(file, std::to_string(kib)));
  return static_cast<uint32_t>(std::strtoul(current->c_str(), nullptr, 10));
}

void ReadaheadKeeper::RestoreAll() {
  std::lock_guard lock(mu_);
  if (originals_.empty()) return;
  bool all = true;
  for (const auto& [file, value] : originals_) all &= WriteValue(file, value).ok();
  if (all) {
    originals_.clear();
    unlink(record_path_.c_str());
  }
}

}  // namespace iofleet::agent
