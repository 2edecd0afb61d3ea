#include "agent/tasks/files_task.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "agent/fs/confined_fs.h"
#include "agent/fs/tree_names.h"
#include "agent/stats/job_stats.h"
#include "agent/worker/data_generator.h"
#include "core/base/clock.h"
#include "core/base/random.h"
#include "core/base/unique_fd.h"
#include "core/rules/non_io_steps.h"
#include "core/wire/histogram_proto.h"

namespace iofleet::agent {
namespace {


struct JobFailure {
  int err = 0;
  std::string path;
  std::string why;  // instead of err's text: what is wrong with the file
};

bool PerJob(const v1::FilesStep& files) { return files.layout() == v1::FILES_LAYOUT_PER_JOB; }

// What this run's creates made in one tree, for a read phase: the size a name was made with.
class MadeFiles {
 public:
  explicit MadeFiles(std::vector<Workspace::TreeFiles> ranges) : ranges_(std::move(ranges)), final_(ranges_.size(), true) {
    // A range is final when no later one can hold any of its names (a tree deleted and made
    // again has its latest sizes); with other files_per_dir, one may.
    for (size_t k = 0; k < ranges_.size(); ++k) {
      for (size_t m = k + 1; m < ranges_.size() && final_[k]; ++m) {
        final_[k] = ranges_[m].per_dir == ranges_[k].per_dir &&
                    (ranges_[m].end <= ranges_[k].begin || ranges_[m].begin >= ranges_[k].end);
      }
    }
  }

  // The size of file `f` of directory `d`, if this run made it. `hint`: where the job's last
  // lookup found its file, tried first (a job walks its files in order).
  std::optional<uint64_t> SizeOf(uint32_t d, uint32_t f, size_t& hint) const {
    uint64_t index = 0;
    if (hint < ranges_.size() && final_[hint] && Holds(ranges_[hint], d, f, index)) return ranges_[hint].size_of(index);
    for (size_t k = ranges_.size(); k-- > 0;) {
      if (Holds(ranges_[k], d, f, index)) {
        hint = k;
        return ranges_[k].size_of(index);
      }
    }
    return std::nullopt;
  }

 private:
  static bool Holds(const Workspace::TreeFiles& r, uint32_t d, uint32_t f, uint64_t& index) {
    if (!r.size_of || f >= r.per_dir) return false;
    index = uint64_t{d} * r.per_dir + f;
    return index >= r.begin && index < r.end;
  }

  std::vector<Workspace::TreeFiles> ranges_;
  std::vector<bool> final_;
};

}  // namespace

JobTreeSlice TreeSliceOf(const v1::FilesStep& files, v1::FilesOp op, uint32_t job) {
  const uint32_t jobs = std::max(1u, files.jobs());
  const bool whole_dirs = op == v1::FILES_OP_MKDIR || op == v1::FILES_OP_RMDIR;
  const uint64_t per_dir = files.files_per_dir();
  JobTreeSlice slice;
  if (!PerJob(files)) {
    const uint64_t units = whole_dirs ? files.dirs() : uint64_t{files.dirs()} * per_dir;
    slice.begin = units * job / jobs;
    slice.end = units * (job + 1) / jobs;
    return slice;
  }
  // Per job: the job's directories [first, last) of the shared numbering, renumbered from 0
  // in its own tree; a file keeps its shared index for its size.
  const uint64_t first = uint64_t{files.dirs()} * job / jobs, last = uint64_t{files.dirs()} * (job + 1) / jobs;
  slice.begin = 0;
  slice.end = whole_dirs ? last - first : (last - first) * per_dir;
  slice.index_offset = first * per_dir;
  return slice;
}

namespace {

class FilesTask : public StepTask {
 public:
  // `tree_fds`: one descriptor (shared), or one per job (per_job; -1 for a job without
  // directories); the task owns them.
  // `made`: for a read phase, what this run's creates made in each of those trees.
  FilesTask(FilesPlan plan, std::vector<int> tree_fds, std::vector<MadeFiles> made)
      : plan_(std::move(plan)), tree_fds_(std::move(tree_fds)), made_(std::move(made)),
        sizing_(std::make_shared<const v1::FilesStep>(plan_.files)) {
    const uint32_t jobs = std::max(1u, plan_.files.jobs());
    for (uint32_t j = 0; j < jobs; ++j) {
      counters_.push_back(std::make_unique<TaskCounters>());
      fsync_latency_.push_back(std::make_unique<LatencyHistogram>());
    }
    failures_.resize(jobs);
    fsyncs_.resize(jobs);
  }
  ~FilesTask() override {
    for (int fd : tree_fds_) {
      if (fd >= 0) close(fd);
    }
  }

