#include "core/rules/non_io_steps.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace iofleet::rules {
namespace {

constexpr uint64_t kDefaultBlock = 1 << 20;

bool IsRootName(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

void CheckPlace(const std::string& text, const std::string& path, std::vector<Violation>& out) {
  StepPlace place = ParseStepPlace(text);
  if (text.find(':') != std::string::npos && !IsRootName(place.root)) {
    out.push_back({path, "\"" + text + "\": \"" + place.root + "\" is not a root name ([A-Za-z0-9_-]+)"});
  }
  if (place.path.empty() || !IsConfinedRelativePath(place.path)) {
    out.push_back({path, "\"" + text + "\" must be a relative path below the run directory (or ROOT:path), without '..', '.' or empty parts"});
  }
}

}  // namespace

StepPlace ParseStepPlace(const std::string& text) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) return {"", text};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

v1::FilesStep ResolveFiles(const v1::FilesStep& files) {
  v1::FilesStep out = files;
  if (out.dir().empty()) out.set_dir("tree");
  if (out.ops_size() == 0) {
    for (auto op : {v1::FILES_OP_MKDIR, v1::FILES_OP_CREATE, v1::FILES_OP_STAT, v1::FILES_OP_READ,
                    v1::FILES_OP_DELETE, v1::FILES_OP_RMDIR}) {
      out.add_ops(op);
    }
  }
  if (out.jobs() == 0) out.set_jobs(1);
  if (out.sizes_size() == 0 && !out.has_file_size()) out.set_file_size(0);
  if (out.block_size() == 0) out.set_block_size(kDefaultBlock);
  if (out.layout() == v1::FILES_LAYOUT_UNSPECIFIED) out.set_layout(v1::FILES_LAYOUT_SHARED);
  if (out.sync() == v1::FILES_SYNC_UNSPECIFIED) out.set_sync(v1::FILES_SYNC_NONE);
  return out;
}

v1::CopyStep ResolveCopy(const v1::CopyStep& copy) {
  v1::CopyStep out = copy;
  if (out.jobs() == 0) out.set_jobs(1);
  if (out.block_size() == 0) out.set_block_size(kDefaultBlock);
  if (!out.has_method() || out.method() == v1::COPY_METHOD_UNSPECIFIED) out.set_method(v1::COPY_METHOD_READ_WRITE);
  return out;
}

uint64_t MeanFileSize(const v1::FilesStep& files) {
  if (files.sizes_size() == 0) return files.file_size();
  uint64_t weighted = 0, weights = 0;
  for (const auto& s : files.sizes()) {
    weighted += s.size() * s.weight();
    weights += s.weight();
  }
  return weights ? weighted / weights : 0;
}

std::string FilesOpName(v1::FilesOp op) {
  // Names messages about ops from the wire too, where any number may arrive: never throws.
  const std::string prefix = "FILES_OP_";
  std::string name = v1::FilesOp_Name(op);
  if (name.compare(0, prefix.size(), prefix) != 0) return "op " + std::to_string(static_cast<int>(op));
  name = name.substr(prefix.size());
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

void ValidateNonIoStep(const v1::Step& step, const std::string& path, const std::string& target_root,
                      std::vector<Violation>& out) {
  switch (step.kind_case()) {
    case v1::Step::kFiles: {
      const v1::FilesStep& f = step.files();
      const std::string p = path + ".files";
      if (f.dirs() == 0) out.push_back({p + ".dirs", "a files step needs dirs (how many directories the tree has)"});
      if (f.has_file_size() && f.sizes_size() > 0) out.push_back({p + ".sizes", "set file_size or sizes, not both"});
      if (!f.dir().empty()) CheckPlace(f.dir(), p + ".dir", out);
      std::set<int> seen;
      for (int i = 0; i < f.ops_size(); ++i) {
        if (!seen.insert(f.ops(i)).second) {
          out.push_back({p + ".ops[" + std::to_string(i) + "]", FilesOpName(f.ops(i)) + " is listed twice"});
        }
      }
      if (static_cast<uint64_t>(f.dirs()) * f.files_per_dir() > 4'000'000'000ull) {
        out.push_back({p, "dirs x files_per_dir is more than 4 billion files"});
      }
      break;
    }
    case v1::Step::kCopy: {
      const v1::CopyStep& c = step.copy();
      const std::string p = path + ".copy";
      if (c.from().empty()) out.push_back({p + ".from", "a copy step needs from (what to copy)"});
      else CheckPlace(c.from(), p + ".from", out);
      if (c.to().empty()) out.push_back({p + ".to", "a copy step needs to (where the copy goes)"});
      else CheckPlace(c.to(), p + ".to", out);
      StepPlace from = ParseStepPlace(c.from()), to = ParseStepPlace(c.to());
      if (from.root.empty()) from.root = target_root;
      if (to.root.empty()) to.root = target_root;
      if (!c.from().empty() && from.root == to.root &&
          (to.path == from.path || to.path.rfind(from.path + "/", 0) == 0 || from.path.rfind(to.path + "/", 0) == 0)) {
        out.push_back({p + ".to", "\"" + c.to() + "\" and \"" + c.from() + "\" overlap: a copy needs a separate place"});
      }
      break;
    }
    case v1::Step::kReadahead:
      if (!step.readahead().has_kib()) out.push_back({path + ".readahead.kib", "a readahead step needs kib (the read-ahead to set, in KiB)"});
      break;
    case v1::Step::kHook: {
      const std::string& name = step.hook().name();
      if (name.empty()) out.push_back({path + ".hook.name", "a hook step needs the name of a hook in the agent's config"});
      else if (!IsRootName(name)) out.push_back({path + ".hook.name", "\"" + name + "\" is not a hook name ([A-Za-z0-9_-]+)"});
      const std::string& fill_of = step.hook().fill_of();
      if (!fill_of.empty() && !IsConfinedRelativePath(fill_of)) {
        out.push_back({path + ".hook.fill_of", "\"" + fill_of + "\" is not a directory below the run directory"});
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace iofleet::rules
