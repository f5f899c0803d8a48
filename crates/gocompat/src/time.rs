//! Go's `time.Time` as far as capstan needs it: a UTC instant plus the zone it was read in,
//! civil-date arithmetic, `Format(time.RFC3339Nano)`, `String()`, and the timestamp
//! layouts that the YAML libraries accept (`parse_yaml_timestamp`).

use std::fmt;

/// An instant with Go's zone information: seconds since the Unix epoch (UTC), nanoseconds,
/// and the zone (offset east of UTC and name; Go prints an unnamed fixed zone by its offset).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GoTime {
    /// Seconds since the Unix epoch.
    pub unix: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
    /// The zone's offset east of UTC, in seconds.
    pub offset: i32,
    /// The zone's abbreviation (`UTC`, `CET`).
    pub zone: String,
}

/// Broken-down civil time in the value's own zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    /// The year (astronomical: 0 is 1 BC).
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, from 1.
    pub day: u32,
    /// The hour, 0 to 23.
    pub hour: u32,
    /// The minute, 0 to 59.
    pub minute: u32,
    /// The second, 0 to 59.
    pub second: u32,
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The date of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Number of days in a month of a year.
pub(crate) fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

impl GoTime {
    /// A UTC time from civil fields.
    pub(crate) fn from_civil_utc(c: Civil, nanos: u32) -> GoTime {
        let days = days_from_civil(c.year, c.month, c.day);
        let unix = days * 86400 + c.hour as i64 * 3600 + c.minute as i64 * 60 + c.second as i64;
        GoTime {
            unix,
            nanos,
            offset: 0,
            zone: "UTC".into(),
        }
    }

    /// The civil fields in the time's own zone.
    pub fn civil(&self) -> Civil {
        let local = self.unix + self.offset as i64;
        let days = local.div_euclid(86400);
        let secs = local.rem_euclid(86400) as u32;
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
        }
    }

    fn write_offset(&self, out: &mut String, colon: bool, z_for_utc: bool) {
        if z_for_utc && self.offset == 0 {
            out.push('Z');
            return;
        }
        let sign = if self.offset < 0 { '-' } else { '+' };
        let a = self.offset.unsigned_abs();
        out.push(sign);
        out.push_str(&format!("{:02}", a / 3600));
        if colon {
            out.push(':');
        }
        out.push_str(&format!("{:02}", a / 60 % 60));
    }

    fn write_date_time(&self, out: &mut String, sep: char) {
        let c = self.civil();
        out.push_str(&format!(
            "{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}",
            c.year, c.month, c.day, sep, c.hour, c.minute, c.second
        ));
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            out.push('.');
            out.push_str(frac.trim_end_matches('0'));
        }
    }

    /// `Format(time.RFC3339Nano)`.
    pub fn rfc3339_nano(&self) -> String {
        let mut out = String::with_capacity(35);
        self.write_date_time(&mut out, 'T');
        self.write_offset(&mut out, true, true);
        out
    }
}

/// Go's `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
impl fmt::Display for GoTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(40);
        self.write_date_time(&mut out, ' ');
        out.push(' ');
        self.write_offset(&mut out, false, false);
        out.push(' ');
        if self.zone.is_empty() {
            self.write_offset(&mut out, false, false);
        } else {
            out.push_str(&self.zone);
        }
        f.write_str(&out)
    }
}

/// Go's `getnum(s, false)`: one or two digits.
fn getnum(s: &[u8]) -> Option<(u32, &[u8])> {
    let d0 = *s.first().filter(|c| c.is_ascii_digit())?;
    match s.get(1).filter(|c| c.is_ascii_digit()) {
        Some(d1) => Some(((d0 - b'0') as u32 * 10 + (d1 - b'0') as u32, &s[2..])),
        None => Some(((d0 - b'0') as u32, &s[1..])),
    }
}

/// What follows the date in one of the YAML timestamp layouts.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    /// `2006-1-2T15:4:5.999999999Z07:00` (`upper`) or with a lower-case `t`.
    Zoned(u8),
    /// `2006-1-2 15:4:5.999999999`
    SpaceNoZone,
    /// `2006-1-2`
    DateOnly,
}

