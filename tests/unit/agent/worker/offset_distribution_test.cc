#include "agent/worker/offset_distribution.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace iofleet::agent {
namespace {

using OdCdf = std::function<long double(uint64_t)>;  // P(rank < k), k in [0, slots]

constexpr uint64_t kOdDraws = uint64_t{1} << 21;
constexpr double kOdMinExpected = 500;  // draws a chi-square bin is expected to hold, at least
constexpr double kOdAlpha = 0.001;      // each fit, at its fixed seed, is refused at this level

std::shared_ptr<const OffsetDistribution> OdBuild(const std::string& text, uint64_t slots, uint64_t seed = 1) {
  auto spec = ParseDistribution(text);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  if (!spec.ok()) return nullptr;
  spec->scatter_seed = seed;
  auto built = OffsetDistribution::Build(*spec, slots);
  EXPECT_TRUE(built.ok()) << built.status().message();
  return built.ok() ? *built : nullptr;
}

// --- Each law from its definition, written here apart from the table's code. ---

// sum of j^-theta for j = 1..m: a prefix table up to 2^18, one Euler-Maclaurin stretch beyond.
class OdZipfSums {
 public:
  explicit OdZipfSums(double theta) : theta_(theta), prefix_(kTable + 1, 0) {
    for (uint64_t j = 1; j <= kTable; ++j) prefix_[j] = prefix_[j - 1] + std::pow(static_cast<double>(j), -theta);
  }
  long double operator()(uint64_t m) const {
    if (m <= kTable) return prefix_[m];
    const long double a = kTable, b = static_cast<long double>(m), t = theta_;
    auto f = [t](long double x) { return std::pow(x, -t); };
    auto f1 = [t](long double x) { return -t * std::pow(x, -t - 1); };
    auto f3 = [t](long double x) { return -t * (t + 1) * (t + 2) * std::pow(x, -t - 3); };
    const long double integral = (std::pow(b, 1 - t) - std::pow(a, 1 - t)) / (1 - t);
    return prefix_[kTable] + integral + (f(b) - f(a)) / 2 + (f1(b) - f1(a)) / 12 - (f3(b) - f3(a)) / 720;
  }

