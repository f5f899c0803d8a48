//! cty's numbers: Go `math/big.Float` values with a per-number precision (512 bits for
//! HCL literals and parsed strings, 64 for integers functions return, 53 for float64
//! results), rounded to nearest-even after every operation, and printed as Go's
//! `Text('f', -1)` (the shortest decimal that reads back to the same value).

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use std::cmp::Ordering;

/// The precision of numbers written in HCL source or parsed from strings.
pub const LITERAL_PREC: u32 = 512;

/// The largest decimal exponent a parsed number may have.
const MAX_DECIMAL_EXPONENT: i64 = 4096;

/// A finite binary floating-point number: `(-1)^neg * mant * 2^exp`, with `mant` either
/// zero or exactly `prec` bits long.
#[derive(Clone, Debug)]
pub struct Number {
    neg: bool,
    mant: BigUint,
    exp: i64,
    prec: u32,
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

fn bits(m: &BigUint) -> i64 {
    m.bits() as i64
}

impl Number {
    pub fn zero() -> Number {
        Number {
            neg: false,
            mant: BigUint::zero(),
            exp: 0,
            prec: 64,
        }
    }

    /// Rounds `m * 2^e` (with `sticky` set when nonzero bits were dropped below `m`) to
    /// `prec` bits, nearest-even.
    fn round(neg: bool, mut m: BigUint, mut e: i64, sticky: bool, prec: u32) -> Number {
        if m.is_zero() {
            return Number {
                neg,
                mant: m,
                exp: 0,
                prec,
            };
        }
        let bl = bits(&m);
        let p = prec as i64;
        if bl > p {
            let shift = (bl - p) as u64;
            let half = m.bit(shift - 1);
            let rest = sticky || (shift >= 2 && m.trailing_zeros().unwrap_or(0) < shift - 1);
            let mut t = &m >> shift;
            if half && (rest || t.bit(0)) {
                t += 1u32;
                if bits(&t) > p {
                    t >>= 1;
                    e += 1;
                }
            }
            m = t;
            e += shift as i64;
        } else if bl < p {
            let shift = (p - bl) as usize;
            m <<= shift;
            e -= shift as i64;
        }
        Number {
            neg,
            mant: m,
            exp: e,
            prec,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.mant.is_zero()
    }

    pub(crate) fn is_negative(&self) -> bool {
        self.neg && !self.is_zero()
    }

    /// An integer with precision 64 (`cty.NumberIntVal`).
    pub(crate) fn from_i64(i: i64) -> Number {
        Number::round(i < 0, BigUint::from(i.unsigned_abs()), 0, false, 64)
    }

    /// A float64 with precision 53 (`cty.NumberFloatVal`).
    pub fn from_f64(f: f64) -> Option<Number> {
        if !f.is_finite() {
            return None;
        }
        if f == 0.0 {
            return Some(Number {
                neg: f.is_sign_negative(),
                mant: BigUint::zero(),
                exp: 0,
                prec: 53,
            });
        }
        let b = f.to_bits();
        let neg = b >> 63 == 1;
        let be = ((b >> 52) & 0x7ff) as i64;
        let frac = b & ((1u64 << 52) - 1);
        let (m, e) = if be == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), be - 1075)
        };
        Some(Number::round(neg, BigUint::from(m), e, false, 53))
    }

    /// Parses a decimal number (`big.ParseFloat(s, 10, prec, ToNearestEven)` for the
    /// forms HCL and cty accept): optional sign, digits, fraction, exponent.
    pub fn parse(s: &str, prec: u32) -> Option<Number> {
        let t = s.trim();
        let (neg, t) = match t.as_bytes().first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        let (mantissa, exponent) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
            None => (t, 0),
        };
        // Far beyond any float64; computing such powers of ten exactly is not feasible.
        if exponent.abs() > MAX_DECIMAL_EXPONENT {
            return None;
        }
        let (int, frac) = match mantissa.split_once('.') {
            Some((a, b)) => (a, b),
            None => (mantissa, ""),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let digits = format!("{int}{frac}");
        let n = BigUint::parse_bytes(
            if digits.is_empty() {
                b"0"
            } else {
                digits.as_bytes()
            },
            10,
        )?;
        let e10 = exponent - frac.len() as i64;
        Some(Number::from_decimal(neg, n, e10, prec))
    }

    /// `n * 10^e10`, rounded.
    fn from_decimal(neg: bool, n: BigUint, e10: i64, prec: u32) -> Number {
        if n.is_zero() {
            return Number::round(neg, n, 0, false, prec);
        }
        if e10 >= 0 {
            let m = n * BigUint::from(10u32).pow(e10 as u32);
            return Number::round(neg, m, 0, false, prec);
        }
        let den = BigUint::from(10u32).pow((-e10) as u32);
        let s = (prec as i64 + 2 + bits(&den) - bits(&n)).max(0) as usize;
        let (q, r) = (n << s).div_rem(&den);
        Number::round(neg, q, -(s as i64), !r.is_zero(), prec)
    }

    fn signed_parts(&self) -> (bool, &BigUint, i64) {
        (self.neg, &self.mant, self.exp)
    }

    pub fn neg(&self) -> Number {
        let mut n = self.clone();
        n.neg = !n.neg;
        n
    }

    pub fn abs(&self) -> Number {
        let mut n = self.clone();
        n.neg = false;
        n
    }

    pub fn add(&self, o: &Number) -> Number {
        let prec = self.prec.max(o.prec);
        if self.is_zero() && o.is_zero() {
            return Number::round(self.neg && o.neg, BigUint::zero(), 0, false, prec);
        }
        if self.is_zero() {
            return Number::round(o.neg, o.mant.clone(), o.exp, false, prec);
        }
        if o.is_zero() {
            return Number::round(self.neg, self.mant.clone(), self.exp, false, prec);
        }
        let (an, am, ae) = self.signed_parts();
        let (bn, bm, be) = o.signed_parts();
        let e = ae.min(be);
        let a = am << ((ae - e) as usize);
        let b = bm << ((be - e) as usize);
        if an == bn {
            return Number::round(an, a + b, e, false, prec);
        }
        match a.cmp(&b) {
            Ordering::Equal => Number::round(false, BigUint::zero(), 0, false, prec),
            Ordering::Greater => Number::round(an, a - b, e, false, prec),
            Ordering::Less => Number::round(bn, b - a, e, false, prec),
        }
    }

    pub fn sub(&self, o: &Number) -> Number {
        self.add(&o.neg())
    }

    pub fn mul(&self, o: &Number) -> Number {
        let prec = self.prec.max(o.prec);
        Number::round(
            self.neg != o.neg,
            &self.mant * &o.mant,
            self.exp + o.exp,
            false,
            prec,
        )
    }

    /// `self / o`; `None` when `o` is zero.
    pub(crate) fn quo(&self, o: &Number) -> Option<Number> {
        if o.is_zero() {
            return None;
        }
        let prec = self.prec.max(o.prec);
        if self.is_zero() {
            return Some(Number::round(
                self.neg != o.neg,
                BigUint::zero(),
                0,
                false,
                prec,
            ));
        }
        let s = (prec as i64 + 2 + bits(&o.mant) - bits(&self.mant)).max(0) as usize;
        let (q, r) = (&self.mant << s).div_rem(&o.mant);
        Some(Number::round(
            self.neg != o.neg,
            q,
            self.exp - o.exp - s as i64,
            !r.is_zero(),
            prec,
        ))
    }

    /// The integer part, truncated toward zero (`big.Float.Int`).
    pub fn trunc(&self) -> Number {
        if self.is_zero() || self.exp >= 0 {
            return self.clone();
        }
        let m = &self.mant >> ((-self.exp) as usize);
        Number::round(self.neg, m, 0, false, self.prec)
    }

    /// cty's `Modulo`: `a - b * trunc(a / b)`.
    pub(crate) fn modulo(&self, o: &Number) -> Option<Number> {
        let q = self.quo(o)?.trunc();
        Some(self.sub(&o.mul(&q)))
    }

    pub fn is_integer(&self) -> bool {
        self.is_zero()
            || self.exp >= 0
            || self.mant.trailing_zeros().unwrap_or(0) >= (-self.exp) as u64
    }

    /// The value as an `i64` when it is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        if !self.is_integer() {
            return None;
        }
        let t = self.trunc();
        let m = if t.exp >= 0 {
            t.mant.clone() << (t.exp as usize)
        } else {
            t.mant.clone() >> ((-t.exp) as usize)
        };
        let v = m.to_i128()?;
        let v = if t.neg { -v } else { v };
        i64::try_from(v).ok()
    }

    /// A number from a big integer (precision: its bit length, at least 64).
    pub(crate) fn from_bigint(neg: bool, m: BigUint) -> Number {
        let prec = (m.bits() as u32).max(64);
        Number::round(neg, m, 0, false, prec)
    }

    /// The nearest float64 (nearest-even).
    pub fn to_f64(&self) -> f64 {
        if self.is_zero() {
            return if self.neg { -0.0 } else { 0.0 };
        }
        let r = Number::round(self.neg, self.mant.clone(), self.exp, false, 53);
        let m = r.mant.to_u64().unwrap_or(0) as f64;
        let v = m * 2f64.powi(r.exp.clamp(-1100, 1100) as i32);
        let v = if !v.is_finite() || v == 0.0 {
            // Fall back through the decimal text for extreme exponents.
            self.text()
                .parse::<f64>()
                .unwrap_or(if r.exp > 0 { f64::INFINITY } else { 0.0 })
        } else {
            v
        };
        if self.neg {
            -v.abs()
        } else {
            v
        }
    }

    /// Go's `Text('f', -1)`.
    pub fn text(&self) -> String {
        let sign = if self.neg { "-" } else { "" };
        if self.is_zero() {
            return format!("{sign}0");
        }
        let mut d = Decimal::of(&self.mant, self.exp);
        round_shortest(&mut d, &self.mant, self.exp);
        let prec = (d.mant.len() as i64 - d.exp).max(0);
        let mut out = String::from(sign);
        if d.exp > 0 {
            let m = (d.mant.len() as i64).min(d.exp) as usize;
            out.push_str(std::str::from_utf8(&d.mant[..m]).unwrap_or("0"));
            for _ in m as i64..d.exp {
                out.push('0');
            }
        } else {
            out.push('0');
        }
        if prec > 0 {
            out.push('.');
            for i in 0..prec {
                out.push(d.at(d.exp + i) as char);
            }
        }
        out
    }
}

