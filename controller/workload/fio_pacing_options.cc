// The fio options that pace a job: rate, rate_iops, rate_process, the minimum rates and
// io_submit_mode. Part of the importer (fio_importer.h); the option table is in fio_options.cc.
#include <limits>
#include <sstream>

#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_values.h"

namespace iofleet::controller::fio_detail {

namespace pb = google::protobuf;

// These options' rows of the option table (fio_options.cc puts them in).
std::vector<Importer::OptionRow> Importer::PacingOptionRows() {
  return {
      {{{"rate", &Importer::Rate}},
       "`rate=10m` (or `10m,10m`)",
       "`rate.bytes_per_sec`, a cap per job as in fio; a different cap for reads and writes (`1m,500k`, `1m,`) is refused. "
       "fio caps each direction of a mixed job at the rate, iofleet both together: with an even mix (`rwmixread=50`, fio's "
       "default) the cap is twice the rate, reads and writes each at it; another mix, or a minimum rate, is refused"},
      {{{"rate_iops", &Importer::RateIops}}, "`rate_iops`", "`rate.iops`, a cap per job, with the same limits as `rate`"},
      {{{"rate_process", &Importer::RateProcess}},
       "`rate_process`",
       "`rate.process`: `linear` (evenly spaced requests) or `poisson` (exponential gaps)"},
      {{{"rate_min", &Importer::RateMin}, {"ratemin", &Importer::RateMin}, {"rate_iops_min", &Importer::RateIopsMin}},
       "`rate_min` (`ratemin`), `rate_iops_min`",
       "`rate.min_bytes_per_sec`, `rate.min_iops`: the step fails when a job falls under it over a cycle, as fio exits"},
      {{{"ratecycle", &Importer::RateCycle}}, "`ratecycle` (ms)", "`rate.cycle`"},
      {{{"thinktime", &Importer::ThinkTime}, {"thinktime_spin", &Importer::ThinkSpin}, {"thinktime_blocks", &Importer::ThinkBlocks}},
       "`thinktime`, `thinktime_spin`, `thinktime_blocks` (microseconds without a unit)",
       "`think.time`, `think.spin`, `think.blocks`: after every `blocks` completed I/Os the job pauses, spinning for "
       "`spin` of it"},
      {{{"thinktime_blocks_type", &Importer::ThinkBlocksType}},
       "`thinktime_blocks_type=complete`",
       "accepted (fio's default): think blocks count as they complete; `issue` is refused"},
      {{{"flow", &Importer::Flow}, {"flow_id", &Importer::FlowId}, {"flow_sleep", &Importer::FlowSleep}},
       "`flow`, `flow_id`, `flow_sleep` (microseconds without a unit)",
       "`flow.weight`, `flow.id`, `flow.sleep`: the jobs of a flow issue in proportion to their weights, each agent's "
       "jobs kept to it as one fio process keeps its own; `flow=0` (fio's default) is no flow"},
      {{{"io_submit_mode", &Importer::IoSubmitMode}},
       "`io_submit_mode`",
       "accepted, no effect: `inline` and `offload` differ in which fio thread submits; with a rate, iofleet issues each "
       "request at its scheduled time and counts its latency from it, what `offload` is for"},
  };
}

namespace {

// fio's "READ,WRITE[,TRIM]" value of rate and rate_iops as one value: the same for every
// direction it names (an empty part leaves that direction uncapped, which iofleet cannot say).
std::optional<std::string> OneRate(const std::string& value) {
  // "10m," caps reads only in fio (getline would drop the empty part after the last comma).
  if (!value.empty() && value.back() == ',') return std::nullopt;
  std::vector<std::string> parts;
  std::stringstream in(value);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  if (parts.empty()) return std::nullopt;
  for (const std::string& part : parts) {
    if (part != parts.front()) return std::nullopt;
  }
  return parts.front();
}

}  // namespace

std::optional<std::string> Importer::OneRateOf(const Option& o) {
  if (!NeedValue(o)) return std::nullopt;
  auto one = OneRate(o.value);
  if (!one) Unsupported(ValueAt(o), "\"" + o.value + "\": a separate cap for reads and writes is not supported: give one rate for both");
  return one;
}

// A RateSpec field from an option's one value: bytes per second (rate, rate_min) or a count per
// second (rate_iops, rate_iops_min).
void Importer::RateField(const Option& o, Level& l, int field_number, bool bytes) {
  auto one = OneRateOf(o);
  if (!one) return;
  const pb::FieldDescriptor* field = v1::RateSpec::descriptor()->FindFieldByNumber(field_number);
  Option single = o;
  single.value = *one;
  const std::optional<uint64_t> value = bytes ? SizeValue(o, *one, l.kb_base, field) : Count(single, field);
  if (!value) return;
  v1::RateSpec* rate = l.io.mutable_rate();
  rate->GetReflection()->SetUInt64(rate, field, *value);
  Record(l, {v1::IoSpec::kRateFieldNumber, field_number}, o);
}

void Importer::Rate(const Option& o, Level& l) { RateField(o, l, v1::RateSpec::kBytesPerSecFieldNumber, true); }
void Importer::RateIops(const Option& o, Level& l) { RateField(o, l, v1::RateSpec::kIopsFieldNumber, false); }

void Importer::RateProcess(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value != "linear" && o.value != "poisson") {
    Error(ValueAt(o), "\"" + o.value + "\" is not linear or poisson");
    return;
  }
  // linear is fio's default and iofleet's: nothing to say, and nothing that could fail to apply
  // where a job has no rate (fio ignores it there too).
  if (o.value == "linear") return;
  l.io.mutable_rate()->set_process(v1::RATE_PROCESS_POISSON);
  Record(l, {v1::IoSpec::kRateFieldNumber, v1::RateSpec::kProcessFieldNumber}, o);
}

