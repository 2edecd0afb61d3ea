#include "controller/report/stored_report.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace iofleet::controller {

std::filesystem::path StoredRunDirectory(const std::string& run_id_or_dir) {
  std::error_code ec;
  const std::filesystem::path path(run_id_or_dir);
  if (std::filesystem::is_directory(path, ec)) return path;
  if (std::filesystem::is_regular_file(path, ec)) return path.parent_path().empty() ? "." : path.parent_path();
  return {};
}

Result<std::string> LoadStoredReportText(const std::string& run_id_or_dir) {
  std::error_code ec;
  std::filesystem::path file(run_id_or_dir);
  if (std::filesystem::is_directory(file, ec)) file /= "report.json";
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (!std::filesystem::exists(run_id_or_dir, ec)) {
      return Status(Code::kNotFound, run_id_or_dir + ": no such run directory or report.json file");
    }
    return PosixError(file.string(), err ? err : ENOENT);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return PosixError(file.string(), errno ? errno : EIO);
  return text.str();
}

Result<ReportDocument> LoadStoredReport(const std::string& run_id_or_dir) {
  auto text = LoadStoredReportText(run_id_or_dir);
  if (!text.ok()) return text.status();
  std::error_code ec;
  std::filesystem::path file(run_id_or_dir);
  if (std::filesystem::is_directory(file, ec)) file /= "report.json";
  return ParseReportDocument(*text, file.string());
}

}  // namespace iofleet::controller