impl Eq for Number {}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    fn cmp(&self, o: &Number) -> Ordering {
        let (az, bz) = (self.is_zero(), o.is_zero());
        if az && bz {
            return Ordering::Equal;
        }
        let sa = if az {
            0
        } else if self.neg {
            -1
        } else {
            1
        };
        let sb = if bz {
            0
        } else if o.neg {
            -1
        } else {
            1
        };
        if sa != sb {
            return sa.cmp(&sb);
        }
        let e = self.exp.min(o.exp);
        let a = &self.mant << ((self.exp - e) as usize);
        let b = &o.mant << ((o.exp - e) as usize);
        let c = a.cmp(&b);
        if sa < 0 {
            c.reverse()
        } else {
            c
        }
    }
}

/// Go's `big.decimal`: digits without leading or trailing zeros, and the position of the
/// decimal point (`0.mant × 10^exp`).
struct Decimal {
    mant: Vec<u8>,
    exp: i64,
}

impl Decimal {
    /// The exact decimal of `m × 2^e`.
    fn of(m: &BigUint, e: i64) -> Decimal {
        let (digits, point) = if e >= 0 {
            let s = (m << (e as usize)).to_str_radix(10);
            let l = s.len() as i64;
            (s, l)
        } else {
            let s = (m * BigUint::from(5u32).pow((-e) as u32)).to_str_radix(10);
            let l = s.len() as i64;
            (s, l + e)
        };
        let mut d = Decimal {
            mant: digits.into_bytes(),
            exp: point,
        };
        d.trim();
        d
    }

