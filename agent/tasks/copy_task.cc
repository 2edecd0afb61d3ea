#include "agent/tasks/copy_task.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <thread>

#include "agent/fs/confined_fs.h"
#include "agent/stats/job_stats.h"
#include "core/base/clock.h"
#include "core/base/unique_fd.h"

namespace iofleet::agent {
namespace {

constexpr size_t kCopyFileRangeChunk = size_t{1} << 30;

struct SourceEntry {
  std::string relative;  // below `from` ("" for `from` itself)
  bool directory;
  dev_t dev = 0;  // what the walk found there: the file copied must be that one
  ino_t ino = 0;
};

std::string Join(const std::string& a, const std::string& b) { return b.empty() ? a : a.empty() ? b : a + "/" + b; }

class CopyTask : public StepTask {
 public:
  CopyTask(CopyPlan plan, int from_fd, int to_parent_fd, std::string to_name, bool single_file, uint64_t removed)
      : plan_(std::move(plan)), from_fd_(from_fd), to_parent_fd_(to_parent_fd), to_name_(std::move(to_name)),
        single_file_(single_file), removed_(removed) {
    for (uint32_t j = 0; j < std::max(1u, plan_.copy.jobs()); ++j) counters_.push_back(std::make_unique<TaskCounters>());
  }
  ~CopyTask() override {
    close(from_fd_);
    close(to_parent_fd_);
  }

  Status Run(const std::atomic<bool>& stop) override {
    // The walk and the directories are part of what cp does, so they are inside the window.
    std::vector<SourceEntry> entries;
    if (single_file_) entries.push_back({"", false});  // from_fd_ itself, checked at setup
    else IOFLEET_RETURN_IF_ERROR(Walk("", entries));
    int to_fd = -1;
    if (!single_file_) {
      for (const auto& e : entries) {
        if (!e.directory) continue;
        // Beneath `to`'s parent, like every other path: no symlink in between is followed.
        int rc = MkdirBeneath(to_parent_fd_, Join(to_name_, e.relative), 0755);
        if (rc < 0) return Failed(plan_.to_workspace->PathOf(Join(plan_.to, e.relative)), "mkdir", -rc);
        plan_.to_workspace->Record(Join(plan_.to, e.relative), true);
        ++dirs_;
      }
      to_fd = OpenBeneath(to_parent_fd_, to_name_, O_PATH | O_DIRECTORY);
      if (to_fd < 0) return Failed(plan_.to_workspace->PathOf(plan_.to), "open", -to_fd);
    }
    for (const auto& e : entries) {
      if (!e.directory) files_.push_back(e);
    }
    std::vector<std::thread> threads;
    std::vector<Status> results(counters_.size());
    for (size_t j = 0; j < counters_.size(); ++j) {
      try {
        threads.emplace_back([&, j] {
          ThreadCpuRecorder cpu(*counters_[j]);
          results[j] = RunJob(*counters_[j], to_fd, stop);
        });
      } catch (const std::system_error& e) {
        results[j] = Failed(plan_.to_workspace->PathOf(plan_.to), "starting a copy thread", e.code().value());
        break;
      }
    }
    for (auto& t : threads) t.join();
    if (to_fd >= 0) close(to_fd);
    for (auto& r : results) IOFLEET_RETURN_IF_ERROR(r);
    return Status::Ok();
  }

  void Report(v1::StepResult& result) const override {
    ReportCounters(counters_, result);
    result.set_dirs(dirs_);
    result.set_copy_method(plan_.copy.method() == v1::COPY_METHOD_COPY_FILE_RANGE ? "copy_file_range" : "read_write");
    if (removed_) result.set_note("removed " + std::to_string(removed_) + " entries of the earlier copy at " + plan_.to + " first (untimed)");
  }
  uint64_t ops() const override { return SumOps(counters_); }
  uint64_t bytes() const override { return SumBytes(counters_); }
  std::optional<JobsCpuTime> JobsCpu() const override { return SumCpu(counters_); }
  void Sample(StepSample& out) const override { out.copy = CopySample{SumBytes(counters_), SumOps(counters_)}; }
  void JobThreadIds(std::vector<int>& out) const override { TaskThreadIds(counters_, out); }

