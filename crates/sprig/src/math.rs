//! Math functions: integer arithmetic through `cast.ToInt64`, float arithmetic through
//! shopspring/decimal as sprig does it (`addf 0.1 0.2` is `0.3`), rounding, ranges.

use crate::convert::{to_f64, to_i64};
use crate::{reg, regv};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::{Elem, List, Value};
use std::sync::Arc;

/// An exact decimal: `mant × 10^-scale`.
#[derive(Clone, Copy, Debug)]
struct Dec {
    mant: i128,
    scale: u32,
}

impl Dec {
    /// shopspring's `NewFromFloat`: the shortest decimal that reads back as `f`.
    fn from_f64(f: f64) -> Option<Dec> {
        if !f.is_finite() {
            return None;
        }
        let s = format!("{:e}", f);
        let (m, e) = s.split_once('e')?;
        let e: i32 = e.parse().ok()?;
        let neg = m.starts_with('-');
        let digits: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
        let frac_len = digits.len() as i32 - 1;
        let scale = frac_len - e;
        let mut mant: i128 = digits.parse().ok()?;
        let scale = if scale < 0 {
            mant = mant.checked_mul(10i128.checked_pow((-scale) as u32)?)?;
            0
        } else {
            scale as u32
        };
        if scale > 30 {
            return None;
        }
        Some(Dec {
            mant: if neg { -mant } else { mant },
            scale,
        })
    }

    fn rescale(self, scale: u32) -> Option<Dec> {
        let m = self
            .mant
            .checked_mul(10i128.checked_pow(scale - self.scale)?)?;
        Some(Dec { mant: m, scale })
    }

    fn align(a: Dec, b: Dec) -> Option<(Dec, Dec)> {
        let s = a.scale.max(b.scale);
        Some((a.rescale(s)?, b.rescale(s)?))
    }

    fn add(self, o: Dec) -> Option<Dec> {
        let (a, b) = Dec::align(self, o)?;
        Some(Dec {
            mant: a.mant.checked_add(b.mant)?,
            scale: a.scale,
        })
    }

    fn sub(self, o: Dec) -> Option<Dec> {
        let (a, b) = Dec::align(self, o)?;
        Some(Dec {
            mant: a.mant.checked_sub(b.mant)?,
            scale: a.scale,
        })
    }

    fn mul(self, o: Dec) -> Option<Dec> {
        Some(Dec {
            mant: self.mant.checked_mul(o.mant)?,
            scale: self.scale + o.scale,
        })
    }

    /// shopspring's `Div`: rounded (half away from zero) to 16 decimal places.
    fn div(self, o: Dec) -> Option<Dec> {
        if o.mant == 0 {
            return None;
        }
        const PREC: u32 = 16;
        // result = self/o with PREC+1 digits, then round.
        let num_scale = PREC + 1 + o.scale;
        let a = self.rescale(self.scale.max(num_scale))?;
        // a.mant / 10^a.scale / (o.mant / 10^o.scale) = a.mant / o.mant * 10^(o.scale - a.scale)
        let q = a.mant / o.mant;
        let result_scale = a.scale - o.scale;
        let mut d = Dec {
            mant: q,
            scale: result_scale,
        };
        while d.scale > PREC + 1 {
            d.mant /= 10;
            d.scale -= 1;
        }
        let r = d.mant % 10;
        d.mant /= 10;
        d.scale -= 1;
        if r.abs() >= 5 {
            d.mant += r.signum();
        }
        Some(d)
    }

    fn to_f64(self) -> f64 {
        let s = format!("{}e-{}", self.mant, self.scale);
        s.parse().unwrap_or(0.0)
    }
}

fn decimal_op(
    a: f64,
    b: f64,
    op: fn(Dec, Dec) -> Option<Dec>,
    fallback: fn(f64, f64) -> f64,
) -> f64 {
    match (Dec::from_f64(a), Dec::from_f64(b)) {
        (Some(x), Some(y)) => op(x, y).map(Dec::to_f64).unwrap_or_else(|| fallback(a, b)),
        _ => fallback(a, b),
    }
}

fn int_list(v: Vec<i64>) -> Value {
    Value::List(Arc::new(List {
        elem: Elem::Int,
        nil: false,
        items: v.into_iter().map(Value::Int).collect(),
        spare: 0,
    }))
}

fn until_step(start: i64, stop: i64, step: i64) -> Vec<i64> {
    let mut v = Vec::new();
    if step == 0 || (stop < start && step > 0) || (stop > start && step < 0) {
        return v;
    }
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        v.push(i);
        i += step;
    }
    v
}

fn round(val: f64, places: f64, on: f64) -> f64 {
    let pow = 10f64.powf(places);
    let digit = pow * val;
    let frac = digit - digit.trunc();
    let r = if frac >= on {
        digit.ceil()
    } else {
        digit.floor()
    };
    r / pow
}

