// The steps that are not an io job: files, copy, readahead, hook. Their defaults, checks and
// the "ROOT:path" place syntax they share.
#pragma once

#include <string>
#include <vector>

#include "core/rules/validate.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {

// "scratch:src" -> {"scratch", "src"}; "src" -> {"", "src"} (the target root's run directory).
struct StepPlace {
  std::string root;
  std::string path;
};
StepPlace ParseStepPlace(const std::string& text);

// Defaults filled in: dir "tree", ops mkdir create stat read delete rmdir, jobs 1, file_size 0
// (when no sizes), block_size 1MiB.
v1::FilesStep ResolveFiles(const v1::FilesStep& files);
// jobs 1, block_size 1MiB and method read_write.
v1::CopyStep ResolveCopy(const v1::CopyStep& copy);

// The mean size of the tree's files (file_size, or the weighted mean of sizes).
uint64_t MeanFileSize(const v1::FilesStep& files);

// "mkdir" for FILES_OP_MKDIR.
std::string FilesOpName(v1::FilesOp op);

// The rules of one step of those kinds; `path` is "steps[3]", `target_root` the workload's target
// root name ("src" and "TARGET:src" are the same place).
void ValidateNonIoStep(const v1::Step& step, const std::string& path, const std::string& target_root,
                      std::vector<Violation>& out);

}  // namespace iofleet::rules
