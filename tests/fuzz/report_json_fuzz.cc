// libFuzzer target: report.json as `iofleet report`, history and serve read it (a file anyone may
// hand them). Reading never crashes; a document that reads renders in every format, and writing
// it again gives a document that reads back to the same (controller/report/report_document.h).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "controller/report/html_report.h"
#include "controller/report/report_document.h"
#include "controller/report/report_writers.h"
#include "core/wire/proto_json.h"

namespace {

void CheckReport(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "report_json_fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iofleet::controller;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto doc = ParseReportDocument(text, "report.json");
  if (!doc.ok()) return 0;
  const std::string console = ConsoleSummary(*doc);
  (void)SummaryCsv(*doc);
  (void)ReportMarkdown(*doc);
  (void)ReportHtml(*doc, HtmlAssets{});
  const std::string again = iofleet::wire::ToJson(*doc).dump(2);
  auto reread = ParseReportDocument(again, "report.json");
  CheckReport(reread.ok(), "the document written again does not read");
  CheckReport(iofleet::wire::ToJson(*reread).dump(2) == again, "the document written again reads back to another");
  CheckReport(ConsoleSummary(*reread) == console, "the document written again renders otherwise");
  return 0;
}