 private:
  static constexpr uint64_t kTable = uint64_t{1} << 18;
  long double theta_;
  std::vector<long double> prefix_;
};

OdCdf OdZipfCdf(double theta, uint64_t slots) {
  auto sums = std::make_shared<OdZipfSums>(theta);
  const long double total = (*sums)(slots);
  return [sums, total](uint64_t k) { return (*sums)(k) / total; };
}

// fio's pareto: P(rank < x * slots) = x^alpha, alpha = log(1 - h) / log(h). For h > 0.5 the hot
// end is the last rank, and the table counts ranks from there (rank 0 is always the hottest).
OdCdf OdParetoCdf(double h, uint64_t slots) {
  const long double alpha = std::log(1.0L - h) / std::log(static_cast<long double>(h));
  const long double n = static_cast<long double>(slots);
  if (alpha <= 1) return [=](uint64_t k) { return std::pow(k / n, alpha); };
  return [=](uint64_t k) { return 1 - std::pow(1 - k / n, alpha); };
}

// A bell centred on the range, sigma percent of it, cut to the range; slot k is [k, k + 1).
OdCdf OdNormalCdf(double sigma_pct, uint64_t slots) {
  const long double n = static_cast<long double>(slots), mu = n / 2, sigma = sigma_pct / 100 * n;
  auto phi = [=](long double x) { return std::erfc(-(x - mu) / (sigma * std::sqrt(2.0L))) / 2; };
  const long double lo = phi(0), span = phi(n) - lo;
  return [=](uint64_t k) { return (phi(static_cast<long double>(k)) - lo) / span; };
}

// fio's zones: zone i spans [slots * before / 100, slots * (before + range) / 100), uniformly.
OdCdf OdZonedCdf(std::vector<std::pair<uint32_t, uint32_t>> zones, uint64_t slots) {
  return [zones, slots](uint64_t k) {
    long double below = 0;
    uint64_t before = 0;
    for (auto [access, range] : zones) {
      const uint64_t first = slots * before / 100, end = slots * (before + range) / 100;
      before += range;
      if (k >= end) {
        below += access;
      } else if (k > first) {
        below += access * static_cast<long double>(k - first) / static_cast<long double>(end - first);
      }
    }
    return below / 100;
  };
}

OdCdf OdUniformCdf(uint64_t slots) {
  return [slots](uint64_t k) { return static_cast<long double>(k) / static_cast<long double>(slots); };
}

// --- Chi-square of drawn ranks against a law. ---

// The least k with cdf(k) >= p.
uint64_t OdQuantile(const OdCdf& cdf, uint64_t slots, long double p) {
  uint64_t lo = 0, hi = slots;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (cdf(mid) >= p) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Bin edges: every rank for small ranges; for huge ones the first 4096 ranks, a 1% geometric
// grid, a 1/8192 grid of the range and the law's 1/1024 quantiles. Merged so that each bin
// expects kOdMinExpected draws; the edges fall inside the table's buckets, so the spread within
// a bucket is tested too.
std::vector<uint64_t> OdEdges(uint64_t slots, const OdCdf& cdf, double draws) {
  std::vector<uint64_t> candidates;
  if (slots <= (uint64_t{1} << 20)) {
    for (uint64_t k = 0; k <= slots; ++k) candidates.push_back(k);
  } else {
    for (uint64_t k = 0; k <= 4096; ++k) candidates.push_back(k);
    for (long double k = 4096; k < slots; k *= 1.01L) candidates.push_back(static_cast<uint64_t>(k));
    for (uint64_t j = 0; j <= 8192; ++j)
      candidates.push_back(static_cast<uint64_t>(static_cast<unsigned __int128>(slots) * j / 8192));
    for (int j = 1; j < 1024; ++j) candidates.push_back(OdQuantile(cdf, slots, j / 1024.0L));
    candidates.push_back(slots);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  std::vector<uint64_t> edges{0};
  long double at = 0;
  for (uint64_t k : candidates) {
    if (k == 0) continue;
    const long double c = cdf(k);
    if ((c - at) * draws >= kOdMinExpected || k == slots) {
      edges.push_back(k);
      at = c;
    }
  }
  if (edges.size() > 2 && (1 - cdf(edges[edges.size() - 2])) * draws < 2 * kOdMinExpected) {
    edges.erase(edges.end() - 2);  // the last bin was cut short by the range's end: merge it
  }
  return edges;
}

struct OdFit {
  double statistic = 0;
  double critical = 0;
  size_t bins = 0;
  uint64_t outside = 0;  // draws in bins the law gives no chance
};

OdFit OdChiSquare(const std::vector<uint64_t>& ranks, uint64_t slots, const OdCdf& cdf) {
  const double n = static_cast<double>(ranks.size());
  const std::vector<uint64_t> edges = OdEdges(slots, cdf, n);
  std::vector<uint64_t> observed(edges.size() - 1, 0);
  for (uint64_t r : ranks) observed[std::upper_bound(edges.begin(), edges.end(), r) - edges.begin() - 1]++;
  OdFit fit;
  for (size_t i = 0; i + 1 < edges.size(); ++i) {
    const double expected = static_cast<double>(cdf(edges[i + 1]) - cdf(edges[i])) * n;
    if (expected <= 0) {
      fit.outside += observed[i];
      continue;
    }
    fit.statistic += (observed[i] - expected) * (observed[i] - expected) / expected;
    ++fit.bins;
  }
  if (fit.bins < 2) return fit;
  const boost::math::chi_squared law(static_cast<double>(fit.bins - 1));
  fit.critical = boost::math::quantile(boost::math::complement(law, kOdAlpha));
  return fit;
}

std::vector<uint64_t> OdDrawRanks(const OffsetDistribution& d, uint64_t seed, uint64_t draws = kOdDraws) {
  SplitMix64 rng(seed);
  std::vector<uint64_t> ranks(draws);
  for (uint64_t& r : ranks) r = d.Rank(rng.Next());
  return ranks;
}

struct OdLawCase {
  std::string text;
  uint64_t slots;
  OdCdf cdf;
};

void OdExpectFits(const std::vector<OdLawCase>& cases) {
  uint64_t seed = 1000;
  for (const OdLawCase& c : cases) {
    SCOPED_TRACE(c.text + " over " + std::to_string(c.slots) + " slots");
    auto d = OdBuild(c.text, c.slots);
    ASSERT_TRUE(d);
    const OdFit fit = OdChiSquare(OdDrawRanks(*d, ++seed), c.slots, c.cdf);
    EXPECT_GE(fit.bins, 8u);
    EXPECT_EQ(fit.outside, 0u);
    EXPECT_LT(fit.statistic, fit.critical) << fit.bins << " bins";
  }
}

TEST(OffsetDistribution, RanksFollowEachLawByChiSquare) {
  const uint64_t n = uint64_t{1} << 18;
  const std::vector<std::pair<uint32_t, uint32_t>> fio_example{{60, 10}, {30, 20}, {8, 30}, {2, 40}};
  OdExpectFits({
      {"random", n, OdUniformCdf(n)},
      {"random", 1000, OdUniformCdf(1000)},
      {"zipf:1.2", n, OdZipfCdf(1.2, n)},
      {"zipf:0.8", n, OdZipfCdf(0.8, n)},
      {"zipf:2.5", 1000, OdZipfCdf(2.5, 1000)},
      {"pareto:0.2", n, OdParetoCdf(0.2, n)},
      {"pareto:0.5", n, OdParetoCdf(0.5, n)},
      {"pareto:0.9", n, OdParetoCdf(0.9, n)},
      {"normal:10", n, OdNormalCdf(10, n)},
      {"normal:0.01", n, OdNormalCdf(0.01, n)},    // sigma of 26 slots: a bucket per slot
      {"normal:40", 1000, OdNormalCdf(40, 1000)},  // cut hard by the range's ends
      {"zoned:60/10:30/20:8/30:2/40", n, OdZonedCdf(fio_example, n)},
      {"zoned:60/10:30/20:8/30:2/40", 997, OdZonedCdf(fio_example, 997)},
      {"zoned:0/50:100/50", 1000, OdZonedCdf({{0, 50}, {100, 50}}, 1000)},
  });
}

TEST(OffsetDistribution, HugeRangesKeepTheLawAndASmallTable) {
  const uint64_t n = uint64_t{1} << 40;
  OdExpectFits({
      {"random", n + 7, OdUniformCdf(n + 7)},
      {"zipf:1.2", n, OdZipfCdf(1.2, n)},
      {"zipf:0.8", n, OdZipfCdf(0.8, n)},
      {"pareto:0.2", n, OdParetoCdf(0.2, n)},
      {"pareto:0.9", n, OdParetoCdf(0.9, n)},
      {"normal:10", n, OdNormalCdf(10, n)},
      {"normal:0.001", n, OdNormalCdf(0.001, n)},
      {"zoned:60/10:30/20:8/30:2/40", n, OdZonedCdf({{60, 10}, {30, 20}, {8, 30}, {2, 40}}, n)},
  });
  for (const char* text : {"random", "zipf:1.2", "zipf:0.8", "pareto:0.2", "pareto:0.9", "normal:10", "normal:0.001"}) {
    for (uint64_t slots : {uint64_t{1} << 18, n, OffsetDistribution::kMaxSlots}) {
      auto d = OdBuild(text, slots);
      ASSERT_TRUE(d);
      EXPECT_LE(d->table_bytes(), size_t{3} << 19) << text << " over " << slots << " slots";  // 1.5 MiB
    }
  }
}

// The fit can fail: a neighbouring parameter's law is refused on the same draws.
TEST(OffsetDistribution, ChiSquareTellsNeighbouringParametersApart) {
  const uint64_t n = uint64_t{1} << 18;
  struct Case {
    const char* drawn;
    OdCdf other;
  };
  for (const Case& c :
       {Case{"zipf:1.2", OdZipfCdf(1.22, n)}, Case{"pareto:0.2", OdParetoCdf(0.205, n)}, Case{"normal:10", OdNormalCdf(10.2, n)},
        Case{"zoned:60/10:40/90", OdZonedCdf({{61, 10}, {39, 90}}, n)}}) {
    auto d = OdBuild(c.drawn, n);
    ASSERT_TRUE(d);
    const OdFit fit = OdChiSquare(OdDrawRanks(*d, 77), n, c.other);
    EXPECT_GT(fit.statistic, fit.critical) << c.drawn;
  }
}

TEST(OffsetDistribution, DrawsStayInRange) {
  const uint64_t big = uint64_t{1} << 40;
  for (const char* text : {"random", "zipf:1.2", "zipf:0.3", "zipf:4", "pareto:0.2", "pareto:0.9", "normal:10", "normal:0.001",
                           "normal:99", "zoned:60/10:30/20:8/30:2/40", "zoned:1/1:99/99"}) {
    for (uint64_t slots :
         {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{7}, uint64_t{1000}, big, big + 7, OffsetDistribution::kMaxSlots}) {
      SCOPED_TRACE(std::string(text) + " over " + std::to_string(slots) + " slots");
      auto d = OdBuild(text, slots, slots);
      ASSERT_TRUE(d);
      std::vector<uint64_t> randoms{0, 1, ~uint64_t{0}, ~uint64_t{0} - 1, uint64_t{1} << 63};
      SplitMix64 rng(slots);
      for (int i = 0; i < 20000; ++i) randoms.push_back(rng.Next());
      for (uint64_t r : randoms) {
        ASSERT_LT(d->Draw(r), slots) << r;
        ASSERT_LT(d->Rank(r), slots) << r;
      }
      std::sort(randoms.begin(), randoms.end());  // the table is an inverse CDF: ranks never go down
      for (size_t i = 1; i < randoms.size(); ++i) ASSERT_LE(d->Rank(randoms[i - 1]), d->Rank(randoms[i]));
      if (slots == 1) {
        EXPECT_EQ(d->Draw(rng.Next()), 0u);
      }
    }
  }
}

TEST(OffsetDistribution, SameSeedSameSlotsAndTheSeedOnlyMovesTheScatter) {
  const uint64_t n = 1000003;
  auto a = OdBuild("zipf:1.2", n, 42), b = OdBuild("zipf:1.2", n, 42), other = OdBuild("zipf:1.2", n, 43);
  ASSERT_TRUE(a && b && other);
  const Permutation scatter(n, 42);
  SplitMix64 rng(5);
  uint64_t moved = 0;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t r = rng.Next();
    ASSERT_EQ(a->Draw(r), b->Draw(r));
    ASSERT_EQ(a->Rank(r), other->Rank(r));
    ASSERT_EQ(a->Draw(r), scatter(a->Rank(r)));  // the scatter is the seeded bijection of the ranks
    moved += a->Draw(r) != other->Draw(r);
  }
  EXPECT_GT(moved, 99000u);
  EXPECT_TRUE(a->scattered());
  for (const char* text : {"random", "normal:10", "zoned:60/10:40/90"}) EXPECT_FALSE(OdBuild(text, n)->scattered()) << text;
}

TEST(OffsetDistribution, HotRanksAreScatteredOverTheRange) {
  const uint64_t n = uint64_t{1} << 18;
  for (const char* text : {"zipf:1.2", "pareto:0.2"}) {
    auto d = OdBuild(text, n, 9);
    ASSERT_TRUE(d);
    // The slots the 1000 hottest ranks land on (the draws landing on each rank's first number):
    // about 100 per tenth of the range, not packed at its start.
    std::vector<int> tenths(10, 0);
    SplitMix64 rng(3);
    std::vector<bool> seen(n, false);
    int hot = 0;
    while (hot < 1000) {
      const uint64_t r = rng.Next();
      const uint64_t rank = d->Rank(r);
      if (rank >= 1000 || seen[rank]) continue;
      seen[rank] = true;
      ++hot;
      tenths[d->Draw(r) * 10 / n]++;
    }
    for (int t : tenths) EXPECT_NEAR(t, 100, 40) << text;  // binomial(1000, 0.1): sd 9.5
  }
  auto bell = OdBuild("normal:1", n);  // normal is centred, not scattered
  SplitMix64 rng(4);
  for (int i = 0; i < 1000; ++i) EXPECT_NEAR(static_cast<double>(bell->Draw(rng.Next())), n / 2.0, 6 * 0.01 * n);
}

// --- fio-genzipf: the share of the hits its hottest tenths of touched blocks take. ---

// genzipf's rows: the touched blocks, hottest first, in ten equal groups; the cumulative share
// of the draws each row ends at.
std::vector<double> OdGenzipfRows(std::vector<uint64_t> hits, uint64_t draws) {
  hits.erase(std::remove(hits.begin(), hits.end(), 0), hits.end());
  std::sort(hits.rbegin(), hits.rend());
  const size_t step = (hits.size() - 1) / 10 + 1;
  std::vector<double> rows(10, 0);
  double sum = 0;
  for (size_t i = 0; i < hits.size(); ++i) {
    sum += static_cast<double>(hits[i]);
    rows[i / step] = sum / static_cast<double>(draws);
  }
  return rows;
}

// fio-genzipf -c prints "rank, count" per touched block after `nranges` draws over 1 GiB of 4 KiB.
std::vector<uint64_t> OdRunGenzipf(const std::string& args) {
  std::vector<uint64_t> hits;
  FILE* out = popen(("/usr/bin/fio-genzipf " + args + " -g 1 -b 4096 -c 2>/dev/null").c_str(), "r");
  if (!out) return hits;
  char line[128];
  while (std::fgets(line, sizeof(line), out)) {
    unsigned long long rank = 0, count = 0;
    if (std::sscanf(line, "%llu, %llu", &rank, &count) == 2) hits.push_back(count);
  }
  pclose(out);
  return hits;
}

struct OdRows {
  std::vector<double> mean = std::vector<double>(10, 0);
  std::vector<double> sd = std::vector<double>(10, 0);
};

// Our rows as genzipf computes them, over `seeds` independent runs of genzipf's size.
OdRows OdOurRows(const std::string& text, uint64_t slots, int seeds) {
  OdRows rows;
  std::vector<double> square(10, 0);
  for (int s = 1; s <= seeds; ++s) {
    auto d = OdBuild(text, slots, s);
    std::vector<uint64_t> hits(slots, 0);
    SplitMix64 rng(s * 7919);
    for (uint64_t i = 0; i < slots; ++i) hits[d->Draw(rng.Next())]++;
    const std::vector<double> one = OdGenzipfRows(hits, slots);
    for (int j = 0; j < 10; ++j) {
      rows.mean[j] += one[j] / seeds;
      square[j] += one[j] * one[j] / seeds;
    }
  }
  for (int j = 0; j < 10; ++j) rows.sd[j] = std::sqrt(std::max(0.0, square[j] - rows.mean[j] * rows.mean[j]));
  return rows;
}

TEST(OffsetDistribution, HottestSharesMatchFioGenzipf) {
  if (access("/usr/bin/fio-genzipf", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/fio-genzipf (Debian's fio package)";
  const uint64_t slots = uint64_t{1} << 18;  // genzipf's -g 1 -b 4096
  const int seeds = 8;
  // fio draws zipf from Gray et al.'s closed-form approximation of the law this table holds
  // exactly: at theta 1.2 it gives genzipf's top rows about half a point more. Pareto is the
  // same law in both, so only sampling separates them.
  struct Case {
    const char* ours;
    const char* fio;
    double allowance;
  };
  for (const Case& c : {Case{"zipf:1.2", "-t zipf -i 1.2", 0.01}, Case{"zipf:0.8", "-t zipf -i 0.8", 0.01},
                        Case{"pareto:0.2", "-t pareto -i 0.2", 0}, Case{"pareto:0.9", "-t pareto -i 0.9", 0}}) {
    SCOPED_TRACE(c.ours);
    const std::vector<uint64_t> fio_hits = OdRunGenzipf(c.fio);
    ASSERT_GT(fio_hits.size(), 100u) << "fio-genzipf " << c.fio << " printed no counts";
    const std::vector<double> fio = OdGenzipfRows(fio_hits, slots);
    const OdRows ours = OdOurRows(c.ours, slots, seeds);
    for (int j = 0; j < 10; ++j) {
      const double tolerance = c.allowance + 4 * ours.sd[j] * std::sqrt(1 + 1.0 / seeds) + 1e-4;
      EXPECT_NEAR(ours.mean[j], fio[j], tolerance) << "the hottest " << (j + 1) * 10 << "% of touched blocks";
    }
  }
  // The comparison has teeth: zipf:1.3's rows are off fio's 1.2 by more than the allowance.
  const std::vector<double> fio = OdGenzipfRows(OdRunGenzipf("-t zipf -i 1.2"), slots);
  const OdRows steeper = OdOurRows("zipf:1.3", slots, 2);
  double worst = 0;
  for (int j = 0; j < 10; ++j) worst = std::max(worst, std::fabs(steeper.mean[j] - fio[j]));
  EXPECT_GT(worst, 0.02);
}

// --- Text and validation. ---

TEST(OffsetDistribution, BuildRefusesBadSpecsAndSlotCounts) {
  DistributionSpec zipf;
  zipf.kind = DistributionSpec::Kind::kZipf;
  zipf.param = 1;
  auto refused = OffsetDistribution::Build(zipf, 100);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("must not be 1"), std::string::npos) << refused.status().message();
  DistributionSpec zones;
  zones.kind = DistributionSpec::Kind::kZoned;
  zones.zones.assign(257, Zone{0, 0});
  refused = OffsetDistribution::Build(zones, 100);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("at most 256"), std::string::npos) << refused.status().message();
  DistributionSpec uniform;
  for (uint64_t slots : {uint64_t{0}, OffsetDistribution::kMaxSlots + 1}) {
    refused = OffsetDistribution::Build(uniform, slots);
    ASSERT_FALSE(refused.ok()) << slots;
    EXPECT_NE(refused.status().message().find("1 to 2^62 slots"), std::string::npos) << refused.status().message();
  }
}

}  // namespace
}  // namespace iofleet::agent
