//! Date and duration functions: `date`, `dateInZone`, `htmlDate`, `htmlDateInZone`,
//! `toDate`, `mustToDate`, `dateModify`, `mustDateModify`, `now`, `ago`, `unixEpoch`,
//! `duration`, `durationRound`, with Go's layouts and the system's zone files.

use crate::convert::s;
use crate::reg;
use capstan_gocompat::time::{format_duration, parse_duration, GoTime};
use capstan_gocompat::timefmt::{format, parse, zero_time, Zone};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::Value;
use std::sync::Arc;

fn now() -> GoTime {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Zone::load("Local")
        .unwrap_or_else(Zone::utc)
        .at(d.as_secs() as i64, d.subsec_nanos())
}

/// The time sprig's date functions take: a time, Unix seconds as an int, else now.
fn time_arg(v: &Value) -> GoTime {
    match v {
        Value::Time(t) => (**t).clone(),
        Value::Int(i) | Value::Int64(i) => GoTime {
            unix: *i,
            nanos: 0,
            offset: 0,
            zone: "UTC".into(),
        },
        _ => now(),
    }
}

fn in_zone(t: &GoTime, zone: &str) -> GoTime {
    let z = Zone::load(zone).unwrap_or_else(Zone::utc);
    z.at(t.unix, t.nanos)
}

fn date_in_zone(layout: &str, date: &Value, zone: &str) -> Value {
    Value::from(format(&in_zone(&time_arg(date), zone), layout))
}

fn time_value(t: GoTime) -> Value {
    Value::Time(Arc::new(t))
}

fn local() -> Zone {
    Zone::load("Local").unwrap_or_else(Zone::utc)
}

pub fn register(m: &mut FuncMap) {
    reg(m, "date", &[Ty::String, Ty::Any], |a| {
        Ok(date_in_zone(&s(&a[0]), &a[1], "Local"))
    });
    reg(m, "dateInZone", &[Ty::String, Ty::Any, Ty::String], |a| {
        Ok(date_in_zone(&s(&a[0]), &a[1], &s(&a[2])))
    });
    reg(m, "htmlDate", &[Ty::Any], |a| {
        Ok(date_in_zone("2006-01-02", &a[0], "Local"))
    });
    reg(m, "htmlDateInZone", &[Ty::Any, Ty::String], |a| {
        Ok(date_in_zone("2006-01-02", &a[0], &s(&a[1])))
    });
    reg(m, "toDate", &[Ty::String, Ty::String], |a| {
        Ok(time_value(
            parse(&s(&a[0]), &s(&a[1]), &local()).unwrap_or_else(|_| zero_time()),
        ))
    });
    reg(m, "mustToDate", &[Ty::String, Ty::String], |a| {
        Ok(parse(&s(&a[0]), &s(&a[1]), &local()).map(time_value)?)
    });
    for name in ["dateModify", "date_modify"] {
        reg(m, name, &[Ty::String, Ty::Any], |a| {
            let t = time_arg(&a[1]);
            Ok(match parse_duration(&s(&a[0])) {
                Ok(d) => time_value(add(&t, d)),
                Err(_) => time_value(t),
            })
        });
    }
    reg(m, "mustDateModify", &[Ty::String, Ty::Any], |a| {
        let t = time_arg(&a[1]);
        Ok(parse_duration(&s(&a[0])).map(|d| time_value(add(&t, d)))?)
    });
    reg(m, "now", &[], |_| Ok(time_value(now())));
    reg(m, "ago", &[Ty::Any], |a| {
        let t = time_arg(&a[0]);
        let n = now();
        let nanos = (n.unix - t.unix) as i128 * 1_000_000_000 + n.nanos as i128 - t.nanos as i128;
        let rounded = ((nanos + 500_000_000) / 1_000_000_000) * 1_000_000_000;
        Ok(Value::from(format_duration(rounded as i64)))
    });
    reg(m, "unixEpoch", &[Ty::Any], |a| {
        Ok(Value::from(time_arg(&a[0]).unix.to_string()))
    });
    reg(m, "duration", &[Ty::Any], |a| {
        let n: i64 = match &a[0] {
            Value::String(x) => capstan_gocompat::strconv::parse_int(x, 10, 64).unwrap_or(0),
            Value::Int64(i) => *i,
            _ => 0,
        };
        Ok(Value::from(format_duration(
            n.saturating_mul(1_000_000_000),
        )))
    });
    reg(m, "durationRound", &[Ty::Any], |a| {
        let d: i64 = match &a[0] {
            Value::String(x) => parse_duration(x).unwrap_or(0),
            Value::Int64(i) => *i,
            Value::Time(t) => {
                let n = now();
                (n.unix - t.unix) * 1_000_000_000
            }
            _ => 0,
        };
        let u = d.unsigned_abs();
        const SEC: u64 = 1_000_000_000;
        let (year, month, day, hour, minute) = (
            SEC * 3600 * 24 * 365,
            SEC * 3600 * 24 * 30,
            SEC * 3600 * 24,
            SEC * 3600,
            SEC * 60,
        );
        let out = if u > year {
            format!("{}y", u / year)
        } else if u > month {
            format!("{}mo", u / month)
        } else if u > day {
            format!("{}d", u / day)
        } else if u > hour {
            format!("{}h", u / hour)
        } else if u > minute {
            format!("{}m", u / minute)
        } else if u > SEC {
            format!("{}s", u / SEC)
        } else {
            "0s".into()
        };
        Ok(Value::from(out))
    });
}

fn add(t: &GoTime, d: i64) -> GoTime {
    let total = t.nanos as i64 + d.rem_euclid(1_000_000_000);
    let unix = t.unix + d.div_euclid(1_000_000_000) + total / 1_000_000_000;
    let nanos = (total % 1_000_000_000) as u32;
    // Keep the zone; recompute the offset for zones with transitions.
    match Zone::load(if t.zone == "UTC" || t.zone.is_empty() {
        "UTC"
    } else {
        "Local"
    }) {
        Some(z) if t.zone == "UTC" => z.at(unix, nanos),
        _ => GoTime {
            unix,
            nanos,
            offset: t.offset,
            zone: t.zone.clone(),
        },
    }
}