fn parse_layout(s: &[u8], layout: Layout) -> Option<GoTime> {
    if s.len() < 4 || !s[..4].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let year: i64 = std::str::from_utf8(&s[..4]).ok()?.parse().ok()?;
    let rest = s[4..].strip_prefix(b"-")?;
    let (month, rest) = getnum(rest)?;
    let rest = rest.strip_prefix(b"-")?;
    let (day, mut rest) = getnum(rest)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut civil = Civil {
        year,
        month,
        day,
        hour: 0,
        minute: 0,
        second: 0,
    };
    let mut nanos = 0u32;
    let mut offset: Option<i32> = None;
    if layout != Layout::DateOnly {
        let sep = match layout {
            Layout::Zoned(c) => c,
            _ => b' ',
        };
        rest = rest.strip_prefix(&[sep][..])?;
        let (h, r) = getnum(rest)?;
        let r = r.strip_prefix(b":")?;
        let (mi, r) = getnum(r)?;
        let r = r.strip_prefix(b":")?;
        let (se, mut r) = getnum(r)?;
        if h >= 24 || mi >= 60 || se >= 60 {
            return None;
        }
        civil.hour = h;
        civil.minute = mi;
        civil.second = se;
        if r.len() >= 2 && (r[0] == b'.' || r[0] == b',') && r[1].is_ascii_digit() {
            let mut i = 1;
            while i < r.len() && r[i].is_ascii_digit() {
                i += 1;
            }
            let digits = &r[1..i];
            let mut n: u32 = 0;
            for k in 0..9 {
                n = n * 10 + digits.get(k).map_or(0, |d| (d - b'0') as u32);
            }
            nanos = n;
            r = &r[i..];
        }
        if let Layout::Zoned(_) = layout {
            if let Some(after) = r.strip_prefix(b"Z") {
                r = after;
                offset = Some(0);
            } else {
                if r.len() < 6 || r[3] != b':' || !(r[0] == b'+' || r[0] == b'-') {
                    return None;
                }
                let two = |b: &[u8]| -> Option<i32> {
                    if b.len() == 2 && b.iter().all(u8::is_ascii_digit) {
                        Some(((b[0] - b'0') * 10 + (b[1] - b'0')) as i32)
                    } else {
                        None
                    }
                };
                let hh = two(&r[1..3])?;
                let mm = two(&r[4..6])?;
                if hh > 24 || mm > 60 {
                    return None;
                }
                let off = (hh * 3600 + mm * 60) * if r[0] == b'-' { -1 } else { 1 };
                offset = Some(off);
                r = &r[6..];
            }
        }
        rest = r;
    }
    if !rest.is_empty() {
        return None;
    }
    let mut t = GoTime::from_civil_utc(civil, nanos);
    if let Some(off) = offset {
        t.unix -= off as i64;
        t.offset = off;
        // Go keeps the local zone (UTC here) when the offset matches it, else an unnamed zone.
        t.zone = if off == 0 {
            "UTC".into()
        } else {
            String::new()
        };
    }
    Some(t)
}

