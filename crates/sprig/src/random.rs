//! Random functions (`randAlphaNum`, `randAlpha`, `randNumeric`, `randAscii`, `randInt`,
//! `shuffle`). Their output is random in Go too; only its shape is fixed.

use crate::convert::{s, to_i64};
use crate::reg;
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::Value;
use std::sync::atomic::{AtomicU64, Ordering};

static STATE: AtomicU64 = AtomicU64::new(0);

/// A splitmix64 stream seeded from the clock (not for secrets).
fn next() -> u64 {
    let mut s = STATE.load(Ordering::Relaxed);
    if s == 0 {
        s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1;
    }
    s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    STATE.store(s, Ordering::Relaxed);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn from_set(n: i64, set: &[u8]) -> String {
    (0..n.max(0))
        .map(|_| set[(next() % set.len() as u64) as usize] as char)
        .collect()
}

pub fn register(m: &mut FuncMap) {
    const ALPHA: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const NUM: &[u8] = b"0123456789";
    reg(m, "randAlphaNum", &[Ty::Int], |a| {
        Ok(Value::from(from_set(
            to_i64(&a[0]),
            b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        )))
    });
    reg(m, "randAlpha", &[Ty::Int], |a| {
        Ok(Value::from(from_set(to_i64(&a[0]), ALPHA)))
    });
    reg(m, "randNumeric", &[Ty::Int], |a| {
        Ok(Value::from(from_set(to_i64(&a[0]), NUM)))
    });
    reg(m, "randAscii", &[Ty::Int], |a| {
        let set: Vec<u8> = (b' '..=b'~').collect();
        Ok(Value::from(from_set(to_i64(&a[0]), &set)))
    });
    reg(m, "randInt", &[Ty::Int, Ty::Int], |a| {
        let (lo, hi) = (to_i64(&a[0]), to_i64(&a[1]));
        if hi <= lo {
            return Err("invalid argument to Intn".into());
        }
        Ok(Value::Int(lo + (next() % (hi - lo) as u64) as i64))
    });
    reg(m, "shuffle", &[Ty::String], |a| {
        let mut chars: Vec<char> = s(&a[0]).chars().collect();
        for i in (1..chars.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            chars.swap(i, j);
        }
        Ok(Value::from(chars.into_iter().collect::<String>()))
    });
}
