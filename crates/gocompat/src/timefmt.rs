//! Go's time layouts (`Mon Jan 2 15:04:05 MST 2006`): `Time.Format` and
//! `time.ParseInLocation`, plus zones read from the system's TZif files the way
//! `time.LoadLocation` does.

use crate::time::{days_in_month, Civil, GoTime};

/// Go's month names (`time.Month.String`).
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Go's weekday names (`time.Weekday.String`).
pub const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    Tz,
    /// Numeric zone: `iso` (Z for UTC), colons, seconds, hours only.
    NumTz {
        iso: bool,
        colon: bool,
        secs: bool,
        hours_only: bool,
    },
    /// Fractional seconds: digit count, trailing zeros trimmed (`.999`), separator.
    Frac {
        n: usize,
        trim: bool,
        sep: u8,
    },
}

fn lower_start(s: &[u8]) -> bool {
    s.first().is_some_and(|c| c.is_ascii_lowercase())
}

/// Go's `nextStdChunk`: literal prefix, element, rest.
fn next_chunk(layout: &str) -> (&str, Option<Std>, &str) {
    let b = layout.as_bytes();
    let n = b.len();
    let at = |i: usize, s: &str| layout.get(i..).is_some_and(|r| r.starts_with(s));
    for i in 0..n {
        let r = |len: usize, std: Std| (&layout[..i], Some(std), &layout[i + len..]);
        match b[i] {
            b'J' if at(i, "Jan") => {
                if at(i, "January") {
                    return r(7, Std::LongMonth);
                }
                if !lower_start(&b[i + 3..]) {
                    return r(3, Std::Month);
                }
            }
            b'M' => {
                if at(i, "Mon") {
                    if at(i, "Monday") {
                        return r(6, Std::LongWeekDay);
                    }
                    if !lower_start(&b[i + 3..]) {
                        return r(3, Std::WeekDay);
                    }
                }
                if at(i, "MST") {
                    return r(3, Std::Tz);
                }
            }
            b'0' => {
                if i + 1 < n && (b'1'..=b'6').contains(&b[i + 1]) {
                    let std = [
                        Std::ZeroMonth,
                        Std::ZeroDay,
                        Std::ZeroHour12,
                        Std::ZeroMinute,
                        Std::ZeroSecond,
                        Std::Year,
                    ][(b[i + 1] - b'1') as usize];
                    return r(2, std);
                }
                if at(i, "002") {
                    return r(3, Std::ZeroYearDay);
                }
            }
            b'1' => {
                if at(i, "15") {
                    return r(2, Std::Hour);
                }
                return r(1, Std::NumMonth);
            }
            b'2' => {
                if at(i, "2006") {
                    return r(4, Std::LongYear);
                }
                return r(1, Std::Day);
            }
            b'_' => {
                if at(i, "_2") {
                    if at(i, "_2006") {
                        return (&layout[..i + 1], Some(Std::LongYear), &layout[i + 5..]);
                    }
                    return r(2, Std::UnderDay);
                }
                if at(i, "__2") {
                    return r(3, Std::UnderYearDay);
                }
            }
            b'3' => return r(1, Std::Hour12),
            b'4' => return r(1, Std::Minute),
            b'5' => return r(1, Std::Second),
            b'P' if at(i, "PM") => return r(2, Std::PM),
            b'p' if at(i, "pm") => return r(2, Std::Pm),
            b'-' | b'Z' => {
                let iso = b[i] == b'Z';
                for (pat, colon, secs, hours_only) in [
                    ("07:00:00", true, true, false),
                    ("070000", false, true, false),
                    ("07:00", true, false, false),
                    ("0700", false, false, false),
                    ("07", false, false, true),
                ] {
                    if at(i + 1, pat) {
                        return r(
                            1 + pat.len(),
                            Std::NumTz {
                                iso,
                                colon,
                                secs,
                                hours_only,
                            },
                        );
                    }
                }
            }
            b'.' | b',' if i + 1 < n && (b[i + 1] == b'0' || b[i + 1] == b'9') => {
                let ch = b[i + 1];
                let mut j = i + 1;
                while j < n && b[j] == ch {
                    j += 1;
                }
                if !(j < n && b[j].is_ascii_digit()) {
                    return (
                        &layout[..i],
                        Some(Std::Frac {
                            n: j - i - 1,
                            trim: ch == b'9',
                            sep: b[i],
                        }),
                        &layout[j..],
                    );
                }
            }
            _ => {}
        }
    }
    (layout, None, "")
}

