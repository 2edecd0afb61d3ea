#include "agent/worker/offset_distribution.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace iofleet::agent {
namespace {

// A run of ranks [first, first + count) and its probability, not yet normalised: what each
// distribution hands the table.
struct OffsetRankRun {
  uint64_t first;
  uint64_t count;
  long double mass;
};

// zipf and pareto: the hottest ranks are a bucket each; beyond, a bucket spans first / 512 ranks
// (about 14,000 buckets for 2^40 slots, 22,000 for 2^62).
constexpr uint64_t kOffsetExactRanks = 4096;
constexpr int kOffsetSpanShift = 9;
// normal: the bell within kOffsetNormalReach sigmas of the centre in at most this many buckets
// (per slot when it is narrower); beyond 10 sigmas the mass is under 2e-23, less than one
// random number in 2^64 (5e-20), so no draw lands there anyway.
constexpr uint64_t kOffsetNormalRuns = 8192;
constexpr long double kOffsetNormalReach = 10;

// zipf and pareto: the hottest kOffsetExactRanks ranks one by one, then geometric runs.
template <typename MassOf>
std::vector<OffsetRankRun> OffsetHotFirstRuns(uint64_t slots, MassOf mass_of) {
  std::vector<OffsetRankRun> runs;
  uint64_t first = 0;
  for (; first < slots && first < kOffsetExactRanks; ++first) runs.push_back({first, 1, mass_of(first, 1)});
  while (first < slots) {
    uint64_t count = std::min(first >> kOffsetSpanShift, slots - first);
    runs.push_back({first, count, mass_of(first, count)});
    first += count;
  }
  return runs;
}

// The sum of j^-theta for j in [a, b]. Short runs directly (in double: 1e-16 of each term);
// longer ones (only past rank 16384) by Euler-Maclaurin, whose first omitted term is below 1e-20
// of the run's sum there.
long double OffsetZipfSum(double theta, uint64_t a, uint64_t b) {
  if (b - a < 32) {
    long double sum = 0;
    for (uint64_t j = a; j <= b; ++j) sum += std::pow(static_cast<double>(j), -theta);
    return sum;
  }
  const long double t = theta, x = static_cast<long double>(a), y = static_cast<long double>(b);
  const long double fx = std::pow(x, -t), fy = std::pow(y, -t);
  const long double log_ratio = std::log1p((y - x) / x);
  const long double integral = theta == 1 ? log_ratio : fx * x * std::expm1((1 - t) * log_ratio) / (1 - t);
  const long double d1 = -t * (fy / y - fx / x);  // f'(y) - f'(x), f' = -theta f / j
  const long double d3 = -t * (t + 1) * (t + 2) * (fy / (y * y * y) - fx / (x * x * x));
  return integral + (fx + fy) / 2 + d1 / 12 - d3 / 720;
}

std::vector<OffsetRankRun> OffsetZipfRuns(double theta, uint64_t slots) {
  // Rank k (from 0) has probability (k + 1)^-theta / H(slots, theta): the exact law, where fio
  // draws from Gray et al.'s approximation of it (and sums its normaliser over 10M ranks at most).
  return OffsetHotFirstRuns(slots,
                            [theta](uint64_t first, uint64_t count) { return OffsetZipfSum(theta, first + 1, first + count); });
}

std::vector<OffsetRankRun> OffsetParetoRuns(double h, uint64_t slots) {
  // fio draws rank (slots - 1) * U^(log h / log(1 - h)), so P(rank < x * slots) = x^alpha with
  // alpha = log(1 - h) / log h: the first h of the ranks takes 1 - h of the I/Os (0.2: 80/20).
  // Here the law spans all slots (fio never draws its last). For h > 0.5 (alpha > 1) the hot end
  // is the last rank, so ranks count from there: rank 0 is the hottest either way, and the exact
  // buckets cover the hot end.
  const long double alpha = std::log1p(-static_cast<long double>(h)) / std::log(static_cast<long double>(h));
  const long double n = static_cast<long double>(slots);
  return OffsetHotFirstRuns(slots, [alpha, n, slots](uint64_t first, uint64_t count) -> long double {
    const long double c = static_cast<long double>(count);
    if (alpha <= 1) {
      if (first == 0) return std::pow(c / n, alpha);
      const long double a = static_cast<long double>(first);
      return std::pow(a / n, alpha) * std::expm1(alpha * std::log1p(c / a));
    }
    const long double rest = static_cast<long double>(slots - first);  // ranks from `first` to the end
    return -std::pow(rest / n, alpha) * std::expm1(alpha * std::log1p(-c / rest));
  });
}

// P(a <= X < b) for X ~ N(mu, sigma), from erfc of the far side so that neither tail cancels.
long double OffsetNormalMass(long double mu, long double sigma, long double a, long double b) {
  const long double k = 1 / (sigma * std::sqrt(2.0L));
  const long double za = (a - mu) * k, zb = (b - mu) * k;
  if (za >= 0) return (std::erfc(za) - std::erfc(zb)) / 2;
  if (zb <= 0) return (std::erfc(-zb) - std::erfc(-za)) / 2;
  return 1 - (std::erfc(-za) + std::erfc(zb)) / 2;
}

std::vector<OffsetRankRun> OffsetNormalLawRuns(double sigma_pct, uint64_t slots) {
  // Slot k is [k, k + 1) of a bell centred on the range, with sigma percent of it as standard
  // deviation, cut to the range. (fio's normal:DEV is another bell: the mean of 12 uniform draws,
  // whose deviation is 1/12 of the range whatever DEV, plus a uniform jitter DEV% wide.)
  const long double n = static_cast<long double>(slots);
  const long double mu = n / 2, sigma = sigma_pct / 100.0L * n;
  // The slots around the centre are in even when sigma is a fraction of a slot.
  const long double reach = std::max(kOffsetNormalReach * sigma, 1.0L);
  const auto lo = static_cast<uint64_t>(std::max(0.0L, std::floor(mu - reach)));
  const auto hi = static_cast<uint64_t>(std::min(n, std::ceil(mu + reach)));
  const uint64_t per_run = (hi - lo + kOffsetNormalRuns - 1) / kOffsetNormalRuns;
  std::vector<OffsetRankRun> runs;
  auto add = [&](uint64_t first, uint64_t count) {
    const long double a = static_cast<long double>(first);
    runs.push_back({first, count, OffsetNormalMass(mu, sigma, a, a + static_cast<long double>(count))});
  };
  if (lo > 0) add(0, lo);
  for (uint64_t first = lo; first < hi; first += per_run) add(first, std::min(per_run, hi - first));
  if (hi < slots) add(hi, slots - hi);
  return runs;
}

std::vector<OffsetRankRun> OffsetZonedRuns(const std::vector<Zone>& zones, uint64_t slots) {
  // As fio: a zone spans [slots * before / 100, slots * (before + range) / 100).
  std::vector<OffsetRankRun> runs;
  uint64_t before = 0;
  for (const Zone& zone : zones) {
    auto first = static_cast<uint64_t>(static_cast<unsigned __int128>(slots) * before / 100);
    before += zone.range_pct;
    auto end = static_cast<uint64_t>(static_cast<unsigned __int128>(slots) * before / 100);
    if (end <= first) {  // a zone narrower than a slot takes the slot it starts in, as in fio
      first = std::min(first, slots - 1);
      end = first + 1;
    }
    runs.push_back({first, end - first, static_cast<long double>(zone.access_pct)});
  }
  return runs;
}

}  // namespace

