#include "agent/fs/workspace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "agent/fs/confined_fs.h"
#include "agent/fs/tree_names.h"
#include "core/rules/validate.h"

namespace iofleet::agent {
namespace {

std::string Describe(int err) {
  if (err == EXDEV || err == ELOOP) return " (a symlink or '..' would leave the root; refused)";
  return "";
}

}  // namespace

Status Workspace::MakeDirectory(const std::string& relative, bool must_be_new, bool ours_if_empty) {
  std::string shown = root_path_ + "/" + relative;
  int rc = MkdirBeneath(root_fd_, relative, 0755);
  if (rc == 0) {
    created_.push_back({relative, true});
    return Status::Ok();
  }
  if (rc != -EEXIST) return PosixError(shown + Describe(-rc), -rc);
  if (must_be_new) return Status(Code::kAlreadyExists, shown + ": already exists");
  // It exists (perhaps another agent of this run on a shared file system just made it): it
  // must be a real directory beneath the root, not a symlink.
  int fd = OpenBeneath(root_fd_, relative, O_PATH | O_DIRECTORY);
  if (fd < 0) return PosixError(shown + Describe(-fd), -fd);
  close(fd);
  // iofleet/ and iofleet/<run-id>/ belong to iofleet whoever made them: the last agent of the
  // run to clean up removes them once empty. The user's own directories above stay.
  if (ours_if_empty) created_.push_back({relative, true});
  return Status::Ok();
}

Result<std::shared_ptr<Workspace>> Workspace::Create(const Root& root, const std::string& dir,
                                                     const std::string& run_id,
                                                     const std::string& agent) {
  if (!rules::IsConfinedRelativePath(dir)) {
    return Status(Code::kPermissionDenied, root.path + "/" + dir + ": not a relative path below the root; refused");
  }
  if (!rules::IsSinglePathComponent(run_id)) return InvalidArgument("run id \"" + run_id + "\" is not a single path component");
  if (!rules::IsSinglePathComponent(agent)) return InvalidArgument("agent name \"" + agent + "\" is not a single path component");

  std::shared_ptr<Workspace> ws(new Workspace(root));
  std::vector<std::string> parts;
  for (size_t start = 0; !dir.empty() && start <= dir.size();) {
    size_t end = std::min(dir.find('/', start), dir.size());
    parts.push_back(dir.substr(start, end - start));
    start = end + 1;
  }
  parts.insert(parts.end(), {"iofleet", run_id, agent});
  std::string relative;
  for (size_t i = 0; i < parts.size(); ++i) {
    relative += (relative.empty() ? "" : "/") + parts[i];
    const bool last = i + 1 == parts.size();
    const bool iofleet_owned = i + 3 >= parts.size();  // iofleet/<run-id>/<agent>
    Status st = ws->MakeDirectory(relative, /*must_be_new=*/last, /*ours_if_empty=*/iofleet_owned);
    if (!st.ok()) {
      ws->CleanupLocked();
      return st;
    }
  }
  ws->run_dir_rel_ = relative;
  ws->run_dir_abs_ = root.path + "/" + relative;
  ws->run_parent_rel_ = relative.substr(0, relative.rfind('/'));
  ws->run_parent_abs_ = root.path + "/" + ws->run_parent_rel_;
  return ws;
}

bool Workspace::IsSameFile(int kept, const std::string& relative) {
  struct stat mine {}, there {};
  if (fstat(kept, &mine) < 0) return false;
  int fd = OpenBeneath(root_fd_, relative, O_PATH | O_NOFOLLOW);
  if (fd < 0) return false;
  bool same = fstat(fd, &there) == 0 && there.st_dev == mine.st_dev && there.st_ino == mine.st_ino;
  close(fd);
  return same;
}

// A new description of a file this run created, from the descriptor kept since its creation:
// whatever has since been put at its name (a hard link or symlink to a file elsewhere, by anyone
// who can write in the run directory) is never opened.
Result<int> Workspace::Reopen(int kept, const std::string& shown, int flags) {
  char path[40];
  std::snprintf(path, sizeof(path), "/proc/self/fd/%d", kept);
  int fd = open(path, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_TRUNC)) | O_CLOEXEC);
  if (fd < 0) return PosixError(shown + " (reopening the file this run created)", errno);
  return fd;
}