fn weekday(days_since_epoch: i64) -> usize {
    (days_since_epoch + 4).rem_euclid(7) as usize
}

/// `Time.Format(layout)`.
pub fn format(t: &GoTime, layout: &str) -> String {
    let c = t.civil();
    let local = t.unix + t.offset as i64;
    let days = local.div_euclid(86400);
    let yday = days - crate::time::days_from_civil(c.year, 1, 1) + 1;
    let mut out = String::new();
    let mut rest = layout;
    loop {
        let (prefix, std, suffix) = next_chunk(rest);
        out.push_str(prefix);
        let Some(std) = std else { break };
        rest = suffix;
        let hour12 = if c.hour.is_multiple_of(12) {
            12
        } else {
            c.hour % 12
        };
        match std {
            Std::LongMonth => out.push_str(MONTHS[c.month as usize - 1]),
            Std::Month => out.push_str(&MONTHS[c.month as usize - 1][..3]),
            Std::NumMonth => out.push_str(&c.month.to_string()),
            Std::ZeroMonth => out.push_str(&format!("{:02}", c.month)),
            Std::LongWeekDay => out.push_str(DAYS[weekday(days)]),
            Std::WeekDay => out.push_str(&DAYS[weekday(days)][..3]),
            Std::Day => out.push_str(&c.day.to_string()),
            Std::UnderDay => out.push_str(&format!("{:>2}", c.day)),
            Std::ZeroDay => out.push_str(&format!("{:02}", c.day)),
            Std::UnderYearDay => out.push_str(&format!("{:>3}", yday)),
            Std::ZeroYearDay => out.push_str(&format!("{:03}", yday)),
            Std::Hour => out.push_str(&format!("{:02}", c.hour)),
            Std::Hour12 => out.push_str(&hour12.to_string()),
            Std::ZeroHour12 => out.push_str(&format!("{:02}", hour12)),
            Std::Minute => out.push_str(&c.minute.to_string()),
            Std::ZeroMinute => out.push_str(&format!("{:02}", c.minute)),
            Std::Second => out.push_str(&c.second.to_string()),
            Std::ZeroSecond => out.push_str(&format!("{:02}", c.second)),
            Std::LongYear => out.push_str(&format!("{:04}", c.year)),
            Std::Year => out.push_str(&format!("{:02}", c.year.rem_euclid(100))),
            Std::PM => out.push_str(if c.hour >= 12 { "PM" } else { "AM" }),
            Std::Pm => out.push_str(if c.hour >= 12 { "pm" } else { "am" }),
            Std::Tz => {
                if !t.zone.is_empty() {
                    out.push_str(&t.zone);
                } else {
                    let m = t.offset / 60;
                    out.push(if m < 0 { '-' } else { '+' });
                    let m = m.abs();
                    out.push_str(&format!("{:02}", m / 60));
                    if m % 60 != 0 {
                        out.push_str(&format!("{:02}", m % 60));
                    }
                }
            }
            Std::NumTz {
                iso,
                colon,
                secs,
                hours_only,
            } => {
                if iso && t.offset == 0 {
                    out.push('Z');
                    continue;
                }
                let z = t.offset;
                out.push(if z < 0 { '-' } else { '+' });
                let a = z.unsigned_abs();
                out.push_str(&format!("{:02}", a / 3600));
                if !hours_only {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", a / 60 % 60));
                }
                if secs {
                    if colon {
                        out.push(':');
                    }
                    out.push_str(&format!("{:02}", a % 60));
                }
            }
            Std::Frac { n, trim, sep } => {
                let digits = format!("{:09}", t.nanos);
                let mut d = digits[..n.min(9)].to_string();
                if trim {
                    while d.ends_with('0') {
                        d.pop();
                    }
                    if d.is_empty() {
                        continue;
                    }
                }
                out.push(sep as char);
                out.push_str(&d);
            }
        }
    }
    out
}

