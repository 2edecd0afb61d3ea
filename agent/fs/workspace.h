// One run's directory on one agent, <root>/<dir>/iofleet/<run-id>/<agent>/, and the record of
// every entry this run created there. Cleanup removes exactly those entries, newest first, and
// nothing else: a directory of the user's that was there before the run stays. iofleet/ and
// iofleet/<run-id>/ are iofleet's own: on a shared file system another agent may have made them,
// and whichever agent cleans up last removes them once they are empty.
//
// Thread-safety: all methods may be called from any thread. After Cleanup the workspace is
// closed: OpenFile refuses, so a step being set up while the run is stopped leaves nothing behind.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/fs/roots.h"
#include "core/base/status.h"
#include "core/base/unique_fd.h"

namespace iofleet::agent {

class Workspace {
 public:
  // `dir` must be a confined relative path; run_id and agent single path components.
  static Result<std::shared_ptr<Workspace>> Create(const Root& root, const std::string& dir,
                                                   const std::string& run_id,
                                                   const std::string& agent);

  // Opens (creating if asked) a file in the run directory; records it when this call created it.
  // A file this run created is reopened through the descriptor kept from its creation; one it
  // did not create is refused.
  Result<int> OpenFile(const std::string& name, int flags);
  // Opens (creating if asked) a file in the run's shared directory, iofleet/<run-id>/shared/,
  // which every agent of the run on a shared file system sees; creates the directory if needed.
  Result<int> OpenSharedFile(const std::string& name, int flags);
  // Opens a file in another agent's directory of this run (read_from: next_agent); never
  // creates anything there.
  Result<int> OpenPeerFile(const std::string& agent, const std::string& name, int flags);
  std::string SharedPathOf(const std::string& name) const { return run_parent_abs_ + "/shared/" + name; }
  std::string PeerPathOf(const std::string& agent, const std::string& name) const {
    return run_parent_abs_ + "/" + agent + "/" + name;
  }
  // Removes a file this run created (and forgets it). Other names are refused.
  Status RemoveFile(const std::string& name);

  // Removes every file this run created (directories stay): a new sweep point starts clean.
  uint64_t RemoveFiles();

  // Bytes available to this run on the run directory's file system.
  Result<uint64_t> FreeBytes();

  // Removes every recorded entry, newest first. Returns how many were removed.
  uint64_t Cleanup();

  // Trees and copies (files and copy steps). `relative` is a confined path below the run
  // directory. Opens it as a directory for *at calls; with `create`, missing parts are made
  // and recorded (mkdir -p).
  // "" is the run directory itself.
  Result<int> OpenDirectory(const std::string& relative, bool create);
  // Opens a file or directory below the run directory as it is (never creates).
  Result<int> OpenBelow(const std::string& relative, int flags);
  // The size a files step's create gave file `index` of a range it made (its own sizes and seed).
  using TreeFileSizeOf = std::function<uint64_t(uint64_t index)>;
  // Records what a files step made in the tree <relative>/dNNNNNN/fNNNNNN: directories
  // [begin, end) (mkdir), or files [begin, end) counted across directories of `files_per_dir`
  // (create), each of the size `size_of` gives. Cleanup removes exactly those names, files
  // first, and nothing else of the tree.
  void RecordTreeMade(const std::string& relative, bool directories, uint64_t begin, uint64_t end, uint32_t files_per_dir,
                      TreeFileSizeOf size_of = {});
  // The files a files step of this run made in the tree at `relative`, oldest first: a read
  // phase reads only these, and only as much as each was made.
  struct TreeFiles {
    uint64_t begin;
    uint64_t end;
    uint32_t per_dir;
    TreeFileSizeOf size_of;  // empty: sizes unknown (RecordTree)
  };
  std::vector<TreeFiles> TreeFilesMade(const std::string& relative);
  // The whole tree, dirs x files_per_dir (tests, and callers that made all of it).
  void RecordTree(const std::string& relative, uint32_t dirs, uint32_t files_per_dir);
  // Records one entry a copy step made.
  void Record(const std::string& relative, bool directory);
  // Whether `relative` itself is an entry a copy step of this run made.
  bool Recorded(const std::string& relative);
  // Removes the entries copy steps made at and below `relative`, newest first (an earlier copy
  // to the same place); nothing else. Returns how many were removed.
  uint64_t RemoveRecordedUnder(const std::string& relative);

  const std::string& run_dir() const { return run_dir_abs_; }
  std::string PathOf(const std::string& name) const { return run_dir_abs_ + "/" + name; }

 private:
  // [begin, end) of indexes; for files, counted across directories of `per_dir` files, and
  // the size each was made.
  struct Range {
    uint64_t begin;
    uint64_t end;
    uint32_t per_dir;
    TreeFileSizeOf size_of;
  };
  struct Entry {
    Entry(std::string relative_path, bool is_directory, bool made_by_copy = false)
        : relative(std::move(relative_path)), directory(is_directory), copy(made_by_copy) {}
    std::string relative;  // below the root
    bool directory;
    bool copy = false;  // made by a copy step: a later copy to the same place may replace it
    // A files step's tree below `relative`: what it made, by index.
    bool is_tree = false;
    std::vector<Range> tree_dirs;
    std::vector<Range> tree_files;
    bool tree() const { return is_tree; }
  };
  uint64_t RemoveEntry(const Entry& e);
  Workspace(const Root& root) : root_fd_(root.fd), root_path_(root.path) {}
  Status MakeDirectory(const std::string& relative, bool must_be_new, bool ours_if_empty);
  uint64_t CleanupLocked();

  int root_fd_;
  std::string root_path_;
  // `others_create`: the file may be another agent's (shared or peer files), checked to have a
  // single link; otherwise an existing file this run did not create is refused.
  Result<int> OpenRelative(const std::string& relative, const std::string& shown, int flags, bool others_create);
  static Result<int> Reopen(int kept, const std::string& shown, int flags);
  // Whether `relative` (not followed if a symlink) is the file `kept` was opened on.
  bool IsSameFile(int kept, const std::string& relative);

  std::string run_dir_rel_;
  std::string run_dir_abs_;
  std::string run_parent_rel_;  // .../iofleet/<run-id>
  std::string run_parent_abs_;
  std::mutex mu_;
  bool closed_ = false;
  std::vector<Entry> created_;
  // Files this run created, by relative path: the descriptor from their O_EXCL creation, kept
  // for the run, through which every later open goes.
  std::map<std::string, UniqueFd> kept_;
};

}  // namespace iofleet::agent