// Turns runs into buckets and the guide. A run gets the random numbers its share of the total is
// worth, rounded on the cumulative sum so that no rounding error accumulates; a run worth less
// than one number in 2^64 (far tails) gets none and is left out.
class OffsetTableBuilder {
 public:
  static void Fill(OffsetDistribution& d, const std::vector<OffsetRankRun>& runs);

 private:
  static void FillGuide(OffsetDistribution& d);
};

void OffsetTableBuilder::Fill(OffsetDistribution& d, const std::vector<OffsetRankRun>& runs) {
  using u128 = unsigned __int128;
  const u128 all = u128{1} << 64;
  long double total = 0;
  size_t last_live = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    total += runs[i].mass;
    if (runs[i].mass > 0) last_live = i;
  }
  long double cumulative = 0;
  u128 begin = 0;  // the first random number of the next bucket
  for (size_t i = 0; i <= last_live; ++i) {
    cumulative += runs[i].mass;
    u128 end = all;
    if (i != last_live) end = std::min(all, static_cast<u128>(std::ldexp(cumulative / total, 64) + 0.5L));
    if (end <= begin) continue;
    const u128 numbers = end - begin;
    const uint64_t width = runs[i].count;
    OffsetDistribution::Bucket b{};
    b.last_random = static_cast<uint64_t>(end - 1);
    b.last_rank = runs[i].first + width - 1;
    // The largest shift that keeps scale = width * 2^shift / numbers under 2^64: scale keeps 62
    // bits or more, so a bucket of 2^63 numbers and 99 ranks still gives each rank its 1/99.
    const int numbers_bits = numbers >> 64 ? 65 : std::bit_width(static_cast<uint64_t>(numbers));
    b.shift = static_cast<uint32_t>(numbers_bits + 63 - std::bit_width(width));
    b.scale = static_cast<uint64_t>((static_cast<u128>(width) << b.shift) / numbers);
    d.buckets_.push_back(b);
    begin = end;
  }
  FillGuide(d);
}

