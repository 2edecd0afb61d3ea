#include "controller/serve/cron.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace iofleet::controller {
namespace {

using namespace std::chrono;

constexpr int64_t kDay = 86400;
constexpr int64_t kSearchDays = 400 * 366;  // one Gregorian cycle: any date pattern recurs within it

struct FieldSpec {
  const char* name;
  int low;
  int high;  // inclusive; day-of-week allows 7 (Sunday again)
  const char* const* names;  // indexed from `low`; nullptr when the field has none
};

constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr FieldSpec kFields[] = {
    {"minute", 0, 59, nullptr},
    {"hour", 0, 23, nullptr},
    {"day-of-month", 1, 31, nullptr},
    {"month", 1, 12, kMonthNames},
    {"day-of-week", 0, 7, kDayNames},
};

Status FieldError(const FieldSpec& field, const std::string& token, const std::string& why) {
  return InvalidArgument(std::string(field.name) + " \"" + token + "\": " + why);
}

std::string Span(const FieldSpec& field) { return std::to_string(field.low) + "-" + std::to_string(field.high); }

Result<int> ParseValue(const FieldSpec& field, const std::string& item, const std::string& text) {
  if (text.empty()) return FieldError(field, item, "a value is missing");
  if (std::isdigit(static_cast<unsigned char>(text[0]))) {
    if (text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos) {
      return FieldError(field, item, "\"" + text + "\" is not a number");
    }
    int v = std::stoi(text);
    if (v < field.low || v > field.high) return FieldError(field, item, std::to_string(v) + " is not in " + Span(field));
    return v;
  }
  if (field.names) {
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    int count = field.low == 1 ? 12 : 7;
    for (int i = 0; i < count; ++i) {
      if (lower == field.names[i]) return field.low + i;
    }
    return FieldError(field, item, "\"" + text + "\" is not a number or a name (" + field.names[0] + ".." +
                                       field.names[count - 1] + ")");
  }
  return FieldError(field, item, "\"" + text + "\" is not a number");
}

// One field: a comma list of `*`, `N`, `A-B`, each range (or `*`) with an optional `/STEP`.
Result<uint64_t> ParseField(const FieldSpec& field, const std::string& text) {
  uint64_t bits = 0;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return FieldError(field, text, "an empty item in the list");
    std::string range = item;
    int step = 1;
    size_t slash = item.find('/');
    if (slash != std::string::npos) {
      range = item.substr(0, slash);
      std::string step_text = item.substr(slash + 1);
      if (step_text.empty() || step_text.size() > 3 || step_text.find_first_not_of("0123456789") != std::string::npos) {
        return FieldError(field, item, "the step \"" + step_text + "\" is not a whole number");
      }
      step = std::stoi(step_text);
      int span = field.high - field.low;
      if (step < 1 || step > span) {
        return FieldError(field, item, "the step " + step_text + " is not in 1-" + std::to_string(span) +
                                           (field.low == 0 && field.high == 59 ? " (use `every:` for longer intervals)" : ""));
      }
    }
    int low = field.low;
    int high = field.high == 7 ? 6 : field.high;  // `*` in day-of-week: 0-6
    if (range == "*") {
      // every value
    } else {
      size_t dash = range.find('-');
      auto first = ParseValue(field, item, range.substr(0, dash));
      if (!first.ok()) return first.status();
      low = high = *first;
      if (dash != std::string::npos) {
        auto last = ParseValue(field, item, range.substr(dash + 1));
        if (!last.ok()) return last.status();
        high = *last;
        if (high < low) return FieldError(field, item, "a range goes from low to high");
      } else if (slash != std::string::npos) {
        return FieldError(field, item, "a step needs a range or *: write " + range + "-" + std::to_string(field.high) +
                                           "/" + std::to_string(step));
      }
    }
    for (int v = low; v <= high; v += step) bits |= uint64_t{1} << v;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bits;
}

int DaysInMonth(int month, bool leap) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// The C library's view of the local zone: the UTC offset in force at an instant.
int64_t LocalOffset(int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  if (!localtime_r(&tt, &tm)) return 0;
  return tm.tm_gmtoff;
}

int64_t Offset(int64_t t, TimeZone zone) { return zone == TimeZone::kUtc ? 0 : LocalOffset(t); }

struct Instants {
  std::vector<int64_t> at;  // the instants that show wall-clock time W, in order (0, 1 or 2)
  int64_t gap_end = 0;      // when `at` is empty: the first instant after the gap W falls in
};

// The instants at which the clock shows `wall`; in a gap, where the gap ends.
Instants Resolve(int64_t wall, TimeZone zone) {
  Instants out;
  if (zone == TimeZone::kUtc) {
    out.at.push_back(wall);
    return out;
  }
  int64_t guess = wall - LocalOffset(wall);
  std::vector<int64_t> offsets = {LocalOffset(guess - kDay), LocalOffset(guess), LocalOffset(guess + kDay)};
  for (int64_t off : offsets) {
    int64_t t = wall - off;
    if (t + LocalOffset(t) == wall) out.at.push_back(t);
  }
  std::sort(out.at.begin(), out.at.end());
  out.at.erase(std::unique(out.at.begin(), out.at.end()), out.at.end());
  if (out.at.empty()) {
    // A gap: the offset rose from `low` to `high`; the transition lies between the two readings.
    auto [low, high] = std::minmax_element(offsets.begin(), offsets.end());
    int64_t lo = wall - *high;  // shows a wall-clock time before `wall`
    int64_t hi = wall - *low;   // shows one after it
    while (lo + 1 < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      (mid + LocalOffset(mid) > wall ? hi : lo) = mid;
    }
    out.gap_end = hi;
  }
  return out;
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() != 5) {
    return InvalidArgument("\"" + text + "\": a schedule has 5 fields (minute hour day-of-month month day-of-week), this has " +
                           std::to_string(fields.size()));
  }
  std::vector<uint64_t> bits;
  for (size_t i = 0; i < 5; ++i) {
    auto parsed = ParseField(kFields[i], fields[i]);
    if (!parsed.ok()) return parsed.status();
    bits.push_back(*parsed);
  }
  CronSchedule s;
  s.text_ = text;
  s.minutes_ = bits[0];
  s.hours_ = static_cast<uint32_t>(bits[1]);
  s.days_of_month_ = static_cast<uint32_t>(bits[2]);
  s.months_ = static_cast<uint32_t>(bits[3]);
  uint64_t dow = bits[4];
  if (dow & (uint64_t{1} << 7)) dow = (dow | 1) & ~(uint64_t{1} << 7);  // 7 is Sunday
  s.days_of_week_ = static_cast<uint32_t>(dow);
  s.dom_star_ = fields[2][0] == '*';
  s.dow_star_ = fields[4][0] == '*';
  s.by_the_clock_ = fields[0][0] == '*' || fields[1][0] == '*';

