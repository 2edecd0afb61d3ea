#include "controller/workload/sweep.h"

#include "controller/workload/field_settings.h"

namespace iofleet::controller {

Result<std::vector<SweepPoint>> ExpandSweep(const v1::Workload& workload) {
  if (workload.sweep_axes_size() != workload.sweep_size()) {
    return Internal("sweep: its values were not parsed (ParseSettings)");
  }
  size_t points = 1;
  for (const v1::SweepAxis& axis : workload.sweep_axes()) {
    if (axis.values_size() == 0) return Internal("sweep." + axis.path() + ": no values");
    points *= static_cast<size_t>(axis.values_size());
  }

  std::vector<SweepPoint> out;
  out.reserve(points);
  std::vector<int> at(workload.sweep_axes_size(), 0);
  v1::Workload base = workload;
  base.clear_sweep();
  base.clear_sweep_axes();
  for (size_t p = 0; p < points; ++p) {
    SweepPoint point;
    point.workload = base;
    for (int a = 0; a < workload.sweep_axes_size(); ++a) {
      const v1::FieldSetting& value = workload.sweep_axes(a).values(at[a]);
      Status st = ApplySetting(point.workload, value);
      if (!st.ok()) return InvalidArgument("sweep." + value.path() + " (value " + value.text() + "): " + st.message());
      point.params.emplace_back(value.path(), value.text());
    }
    out.push_back(std::move(point));
    for (int a = workload.sweep_axes_size(); a-- > 0;) {  // odometer: the last axis turns fastest
      if (++at[a] < workload.sweep_axes(a).values_size()) break;
      at[a] = 0;
    }
  }
  return out;
}

}  // namespace iofleet::controller
