// The names a files step gives its tree: <dir>/d000000/f000000, or with layout: per_job
// <dir>/j000000/d000000/f000000. Zero-padded to six digits so
// that listings of up to a million sort (wider beyond), and generated, so that cleanup removes
// exactly these names and nothing else.
#pragma once

#include <cstdint>
#include <cstdio>

namespace iofleet::agent {

struct TreeName {
  char text[16];
};

inline TreeName TreeDirName(uint32_t d) {
  TreeName n;
  std::snprintf(n.text, sizeof(n.text), "d%06u", d);
  return n;
}

inline TreeName TreeJobDirName(uint32_t j) {
  TreeName n;
  std::snprintf(n.text, sizeof(n.text), "j%06u", j);
  return n;
}

inline TreeName TreeFileName(uint32_t f) {
  TreeName n;
  std::snprintf(n.text, sizeof(n.text), "f%06u", f);
  return n;
}

}  // namespace iofleet::agent