/// A zone: fixed offset, or transitions from a TZif file.
#[derive(Clone, Debug)]
pub struct Zone {
    /// The zone's name as `MST` prints it.
    pub name: String,
    transitions: Vec<(i64, usize)>,
    types: Vec<(i32, String)>,
}

impl Zone {
    /// Go's `time.UTC`.
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            transitions: Vec::new(),
            types: vec![(0, "UTC".into())],
        }
    }

    /// Go's `time.LoadLocation`: "UTC", "Local" (UTC here, as `TZ=UTC`), or a TZif file
    /// under `/usr/share/zoneinfo`.
    pub fn load(name: &str) -> Option<Zone> {
        match name {
            "" | "UTC" => return Some(Zone::utc()),
            "Local" => {
                return Some(match std::env::var("TZ") {
                    Ok(tz) if !tz.is_empty() && tz != "UTC" => {
                        Zone::load(&tz).unwrap_or_else(Zone::utc)
                    }
                    _ => Zone::utc(),
                })
            }
            _ => {}
        }
        if name.contains("..") || name.starts_with('/') {
            return None;
        }
        let data = std::fs::read(format!("/usr/share/zoneinfo/{name}")).ok()?;
        parse_tzif(name, &data)
    }

    /// The offset and abbreviation in force at a Unix time.
    pub fn lookup(&self, unix: i64) -> (i32, String) {
        if self.transitions.is_empty() {
            return self.types.first().cloned().unwrap_or((0, "UTC".into()));
        }
        let idx = self.transitions.partition_point(|(t, _)| *t <= unix);
        let ty = if idx == 0 {
            // Before the first transition: the first standard type.
            0
        } else {
            self.transitions[idx - 1].1
        };
        self.types.get(ty).cloned().unwrap_or((0, "UTC".into()))
    }

    /// The time `unix` seen in this zone.
    pub fn at(&self, unix: i64, nanos: u32) -> GoTime {
        let (offset, abbr) = self.lookup(unix);
        GoTime {
            unix,
            nanos,
            offset,
            zone: abbr,
        }
    }
}

fn parse_tzif(name: &str, b: &[u8]) -> Option<Zone> {
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    let header = |at: usize| -> Option<[usize; 6]> {
        let mut v = [0usize; 6];
        for (k, slot) in v.iter_mut().enumerate() {
            *slot = be32(at + 20 + 4 * k)? as usize;
        }
        Some(v)
    };
    let version = *b.get(4)?;
    let h1 = header(0)?;
    let [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt] = h1;
    let v1_len = 44 + timecnt * 5 + typecnt * 6 + charcnt + leapcnt * 8 + isstdcnt + isutcnt;
    let (base, tsize, h) = if version >= b'2' {
        (v1_len, 8usize, header(v1_len)?)
    } else {
        (0, 4usize, h1)
    };
    let [_, _, leapcnt, timecnt, typecnt, charcnt] = h;
    let mut p = base + 44;
    let mut times = Vec::with_capacity(timecnt);
    for k in 0..timecnt {
        let at = p + k * tsize;
        let t = if tsize == 8 {
            i64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?)
        } else {
            i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?) as i64
        };
        times.push(t);
    }
    p += timecnt * tsize;
    let idx: Vec<usize> = b.get(p..p + timecnt)?.iter().map(|&x| x as usize).collect();
    p += timecnt;
    let mut raw_types = Vec::with_capacity(typecnt);
    for k in 0..typecnt {
        let at = p + k * 6;
        let off = i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?);
        let abbr_idx = *b.get(at + 5)? as usize;
        raw_types.push((off, abbr_idx));
    }
    p += typecnt * 6;
    let chars = b.get(p..p + charcnt)?;
    let _ = leapcnt;
    let types = raw_types
        .into_iter()
        .map(|(off, ai)| {
            let end = chars[ai.min(chars.len())..]
                .iter()
                .position(|&c| c == 0)
                .map_or(chars.len(), |e| ai + e);
            (
                off,
                String::from_utf8_lossy(&chars[ai.min(chars.len())..end]).into_owned(),
            )
        })
        .collect();
    Some(Zone {
        name: name.to_string(),
        transitions: times.into_iter().zip(idx).collect(),
        types,
    })
}

