// libFuzzer target: controller/serve/request_target.h, which stands between every request of
// `iofleet serve` and its routes (report files among them). Parsing never crashes, and whatever
// it accepts is a path no route can climb out with: absolute, no "..", "//", "." segment,
// backslash or control character, and query names and values without control characters.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "controller/serve/request_target.h"

namespace {

void Check(bool ok, const char* what, const std::string& input) {
  if (ok) return;
  std::fprintf(stderr, "request_target_fuzz: %s for target \"%s\"\n", what, input.c_str());
  std::abort();
}

bool HasControl(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string target(reinterpret_cast<const char*>(data), size);
  auto parsed = iofleet::controller::ParseRequestTarget(target);
  if (!parsed.ok()) return 0;
  const std::string& path = parsed->path;
  Check(!path.empty() && path[0] == '/', "an accepted path is not absolute", target);
  Check(path.find("..") == std::string::npos, "an accepted path holds \"..\"", target);
  Check(path.find("//") == std::string::npos, "an accepted path holds \"//\"", target);
  Check(path.find("/./") == std::string::npos && !path.ends_with("/."), "an accepted path holds a \".\" segment", target);
  Check(path.find('\\') == std::string::npos, "an accepted path holds a backslash", target);
  Check(!HasControl(path), "an accepted path holds a control character", target);
  // A '/' in the decoded path was a '/' on the wire: as many separators before and after.
  size_t raw_slashes = 0;
  for (char c : target.substr(0, target.find('?'))) raw_slashes += c == '/';
  size_t slashes = 0;
  for (char c : path) slashes += c == '/';
  Check(slashes == raw_slashes, "an encoded '/' became a separator", target);
  for (const auto& [name, value] : parsed->query) {
    Check(!name.empty() && !HasControl(name) && !HasControl(value), "a query name or value is empty or holds a control character", target);
  }
  return 0;
}