  // Can a day ever match? Under the either-rule a weekday always comes round; otherwise a
  // chosen day of the month must exist in a chosen month (Feb 29 in leap years). A `*` field of
  // days of the month always holds the 1st.
  if (s.dom_star_ || s.dow_star_) {
    bool possible = false;
    for (int m = 1; m <= 12 && !possible; ++m) {
      if (!(s.months_ & (1u << m))) continue;
      for (int d = 1; d <= DaysInMonth(m, true); ++d) {
        if (s.days_of_month_ & (1u << d)) possible = true;
      }
    }
    if (!possible) {
      return InvalidArgument("day-of-month \"" + fields[2] + "\" with month \"" + fields[3] +
                             "\": no such date, the schedule would never fire");
    }
  }
  return s;
}

bool CronSchedule::DayMatches(int64_t day) const {
  sys_days date{days{day}};
  year_month_day ymd{date};
  if (!(months_ & (1u << static_cast<unsigned>(ymd.month())))) return false;
  bool dom = days_of_month_ & (1u << static_cast<unsigned>(ymd.day()));
  bool dow = days_of_week_ & (1u << weekday{date}.c_encoding());
  return dom_star_ || dow_star_ ? dom && dow : dom || dow;
}

int64_t CronSchedule::NextWallMinute(int64_t wall) const {
  int64_t day = wall >= 0 ? wall / kDay : -((-wall + kDay - 1) / kDay);
  int minute_of_day = static_cast<int>((wall - day * kDay + 59) / 60);  // rounded up to a whole minute
  for (int64_t n = 0; n < kSearchDays; ++n, ++day, minute_of_day = 0) {
    if (minute_of_day >= 24 * 60) continue;
    if (!DayMatches(day)) {
      // A month not chosen: go straight to the first of the next month.
      year_month_day ymd{sys_days{days{day}}};
      if (!(months_ & (1u << static_cast<unsigned>(ymd.month())))) {
        year_month_day next = year_month_day{ymd.year() / ymd.month() / 1} + months{1};
        int64_t skip = sys_days{next}.time_since_epoch().count() - day - 1;
        day += skip;
        n += skip;
      }
      continue;
    }
    for (int h = minute_of_day / 60; h < 24; ++h) {
      if (!(hours_ & (1u << h))) continue;
      for (int m = h == minute_of_day / 60 ? minute_of_day % 60 : 0; m < 60; ++m) {
        if (minutes_ & (uint64_t{1} << m)) return day * kDay + h * 3600 + m * 60;
      }
    }
  }
  return -1;
}

system_clock::time_point CronSchedule::Next(system_clock::time_point after, TimeZone zone) const {
  const int64_t a = floor<seconds>(after).time_since_epoch().count();
  // Wall-clock times below the one `after` shows can still come after it when the clock goes
  // back within the next day: start the search that much lower.
  const int64_t offset = Offset(a, zone);
  const int64_t drop = std::max<int64_t>(0, offset - Offset(a + kDay, zone));
  auto fires = [&](int64_t wall, int64_t& best) {
    Instants in = Resolve(wall, zone);
    if (in.at.empty()) {
      if (!by_the_clock_ && in.gap_end > a) best = std::min(best, in.gap_end);  // a skipped fixed time
      return;
    }
    // A repeated fixed time fires at its first occurrence only; by the clock, at each.
    size_t count = by_the_clock_ ? in.at.size() : 1;
    for (size_t i = 0; i < count; ++i) {
      if (in.at[i] > a) best = std::min(best, in.at[i]);
    }
  };
  int64_t wall = a + offset - drop;
  while (true) {
    int64_t w = NextWallMinute(wall);
    if (w < 0) return system_clock::time_point::max();
    int64_t best = INT64_MAX;
    fires(w, best);
    if (best == INT64_MAX) {
      wall = w + 60;
      continue;
    }
    // A later wall-clock time can still come first if the clock went back just before `best`
    // (its first pass): look that far ahead.
    int64_t back = std::max<int64_t>(0, Offset(std::max(a + 1, best - kDay), zone) - Offset(best, zone));
    for (int64_t later = NextWallMinute(w + 60); later >= 0 && later < w + back; later = NextWallMinute(later + 60)) {
      fires(later, best);
    }
    // system_clock counts nanoseconds: it ends in 2262.
    if (best >= floor<seconds>(system_clock::time_point::max()).time_since_epoch().count()) {
      return system_clock::time_point::max();
    }
    return system_clock::time_point{seconds{best}};
  }
}

}  // namespace iofleet::controller
