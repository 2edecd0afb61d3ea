#include "agent/fs/roots.h"

#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "core/rules/root_spec.h"
#include "core/rules/validate.h"

namespace iofleet::agent {

Roots::~Roots() {
  for (auto& [name, root] : roots_) {
    if (root.fd >= 0) close(root.fd);
  }
}

Result<Roots> Roots::Open(const std::vector<std::string>& specs) {
  Roots roots;
  bool default_taken = false;
  for (const std::string& spec : specs) {
    auto [name, dir] = rules::ParseRootSpec(spec);
    if (name.empty()) {
      if (default_taken) {
        return InvalidArgument("--root " + spec + ": only the first unnamed root is \"default\"; name this one NAME=DIR");
      }
      name = "default";
      default_taken = true;
    } else if (name == "default") {
      default_taken = true;
    }
    if (!rules::IsSinglePathComponent(name)) {
      return InvalidArgument("--root " + spec + ": \"" + name + "\" is not a valid root name");
    }
    if (roots.roots_.count(name)) return InvalidArgument("--root " + spec + ": root \"" + name + "\" given twice");
    char resolved[PATH_MAX];
    if (!realpath(dir.c_str(), resolved)) return PosixError("--root " + spec + ": " + dir, errno);
    int fd = open(resolved, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError("--root " + spec + ": " + resolved, errno);
    roots.roots_[name] = Root{name, resolved, fd};
  }
  if (roots.roots_.empty()) return InvalidArgument("at least one --root DIR is required");
  return roots;
}

const Root* Roots::Find(const std::string& name) const {
  auto it = roots_.find(name);
  return it == roots_.end() ? nullptr : &it->second;
}

}  // namespace iofleet::agent