// rate_min / ratemin (bytes per second) and rate_iops_min: the job exits, and fio fails, when
// it falls under the minimum over a ratecycle.
void Importer::RateMin(const Option& o, Level& l) { RateField(o, l, v1::RateSpec::kMinBytesPerSecFieldNumber, true); }
void Importer::RateIopsMin(const Option& o, Level& l) { RateField(o, l, v1::RateSpec::kMinIopsFieldNumber, false); }

// ratecycle is in milliseconds (a bare number, as fio reads it).
void Importer::RateCycle(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (!IsDigits(o.value) || o.value.size() > 12) {
    Error(ValueAt(o), "\"" + o.value + "\" is not a whole number of milliseconds");
    return;
  }
  const uint64_t ns = std::stoull(o.value) * 1'000'000;
  if (!InBounds(o, v1::RateSpec::descriptor()->FindFieldByNumber(v1::RateSpec::kCycleFieldNumber), ns, o.value + " ms")) return;
  l.io.mutable_rate()->set_cycle(ns);
  Record(l, {v1::IoSpec::kRateFieldNumber, v1::RateSpec::kCycleFieldNumber}, o);
}

// fio reads thinktime, thinktime_spin and flow_sleep in microseconds when they have no unit.
std::optional<uint64_t> Importer::Microseconds(const Option& o) {
  if (!NeedValue(o)) return std::nullopt;
  Result<uint64_t> ns = IsDigits(o.value) && o.value.size() <= 12 ? Result<uint64_t>(std::stoull(o.value) * 1000) : ParseFioTime(o.value);
  if (!ns.ok()) {
    Error(ValueAt(o), ns.status().message() + " (a bare number is microseconds, as fio reads it)");
    return std::nullopt;
  }
  return *ns;
}

void Importer::ThinkTime(const Option& o, Level& l) {
  const std::optional<uint64_t> ns = Microseconds(o);
  if (!ns) return;
  if (!InBounds(o, v1::ThinkSpec::descriptor()->FindFieldByNumber(v1::ThinkSpec::kTimeFieldNumber), *ns, o.value)) return;
  l.io.mutable_think()->set_time(*ns);
  Record(l, {v1::IoSpec::kThinkFieldNumber, v1::ThinkSpec::kTimeFieldNumber}, o);
}

void Importer::ThinkSpin(const Option& o, Level& l) {
  const std::optional<uint64_t> ns = Microseconds(o);
  if (!ns) return;
  l.io.mutable_think()->set_spin(*ns);
  Record(l, {v1::IoSpec::kThinkFieldNumber, v1::ThinkSpec::kSpinFieldNumber}, o);
}

void Importer::ThinkBlocks(const Option& o, Level& l) {
  if (auto blocks = Count(o, v1::ThinkSpec::descriptor()->FindFieldByNumber(v1::ThinkSpec::kBlocksFieldNumber))) {
    l.io.mutable_think()->set_blocks(static_cast<uint32_t>(*blocks));
    Record(l, {v1::IoSpec::kThinkFieldNumber, v1::ThinkSpec::kBlocksFieldNumber}, o);
  }
}

// fio counts think blocks as they complete by default, as iofleet does; counting them as
// they are issued cannot be said here.
void Importer::ThinkBlocksType(const Option& o, Level&) {
  if (!NeedValue(o)) return;
  if (o.value == "complete") return;
  if (o.value == "issue") {
    Unsupported(ValueAt(o), "\"issue\": iofleet counts think blocks as they complete (fio's default, complete)");
    return;
  }
  Error(ValueAt(o), "\"" + o.value + "\" is not complete or issue");
}

// inline and offload differ in which fio thread submits; what offload is for, requests issued on
// their schedule with latency counted from it, is what iofleet's rate does anyway.
void Importer::IoSubmitMode(const Option& o, Level&) {
  if (!NeedValue(o)) return;
  if (o.value != "inline" && o.value != "offload") Error(ValueAt(o), "\"" + o.value + "\" is not inline or offload");
}
void Importer::Flow(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value == "0") {  // fio's default: the job is in no flow
    l.flow_weight = Setting<uint64_t>{0, KeyAt(o)};
    return;
  }
  if (auto weight = Count(o, v1::FlowSpec::descriptor()->FindFieldByNumber(v1::FlowSpec::kWeightFieldNumber))) {
    l.flow_weight = Setting<uint64_t>{*weight, KeyAt(o)};
  }
}

