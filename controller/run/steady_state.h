// Whether a run of samples is steady (workload.proto's SteadyState): how much the fleet's figure
// changed over the window, in percent of the samples' mean. slope: the least-squares line's change
// from the first sample to the last (fio's ss=iops_slope); range: the largest distance of a sample
// from the mean (fio's ss=iops). Noise alone moves a range by its own size, a slope by much less.
#pragma once

#include <vector>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

// `samples`: equally spaced, at least two. A mean of 0 (nothing moved) is never steady: +inf.
double SteadyChangePct(const std::vector<double>& samples, v1::SteadyCriterion criterion);

}  // namespace iofleet::controller
