#include "core/spec/validate.h"

#include <set>

#include "core/base/units.h"
#include "core/spec/defaults.h"

namespace iofleet::spec {
namespace {

bool MatchesCharset(const std::string& s, bool allow_upper, bool allow_underscore) {
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
              (allow_upper && c >= 'A' && c <= 'Z') || (allow_underscore && c == '_');
    if (!ok) return false;
  }
  return !s.empty();
}

// The path of the place a resolved field came from, so an error points at what to edit.
std::string Origin(const v1::Workload& w, int step, const std::string& field) {
  const auto* desc = v1::IoSpec::descriptor()->FindFieldByName(field);
  const auto* refl = v1::IoSpec::GetReflection();
  std::string step_path = "steps[" + std::to_string(step) + "].io";
  if (refl->HasField(w.steps(step).io(), desc)) return step_path + "." + field;
  if (refl->HasField(w.defaults(), desc)) return "defaults." + field;
  return step_path;
}

void ValidateIoStep(const v1::Workload& w, int i, std::vector<Violation>& out) {
  v1::IoSpec io = ResolveIo(w, i);
  std::string step_path = "steps[" + std::to_string(i) + "].io";
  if (!io.has_op() || io.op() == v1::OP_UNSPECIFIED) {
    out.push_back({step_path, "needs an op (read or write)"});
  }
  if (io.direct() && io.block_size() % 512 != 0) {
    out.push_back({Origin(w, i, "block_size"),
                   "block_size " + FormatSize(io.block_size()) +
                       " must be a multiple of 512 bytes with direct: true"});
  }
  if (io.file_size() < io.block_size()) {
    out.push_back({Origin(w, i, "file_size"), "file_size " + FormatSize(io.file_size()) +
                                                  " is smaller than block_size " +
                                                  FormatSize(io.block_size())});
  } else if (io.file_size() % io.block_size() != 0) {
    out.push_back({Origin(w, i, "file_size"), "file_size " + FormatSize(io.file_size()) +
                                                  " is not a multiple of block_size " +
                                                  FormatSize(io.block_size())});
  }
}

}  // namespace

bool IsSinglePathComponent(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool IsConfinedRelativePath(const std::string& path) {
  if (path.empty()) return true;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::vector<Violation> Validate(const v1::Workload& w) {
  std::vector<Violation> out;
  if (w.name().empty()) {
    out.push_back({"name", "a workload needs a name ([a-z0-9-]+)"});
  } else if (!MatchesCharset(w.name(), false, false)) {
    out.push_back({"name", "\"" + w.name() + "\" must match [a-z0-9-]+"});
  }
  if (!w.target().root().empty() && !MatchesCharset(w.target().root(), true, true)) {
    out.push_back({"target.root", "\"" + w.target().root() + "\" is not a root name ([A-Za-z0-9_-]+)"});
  }
  if (!IsConfinedRelativePath(w.target().dir())) {
    out.push_back({"target.dir", "\"" + w.target().dir() +
                                     "\" must be a relative path below the root, without '..', "
                                     "'.' or empty parts"});
  }
  if (w.steps_size() == 0) out.push_back({"steps", "a workload needs at least one step"});

  std::set<std::string> names;
  for (int i = 0; i < w.steps_size(); ++i) {
    const v1::Step& step = w.steps(i);
    std::string path = "steps[" + std::to_string(i) + "]";
    if (!step.name().empty() && !MatchesCharset(step.name(), false, true)) {
      out.push_back({path + ".name", "\"" + step.name() + "\" must match [a-z0-9_-]+"});
    }
    std::string name = StepName(w, i);
    if (!names.insert(name).second) {
      out.push_back({path + ".name", "step name \"" + name + "\" is used twice"});
    }
    switch (step.kind_case()) {
      case v1::Step::kIo: ValidateIoStep(w, i, out); break;
      case v1::Step::KIND_NOT_SET:
        out.push_back({path, "a step needs a kind (io)"});
        break;
    }
  }
  return out;
}

}  // namespace iofleet::spec
