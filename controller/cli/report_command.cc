#include "controller/cli/report_command.h"

#include <filesystem>
#include <iostream>
#include <optional>

#include "controller/history/history_db.h"
#include "controller/report/html_report.h"
#include "controller/report/report_writers.h"
#include "controller/report/stored_report.h"
#include "controller/report/write_file.h"
#include "core/base/exit_code.h"

namespace iofleet::controller {
namespace {


}  // namespace

int ReportCommand(const ReportCommandOptions& options) {
  const std::string& f = options.format;
  if (f != "json" && f != "csv" && f != "md" && f != "html") {
    std::cerr << "iofleet: report: --format " << f << ": not one of json, csv, md, html\n";
    return kExitRejected;
  }
  Result<ReportDocument> doc = LoadStoredReport(options.run);
  std::optional<StoredRun> stored;  // from the history database
  if (!doc.ok() && doc.status().code() == Code::kNotFound && options.run.find('/') == std::string::npos) {
    const std::string path = HistoryDbPath(options.db, "iofleet-results");
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      auto db = HistoryDb::Open(path);
      auto run = db.ok() ? (*db)->Load(options.run) : Result<StoredRun>(db.status());
      if (run.ok()) {
        stored = std::move(*run);
        doc = ParseReportDocument(stored->report_json, "history database " + path + " run " + options.run);
      } else if (run.status().code() != Code::kNotFound) {
        std::cerr << "iofleet: " << run.status().message() << "\n";
        return kExitFailed;
      } else {
        doc = Status(Code::kNotFound, doc.status().message() + ", and " + NoRunMessage(path, options.run));
      }
    } else {
      doc = Status(Code::kNotFound, doc.status().message() + " (and no history database " + path +
                                        ": --db FILE reads another; a run with --out DIR keeps DIR/history.db)");
    }
  }
  if (!doc.ok()) {
    std::cerr << "iofleet: " << doc.status().message() << "\n";
    return kExitRejected;
  }
  std::string text;
  if (f == "json") {
    // The document as stored, byte for byte (it was read above, so it is a report).
    auto stored_text = stored ? Result<std::string>(stored->report_json) : LoadStoredReportText(options.run);
    if (!stored_text.ok()) {
      std::cerr << "iofleet: " << stored_text.status().message() << "\n";
      return kExitFailed;
    }
    text = *stored_text;
  }
  if (f == "csv") text = SummaryCsv(*doc);
  if (f == "md") text = ReportMarkdown(*doc);
  if (f == "html") {
    HtmlAssets assets = LoadHtmlAssets(stored ? std::filesystem::path() : StoredRunDirectory(options.run));
    if (stored) {
      assets.samples_csv = stored->samples_csv;
      assets.effective_workload = stored->effective_workload;
    }
    if (!assets.chart_js) std::cerr << "iofleet: report.html without charts: " << assets.chart_js_path << " cannot be read (install libjs-chart.js)\n";
    text = ReportHtml(*doc, assets);
  }
  if (options.out.empty()) {
    std::cout << text << std::flush;
    return std::cout ? kExitOk : kExitFailed;
  }
  if (Status s = WriteTextFile(options.out, text); !s.ok()) {
    std::cerr << "iofleet: " << s.message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace iofleet::controller
