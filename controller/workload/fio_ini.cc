#include "controller/workload/fio_ini.h"

#include <sstream>

namespace iofleet::controller {
namespace {

// A line without its trailing comment: `;` or `#` at the start or after a blank, outside quotes
// (fio accepts `bs=4k ; comment`).
std::string StripComment(const std::string& line) {
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ';' || c == '#') && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

void ReadLine(const std::string& raw, int line, std::vector<FioSection>& sections, std::vector<FioIniError>& errors) {
  std::string text = TrimFio(StripComment(raw));
  if (text.empty()) return;
  const int col = static_cast<int>(raw.find_first_not_of(" \t")) + 1;
  if (text.find('$') != std::string::npos) {
    // fio expands ${VAR} from the environment and $ncpus-style keywords; a workload must mean
    // the same on every controller, so the value has to be written out.
    errors.push_back({{line, col, text.substr(0, text.find_first_of("=$"))},
                    "$ expansion (${VAR}, $ncpus, $mb_memory, ...) is not supported: write the value out"});
    return;
  }
  if (text.front() == '[') {
    if (text.back() != ']' || TrimFio(text.substr(1, text.size() - 2)).empty()) {
      errors.push_back({{line, col, text}, "a section header is [global] or [jobname]"});
      return;
    }
    sections.push_back({TrimFio(text.substr(1, text.size() - 2)), line, col, {}});
    return;
  }
  FioOption o;
  size_t eq = text.find('=');
  o.key = TrimFio(text.substr(0, eq));
  o.line = line;
  o.key_col = col;
  if (eq != std::string::npos) {
    o.has_value = true;
    o.value = TrimFio(text.substr(eq + 1));
    size_t value_start = raw.find('=', col - 1) + 1;
    value_start = raw.find_first_not_of(" \t", value_start);
    o.value_col = static_cast<int>(value_start == std::string::npos ? raw.size() : value_start) + 1;
  } else {
    o.value_col = col;
  }
  if (o.key.rfind("include", 0) == 0 && (o.key.size() == 7 || o.key[7] == ' ' || o.key[7] == '\t')) {
    errors.push_back({{o.line, o.key_col, o.key}, "include files are not supported: put their options in this file"});
    return;
  }
  if (o.key.empty()) {
    errors.push_back({{line, col, text}, "an option is key=value or a bare key"});
    return;
  }
  if (sections.empty()) {
    errors.push_back({{o.line, o.key_col, o.key}, "is outside any section: options go under [global] or a [jobname] header"});
    return;
  }
  sections.back().options.push_back(o);
}

}  // namespace

std::string TrimFio(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<FioSection> ReadFioIni(const std::string& text, std::vector<FioIniError>& errors) {
  std::vector<FioSection> sections;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) ReadLine(raw, ++line, sections, errors);
  return sections;
}

}  // namespace iofleet::controller
