// A 5-field cron schedule for `iofleet serve` suites: "minute hour day-of-month month day-of-week".
//
// Each field is `*`, a value, a range `1-5`, a list `1,5,10-12`, or a step over `*` or a range:
// `*/10`, `1-30/5`. Months may be written jan..dec and days of the week sun..sat (any case, also
// in ranges: mon-fri). Day of week 0 and 7 are both Sunday. A step must be between 1 and the
// field's span (`*/90` in minutes is refused: use `every: 90m` for intervals).
//
// Days, as Vixie cron and cronie decide them: when day-of-month and day-of-week are both
// restricted, a day matches if EITHER matches ("0 0 13 * 5": every 13th and every Friday);
// otherwise both must. As in Vixie cron a field that begins with `*` (also `*/2`) counts as
// unrestricted for this rule, so "0 0 */2 * 1" is the odd days that are Mondays.
//
// Parse refuses a schedule that can never fire (e.g. "0 0 30,31 2 *": February has no 30th or
// 31st); Feb 29 is accepted and fires in leap years only.
//
// Time zones. In TimeZone::kUtc the fields are UTC wall-clock time. In TimeZone::kLocal they
// are the system zone's wall-clock time (the C library's localtime_r: TZ honoured, read when
// the library first needs it or at tzset()). Daylight saving time is handled as Vixie cron and
// cronie do:
//   - A schedule with a fixed time (neither its minute nor its hour field begins with `*`,
//     e.g. "30 2 * * *"): a time that does not exist on a spring-forward day fires once, at the
//     first minute after the gap (02:30 on the day Europe/Berlin goes 02:00 -> 03:00 fires at
//     03:00 CEST; several skipped times fire once together); a time that happens twice on a
//     fall-back day fires once, at its first occurrence.
//   - A schedule whose minute or hour field begins with `*` ("*/10 * * * *", "0 * * * *") runs
//     by the clock: it fires at every minute whose wall-clock time matches, so in a repeated
//     hour it fires in both passes and in a skipped hour it does not fire (its next time after
//     the gap fires as usual). Its rhythm is kept rather than bunched up or paused for an hour.
// The zone is assumed to change its UTC offset at most once in any 24 hours (true of every zone
// in the tz database since daylight saving time began).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

enum class TimeZone { kUtc, kLocal };

class CronSchedule {
 public:
  // Errors name the field and the bad token: `day-of-month "32": 32 is not in 1-31`.
  static Result<CronSchedule> Parse(const std::string& text);

  // The first firing strictly after `after` (a whole minute, or the end of a DST gap).
  // time_point::max() when the next firing is beyond system_clock's range (the year 2262).
  std::chrono::system_clock::time_point Next(std::chrono::system_clock::time_point after, TimeZone zone) const;

  const std::string& text() const { return text_; }

 private:
  CronSchedule() = default;

  // The first matching wall-clock minute at or after `wall` (seconds of a wall-clock time
  // counted as if it were UTC), or -1 when none falls within 400 years.
  int64_t NextWallMinute(int64_t wall) const;
  bool DayMatches(int64_t day) const;

  std::string text_;
  uint64_t minutes_ = 0;       // bit m: minute m (0-59)
  uint32_t hours_ = 0;         // bit h: hour h (0-23)
  uint32_t days_of_month_ = 0; // bit d: day d (1-31)
  uint32_t months_ = 0;        // bit m: month m (1-12)
  uint32_t days_of_week_ = 0;  // bit d: weekday d (0 = Sunday .. 6)
  bool dom_star_ = false;      // the field begins with `*` (the either-rule, see above)
  bool dow_star_ = false;
  bool by_the_clock_ = false;  // the minute or the hour field begins with `*` (DST, see above)
};

}  // namespace iofleet::controller