  Status Run(const std::atomic<bool>& stop) override {
    const uint32_t jobs = static_cast<uint32_t>(counters_.size());
    std::vector<std::thread> threads;
    for (uint32_t j = 0; j < jobs; ++j) {
      JobTreeSlice slice = TreeSliceOf(plan_.files, plan_.op, j);
      if (slice.begin >= slice.end) continue;
      try {
        threads.emplace_back([=, this, &stop] { RunJob(j, slice, stop); });
      } catch (const std::system_error& e) {
        failures_[j] = {e.code().value(), plan_.workspace->PathOf(plan_.relative) + " (starting job " + std::to_string(j) + ")", {}};
        failed_.store(true);
        break;
      }
    }
    for (auto& t : threads) t.join();
    for (const auto& f : failures_) {
      if (f.err && !f.why.empty()) {
        return FailedPrecondition("agent " + plan_.agent_name + ": " + f.path + ": " + rules::FilesOpName(plan_.op) + ": " + f.why);
      }
      if (f.err) {
        return PosixError("agent " + plan_.agent_name + ": " + f.path + ": " + rules::FilesOpName(plan_.op), f.err);
      }
    }
    // sync: syncfs, inside the phase's window: the create is done when its data is stable.
    if (plan_.op == v1::FILES_OP_CREATE && plan_.files.sync() == v1::FILES_SYNC_SYNCFS && !stop.load()) {
      uint64_t t0 = MonotonicNs();
      if (syncfs(FirstTreeFd()) < 0) {
        return PosixError("agent " + plan_.agent_name + ": " + plan_.workspace->PathOf(plan_.relative) + ": syncfs", errno);
      }
      fsync_latency_[0]->Record(MonotonicNs() - t0);
      ++fsyncs_[0];
    }
    return Status::Ok();
  }

  void Report(v1::StepResult& result) const override {
    ReportCounters(counters_, result);
    uint64_t fsyncs = 0;
    auto merged = std::make_unique<LatencyHistogram>();
    for (size_t j = 0; j < fsyncs_.size(); ++j) {
      fsyncs += fsyncs_[j];
      merged->Add(*fsync_latency_[j]);
    }
    if (fsyncs) {
      result.set_fsyncs(fsyncs);
      wire::ToProto(*merged, result.mutable_fsync_latency_ns());
    }
  }
  uint64_t ops() const override { return SumOps(counters_); }
  uint64_t bytes() const override { return SumBytes(counters_); }
  std::optional<JobsCpuTime> JobsCpu() const override { return SumCpu(counters_); }
  void Sample(StepSample& out) const override {
    out.phase = rules::FilesOpName(plan_.op);
    out.files = SampleTaskJobs(counters_);
  }
  void JobThreadIds(std::vector<int>& out) const override { TaskThreadIds(counters_, out); }

 private:
  int FirstTreeFd() const {
    for (int fd : tree_fds_) {
      if (fd >= 0) return fd;
    }
    return -1;
  }
  // The tree job `j` works in, below the run directory.
  std::string TreeOf(uint32_t j) const {
    return PerJob(plan_.files) ? plan_.relative + "/" + TreeJobDirName(j).text : plan_.relative;
  }
  std::string PathOf(uint32_t j, uint32_t d, const char* file) const {
    std::string p = plan_.workspace->PathOf(TreeOf(j)) + "/" + TreeDirName(d).text;
    return file ? p + "/" + file : p;
  }

