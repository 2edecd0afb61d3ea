// The directories an agent may work in, from its --root flags, opened once at start.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace iofleet::agent {

struct Root {
  std::string name;
  std::string path;  // absolute, canonical
  int fd = -1;       // O_PATH | O_DIRECTORY
};

class Roots {
 public:
  Roots() = default;
  Roots(const Roots&) = delete;
  Roots& operator=(const Roots&) = delete;
  Roots(Roots&&) = default;
  ~Roots();

  // Each spec is "[NAME=]DIR"; the first without a name is "default". DIR must exist.
  static Result<Roots> Open(const std::vector<std::string>& specs);

  const Root* Find(const std::string& name) const;
  const std::map<std::string, Root>& all() const { return roots_; }

 private:
  std::map<std::string, Root> roots_;
};

}  // namespace iofleet::agent