 private:
  Status Failed(const std::string& path, const char* what, int err) {
    failed_.store(true);
    return PosixError("agent " + plan_.agent_name + ": " + path + ": copy: " + what, err);
  }

  // Depth first, directories before what they hold.
  Status Walk(const std::string& relative, std::vector<SourceEntry>& out) {
    out.push_back({relative, true});
    int fd = relative.empty() ? fcntl(from_fd_, F_DUPFD_CLOEXEC, 0) : OpenBeneath(from_fd_, relative, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return Failed(plan_.from_workspace->PathOf(Join(plan_.from, relative)), "open", relative.empty() ? errno : -fd);
    DIR* dir = fdopendir(fd);
    if (!dir) {
      close(fd);
      return Failed(plan_.from_workspace->PathOf(Join(plan_.from, relative)), "opendir", errno);
    }
    std::vector<SourceEntry> children;  // by name
    while (true) {
      errno = 0;
      dirent* d = readdir(dir);
      if (!d) {
        if (errno != 0) {
          int err = errno;
          closedir(dir);
          return Failed(plan_.from_workspace->PathOf(Join(plan_.from, relative)), "readdir", err);
        }
        break;
      }
      std::string name = d->d_name;
      if (name == "." || name == "..") continue;
      struct stat st;
      if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        int err = errno;
        closedir(dir);
        return Failed(plan_.from_workspace->PathOf(Join(plan_.from, Join(relative, name))), "stat", err);
      }
      if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
        closedir(dir);
        return FailedPrecondition("agent " + plan_.agent_name + ": " + plan_.from_workspace->PathOf(Join(plan_.from, Join(relative, name))) +
                                  ": copy: not a regular file or directory (a symlink or special file is neither followed nor skipped)");
      }
      children.push_back({name, S_ISDIR(st.st_mode), st.st_dev, st.st_ino});
    }
    closedir(dir);
    std::sort(children.begin(), children.end(), [](const SourceEntry& a, const SourceEntry& b) { return a.relative < b.relative; });
    for (const auto& child : children) {
      if (child.directory) IOFLEET_RETURN_IF_ERROR(Walk(Join(relative, child.relative), out));
      else out.push_back({Join(relative, child.relative), false, child.dev, child.ino});
    }
    return Status::Ok();
  }

  Status RunJob(TaskCounters& c, int to_fd, const std::atomic<bool>& stop) {
    const size_t block = plan_.copy.block_size();
    AlignedBuffer owned = AllocateAligned(kDirectIoAlign, block);  // freed on every way out
    std::byte* buffer = owned.get();
    if (!buffer) return Failed(plan_.to_workspace->PathOf(plan_.to), "buffer", ENOMEM);
    Status status;
    while (!stop.load(std::memory_order_relaxed) && !failed_.load(std::memory_order_relaxed)) {
      size_t index = next_.fetch_add(1);
      if (index >= files_.size()) break;
      uint64_t t0 = MonotonicNs();
      uint64_t copied = 0;
      status = CopyFile(files_[index], to_fd, buffer, block, copied, stop);
      if (!status.ok()) break;
      c.latency.Record(MonotonicNs() - t0);
      Bump(c.bytes, copied);
      Bump(c.ops, 1);
    }
    return status;
  }