  void RunJob(uint32_t j, JobTreeSlice slice, const std::atomic<bool>& stop) {
    const uint64_t begin = slice.begin, end = slice.end;
    const int tree_fd = PerJob(plan_.files) ? tree_fds_[j] : tree_fds_.front();
    const std::string tree = TreeOf(j);
    TaskCounters& c = *counters_[j];
    ThreadCpuRecorder cpu(c);
    JobFailure& failure = failures_[j];
    auto fail = [&](int err, std::string path, std::string why = {}) {
      failure = {err, std::move(path), std::move(why)};
      failed_.store(true, std::memory_order_relaxed);
    };
    auto stopped = [&] { return stop.load(std::memory_order_relaxed) || failed_.load(std::memory_order_relaxed); };

    // What this job made, recorded when it returns however it returns: cleanup removes
    // exactly these names (a directory or file that was there before is never ours).
    uint64_t made_end = begin;
    // A create records each file's size with it: a read phase, of this step or a later one with
    // other sizes and another seed, reads exactly what was written.
    struct RecordMade {
      const FilesPlan& plan;
      const std::string& tree;
      uint64_t begin;
      const uint64_t& end;
      std::shared_ptr<const v1::FilesStep> sizing;
      uint64_t index_offset;
      ~RecordMade() {
        if (plan.op == v1::FILES_OP_MKDIR) plan.workspace->RecordTreeMade(tree, true, begin, end, plan.files.files_per_dir());
        if (plan.op == v1::FILES_OP_CREATE) {
          plan.workspace->RecordTreeMade(tree, false, begin, end, plan.files.files_per_dir(),
                                         [sizing = sizing, seed = plan.seed, offset = index_offset](uint64_t i) {
                                           return TreeFileSize(*sizing, seed, offset + i);
                                         });
        }
      }
    } record{plan_, tree, begin, made_end, sizing_, slice.index_offset};

    if (plan_.op == v1::FILES_OP_MKDIR || plan_.op == v1::FILES_OP_RMDIR) {
      for (uint64_t d = begin; d < end && !stopped(); ++d) {
        TreeName name = TreeDirName(static_cast<uint32_t>(d));
        uint64_t t0 = MonotonicNs();
        int rc = plan_.op == v1::FILES_OP_MKDIR ? mkdirat(tree_fd, name.text, 0755) : unlinkat(tree_fd, name.text, AT_REMOVEDIR);
        if (rc < 0) return fail(errno, PathOf(j, static_cast<uint32_t>(d), nullptr));
        made_end = d + 1;
        c.latency.Record(MonotonicNs() - t0);
        Bump(c.ops, 1);
      }
      return;
    }

    // Files: each job keeps its current directory open while it walks its slice.
    const uint64_t block = plan_.files.block_size();
    const size_t buffer_size = (block + kDirectIoAlign - 1) / kDirectIoAlign * kDirectIoAlign;
    AlignedBuffer owned;  // freed on every way out
    std::byte* buffer = nullptr;
    DataGenerator data;
    if (plan_.op == v1::FILES_OP_CREATE || plan_.op == v1::FILES_OP_READ) {
      owned = AllocateAligned(kDirectIoAlign, buffer_size);
      buffer = owned.get();
      if (!buffer) return fail(ENOMEM, plan_.workspace->PathOf(tree));
      if (plan_.op == v1::FILES_OP_CREATE) {
        DataOptions options;
        options.stream = plan_.seed ^ (uint64_t{j} << 40) ^ 0x5bd1e995ull;
        data.Prepare(options, buffer, buffer_size, 1);
      }
    }
    const uint32_t per_dir = plan_.files.files_per_dir();
    const MadeFiles* made = made_.empty() ? nullptr : &made_[PerJob(plan_.files) ? j : 0];
    size_t made_hint = 0;
    int dir_fd = -1;
    uint32_t open_dir = UINT32_MAX;
    for (uint64_t i = begin; i < end && !stopped(); ++i) {
      uint32_t d = static_cast<uint32_t>(i / per_dir);
      TreeName file = TreeFileName(static_cast<uint32_t>(i % per_dir));
      // Reading: only a file this run's create made, as large as it made it.
      uint64_t size = 0;
      if (made) {
        std::optional<uint64_t> made_size = made->SizeOf(d, static_cast<uint32_t>(i % per_dir), made_hint);
        if (!made_size) {
          fail(EPERM, PathOf(j, d, file.text), "not a file this run created (a files step's create makes it); refused");
          break;
        }
        size = *made_size;
      } else {
        size = TreeFileSize(plan_.files, plan_.seed, slice.index_offset + i);
      }
      if (d != open_dir) {
        if (dir_fd >= 0) close(dir_fd);
        dir_fd = openat(tree_fd, TreeDirName(d).text, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir_fd < 0) {
          fail(errno, PathOf(j, d, nullptr));
          break;
        }
        open_dir = d;
      }
      uint64_t t0 = MonotonicNs();
      uint64_t moved = 0;
      bool created = false;
      uint64_t fsync_ns = 0;
      std::string why;
      int err = OneFile(dir_fd, file.text, size, buffer, block, data, moved, created, fsync_ns, why, stopped);
      if (created) made_end = i + 1;
      if (fsync_ns) {
        fsync_latency_[j]->Record(fsync_ns);
        ++fsyncs_[j];
      }
      if (err) {
        fail(err, PathOf(j, d, file.text), std::move(why));
        break;
      }
      c.latency.Record(MonotonicNs() - t0);
      Bump(c.bytes, moved);
      Bump(c.ops, 1);
    }
    if (dir_fd >= 0) close(dir_fd);
  }