Result<int> Workspace::OpenRelative(const std::string& relative, const std::string& shown, int flags, bool others_create) {
  if (closed_) return Aborted(shown + ": the run has ended");
  if (auto kept = kept_.find(relative); kept != kept_.end()) return Reopen(kept->second.get(), shown, flags);
  if (flags & O_CREAT) {
    int fd = OpenBeneath(root_fd_, relative, flags | O_EXCL, 0644);
    if (fd >= 0) {
      created_.push_back({relative, false});
      int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (keep < 0) {
        int err = errno;
        close(fd);
        return PosixError(shown + " (keeping the created file open)", err);
      }
      kept_.emplace(relative, UniqueFd(keep));
      return fd;
    }
    if (fd != -EEXIST) return PosixError(shown + Describe(-fd), -fd);
    if (!others_create) {
      return Status(Code::kFailedPrecondition, shown + ": exists but was not created by this run; refused "
                                                       "(an agent writes only into files it created)");
    }
    flags &= ~O_CREAT;  // another agent of the run made it (shared files): use it
  }
  // Never blocking in open(): a FIFO or device put at the name is refused, not waited on.
  RegularFile file = OpenRegularBeneath(root_fd_, relative, flags);
  if (file.kind) {
    return Status(Code::kFailedPrecondition, shown + ": not a regular file (" + file.kind + "); refused");
  }
  if (file.fd < 0) return PosixError(shown + Describe(file.err), file.err);
  // Made by another agent of the run: it must be a plain file with no second name, or a hard
  // link placed there would lead the writes to a file outside the root.
  if (file.st.st_nlink != 1) {
    close(file.fd);
    return Status(Code::kFailedPrecondition, shown + ": not a plain file with a single link (a hard link to a file "
                                                     "elsewhere?); refused");
  }
  return file.fd;
}

Result<int> Workspace::OpenFile(const std::string& name, int flags) {
  if (!rules::IsSinglePathComponent(name)) return InvalidArgument("file name \"" + name + "\" refused");
  std::lock_guard lock(mu_);
  return OpenRelative(run_dir_rel_ + "/" + name, PathOf(name), flags, /*others_create=*/false);
}

Result<int> Workspace::OpenSharedFile(const std::string& name, int flags) {
  if (!rules::IsSinglePathComponent(name)) return InvalidArgument("file name \"" + name + "\" refused");
  std::lock_guard lock(mu_);
  if (closed_) return Aborted(SharedPathOf(name) + ": the run has ended");
  bool recorded = std::any_of(created_.begin(), created_.end(),
                              [&](const Entry& e) { return e.relative == run_parent_rel_ + "/shared"; });
  if (!recorded) IOFLEET_RETURN_IF_ERROR(MakeDirectory(run_parent_rel_ + "/shared", false, true));
  return OpenRelative(run_parent_rel_ + "/shared/" + name, SharedPathOf(name), flags, /*others_create=*/true);
}

Result<int> Workspace::OpenPeerFile(const std::string& agent, const std::string& name, int flags) {
  if (!rules::IsSinglePathComponent(agent) || !rules::IsSinglePathComponent(name) || agent == "shared") {
    return InvalidArgument("peer file " + agent + "/" + name + " refused");
  }
  std::lock_guard lock(mu_);
  return OpenRelative(run_parent_rel_ + "/" + agent + "/" + name, PeerPathOf(agent, name), flags & ~O_CREAT,
                      /*others_create=*/true);
}

