//! Building a `map[interface {}]interface {}` ([`AnyMap`]) key by key in linear time: a
//! hash index over the keys, so a values file of 80,000 keys does not compare every key
//! with every other one.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::{AnyMap, Value};

/// An [`AnyMap`] under construction: [`set`](Self::set) replaces the value of an equal key
/// in place (Go's map assignment; the first key's position is kept), or appends.
#[derive(Clone, Debug, Default)]
pub struct AnyMapBuilder {
    entries: Vec<(Value, Value)>,
    index: HashMap<u64, Vec<usize>>,
}

impl AnyMapBuilder {
    /// Where an equal key is, if one was set.
    pub fn position(&self, key: &Value) -> Option<usize> {
        self.index
            .get(&key_hash(key))?
            .iter()
            .copied()
            .find(|&i| self.entries[i].0 == *key)
    }

    /// Whether an equal key was set.
    pub fn contains(&self, key: &Value) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`.
    pub fn set(&mut self, key: Value, value: Value) {
        match self.position(&key) {
            Some(i) => self.entries[i].1 = value,
            None => {
                self.index
                    .entry(key_hash(&key))
                    .or_default()
                    .push(self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    /// The finished map, keys in the order they were first set.
    pub fn into_map(self) -> AnyMap {
        AnyMap {
            entries: self.entries,
        }
    }
}

/// A hash consistent with `Value`'s equality for scalar keys; values that cannot be keys
/// (lists, maps, host objects) and times share one bucket, compared by equality.
fn key_hash(v: &Value) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // Equal floats hash alike: 0.0 == -0.0, and this map's equality treats NaNs as equal.
    let float_bits = |f: f64| {
        if f == 0.0 {
            0
        } else if f.is_nan() {
            u64::MAX
        } else {
            f.to_bits()
        }
    };
    match v {
        Value::Nil => 0u8.hash(&mut h),
        Value::Bool(b) => (1u8, b).hash(&mut h),
        Value::Int(i) => (2u8, i).hash(&mut h),
        Value::Int64(i) => (3u8, i).hash(&mut h),
        Value::Uint64(u) => (4u8, u).hash(&mut h),
        Value::Float64(f) => (5u8, float_bits(*f)).hash(&mut h),
        Value::Float32(f) => (6u8, float_bits(f64::from(*f))).hash(&mut h),
        Value::String(s) => (7u8, s.as_bytes()).hash(&mut h),
        Value::RawString(b) => (8u8, &b[..]).hash(&mut h),
        Value::Bytes(b) => (9u8, &b[..]).hash(&mut h),
        _ => 10u8.hash(&mut h),
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_replace_in_place_and_types_stay_apart() {
        let mut b = AnyMapBuilder::default();
        b.set(Value::from("a"), Value::Int(1));
        b.set(Value::Int(1), Value::Int(2));
        b.set(Value::Int64(1), Value::Int(3));
        b.set(Value::Float64(-0.0), Value::Int(4));
        b.set(Value::from("a"), Value::Int(5));
        b.set(Value::Float64(0.0), Value::Int(6));
        b.set(Value::Float64(f64::NAN), Value::Int(7));
        b.set(Value::Float64(f64::NAN), Value::Int(8));
        assert!(b.contains(&Value::Int(1)));
        assert!(!b.contains(&Value::Bool(true)));
        let m = b.into_map();
        let got: Vec<_> = m.entries.iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(
            got,
            vec![
                Value::Int(5),
                Value::Int(2),
                Value::Int(3),
                Value::Int(6),
                Value::Int(8)
            ]
        );
    }
}
