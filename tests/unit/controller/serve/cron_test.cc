#include "controller/serve/cron.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

namespace iofleet::controller {
namespace {

using std::chrono::system_clock;

// "2026-03-29 01:00" (or with ":SS") read as UTC.
system_clock::time_point Utc(const std::string& text) {
  struct tm tm {};
  const char* end = strptime(text.c_str(), "%Y-%m-%d %H:%M", &tm);
  EXPECT_NE(end, nullptr) << text;
  int seconds = end && *end == ':' ? std::atoi(end + 1) : 0;
  return system_clock::from_time_t(timegm(&tm)) + std::chrono::seconds(seconds);
}

std::string ShowUtc(system_clock::time_point t) {
  if (t == system_clock::time_point::max()) return "never";
  time_t tt = system_clock::to_time_t(t);
  struct tm tm {};
  gmtime_r(&tt, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

CronSchedule Cron(const std::string& text) {
  auto parsed = CronSchedule::Parse(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().message();
  return *parsed;
}

// The next firing after `after`, both as UTC text.
std::string NextUtc(const std::string& schedule, const std::string& after, TimeZone zone = TimeZone::kUtc) {
  return ShowUtc(Cron(schedule).Next(Utc(after), zone));
}

TEST(CronTest, EveryMinuteIsStrictlyAfter) {
  EXPECT_EQ(NextUtc("* * * * *", "2026-11-30 10:00"), "2026-11-30 10:01");
  EXPECT_EQ(NextUtc("* * * * *", "2026-11-30 10:00:30"), "2026-11-30 10:01");
  EXPECT_EQ(NextUtc("* * * * *", "2026-12-31 23:59:59"), "2027-01-01 00:00");
  // Below a second: 10:00:00.5 is after 10:00.
  EXPECT_EQ(ShowUtc(Cron("* * * * *").Next(Utc("2026-11-30 10:00") + std::chrono::milliseconds(500), TimeZone::kUtc)),
            "2026-11-30 10:01");
}

TEST(CronTest, FixedTimes) {
  EXPECT_EQ(NextUtc("0 2 * * *", "2026-11-30 01:59"), "2026-11-30 02:00");
  EXPECT_EQ(NextUtc("0 2 * * *", "2026-11-30 02:00"), "2026-12-01 02:00");
  EXPECT_EQ(NextUtc("30 23 31 12 *", "2026-01-01 00:00"), "2026-12-31 23:30");
  EXPECT_EQ(NextUtc("0 0 1 * *", "2026-12-15 00:00"), "2027-01-01 00:00");
}

TEST(CronTest, ListsRangesAndSteps) {
  EXPECT_EQ(NextUtc("*/15 * * * *", "2026-11-30 10:01"), "2026-11-30 10:15");
  EXPECT_EQ(NextUtc("*/15 * * * *", "2026-11-30 10:45"), "2026-11-30 11:00");
  EXPECT_EQ(NextUtc("1-30/10 * * * *", "2026-11-30 10:21"), "2026-11-30 11:01");
  EXPECT_EQ(NextUtc("5,50 9-17/4 * * *", "2026-11-30 09:06"), "2026-11-30 09:50");
  EXPECT_EQ(NextUtc("5,50 9-17/4 * * *", "2026-11-30 09:50"), "2026-11-30 13:05");
  EXPECT_EQ(NextUtc("5,50 9-17/4 * * *", "2026-11-30 17:50"), "2026-12-01 09:05");
  EXPECT_EQ(NextUtc("0 0 * */3 *", "2026-02-01 00:00"), "2026-04-01 00:00");  // jan, apr, jul, oct
}

TEST(CronTest, NamesOfMonthsAndDays) {
  // 2026-11-30 is a Monday.
  EXPECT_EQ(NextUtc("0 9 * * mon-fri", "2026-12-04 10:00"), "2026-12-07 09:00");  // Fri -> Mon
  EXPECT_EQ(NextUtc("0 9 * * SAT,Sun", "2026-11-30 10:00"), "2026-12-05 09:00");
  EXPECT_EQ(NextUtc("0 9 1 Jan,jul *", "2026-02-01 00:00"), "2026-07-01 09:00");
  EXPECT_EQ(NextUtc("0 9 1 jan-mar/2 *", "2026-01-02 00:00"), "2026-03-01 09:00");
}

TEST(CronTest, SundayIsZeroAndSeven) {
  EXPECT_EQ(NextUtc("0 0 * * 0", "2026-11-30 00:00"), "2026-12-06 00:00");
  EXPECT_EQ(NextUtc("0 0 * * 7", "2026-11-30 00:00"), "2026-12-06 00:00");
  EXPECT_EQ(NextUtc("0 0 * * 5-7", "2026-11-30 00:00"), "2026-12-04 00:00");
  EXPECT_EQ(NextUtc("0 0 * * 6-7", "2026-12-05 00:00"), "2026-12-06 00:00");
}

TEST(CronTest, EitherDayRuleWhenBothAreRestricted) {
  // The 13th or a Friday: 2026-11-06 is a Friday, before the 13th.
  EXPECT_EQ(NextUtc("0 0 13 * 5", "2026-11-01 00:00"), "2026-11-06 00:00");
  EXPECT_EQ(NextUtc("0 0 13 * 5", "2026-11-06 00:00"), "2026-11-13 00:00");
  EXPECT_EQ(NextUtc("0 0 14 * 5", "2026-11-13 00:00"), "2026-11-14 00:00");
  // Feb 30 never comes, but Fridays in February do.
  EXPECT_EQ(NextUtc("0 0 30 2 fri", "2026-03-01 00:00"), "2027-02-05 00:00");
}

TEST(CronTest, BothDayRulesWhenOneBeginsWithStar) {
  // As in Vixie cron: `*/2` counts as unrestricted, so both must match: odd days that are Mondays.
  // Mondays: 2026-11-30 (even), 12-07 (odd).
  EXPECT_EQ(NextUtc("0 0 */2 * 1", "2026-11-29 00:00"), "2026-12-07 00:00");
  // `1-31` does not begin with `*`: both restricted, either matches, so every day.
  EXPECT_EQ(NextUtc("0 0 1-31 * 1", "2026-11-29 00:00"), "2026-11-30 00:00");
  // Day-of-month alone (day-of-week `*`).
  EXPECT_EQ(NextUtc("0 0 31 * *", "2026-11-01 00:00"), "2026-12-31 00:00");
}

TEST(CronTest, LeapYears) {
  EXPECT_EQ(NextUtc("0 0 29 2 *", "2026-03-01 00:00"), "2028-02-29 00:00");
  // 2100 is not a leap year: eight years to the next Feb 29.
  EXPECT_EQ(NextUtc("0 0 29 2 *", "2096-03-01 00:00"), "2104-02-29 00:00");
  EXPECT_EQ(NextUtc("59 23 28 2 *", "2028-02-28 23:59"), "2029-02-28 23:59");
  // Day-of-week `*/1` counts as `*`: Feb 29 alone.
  EXPECT_EQ(NextUtc("0 0 29 2 */1", "2028-03-01 00:00"), "2032-02-29 00:00");
}

TEST(CronTest, RefusesSchedulesThatNeverFire) {
  for (const char* never : {"0 0 31 2 *", "0 0 30,31 2 *", "0 0 31 4,6,9,11 *", "0 0 30-31 feb *"}) {
    auto parsed = CronSchedule::Parse(never);
    ASSERT_FALSE(parsed.ok()) << never;
    EXPECT_NE(parsed.status().message().find("never fire"), std::string::npos) << parsed.status().message();
  }
  EXPECT_TRUE(CronSchedule::Parse("0 0 31 2,3 *").ok());
  EXPECT_TRUE(CronSchedule::Parse("0 0 31 2 1").ok());  // either rule: Mondays in February
}

TEST(CronTest, ErrorsNameTheFieldAndTheToken) {
  struct Case {
    const char* text;
    const char* field;
    const char* token;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"61 * * * *", "minute", "\"61\""},
           {"* 24 * * *", "hour", "\"24\""},
           {"* * 0 * *", "day-of-month", "\"0\""},
           {"* * 32 * *", "day-of-month", "\"32\""},
           {"* * * 13 *", "month", "\"13\""},
           {"* * * foo *", "month", "\"foo\""},
           {"* * * * 8", "day-of-week", "\"8\""},
           {"* * * * sunday", "day-of-week", "\"sunday\""},
           {"*/0 * * * *", "minute", "\"*/0\""},
           {"*/ * * * *", "minute", "\"*/\""},
           {"*/x * * * *", "minute", "\"*/x\""},
           {"*/90 * * * *", "minute", "\"*/90\""},
           {"* */24 * * *", "hour", "\"*/24\""},
           {"5/10 * * * *", "minute", "\"5/10\""},
           {"1-30/5/2 * * * *", "minute", "\"1-30/5/2\""},
           {"30-10 * * * *", "minute", "\"30-10\""},
           {"1- * * * *", "minute", "\"1-\""},
           {"-1 * * * *", "minute", "\"-1\""},
           {"1,,2 * * * *", "minute", "\"1,,2\""},
           {"1, * * * *", "minute", "\"1,\""},
           {"x * * * *", "minute", "\"x\""},
           {"* * * * mon-fri/0", "day-of-week", "\"mon-fri/0\""},
       }) {
    auto parsed = CronSchedule::Parse(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    const std::string& m = parsed.status().message();
    EXPECT_EQ(m.rfind(std::string(c.field) + " " + c.token, 0), 0u) << c.text << " -> " << m;
  }
  for (const char* count : {"", "* * * *", "* * * * * *", "0 2 * *"}) {
    auto parsed = CronSchedule::Parse(count);
    ASSERT_FALSE(parsed.ok()) << count;
    EXPECT_NE(parsed.status().message().find("5 fields"), std::string::npos) << parsed.status().message();
  }
}

TEST(CronTest, KeepsItsText) {
  EXPECT_EQ(Cron("0 2 * * *").text(), "0 2 * * *");
}

// TZ set to a zone for the life of the object (tzset: the C library reads TZ again), then put back.
class ScopedZone {
 public:
  explicit ScopedZone(const std::string& zone) {
    const char* old = std::getenv("TZ");
    had_tz_ = old != nullptr;
    if (old) old_tz_ = old;
    setenv("TZ", zone.c_str(), 1);
    tzset();
  }
  ~ScopedZone() {
    if (had_tz_) {
      setenv("TZ", old_tz_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  bool had_tz_ = false;
  std::string old_tz_;
};

bool HasZone(const std::string& zone) { return std::filesystem::exists("/usr/share/zoneinfo/" + zone); }

// Local time: Europe/Berlin, set through TZ.
class CronLocalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HasZone("Europe/Berlin")) {
      GTEST_SKIP() << "no /usr/share/zoneinfo/Europe/Berlin (install tzdata): the DST cases need it";
    }
    zone_.emplace("Europe/Berlin");
  }
  void TearDown() override { zone_.reset(); }
  static std::string Next(const std::string& schedule, const std::string& after_utc) {
    return NextUtc(schedule, after_utc, TimeZone::kLocal);
  }

 private:
  std::optional<ScopedZone> zone_;
};

// Berlin 2026: CET (+1) until 2026-03-29 01:00 UTC (02:00 -> 03:00), CEST (+2) until
// 2026-10-25 01:00 UTC (03:00 -> 02:00).
TEST_F(CronLocalTest, OrdinaryDaysFollowTheOffset) {
  EXPECT_EQ(Next("0 2 * * *", "2026-01-10 12:00"), "2026-01-11 01:00");  // 02:00 CET
  EXPECT_EQ(Next("0 2 * * *", "2026-07-10 12:00"), "2026-07-11 00:00");  // 02:00 CEST
  EXPECT_EQ(NextUtc("0 2 * * *", "2026-07-10 12:00", TimeZone::kUtc), "2026-07-11 02:00");
  EXPECT_EQ(Next("0 0 * * *", "2026-12-31 22:59"), "2026-12-31 23:00");  // the local new year
}

TEST_F(CronLocalTest, SkippedFixedTimeFiresOnceAtTheEndOfTheGap) {
  EXPECT_EQ(Next("30 2 * * *", "2026-03-28 12:00"), "2026-03-29 01:00");  // 03:00 CEST
  EXPECT_EQ(Next("30 2 * * *", "2026-03-29 01:00"), "2026-03-30 00:30");  // 02:30 CEST
  // Two skipped times fire once, together.
  EXPECT_EQ(Next("0,30 2 * * *", "2026-03-28 12:00"), "2026-03-29 01:00");
  EXPECT_EQ(Next("0,30 2 * * *", "2026-03-29 01:00"), "2026-03-30 00:00");
  // A fixed time after the gap is untouched.
  EXPECT_EQ(Next("30 3 * * *", "2026-03-28 12:00"), "2026-03-29 01:30");
  EXPECT_EQ(Next("30 1 * * *", "2026-03-28 12:00"), "2026-03-29 00:30");
}

TEST_F(CronLocalTest, RepeatedFixedTimeFiresAtItsFirstOccurrence) {
  EXPECT_EQ(Next("30 2 * * *", "2026-10-24 12:00"), "2026-10-25 00:30");  // 02:30 CEST
  EXPECT_EQ(Next("30 2 * * *", "2026-10-25 00:30"), "2026-10-26 01:30");  // not 02:30 CET
  EXPECT_EQ(Next("30 2 * * *", "2026-10-25 01:10"), "2026-10-26 01:30");  // asked during the second pass
  EXPECT_EQ(Next("0 3 * * *", "2026-10-25 00:30"), "2026-10-25 02:00");   // 03:00 CET
}

TEST_F(CronLocalTest, ByTheClockSchedulesSkipTheGap) {
  EXPECT_EQ(Next("*/30 * * * *", "2026-03-29 00:45"), "2026-03-29 01:00");  // 01:45 CET -> 03:00 CEST
  EXPECT_EQ(Next("*/30 * * * *", "2026-03-29 01:00"), "2026-03-29 01:30");
  // 02:05..02:55 do not exist: the next is 03:05, not the end of the gap.
  EXPECT_EQ(Next("5-55/10 * * * *", "2026-03-29 00:55"), "2026-03-29 01:05");
  EXPECT_EQ(Next("30 * * * *", "2026-03-29 00:30"), "2026-03-29 01:30");  // 01:30 CET -> 03:30 CEST
}

TEST_F(CronLocalTest, ByTheClockSchedulesFireInBothPassesOfARepeatedHour) {
  EXPECT_EQ(Next("*/30 * * * *", "2026-10-25 00:00"), "2026-10-25 00:30");  // 02:00 CEST -> 02:30 CEST
  EXPECT_EQ(Next("*/30 * * * *", "2026-10-25 00:45"), "2026-10-25 01:00");  // -> 02:00 CET
  EXPECT_EQ(Next("*/30 * * * *", "2026-10-25 01:00"), "2026-10-25 01:30");  // -> 02:30 CET
  EXPECT_EQ(Next("*/30 * * * *", "2026-10-25 01:30"), "2026-10-25 02:00");  // -> 03:00 CET
  EXPECT_EQ(Next("0 * * * *", "2026-10-25 00:30"), "2026-10-25 01:00");
  EXPECT_EQ(Next("50 * * * *", "2026-10-25 00:00"), "2026-10-25 00:50");    // 02:50 CEST
  EXPECT_EQ(Next("50 * * * *", "2026-10-25 00:50"), "2026-10-25 01:50");    // 02:50 CET
  EXPECT_EQ(Next("* 2 * * *", "2026-10-25 00:59"), "2026-10-25 01:00");     // 02:59 CEST -> 02:00 CET
}

TEST_F(CronLocalTest, AYearOfNightlyRunsIsOnePerDay) {
  CronSchedule nightly = Cron("30 2 * * *");
  system_clock::time_point t = Utc("2026-01-01 00:00");
  std::set<std::string> days;
  for (int i = 0; i < 365; ++i) {
    system_clock::time_point next = nightly.Next(t, TimeZone::kLocal);
    ASSERT_GT(next, t);
    time_t tt = system_clock::to_time_t(next);
    struct tm tm {};
    localtime_r(&tt, &tm);
    char day[16];
    strftime(day, sizeof day, "%Y-%m-%d", &tm);
    EXPECT_TRUE(days.insert(day).second) << day << " twice";
    EXPECT_TRUE(tm.tm_hour == 2 || (tm.tm_hour == 3 && tm.tm_min == 0)) << ShowUtc(next);
    t = next;
  }
  EXPECT_EQ(days.size(), 365u);
}

// New York changes at 02:00 local (01:00-01:59 repeats in November); Lord Howe Island by half an
// hour (02:00 -> 02:30 in October, 01:30-01:59 repeats in April).
TEST(CronOtherZonesTest, NewYorkAndLordHowe) {
  if (!HasZone("America/New_York") || !HasZone("Australia/Lord_Howe")) {
    GTEST_SKIP() << "no America/New_York or Australia/Lord_Howe in /usr/share/zoneinfo (install tzdata)";
  }
  {
    ScopedZone zone("America/New_York");
    EXPECT_EQ(NextUtc("30 2 * * *", "2026-03-07 12:00", TimeZone::kLocal), "2026-03-08 07:00");  // 03:00 EDT
    EXPECT_EQ(NextUtc("30 1 * * *", "2026-10-31 12:00", TimeZone::kLocal), "2026-11-01 05:30");  // 01:30 EDT
    EXPECT_EQ(NextUtc("30 1 * * *", "2026-11-01 05:30", TimeZone::kLocal), "2026-11-02 06:30");
    EXPECT_EQ(NextUtc("30 * * * *", "2026-11-01 05:30", TimeZone::kLocal), "2026-11-01 06:30");  // 01:30 EST
  }
  {
    ScopedZone zone("Australia/Lord_Howe");
    EXPECT_EQ(NextUtc("15 2 * * *", "2026-10-03 12:00", TimeZone::kLocal), "2026-10-03 15:30");  // 02:30 +11
    EXPECT_EQ(NextUtc("15 2 * * *", "2026-10-03 15:30", TimeZone::kLocal), "2026-10-04 15:15");
    EXPECT_EQ(NextUtc("45 1 * * *", "2026-04-04 12:00", TimeZone::kLocal), "2026-04-04 14:45");  // 01:45 +11
    EXPECT_EQ(NextUtc("45 1 * * *", "2026-04-04 14:45", TimeZone::kLocal), "2026-04-05 15:15");  // next day, +1030
    EXPECT_EQ(NextUtc("*/15 * * * *", "2026-04-04 14:45", TimeZone::kLocal), "2026-04-04 15:00");  // 01:30 again
  }
}

TEST(CronTest, RareSchedulesAreQuick) {
  // Fifty leap days, over two centuries (2100 and 2200 have none).
  auto start = std::chrono::steady_clock::now();
  CronSchedule rare = Cron("0 0 29 2 *");
  system_clock::time_point t = Utc("2001-01-01 00:00");
  for (int i = 0; i < 50; ++i) t = rare.Next(t, TimeZone::kUtc);
  EXPECT_EQ(ShowUtc(t), "2208-02-29 00:00");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(CronTest, BeyondTheClocksRangeIsNever) {
  // system_clock counts nanoseconds in 64 bits: it ends in April 2262.
  EXPECT_EQ(Cron("0 0 29 2 *").Next(Utc("2260-03-01 00:00"), TimeZone::kUtc), system_clock::time_point::max());
  EXPECT_EQ(Cron("* * * * *").Next(system_clock::time_point::max() - std::chrono::seconds(1), TimeZone::kUtc),
            system_clock::time_point::max());
}

}  // namespace
}  // namespace iofleet::controller