pub fn register(m: &mut FuncMap) {
    regv(m, "add", &[], Ty::Any, |a| {
        Ok(Value::Int64(
            a.iter().map(to_i64).fold(0i64, i64::wrapping_add),
        ))
    });
    reg(m, "add1", &[Ty::Any], |a| {
        Ok(Value::Int64(to_i64(&a[0]).wrapping_add(1)))
    });
    reg(m, "sub", &[Ty::Any, Ty::Any], |a| {
        Ok(Value::Int64(to_i64(&a[0]).wrapping_sub(to_i64(&a[1]))))
    });
    regv(m, "mul", &[Ty::Any], Ty::Any, |a| {
        Ok(Value::Int64(
            a.iter().map(to_i64).fold(1i64, i64::wrapping_mul),
        ))
    });
    reg(m, "div", &[Ty::Any, Ty::Any], |a| {
        let d = to_i64(&a[1]);
        if d == 0 {
            return Err("runtime error: integer divide by zero".into());
        }
        Ok(Value::Int64(to_i64(&a[0]).wrapping_div(d)))
    });
    reg(m, "mod", &[Ty::Any, Ty::Any], |a| {
        let d = to_i64(&a[1]);
        if d == 0 {
            return Err("runtime error: integer divide by zero".into());
        }
        Ok(Value::Int64(to_i64(&a[0]).wrapping_rem(d)))
    });
    for name in ["max", "biggest"] {
        regv(m, name, &[Ty::Any], Ty::Any, |a| {
            Ok(Value::Int64(a.iter().map(to_i64).max().unwrap_or(0)))
        });
    }
    regv(m, "min", &[Ty::Any], Ty::Any, |a| {
        Ok(Value::Int64(a.iter().map(to_i64).min().unwrap_or(0)))
    });
    regv(m, "addf", &[], Ty::Any, |a| {
        let mut acc = 0.0;
        for x in &a {
            acc = decimal_op(acc, to_f64(x), Dec::add, |p, q| p + q);
        }
        Ok(Value::Float64(acc))
    });
    reg(m, "add1f", &[Ty::Any], |a| {
        Ok(Value::Float64(decimal_op(
            to_f64(&a[0]),
            1.0,
            Dec::add,
            |p, q| p + q,
        )))
    });
    regv(m, "subf", &[Ty::Any], Ty::Any, |a| {
        let mut acc = to_f64(&a[0]);
        for x in &a[1..] {
            acc = decimal_op(acc, to_f64(x), Dec::sub, |p, q| p - q);
        }
        Ok(Value::Float64(acc))
    });
    regv(m, "mulf", &[Ty::Any], Ty::Any, |a| {
        let mut acc = to_f64(&a[0]);
        for x in &a[1..] {
            acc = decimal_op(acc, to_f64(x), Dec::mul, |p, q| p * q);
        }
        Ok(Value::Float64(acc))
    });
    regv(m, "divf", &[Ty::Any], Ty::Any, |a| {
        let mut acc = to_f64(&a[0]);
        for x in &a[1..] {
            let d = to_f64(x);
            if d == 0.0 {
                return Err("decimal division by 0".into());
            }
            acc = decimal_op(acc, d, Dec::div, |p, q| p / q);
        }
        Ok(Value::Float64(acc))
    });
    regv(m, "maxf", &[Ty::Any], Ty::Any, |a| {
        Ok(Value::Float64(
            a.iter().map(to_f64).fold(f64::NEG_INFINITY, f64::max),
        ))
    });
    regv(m, "minf", &[Ty::Any], Ty::Any, |a| {
        Ok(Value::Float64(
            a.iter().map(to_f64).fold(f64::INFINITY, f64::min),
        ))
    });
    reg(m, "floor", &[Ty::Any], |a| {
        Ok(Value::Float64(to_f64(&a[0]).floor()))
    });
    reg(m, "ceil", &[Ty::Any], |a| {
        Ok(Value::Float64(to_f64(&a[0]).ceil()))
    });
    regv(m, "round", &[Ty::Any, Ty::Int], Ty::Float64, |a| {
        let on = a.get(2).map(to_f64).unwrap_or(0.5);
        Ok(Value::Float64(round(
            to_f64(&a[0]),
            to_i64(&a[1]) as f64,
            on,
        )))
    });
    reg(m, "until", &[Ty::Int], |a| {
        let n = to_i64(&a[0]);
        Ok(int_list(until_step(0, n, if n < 0 { -1 } else { 1 })))
    });
    reg(m, "untilStep", &[Ty::Int, Ty::Int, Ty::Int], |a| {
        Ok(int_list(until_step(
            to_i64(&a[0]),
            to_i64(&a[1]),
            to_i64(&a[2]),
        )))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_arithmetic_like_sprig() {
        assert_eq!(decimal_op(0.1, 0.2, Dec::add, |a, b| a + b), 0.3);
        assert_eq!(decimal_op(1.1, 3.0, Dec::mul, |a, b| a * b), 3.3);
        assert_eq!(
            decimal_op(10.0, 3.0, Dec::div, |a, b| a / b),
            3.3333333333333335
        );
        assert_eq!(round(4.56789, 2.0, 0.5), 4.57);
    }
}
