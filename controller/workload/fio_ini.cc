#include "controller/workload/fio_ini.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
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

// fio's ${NAME} in a value, replaced with the environment's NAME. Unlike fio, which reads an
// unset NAME as empty, an unset one is an error: an empty bs= or rw= would run another test.
// fio's keywords ($ncpus, $mb_memory, $pagesize) are the host's that reads the file, and an
// iofleet workload runs on every agent's host: refused. Returns false after an error.
bool ExpandValue(const FioEnvironment& env, const FioPlace& at, std::string& value, std::vector<FioIniError>& errors,
                 std::vector<std::string>& expanded) {
  std::string out;
  for (size_t i = 0; i < value.size();) {
    if (value[i] != '$') {
      out += value[i++];
      continue;
    }
    const size_t close = value.compare(i, 2, "${") == 0 ? value.find('}', i + 2) : std::string::npos;
    const std::string name = close == std::string::npos ? "" : value.substr(i + 2, close - i - 2);
    const bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                       name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
    if (!plain) {
      errors.push_back({at, "\"" + value + "\": only ${NAME} (an environment variable) is expanded; fio's $ncpus, $mb_memory "
                                            "and $pagesize are the host's that reads the file, not each agent's: write the value out"});
      return false;
    }
    std::optional<std::string> set = env ? env(name) : std::nullopt;
    if (!set) {
      errors.push_back({at, "${" + name + "} is not set in the environment (fio would read it as empty): set " + name +
                                " or write the value out"});
      return false;
    }
    if (set->find('$') != std::string::npos || set->find('\n') != std::string::npos) {
      errors.push_back({at, "${" + name + "} holds \"$\" or a line break: its value is taken as written, once"});
      return false;
    }
    const std::string shown = "${" + name + "}=" + *set;
    if (std::find(expanded.begin(), expanded.end(), shown) == expanded.end()) expanded.push_back(shown);
    out += *set;
    i = close + 1;
  }
  value = out;
  return true;
}

void ReadLine(const std::string& raw, int line, const FioEnvironment& env, const std::vector<std::string>& only,
              std::vector<FioSection>& sections, std::vector<FioIniError>& errors, std::vector<std::string>& expanded) {
  std::string text = TrimFio(StripComment(raw));
  if (text.empty()) return;
  // A skipped section's lines are not read until the next header, whatever they hold.
  if (text.front() != '[' && !sections.empty() && sections.back().skipped) return;
  const int col = static_cast<int>(raw.find_first_not_of(" \t")) + 1;
  if (text.substr(0, text.find('=')).find('$') != std::string::npos) {
    errors.push_back({{line, col, text.substr(0, text.find_first_of("=$"))},
                      "$ in a section or option name is not expanded: only a value's ${NAME} is"});
    return;
  }
  if (text.front() == '[') {
    if (text.back() != ']' || TrimFio(text.substr(1, text.size() - 2)).empty()) {
      errors.push_back({{line, col, text}, "a section header is [global] or [jobname]"});
      return;
    }
    FioSection section{TrimFio(text.substr(1, text.size() - 2)), line, col, {}};
    section.skipped = !only.empty() && section.name != "global" &&
                      std::find(only.begin(), only.end(), section.name) == only.end();
    sections.push_back(std::move(section));
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
    if (o.value.find('$') != std::string::npos && !ExpandValue(env, {line, o.value_col, o.key}, o.value, errors, expanded)) return;
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

FioEnvironment ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
}

std::vector<FioSection> ReadFioIni(const std::string& text, const FioEnvironment& env, std::vector<FioIniError>& errors,
                                   std::vector<std::string>& expanded, const std::vector<std::string>& only) {
  std::vector<FioSection> sections;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) ReadLine(raw, ++line, env, only, sections, errors, expanded);
  return sections;
}

}  // namespace iofleet::controller
