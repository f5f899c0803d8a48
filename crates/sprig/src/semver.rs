//! sprig's `semver` and `semverCompare` (Masterminds/semver v3, in
//! `capstan_gocompat::semver`), and the `*semver.Version` object templates call methods on.

use crate::convert::s;
use crate::reg;
use capstan_gocompat::semver::{semver_compare, Version};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::{HostObject, Value};
use std::cmp::Ordering;
use std::sync::Arc;

/// A version as templates see it (`.Major`, `.LessThan`, ...).
#[derive(Debug, Clone)]
struct SemverObject(Version);

impl HostObject for SemverObject {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, capstan_value::GoError>> {
        let other = || -> Result<Version, capstan_value::GoError> {
            let expected = || capstan_value::GoError("expected a *semver.Version".into());
            match args.first() {
                Some(Value::Host(h)) => h
                    .as_any()
                    .downcast_ref::<SemverObject>()
                    .map(|o| o.0.clone())
                    .ok_or_else(expected),
                _ => Err(expected()),
            }
        };
        let this = &self.0;
        Some(Ok(match name {
            "Major" => Value::Uint64(this.major),
            "Minor" => Value::Uint64(this.minor),
            "Patch" => Value::Uint64(this.patch),
            "Prerelease" => Value::from(this.pre.clone()),
            "Metadata" => Value::from(this.meta.clone()),
            "Original" => Value::from(this.original.clone()),
            "String" => Value::from(this.to_string()),
            "Compare" => match other() {
                Ok(o) => Value::Int(this.compare(&o) as i64),
                Err(e) => return Some(Err(e)),
            },
            "LessThan" | "GreaterThan" | "Equal" => match other() {
                Ok(o) => {
                    let c = this.compare(&o);
                    Value::Bool(match name {
                        "LessThan" => c == Ordering::Less,
                        "GreaterThan" => c == Ordering::Greater,
                        _ => c == Ordering::Equal,
                    })
                }
                Err(e) => return Some(Err(e)),
            },
            _ => return None,
        }))
    }
    fn display(&self) -> Option<String> {
        Some(self.0.to_string())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

pub fn register(m: &mut FuncMap) {
    reg(m, "semver", &[Ty::String], |a| {
        Version::parse(&s(&a[0]))
            .map(|v| Value::Host(Arc::new(SemverObject(v))))
            .map_err(|e| e.to_string().into())
    });
    reg(m, "semverCompare", &[Ty::String, Ty::String], |a| {
        semver_compare(&s(&a[0]), &s(&a[1]))
            .map(Value::Bool)
            .map_err(|e| e.to_string().into())
    });
}