void Importer::FlowId(const Option& o, Level& l) {
  if (auto id = Count(o, v1::FlowSpec::descriptor()->FindFieldByNumber(v1::FlowSpec::kIdFieldNumber))) {
    l.flow_id = Setting<uint64_t>{*id, KeyAt(o)};
  }
}

void Importer::FlowSleep(const Option& o, Level& l) {
  const std::optional<uint64_t> ns = Microseconds(o);
  if (!ns) return;
  if (*ns == 0) return;  // fio's default: look again at once (iofleet's: after 10us)
  if (!InBounds(o, v1::FlowSpec::descriptor()->FindFieldByNumber(v1::FlowSpec::kSleepFieldNumber), *ns, o.value)) return;
  l.flow_sleep = Setting<uint64_t>{*ns, KeyAt(o)};
}

// A job in a flow (its own flow= or the [global] one, above 0) gets the whole FlowSpec in its
// step; flow_id and flow_sleep alone do nothing, as in fio.
void Importer::PlaceFlow(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& l = jobs[i].level;
    const auto& weight = Effective(l.flow_weight, defaults.flow_weight);
    if (!weight || weight->value == 0) continue;
    const std::string at = "steps[" + std::to_string(i) + "].io.flow";
    v1::FlowSpec* flow = out_.workload.mutable_steps(static_cast<int>(i))->mutable_io()->mutable_flow();
    flow->set_weight(static_cast<uint32_t>(weight->value));
    origins_[at] = weight->at;
    if (const auto& id = Effective(l.flow_id, defaults.flow_id)) {
      flow->set_id(static_cast<uint32_t>(id->value));
      origins_[at + ".id"] = id->at;
    }
    if (const auto& sleep = Effective(l.flow_sleep, defaults.flow_sleep)) {
      flow->set_sleep(sleep->value);
      origins_[at + ".sleep"] = sleep->at;
    }
  }
}

// fio caps each direction of a mixed job at its rate: rate=R lets R of reads and R of writes
// through. With fio's even mix that is iofleet's one cap for both at 2R: a job its rate holds
// runs both directions at R in either tool, and one the storage holds meets neither cap. Another
// mix would leave fio's directions at their caps, off the mix, and a minimum, which fio holds
// each direction to, cannot be said as one for both: those are refused, in either mode (left out,
// the rate would run another test).
void Importer::CheckMixedRates(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    const v1::IoSpec& own = job.level.io;
    const v1::Op op = own.has_op() ? own.op() : defaults.io.op();
    if (op != v1::OP_READWRITE && op != v1::OP_RANDRW) continue;
    const bool own_rate = own.has_rate();
    if (!own_rate && !defaults.io.has_rate()) continue;
    v1::RateSpec rate = defaults.io.rate();
    rate.MergeFrom(own.rate());
    const std::string where = " (job " + job.header.name + ")";
    // The option that set the first of these parts: the job's own, else [global]'s.
    auto origin = [&](std::initializer_list<const char*> parts) -> const Place* {
      for (const std::string& level : {job.level.path, defaults.path}) {
        for (const char* part : parts) {
          auto it = origins_.find(level + ".rate." + part);
          if (it != origins_.end()) return &it->second;
        }
      }
      return nullptr;
    };
    if (rate.has_min_iops() || rate.has_min_bytes_per_sec()) {
      const Place* at = origin({"min_iops", "min_bytes_per_sec"});
      Error(at ? *at : HeaderAt(job.header),
            "on a job that mixes reads and writes" + (at ? std::string() : where) + ": fio holds reads and writes each to "
            "this minimum, iofleet's minimum holds them together, so it cannot mean the same here (split the job into a read "
            "job and a write job, or remove the minimum)");
      continue;
    }
    const uint32_t read_pct = own.has_read_pct() ? own.read_pct() : defaults.io.has_read_pct() ? defaults.io.read_pct() : 50;
    const Place* at = origin({"iops", "bytes_per_sec"});
    if (read_pct != 50) {
      Error(at ? *at : HeaderAt(job.header),
            "on a job that mixes reads and writes " + std::to_string(read_pct) + "/" + std::to_string(100 - read_pct) +
                (at ? std::string() : where) + ": fio caps reads and writes each at this rate, iofleet's rate caps them "
                "together, which means the same only for an even mix (rwmixread=50); split the job into a read job and a "
                "write job, or remove the rate");
      continue;
    }
    constexpr uint64_t kMaxToDouble = std::numeric_limits<uint64_t>::max() / 2;
    if (rate.iops() > kMaxToDouble || rate.bytes_per_sec() > kMaxToDouble) {
      Error(at ? *at : HeaderAt(job.header), "is too large: reads and writes each at it overflow a rate for both");
      continue;
    }
    if (rate.has_iops()) rate.set_iops(rate.iops() * 2);
    if (rate.has_bytes_per_sec()) rate.set_bytes_per_sec(rate.bytes_per_sec() * 2);
    *out_.workload.mutable_steps(static_cast<int>(i))->mutable_io()->mutable_rate() = rate;
  }
}

}  // namespace iofleet::controller::fio_detail