void OffsetTableBuilder::FillGuide(OffsetDistribution& d) {
  // More than four cells per bucket: a draw's cell then rarely holds a bucket's end, so the
  // binary search in Rank() takes a step for few draws (a step is a branch the CPU cannot guess).
  const int bits = static_cast<int>(std::bit_width(d.buckets_.size())) + 2;
  d.guide_shift_ = 64 - bits;
  const uint64_t cells = uint64_t{1} << bits;
  d.guide_.assign(cells + 1, 0);
  uint32_t i = 0;
  for (uint64_t cell = 0; cell < cells; ++cell) {
    const uint64_t first_random = cell << d.guide_shift_;
    while (d.buckets_[i].last_random < first_random) ++i;
    d.guide_[cell] = i;
  }
  d.guide_[cells] = static_cast<uint32_t>(d.buckets_.size() - 1);
}

Result<std::shared_ptr<const OffsetDistribution>> OffsetDistribution::Build(const DistributionSpec& spec, uint64_t slots) {
  IOFLEET_RETURN_IF_ERROR(ValidateDistribution(spec));
  if (slots == 0 || slots > kMaxSlots) {
    return InvalidArgument("a distribution needs 1 to 2^62 slots (got " + std::to_string(slots) + ")");
  }
  std::vector<OffsetRankRun> runs;
  switch (spec.kind) {
    case DistributionSpec::Kind::kUniform:
      runs.push_back({0, slots, 1});
      break;
    case DistributionSpec::Kind::kZipf:
      runs = OffsetZipfRuns(spec.param, slots);
      break;
    case DistributionSpec::Kind::kPareto:
      runs = OffsetParetoRuns(spec.param, slots);
      break;
    case DistributionSpec::Kind::kNormal:
      runs = OffsetNormalLawRuns(spec.param, slots);
      break;
    case DistributionSpec::Kind::kZoned:
      runs = OffsetZonedRuns(spec.zones, slots);
      break;
    case DistributionSpec::Kind::kSequence:  // no table: the job's sequence (agent/worker/io_sequence.h)
      return InvalidArgument("a sequence is not drawn from a table");
  }
  std::shared_ptr<OffsetDistribution> d(new OffsetDistribution());
  d->slots_ = slots;
  OffsetTableBuilder::Fill(*d, runs);
  if (spec.kind == DistributionSpec::Kind::kZipf || spec.kind == DistributionSpec::Kind::kPareto) {
    d->scatter_.Set(slots, spec.scatter_seed);
  }
  return std::shared_ptr<const OffsetDistribution>(std::move(d));
}

}  // namespace iofleet::agent