/// The timestamp rule shared by yaml.v2 and yaml.v3: `YYYY-` then one of the layouts
/// `2006-1-2T15:4:5.999999999Z07:00`, `…t…`, `2006-1-2 15:4:5.999999999`, `2006-1-2`.
pub fn parse_yaml_timestamp(s: &str) -> Option<GoTime> {
    let b = s.as_bytes();
    let i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if i != 4 || i == b.len() || b[i] != b'-' {
        return None;
    }
    [
        Layout::Zoned(b'T'),
        Layout::Zoned(b't'),
        Layout::SpaceNoZone,
        Layout::DateOnly,
    ]
    .into_iter()
    .find_map(|l| parse_layout(b, l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_timestamps() {
        let t = parse_yaml_timestamp("2001-12-14T21:59:43.1Z").unwrap();
        assert_eq!(t.rfc3339_nano(), "2001-12-14T21:59:43.1Z");
        assert_eq!(t.to_string(), "2001-12-14 21:59:43.1 +0000 UTC");
        let t = parse_yaml_timestamp("2001-12-14T21:59:43-05:00").unwrap();
        assert_eq!(t.rfc3339_nano(), "2001-12-14T21:59:43-05:00");
        assert_eq!(t.to_string(), "2001-12-14 21:59:43 -0500 -0500");
        assert_eq!(
            parse_yaml_timestamp("2001-12-14").unwrap().rfc3339_nano(),
            "2001-12-14T00:00:00Z"
        );
        assert_eq!(
            parse_yaml_timestamp("2001-1-4 1:2:3")
                .unwrap()
                .rfc3339_nano(),
            "2001-01-04T01:02:03Z"
        );
        assert!(parse_yaml_timestamp("2001-02-30").is_none());
        assert!(parse_yaml_timestamp("2001-12-14 21:59:43.10 -5").is_none());
        assert!(parse_yaml_timestamp("12001-12-14").is_none());
    }

    #[test]
    fn civil_roundtrip() {
        for d in [-800000i64, -1, 0, 1, 11000, 2932896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }
}

capstan_source::message_error!(
    /// Why Go's `time.ParseDuration` refused a duration (its text).
    DurationError
);

/// Go's `time.ParseDuration`, in nanoseconds.
pub fn parse_duration(s: &str) -> Result<i64, DurationError> {
    let orig = s;
    let invalid = || {
        DurationError(format!(
            "time: invalid duration {}",
            crate::quote::go_quote(orig)
        ))
    };
    let mut s = s;
    let neg = s.starts_with('-');
    if s.starts_with('-') || s.starts_with('+') {
        s = &s[1..];
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: f64 = 0.0;
    let mut exact: u128 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(invalid());
        }
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let int_part: u128 = s[..int_len].parse().unwrap_or(0);
        let mut rest = &s[int_len..];
        let mut frac = String::new();
        if let Some(r) = rest.strip_prefix('.') {
            let n = r.bytes().take_while(|c| c.is_ascii_digit()).count();
            frac = r[..n].to_string();
            rest = &r[n..];
            if int_len == 0 && n == 0 {
                return Err(invalid());
            }
        }
        let unit_len = rest
            .bytes()
            .take_while(|c| !(*c == b'.' || c.is_ascii_digit()))
            .count();
        if unit_len == 0 {
            return Err(format!(
                "time: missing unit in duration {}",
                crate::quote::go_quote(orig)
            )
            .into());
        }
        let unit = &rest[..unit_len];
        let scale: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    crate::quote::go_quote(unit),
                    crate::quote::go_quote(orig)
                )
                .into())
            }
        };
        exact += int_part * scale;
        if !frac.is_empty() {
            let f: f64 = format!("0.{frac}").parse().unwrap_or(0.0);
            total += f * scale as f64;
        }
        if exact > i64::MAX as u128 {
            return Err(invalid());
        }
        s = &rest[unit_len..];
    }
    let v = exact as i64 + total as i64;
    Ok(if neg { -v } else { v })
}

/// Go's `Duration.String()`: `1h2m3.5s`, `1.5ms`, `0s`.
pub fn format_duration(d: i64) -> String {
    let neg = d < 0;
    let mut u = d.unsigned_abs();
    let frac = |u: u64, prec: u32| -> (String, u64) {
        let mut digits = String::new();
        let mut v = u;
        let mut printed = false;
        for _ in 0..prec {
            let digit = v % 10;
            printed = printed || digit != 0;
            if printed {
                digits.insert(0, char::from(b'0' + digit as u8));
            }
            v /= 10;
        }
        if printed {
            digits.insert(0, '.');
        }
        (digits, v)
    };
    let mut out;
    if u < 1_000_000_000 {
        let (unit, prec) = match u {
            0 => return "0s".into(),
            u if u < 1_000 => ("ns", 0),
            u if u < 1_000_000 => ("µs", 3),
            _ => ("ms", 6),
        };
        let (f, whole) = frac(u, prec);
        out = format!("{whole}{f}{unit}");
    } else {
        let (f, secs) = frac(u, 9);
        u = secs;
        out = format!("{}{f}s", u % 60);
        u /= 60;
        if u > 0 {
            out = format!("{}m{out}", u % 60);
            u /= 60;
            if u > 0 {
                out = format!("{u}h{out}");
            }
        }
    }
    if neg {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod duration_tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_duration("1h30m").unwrap(), 5_400_000_000_000);
        assert_eq!(parse_duration("1.5s").unwrap(), 1_500_000_000);
        assert!(parse_duration("bad").is_err());
        assert_eq!(format_duration(3_723_500_000_000), "1h2m3.5s");
        assert_eq!(format_duration(1_500_000), "1.5ms");
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(-60_000_000_000), "-1m0s");
        assert_eq!(format_duration(3_600_000_000_000), "1h0m0s");
    }
}