capstan_source::message_error!(
    /// Go's `*time.ParseError` (its text).
    TimeParseError
);

/// `time.ParseInLocation(layout, value, zone)`, with Go's error texts.
pub fn parse(layout: &str, value: &str, zone: &Zone) -> Result<GoTime, TimeParseError> {
    let orig_value = value;
    let err = |elem: &str, val: &str, msg: &str| -> TimeParseError {
        TimeParseError(format!(
            "parsing time {} as {}: cannot parse {} as {}{}",
            crate::quote::go_quote(orig_value),
            crate::quote::go_quote(layout),
            crate::quote::go_quote(val),
            crate::quote::go_quote(elem),
            msg
        ))
    };
    let (mut year, mut month, mut day, mut hour, mut min, mut sec, mut nanos) =
        (1i64, 1u32, 1u32, 0u32, 0u32, 0u32, 0u32);
    let mut pm: Option<bool> = None;
    let mut offset: Option<i32> = None;
    let mut rest_layout = layout;
    let mut v = value;
    let num = |v: &str, max_digits: usize, fixed: bool| -> Option<(u32, usize)> {
        let d = v
            .bytes()
            .take(max_digits)
            .take_while(u8::is_ascii_digit)
            .count();
        if d == 0 || (fixed && d < max_digits) {
            return None;
        }
        Some((v[..d].parse().ok()?, d))
    };
    let field = |v: &str,
                 fixed: bool,
                 max: u32,
                 label: &str,
                 elem: &str|
     -> Result<(u32, usize), TimeParseError> {
        let bad = || err(elem, v, "");
        let (n, d) = num(v, 2, fixed).ok_or_else(bad)?;
        if n > max {
            return Err(format!(
                "parsing time {}: {label} out of range",
                crate::quote::go_quote(orig_value)
            )
            .into());
        }
        Ok((n, d))
    };
    loop {
        let (prefix, std, suffix) = next_chunk(rest_layout);
        let stdstr = &rest_layout[prefix.len()..rest_layout.len() - suffix.len()];
        // The literal prefix must match.
        let pfx = prefix.trim_start();
        let vt = if prefix.len() != pfx.len() {
            v.trim_start()
        } else {
            v
        };
        if !vt.starts_with(pfx) {
            return Err(err(prefix, v, ""));
        }
        v = &vt[pfx.len()..];
        let Some(std) = std else {
            if !v.is_empty() {
                return Err(format!(
                    "parsing time {}: extra text: {}",
                    crate::quote::go_quote(orig_value),
                    crate::quote::go_quote(v)
                )
                .into());
            }
            break;
        };
        rest_layout = suffix;
        let bad = |v: &str| err(stdstr, v, "");
        match std {
            Std::LongYear => {
                let (y, d) = num(v, 4, true).ok_or_else(|| bad(v))?;
                year = y as i64;
                v = &v[d..];
            }
            Std::Year => {
                let (y, d) = num(v, 2, true).ok_or_else(|| bad(v))?;
                year = if y >= 69 {
                    1900 + y as i64
                } else {
                    2000 + y as i64
                };
                v = &v[d..];
            }
            Std::LongMonth | Std::Month => {
                let found = MONTHS.iter().enumerate().find(|(_, m)| {
                    let m = if std == Std::Month { &m[..3] } else { m };
                    v.len() >= m.len() && v[..m.len()].eq_ignore_ascii_case(m)
                });
                let (i, m) = found.ok_or_else(|| bad(v))?;
                month = i as u32 + 1;
                v = &v[if std == Std::Month { 3 } else { m.len() }..];
            }
            Std::LongWeekDay | Std::WeekDay => {
                let found = DAYS.iter().find(|d| {
                    let d = if std == Std::WeekDay { &d[..3] } else { d };
                    v.len() >= d.len() && v[..d.len()].eq_ignore_ascii_case(d)
                });
                let d = found.ok_or_else(|| bad(v))?;
                v = &v[if std == Std::WeekDay { 3 } else { d.len() }..];
            }
            Std::NumMonth | Std::ZeroMonth => {
                let (m, d) = num(v, 2, std == Std::ZeroMonth).ok_or_else(|| bad(v))?;
                if !(1..=12).contains(&m) {
                    return Err(format!(
                        "parsing time {}: month out of range",
                        crate::quote::go_quote(orig_value)
                    )
                    .into());
                }
                month = m;
                v = &v[d..];
            }
            Std::Day | Std::UnderDay | Std::ZeroDay => {
                if std == Std::UnderDay && v.starts_with(' ') {
                    v = &v[1..];
                }
                let (dd, d) = num(v, 2, std == Std::ZeroDay).ok_or_else(|| bad(v))?;
                day = dd;
                v = &v[d..];
            }
            Std::UnderYearDay | Std::ZeroYearDay => {
                let (_, d) = num(v.trim_start(), 3, false).ok_or_else(|| bad(v))?;
                v = &v.trim_start()[d..];
            }
            Std::Hour => {
                let (n, d) = field(v, false, 23, "hour", stdstr)?;
                hour = n;
                v = &v[d..];
            }
            Std::Hour12 | Std::ZeroHour12 => {
                let (n, d) = field(v, std == Std::ZeroHour12, 12, "hour", stdstr)?;
                hour = n;
                v = &v[d..];
            }
            Std::Minute | Std::ZeroMinute => {
                let (n, d) = field(v, std == Std::ZeroMinute, 59, "minute", stdstr)?;
                min = n;
                v = &v[d..];
            }
            Std::Second | Std::ZeroSecond => {
                let (n, d) = field(v, std == Std::ZeroSecond, 59, "second", stdstr)?;
                sec = n;
                v = &v[d..];
                // A fraction the layout does not mention is still accepted.
                if v.len() >= 2
                    && (v.starts_with('.') || v.starts_with(','))
                    && v.as_bytes()[1].is_ascii_digit()
                    && !matches!(next_chunk(rest_layout).1, Some(Std::Frac { .. }))
                {
                    let n = v[1..].bytes().take_while(u8::is_ascii_digit).count();
                    nanos = frac_nanos(&v[1..1 + n]);
                    v = &v[1 + n..];
                }
            }
            Std::Frac { n, trim, .. } => {
                if trim {
                    if v.len() >= 2
                        && (v.starts_with('.') || v.starts_with(','))
                        && v.as_bytes()[1].is_ascii_digit()
                    {
                        let k = v[1..].bytes().take_while(u8::is_ascii_digit).count();
                        nanos = frac_nanos(&v[1..1 + k]);
                        v = &v[1 + k..];
                    }
                } else {
                    if v.len() < n + 1 || !v[1..=n].bytes().all(|c| c.is_ascii_digit()) {
                        return Err(bad(v));
                    }
                    nanos = frac_nanos(&v[1..=n]);
                    v = &v[n + 1..];
                }
            }
            Std::PM | Std::Pm => {
                let p = v.get(..2).ok_or_else(|| bad(v))?;
                pm = Some(match p {
                    "PM" | "pm" => true,
                    "AM" | "am" => false,
                    _ => return Err(bad(v)),
                });
                v = &v[2..];
            }
            Std::Tz => {
                if v.starts_with("UTC") {
                    offset = Some(0);
                    v = &v[3..];
                } else {
                    let k = v.bytes().take_while(|c| c.is_ascii_uppercase()).count();
                    if k < 3 {
                        return Err(bad(v));
                    }
                    offset = Some(0);
                    v = &v[k..];
                }
            }
            Std::NumTz {
                iso,
                colon,
                secs,
                hours_only,
            } => {
                if iso && v.starts_with('Z') {
                    offset = Some(0);
                    v = &v[1..];
                    continue;
                }
                let sign = match v.as_bytes().first() {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return Err(bad(v)),
                };
                let mut p = 1;
                let two = |s: &str, at: usize| -> Option<i32> {
                    s.get(at..at + 2)?
                        .parse()
                        .ok()
                        .filter(|_| s[at..at + 2].bytes().all(|c| c.is_ascii_digit()))
                };
                let hh = two(v, p).ok_or_else(|| bad(v))?;
                p += 2;
                let mut mm = 0;
                let mut ss = 0;
                if !hours_only {
                    if colon {
                        if v.as_bytes().get(p) != Some(&b':') {
                            return Err(bad(v));
                        }
                        p += 1;
                    }
                    mm = two(v, p).ok_or_else(|| bad(v))?;
                    p += 2;
                }
                if secs {
                    if colon {
                        p += 1;
                    }
                    ss = two(v, p).ok_or_else(|| bad(v))?;
                    p += 2;
                }
                offset = Some(sign * (hh * 3600 + mm * 60 + ss));
                v = &v[p..];
            }
        }
    }
    if let Some(is_pm) = pm {
        if is_pm && hour < 12 {
            hour += 12;
        } else if !is_pm && hour == 12 {
            hour = 0;
        }
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(format!(
            "parsing time {}: day out of range",
            crate::quote::go_quote(orig_value)
        )
        .into());
    }
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute: min,
        second: sec,
    };
    let utc_guess = GoTime::from_civil_utc(civil, nanos);
    Ok(match offset {
        Some(off) => {
            let unix = utc_guess.unix - off as i64;
            let (zoff, abbr) = zone.lookup(unix);
            if zoff == off {
                GoTime {
                    unix,
                    nanos,
                    offset: off,
                    zone: abbr,
                }
            } else {
                GoTime {
                    unix,
                    nanos,
                    offset: off,
                    zone: String::new(),
                }
            }
        }
        None => {
            // A local wall time in `zone`.
            let (off, _) = zone.lookup(utc_guess.unix);
            let unix = utc_guess.unix - off as i64;
            zone.at(unix, nanos)
        }
    })
}