  // One file's operation; 0 or errno. `moved`: bytes written or read; `created`: the file
  // is this run's (made by its O_EXCL create), whatever happened after; `fsync_ns`: the time
  // of its fsync (sync: fsync), 0 if none was made; `why`: for a file that is not what the run
  // made, what is wrong with it (then the errno is only a marker).
  template <typename Stopped>
  int OneFile(int dir_fd, const char* name, uint64_t size, std::byte* buffer, uint64_t block, DataGenerator& data,
              uint64_t& moved, bool& created, uint64_t& fsync_ns, std::string& why, const Stopped& stopped) {
    switch (plan_.op) {
      case v1::FILES_OP_CREATE: {
        int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) return errno;
        created = true;
        while (moved < size && !stopped()) {  // a large file does not hold up a Stop
          size_t n = static_cast<size_t>(std::min(block, size - moved));
          data.Stamp(buffer, static_cast<uint32_t>(n));
          ssize_t w = write(fd, buffer, n);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) {
            int err = w < 0 ? errno : EIO;
            close(fd);
            return err;
          }
          moved += static_cast<uint64_t>(w);
        }
        if (plan_.files.sync() == v1::FILES_SYNC_FSYNC && !stopped()) {
          uint64_t t0 = MonotonicNs();
          if (fsync(fd) < 0) {
            int err = errno;
            close(fd);
            return err;
          }
          fsync_ns = std::max<uint64_t>(MonotonicNs() - t0, 1);
        }
        return close(fd) < 0 ? errno : 0;
      }
      case v1::FILES_OP_READ: {
        // Whatever sits at the name is untrusted: a FIFO or device never holds the job in
        // open(), a hard link to a file elsewhere is not read, nor more than the run wrote.
        RegularFile file = OpenRegularAt(dir_fd, name, O_RDONLY);
        if (file.kind) {
          why = std::string("not a regular file (") + file.kind + "); refused";
          return EINVAL;
        }
        if (file.fd < 0) return file.err;
        const int fd = file.fd;
        if (file.st.st_nlink != 1) {
          why = "has " + std::to_string(file.st.st_nlink) +
                " links, not the single one of the file this run created (a hard link to a file elsewhere?); refused";
        } else if (static_cast<uint64_t>(file.st.st_size) != size) {
          why = "holds " + std::to_string(file.st.st_size) + " bytes, not the " + std::to_string(size) +
                " this run wrote (changed since); refused";
        }
        if (!why.empty()) {
          close(fd);
          return EINVAL;
        }
        while (moved < size && !stopped()) {  // never past what the run wrote, even if it grew
          ssize_t r = read(fd, buffer, static_cast<size_t>(std::min(block, size - moved)));
          if (r < 0 && errno == EINTR) continue;
          if (r < 0) {
            int err = errno;
            close(fd);
            return err;
          }
          if (r == 0) {
            why = "ended after " + std::to_string(moved) + " of the " + std::to_string(size) +
                  " bytes this run wrote (truncated since); refused";
            close(fd);
            return EINVAL;
          }
          moved += static_cast<uint64_t>(r);
        }
        close(fd);
        return 0;
      }
      case v1::FILES_OP_STAT: {
        struct stat st;
        return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? errno : 0;
      }
      case v1::FILES_OP_DELETE:
        return unlinkat(dir_fd, name, 0) < 0 ? errno : 0;
      default:
        return EINVAL;
    }
  }