  // Stops between blocks when asked: a 32 GiB file does not hold up a Stop or the lease.
  Status CopyFile(const SourceEntry& source, int to_fd, std::byte* buffer, size_t block, uint64_t& copied,
                  const std::atomic<bool>& stop) {
    const std::string& rel = source.relative;
    std::string from_shown = plan_.from_workspace->PathOf(Join(plan_.from, rel));
    std::string to_rel = Join(plan_.to, rel);
    std::string to_shown = plan_.to_workspace->PathOf(to_rel);
    int in = -1;
    if (single_file_) {
      in = fcntl(from_fd_, F_DUPFD_CLOEXEC, 0);
      if (in < 0) return Failed(from_shown, "open", errno);
    } else {
      // The name may have been swapped since the walk (by anyone who can write in the source):
      // a FIFO or device there never holds the job in open(), and only the file the walk
      // found is copied, not a hard link to a file elsewhere.
      RegularFile file = OpenRegularBeneath(from_fd_, rel, O_RDONLY);
      if (file.kind) {
        failed_.store(true);
        return FailedPrecondition("agent " + plan_.agent_name + ": " + from_shown + ": copy: not a regular file (" + file.kind +
                                  ") where the walk found one: swapped since; refused");
      }
      if (file.fd < 0) return Failed(from_shown, "open", file.err);
      if (file.st.st_dev != source.dev || file.st.st_ino != source.ino) {
        close(file.fd);
        failed_.store(true);
        return FailedPrecondition("agent " + plan_.agent_name + ": " + from_shown +
                                  ": copy: not the file the copy found there (swapped since the walk: a hard link to a "
                                  "file elsewhere?); refused");
      }
      in = file.fd;
    }
    int out = single_file_ ? OpenBeneath(to_parent_fd_, to_name_, O_WRONLY | O_CREAT | O_EXCL, 0644)
                           : OpenBeneath(to_fd, rel, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (out < 0) {
      close(in);
      return Failed(to_shown, "create", -out);
    }
    plan_.to_workspace->Record(to_rel, false);
    Status status = plan_.copy.method() == v1::COPY_METHOD_COPY_FILE_RANGE
                        ? CopyFileRange(in, out, from_shown, to_shown, block, copied, stop)
                        : ReadWrite(in, out, from_shown, to_shown, buffer, block, copied, stop);
    close(in);
    if (close(out) < 0 && status.ok()) status = Failed(to_shown, "close", errno);
    return status;
  }

  // The bytes through this process: read a block, write it out.
  Status ReadWrite(int in, int out, const std::string& from_shown, const std::string& to_shown, std::byte* buffer,
                   size_t block, uint64_t& copied, const std::atomic<bool>& stop) {
    Status status;
    while (!stop.load(std::memory_order_relaxed)) {
      ssize_t r = read(in, buffer, block);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        status = Failed(from_shown, "read", errno);
        break;
      }
      if (r == 0) break;
      for (ssize_t done = 0; done < r;) {
        ssize_t w = write(out, buffer + done, static_cast<size_t>(r - done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          status = Failed(to_shown, "write", w < 0 ? errno : EIO);
          break;
        }
        done += w;
      }
      if (!status.ok()) break;
      copied += static_cast<uint64_t>(r);
    }
    return status;
  }

  // copy_file_range(2), up to 1 GiB per call as GNU cp asks (NFS 4.2 makes each call one
  // server-side COPY, so block-sized calls would understate it); a Stop is seen between calls.
  // The kernel, or the server, moves the bytes. A file system that cannot is an error
  // naming the method, never a silent fallback to read/write (GNU cp falls back; a benchmark
  // must not change what it measures).
  Status CopyFileRange(int in, int out, const std::string& from_shown, const std::string& to_shown, size_t block,
                       uint64_t& copied, const std::atomic<bool>& stop) {
    while (!stop.load(std::memory_order_relaxed)) {
      ssize_t n = copy_file_range(in, nullptr, out, nullptr, std::max<size_t>(block, kCopyFileRangeChunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        failed_.store(true);
        if (err == EXDEV || err == EOPNOTSUPP || err == ENOSYS) {
          return PosixError("agent " + plan_.agent_name + ": " + from_shown + " -> " + to_shown +
                                ": copy: method copy_file_range is not supported between these file systems "
                                "(use method: read_write; the step does not change method by itself)",
                            err);
        }
        return PosixError("agent " + plan_.agent_name + ": " + from_shown + " -> " + to_shown + ": copy: copy_file_range", err);
      }
      if (n == 0) break;
      copied += static_cast<uint64_t>(n);
    }
    return Status::Ok();
  }

  const CopyPlan plan_;
  const int from_fd_;       // `from` itself: a directory, or the file (single_file_)
  const int to_parent_fd_;  // the directory `to` is made in
  const std::string to_name_;
  const bool single_file_;
  const uint64_t removed_;
  uint64_t dirs_ = 0;
  std::vector<SourceEntry> files_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::vector<std::unique_ptr<TaskCounters>> counters_;
};

}  // namespace

Result<std::unique_ptr<StepTask>> MakeCopyTask(CopyPlan plan) {
  const std::string who = "agent " + plan.agent_name + ": ";
  // The source: a directory or one regular file.
  // O_NONBLOCK: a FIFO or device at `from` never holds the agent in open() (cleared below for
  // the file that is copied).
  auto from = plan.from_workspace->OpenBelow(plan.from, O_RDONLY | O_NONBLOCK);
  if (!from.ok()) {
    std::string hint = from.status().code() == Code::kNotFound ? " (make it in an earlier step, e.g. a files step)" : "";
    return Status(Code::kFailedPrecondition, who + "copy: " + from.status().message() + hint);
  }
  const int from_fd = *from;
  struct stat from_stat;
  if (fstat(from_fd, &from_stat) < 0) {
    int err = errno;
    close(from_fd);
    return PosixError(who + plan.from_workspace->PathOf(plan.from) + ": copy: stat", err);
  }
  if (!S_ISDIR(from_stat.st_mode) && !S_ISREG(from_stat.st_mode)) {
    close(from_fd);
    return Status(Code::kFailedPrecondition, who + plan.from_workspace->PathOf(plan.from) + ": copy: not a regular file or directory (" +
                                                 NonRegularKind(from_stat.st_mode) + "); refused");
  }
  const bool single_file = S_ISREG(from_stat.st_mode);
  if (fcntl(from_fd, F_SETFL, 0) < 0) {  // clears O_NONBLOCK
    int err = errno;
    close(from_fd);
    return PosixError(who + plan.from_workspace->PathOf(plan.from) + ": copy: fcntl", err);
  }
  // The destination: an earlier copy of this run goes first; anything else there is refused.
  uint64_t removed = 0;
  if (plan.to_workspace->Recorded(plan.to)) removed = plan.to_workspace->RemoveRecordedUnder(plan.to);
  size_t slash = plan.to.rfind('/');
  std::string parent = slash == std::string::npos ? "" : plan.to.substr(0, slash);
  std::string name = slash == std::string::npos ? plan.to : plan.to.substr(slash + 1);
  Result<int> parent_fd = parent.empty() ? plan.to_workspace->OpenDirectory("", false) : plan.to_workspace->OpenDirectory(parent, true);
  if (!parent_fd.ok()) {
    close(from_fd);
    return Status(parent_fd.status().code(), who + "copy: " + parent_fd.status().message());
  }
  struct stat st;
  if (fstatat(*parent_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    close(from_fd);
    close(*parent_fd);
    return Status(Code::kFailedPrecondition, who + plan.to_workspace->PathOf(plan.to) +
                                                 ": copy: already exists and this run did not make it; refused");
  }
  // The removal's own work (journal, metadata) is done before the timed copy, as the script's
  // rm -rf is done before its cache clearing and cp: it does not land in the copy's window.
  if (removed > 0) syncfs(*parent_fd);
  return std::unique_ptr<StepTask>(new CopyTask(std::move(plan), from_fd, *parent_fd, name, single_file, removed));
}

}  // namespace iofleet::agent