Status Workspace::RemoveFile(const std::string& name) {
  std::string relative = run_dir_rel_ + "/" + name;
  std::lock_guard lock(mu_);
  auto it = std::find_if(created_.begin(), created_.end(),
                         [&](const Entry& e) { return e.relative == relative && !e.directory; });
  if (it == created_.end()) return Status(Code::kPermissionDenied, PathOf(name) + ": not created by this run; not removed");
  if (auto kept = kept_.find(relative); kept != kept_.end()) {
    bool ours = IsSameFile(kept->second.get(), relative);
    kept_.erase(kept);
    if (!ours) {
      created_.erase(it);
      return Status(Code::kPermissionDenied, PathOf(name) + ": no longer the file this run created; not removed");
    }
  }
  int rc = UnlinkBeneath(root_fd_, relative, false);
  if (rc < 0 && rc != -ENOENT) return PosixError(PathOf(name), -rc);
  created_.erase(it);
  return Status::Ok();
}

uint64_t Workspace::RemoveFiles() {
  std::lock_guard lock(mu_);
  uint64_t removed = 0;
  std::vector<Entry> kept;
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    if (!it->directory) {  // files and trees; directories stay for the next point
      removed += RemoveEntry(*it);
      continue;
    }
    kept.push_back(*it);
  }
  created_.assign(kept.rbegin(), kept.rend());
  return removed;
}