  const FilesPlan plan_;
  const std::vector<int> tree_fds_;
  const std::vector<MadeFiles> made_;  // read phases only
  const std::shared_ptr<const v1::FilesStep> sizing_;          // what a create records its sizes by
  std::vector<std::unique_ptr<TaskCounters>> counters_;
  // Per job, written by its thread, read after the join.
  std::vector<std::unique_ptr<LatencyHistogram>> fsync_latency_;
  std::vector<uint64_t> fsyncs_;
  std::vector<JobFailure> failures_;
  std::atomic<bool> failed_{false};
};

}  // namespace

uint64_t TreeFileSize(const v1::FilesStep& files, uint64_t seed, uint64_t index) {
  if (files.sizes_size() == 0) return files.file_size();
  uint64_t total = 0;
  for (const auto& s : files.sizes()) total += s.weight();
  SplitMix64 random(seed ^ (index * 0x9E3779B97F4A7C15ull));
  uint64_t pick = random.Below(total);
  for (const auto& s : files.sizes()) {
    if (pick < s.weight()) return s.size();
    pick -= s.weight();
  }
  return files.sizes(files.sizes_size() - 1).size();
}

Result<std::unique_ptr<StepTask>> MakeFilesTask(FilesPlan plan) {
  const bool makes = plan.op == v1::FILES_OP_MKDIR;
  std::vector<int> fds;
  auto close_all = [&] {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  };
  auto open = [&](const std::string& relative) -> Status {
    auto dir = plan.workspace->OpenDirectory(relative, makes);
    if (!dir.ok()) {
      std::string hint = makes ? "" : " (a files step with mkdir, in this or an earlier step, makes the tree)";
      return Status(dir.status().code(), "agent " + plan.agent_name + ": " + dir.status().message() + hint);
    }
    fds.push_back(*dir);
    return Status::Ok();
  };
  if (!PerJob(plan.files)) {
    IOFLEET_RETURN_IF_ERROR(open(plan.relative));
  } else {
    // Each job's own tree directory, made (mkdir) or opened here, untimed, like the tree's.
    for (uint32_t j = 0; j < std::max(1u, plan.files.jobs()); ++j) {
      JobTreeSlice slice = TreeSliceOf(plan.files, v1::FILES_OP_MKDIR, j);
      if (slice.begin >= slice.end) {
        fds.push_back(-1);  // a job without directories (more jobs than dirs) has no tree
        continue;
      }
      Status st = open(plan.relative + "/" + TreeJobDirName(j).text);
      if (!st.ok()) {
        close_all();
        return st;
      }
    }
  }
  // A read phase reads only what this run's creates made: looked up once, untimed.
  std::vector<MadeFiles> made;
  if (plan.op == v1::FILES_OP_READ) {
    if (!PerJob(plan.files)) {
      made.emplace_back(plan.workspace->TreeFilesMade(plan.relative));
    } else {
      for (uint32_t j = 0; j < std::max(1u, plan.files.jobs()); ++j) {
        made.emplace_back(plan.workspace->TreeFilesMade(plan.relative + "/" + TreeJobDirName(j).text));
      }
    }
  }
  return std::unique_ptr<StepTask>(new FilesTask(std::move(plan), std::move(fds), std::move(made)));
}

}  // namespace iofleet::agent
