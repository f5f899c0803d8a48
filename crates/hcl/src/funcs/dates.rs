//! cty's date functions: `formatdate` and `timeadd` over RFC 3339 timestamps.

use crate::funcs::base::{st, FResult, Fail};
use crate::value::Value;

fn parse_rfc3339(
    s: &str,
) -> Result<capstan_gocompat::time::GoTime, capstan_gocompat::timefmt::TimeParseError> {
    let zone = capstan_gocompat::timefmt::Zone::utc();
    Ok(
        capstan_gocompat::timefmt::parse("2006-01-02T15:04:05Z07:00", s, &zone)
            .map_err(|_| format!("not a valid RFC3339 timestamp: cannot use {s:?} as year"))?,
    )
}

pub(crate) fn formatdate(a: &[Value]) -> FResult {
    let spec = st(&a[0]);
    let t = parse_rfc3339(&st(&a[1])).map_err(|e| Fail::Arg(1, e.0))?;
    let c = t.civil();
    use capstan_gocompat::timefmt::{DAYS, MONTHS};
    let days = capstan_gocompat::time::days_from_civil(c.year, c.month, c.day);
    let weekday = DAYS[((days % 7 + 11) % 7) as usize];
    let chars: Vec<char> = spec.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let off = t.offset;
    let offset = |colon: bool| {
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.unsigned_abs();
        if colon {
            format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
        } else {
            format!("{sign}{:02}{:02}", a / 3600, a / 60 % 60)
        }
    };
    while i < chars.len() {
        let c0 = chars[i];
        if c0 == '\'' {
            let mut j = i + 1;
            if chars.get(j) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            while j < chars.len() && chars[j] != '\'' {
                out.push(chars[j]);
                j += 1;
            }
            i = j + 1;
            continue;
        }
        if !c0.is_ascii_alphabetic() {
            out.push(c0);
            i += 1;
            continue;
        }
        let mut n = 0;
        while i + n < chars.len() && chars[i + n] == c0 {
            n += 1;
        }
        let h12 = if c.hour % 12 == 0 { 12 } else { c.hour % 12 };
        let piece = match (c0, n) {
            ('Y', 4) => format!("{:04}", c.year),
            ('Y', 2) => format!("{:02}", c.year % 100),
            ('M', 4) => MONTHS[c.month as usize - 1].to_string(),
            ('M', 3) => MONTHS[c.month as usize - 1][..3].to_string(),
            ('M', 2) => format!("{:02}", c.month),
            ('M', 1) => c.month.to_string(),
            ('D', 2) => format!("{:02}", c.day),
            ('D', 1) => c.day.to_string(),
            ('E', 4) => weekday.to_string(),
            ('E', 3) => weekday[..3].to_string(),
            ('h', 2) => format!("{:02}", c.hour),
            ('h', 1) => c.hour.to_string(),
            ('H', 2) => format!("{:02}", h12),
            ('H', 1) => h12.to_string(),
            ('A', 2) => if c.hour < 12 { "AM" } else { "PM" }.to_string(),
            ('a', 2) => if c.hour < 12 { "am" } else { "pm" }.to_string(),
            ('m', 2) => format!("{:02}", c.minute),
            ('m', 1) => c.minute.to_string(),
            ('s', 2) => format!("{:02}", c.second),
            ('s', 1) => c.second.to_string(),
            ('Z', 5) => offset(true),
            ('Z', 4) => offset(false),
            ('Z', 3) => {
                if off == 0 {
                    "UTC".into()
                } else {
                    offset(false)
                }
            }
            ('Z', 1) => {
                if off == 0 {
                    "Z".into()
                } else {
                    offset(true)
                }
            }
            _ => {
                return Err(Fail::Arg(
                    0,
                    format!(
                        "invalid date format verb {:?}: unsupported format",
                        chars[i..i + n].iter().collect::<String>()
                    ),
                ))
            }
        };
        out.push_str(&piece);
        i += n;
    }
    Ok(Value::string(out))
}

pub(crate) fn timeadd(a: &[Value]) -> FResult {
    let t = parse_rfc3339(&st(&a[0])).map_err(|e| Fail::Arg(0, e.0))?;
    let d = capstan_gocompat::time::parse_duration(&st(&a[1])).map_err(|e| Fail::Arg(1, e.0))?;
    let total = t.nanos as i128 + d as i128;
    let secs = total.div_euclid(1_000_000_000) as i64;
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    let nt = capstan_gocompat::time::GoTime {
        unix: t.unix + secs,
        nanos,
        offset: t.offset,
        zone: t.zone.clone(),
    };
    Ok(Value::string(capstan_gocompat::timefmt::format(
        &nt,
        "2006-01-02T15:04:05Z07:00",
    )))
}