    fn trim(&mut self) {
        while self.mant.last() == Some(&b'0') {
            self.mant.pop();
        }
        let lead = self.mant.iter().take_while(|&&c| c == b'0').count();
        if lead > 0 {
            self.mant.drain(..lead);
            self.exp -= lead as i64;
        }
        if self.mant.is_empty() {
            self.exp = 0;
        }
    }

    fn at(&self, i: i64) -> u8 {
        if i >= 0 && (i as usize) < self.mant.len() {
            self.mant[i as usize]
        } else {
            b'0'
        }
    }

    fn round_up(&mut self, mut n: usize) {
        if n >= self.mant.len() {
            return;
        }
        while n > 0 && self.mant[n - 1] >= b'9' {
            n -= 1;
        }
        if n == 0 {
            self.mant.truncate(1);
            self.mant[0] = b'1';
            self.exp += 1;
            return;
        }
        self.mant[n - 1] += 1;
        self.mant.truncate(n);
    }

    fn round_down(&mut self, n: usize) {
        if n >= self.mant.len() {
            return;
        }
        self.mant.truncate(n);
        self.trim();
    }

    fn round(&mut self, n: usize) {
        if n >= self.mant.len() {
            return;
        }
        let up = if self.mant[n] == b'5' && n + 1 == self.mant.len() {
            n > 0 && (self.mant[n - 1] - b'0') & 1 != 0
        } else {
            self.mant[n] >= b'5'
        };
        if up {
            self.round_up(n);
        } else {
            self.round_down(n);
        }
    }
}