Result<uint64_t> Workspace::FreeBytes() {
  int fd = OpenBeneath(root_fd_, run_dir_rel_, O_PATH | O_DIRECTORY);
  if (fd < 0) return PosixError(run_dir_abs_, -fd);
  struct statvfs fs {};
  int rc = fstatvfs(fd, &fs);
  int err = errno;
  close(fd);
  if (rc < 0) return PosixError(run_dir_abs_ + ": statvfs", err);
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

uint64_t Workspace::Cleanup() {
  std::lock_guard lock(mu_);
  closed_ = true;
  return CleanupLocked();
}

uint64_t Workspace::CleanupLocked() {
  uint64_t removed = 0;
  while (!created_.empty()) {
    removed += RemoveEntry(created_.back());
    created_.pop_back();
  }
  return removed;
}

// A directory that still holds entries someone else made (ENOTEMPTY) is left in place.
uint64_t Workspace::RemoveEntry(const Entry& e) {
  if (auto kept = kept_.find(e.relative); kept != kept_.end()) {
    // Only the file this run created: something put at its name since is not the run's.
    bool ours = IsSameFile(kept->second.get(), e.relative);
    kept_.erase(kept);
    if (!ours) return 0;
  }
  if (!e.tree()) return UnlinkBeneath(root_fd_, e.relative, e.directory) == 0 ? 1 : 0;
  uint64_t removed = 0;
  int base = OpenBeneath(root_fd_, e.relative, O_RDONLY | O_DIRECTORY);
  if (base < 0) return 0;
  int dfd = -1;
  uint64_t open_dir = UINT64_MAX;
  for (const auto& [begin, end, per_dir, size_of] : e.tree_files) {
    for (uint64_t i = begin; i < end; ++i) {
      uint64_t d = i / per_dir;
      if (d != open_dir) {
        if (dfd >= 0) close(dfd);
        dfd = openat(base, TreeDirName(static_cast<uint32_t>(d)).text, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        open_dir = d;
      }
      if (dfd >= 0 && unlinkat(dfd, TreeFileName(static_cast<uint32_t>(i % per_dir)).text, 0) == 0) ++removed;
    }
  }
  if (dfd >= 0) close(dfd);
  for (const auto& [begin, end, per_dir, size_of] : e.tree_dirs) {
    for (uint64_t d = begin; d < end; ++d) {
      if (unlinkat(base, TreeDirName(static_cast<uint32_t>(d)).text, AT_REMOVEDIR) == 0) ++removed;
    }
  }
  close(base);
  if (e.directory && UnlinkBeneath(root_fd_, e.relative, true) == 0) ++removed;
  return removed;
}

Result<int> Workspace::OpenDirectory(const std::string& relative, bool create) {
  if (!rules::IsConfinedRelativePath(relative)) {
    return InvalidArgument("\"" + relative + "\" is not a path below the run directory; refused");
  }
  {
    std::lock_guard lock(mu_);
    if (closed_) return Aborted(PathOf(relative) + ": the run has ended");
    for (size_t at = 0; create && at < relative.size();) {
      size_t end = std::min(relative.find('/', at), relative.size());
      std::string part = run_dir_rel_ + "/" + relative.substr(0, end);
      int rc = MkdirBeneath(root_fd_, part, 0755);
      if (rc == 0) created_.push_back({part, true});
      else if (rc != -EEXIST) return PosixError(root_path_ + "/" + part + Describe(-rc), -rc);
      at = end + 1;
    }
  }
  return OpenBelow(relative, O_RDONLY | O_DIRECTORY);
}

Result<int> Workspace::OpenBelow(const std::string& relative, int flags) {
  if (!rules::IsConfinedRelativePath(relative)) {
    return InvalidArgument("\"" + relative + "\" is not a path below the run directory; refused");
  }
  std::string full = relative.empty() ? run_dir_rel_ : run_dir_rel_ + "/" + relative;
  int fd = OpenBeneath(root_fd_, full, flags & ~O_CREAT);
  if (fd < 0) return PosixError((relative.empty() ? run_dir_abs_ : PathOf(relative)) + Describe(-fd), -fd);
  return fd;
}

void Workspace::RecordTreeMade(const std::string& relative, bool directories, uint64_t begin, uint64_t end,
                               uint32_t files_per_dir, TreeFileSizeOf size_of) {
  if (begin >= end) return;
  std::string full = run_dir_rel_ + "/" + relative;
  std::lock_guard lock(mu_);
  if (closed_) return;  // the run ended: the task's first operation fails on the closed tree
  auto it = std::find_if(created_.begin(), created_.end(), [&](const Entry& e) { return e.relative == full && e.tree(); });
  if (it == created_.end()) {
    // Not a directory entry of its own: the directory itself is recorded when this run made it.
    Entry tree{full, false};
    tree.is_tree = true;
    created_.push_back(std::move(tree));
    it = created_.end() - 1;
  }
  (directories ? it->tree_dirs : it->tree_files).push_back({begin, end, std::max(files_per_dir, 1u), std::move(size_of)});
}

std::vector<Workspace::TreeFiles> Workspace::TreeFilesMade(const std::string& relative) {
  std::string full = run_dir_rel_ + "/" + relative;
  std::lock_guard lock(mu_);
  std::vector<TreeFiles> out;
  for (const auto& e : created_) {
    if (e.relative != full || !e.tree()) continue;
    for (const auto& r : e.tree_files) out.push_back({r.begin, r.end, r.per_dir, r.size_of});
  }
  return out;
}

void Workspace::RecordTree(const std::string& relative, uint32_t dirs, uint32_t files_per_dir) {
  RecordTreeMade(relative, true, 0, std::max(dirs, 1u), files_per_dir);
  RecordTreeMade(relative, false, 0, uint64_t{dirs} * files_per_dir, files_per_dir);
}

void Workspace::Record(const std::string& relative, bool directory) {
  std::lock_guard lock(mu_);
  // After cleanup the entry is removed at once: nothing may outlive the run unrecorded.
  if (closed_) {
    UnlinkBeneath(root_fd_, run_dir_rel_ + "/" + relative, directory);
    return;
  }
  created_.push_back({run_dir_rel_ + "/" + relative, directory, /*copy=*/true});
}

bool Workspace::Recorded(const std::string& relative) {
  std::string full = run_dir_rel_ + "/" + relative;
  std::lock_guard lock(mu_);
  return std::any_of(created_.begin(), created_.end(), [&](const Entry& e) { return e.relative == full && e.copy; });
}

uint64_t Workspace::RemoveRecordedUnder(const std::string& relative) {
  std::string full = run_dir_rel_ + "/" + relative;
  std::lock_guard lock(mu_);
  uint64_t removed = 0;
  std::vector<Entry> kept;
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    if (it->copy && (it->relative == full || it->relative.rfind(full + "/", 0) == 0)) removed += RemoveEntry(*it);
    else kept.push_back(*it);
  }
  created_.assign(kept.rbegin(), kept.rend());
  return removed;
}

}  // namespace iofleet::agent
