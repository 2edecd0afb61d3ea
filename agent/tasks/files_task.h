// One phase of a files step: mkdir, create (and write), stat, read, delete or rmdir over the
// tree <dir>/dNNNNNN/fNNNNNN, the agent's jobs sharing it in contiguous slices (mdtest,
// elbencho's directory mode), or with layout: per_job each job in its own tree
// <dir>/jNNNNNN/dNNNNNN/fNNNNNN (mdtest -u). A create phase with sync: fsync or syncfs counts
// getting the files to stable storage in its time. Every entry is reached by *at calls on descriptors of the tree,
// with generated single-component names and O_NOFOLLOW: nothing leaves the tree. A read phase
// reads only the files this run's creates made, as large as they made them (the workspace
// records both); what else sits at a name (a FIFO, a hard link, a grown file) fails the step.
#pragma once

#include <string>

#include "agent/tasks/step_task.h"
#include "agent/fs/workspace.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::agent {

struct FilesPlan {
  v1::FilesStep files;  // resolved
  v1::FilesOp op = v1::FILES_OP_UNSPECIFIED;
  std::shared_ptr<Workspace> workspace;  // the one holding the tree (target or another root)
  std::string relative;                  // the tree's directory below that run directory
  std::string agent_name;
  uint64_t seed = 0;  // file sizes and data: the same in every phase of the step
};

// What job `job` works on in a phase: units [begin, end) (directories for mkdir and rmdir,
// files otherwise) in its tree's numbering; a file's size is drawn by index_offset + its index,
// so that both layouts make the same files.
struct JobTreeSlice {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t index_offset = 0;
};
JobTreeSlice TreeSliceOf(const v1::FilesStep& files, v1::FilesOp op, uint32_t job);

// Opens (for mkdir: makes) the tree's directory, or each job's (per_job): untimed setup.
Result<std::unique_ptr<StepTask>> MakeFilesTask(FilesPlan plan);

// The size file `index` of the tree gets (file_size, or drawn from sizes by its index).
uint64_t TreeFileSize(const v1::FilesStep& files, uint64_t seed, uint64_t index);

}  // namespace iofleet::agent