/// Go's `roundShortest` for a mantissa of exactly `prec` bits.
fn round_shortest(d: &mut Decimal, mant: &BigUint, exp: i64) {
    if d.mant.is_empty() {
        return;
    }
    let m2: BigUint = mant << 1usize;
    let e2 = exp - 1;
    let lower = Decimal::of(&(&m2 - BigUint::one()), e2);
    let upper = Decimal::of(&(&m2 + BigUint::one()), e2);
    let inclusive = !mant.bit(0);
    // Go compares digit positions, not aligned exponents.
    let (shift_l, shift_u) = (0i64, 0i64);
    for i in 0..d.mant.len() {
        let m = d.mant[i];
        let l = lower.at(i as i64 + shift_l);
        let u = upper.at(i as i64 + shift_u);
        let okdown = l != m || inclusive && (i as i64 + shift_l + 1) == lower.mant.len() as i64;
        let okup = m != u
            && (inclusive || m + 1 < u || (i as i64 + shift_u + 1) < upper.mant.len() as i64);
        match (okdown, okup) {
            (true, true) => {
                d.round(i + 1);
                return;
            }
            (true, false) => {
                d.round_down(i + 1);
                return;
            }
            (false, true) => {
                d.round_up(i + 1);
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Number {
        Number::parse(s, LITERAL_PREC).unwrap()
    }

    #[test]
    fn text_is_go_shortest() {
        assert_eq!(lit("1").text(), "1");
        assert_eq!(lit("2.5").text(), "2.5");
        assert_eq!(lit("1000000").text(), "1000000");
        assert_eq!(lit("0.1").add(&lit("0.2")).to_f64(), 0.3);
        assert_eq!(
            lit("1").quo(&lit("3")).unwrap().text(),
            "0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335"
        );
        assert_eq!(Number::from_f64(0.1).unwrap().text(), "0.1");
        assert_eq!(lit("0").neg().text(), "-0");
        assert_eq!(lit("7").quo(&lit("2")).unwrap().to_f64(), 3.5);
        assert_eq!(lit("7").modulo(&lit("3")).unwrap().text(), "1");
        assert_eq!(lit("12345678901234567890").to_f64(), 1.2345678901234567e19);
        assert_eq!(lit("1e3").text(), "1000");
        assert_eq!(lit("0.000001").to_f64(), 1e-6);
    }
}
