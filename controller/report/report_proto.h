// The run's results as report.json's typed document (proto/iofleet/v1/report.proto): what
// ReportJson writes, through core/wire/proto_json.h.
#pragma once

#include "controller/report/report_model.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

v1::Report ToReportProto(const RunReport& report);

}  // namespace iofleet::controller