fn frac_nanos(digits: &str) -> u32 {
    let mut n: u32 = 0;
    for k in 0..9 {
        n = n * 10 + digits.as_bytes().get(k).map_or(0, |d| (d - b'0') as u32);
    }
    n
}

/// The zero `time.Time` (`0001-01-01 00:00:00 +0000 UTC`).
pub fn zero_time() -> GoTime {
    GoTime::from_civil_utc(
        Civil {
            year: 1,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
        },
        0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_and_parse_like_go() {
        let z = Zone::utc();
        let t = parse("2006-01-02T15:04:05Z07:00", "2024-03-05T14:07:09Z", &z).unwrap();
        assert_eq!(
            format(&t, "Mon Jan 2 15:04:05 2006"),
            "Tue Mar 5 14:07:09 2024"
        );
        assert_eq!(format(&t, "02 Jan 06 15:04 MST"), "05 Mar 24 14:07 UTC");
        assert_eq!(format(&t, "3:04PM"), "2:07PM");
        assert_eq!(format(&t, "2006.01.02 .000"), "2024.03.05 .000");
        assert_eq!(format(&t, "Monday, January 2"), "Tuesday, March 5");
        assert!(parse("2006-01-02", "nope", &z).unwrap_err().0.starts_with(
            "parsing time \"nope\" as \"2006-01-02\": cannot parse \"nope\" as \"2006\""
        ));
    }
}
