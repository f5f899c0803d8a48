//! The one dynamic `Value` that flows through capstan: YAML documents, template data,
//! Helm values and helmfile state all use it.
//!
//! Go's dynamic types are observable in templates (`%T`, `kindIs`, `eq` refusing int vs
//! float64), so `Value` keeps them: `int`, `int64`, `uint64`, `float64`, `float32`,
//! `[]interface {}` vs `[]string`, `map[string]interface {}` vs
//! `map[interface {}]interface {}`, typed nil maps and slices. Maps iterate in Go's sorted
//! key order. Strings and collections are reference-counted, so clones are cheap and
//! mutation is copy-on-write (`Arc::make_mut`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod any_map_builder;
pub mod cycles;
mod fmt_go;
/// The stack a thread doing template, YAML or HCL work gets: Go grows goroutine stacks to
/// 1 GiB, and inputs nest as deep as Go lets them (10,000 parentheses in a template,
/// 10,000 YAML levels, tens of thousands of nested `if`s). Reserved, not committed: only
/// the pages a deep input touches are used.
pub const DEEP_STACK_BYTES: usize = 1 << 30;

pub mod json;
mod path;
pub mod printf;
pub mod stack;
pub mod write_guard;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use any_map_builder::AnyMapBuilder;
pub use capstan_gocompat::time::GoTime;
pub use fmt_go::{go_syntax, kind_order};
pub use path::{Path, PathError, Segment};

/// Shared immutable string.
pub type Str = Arc<str>;

/// Maps up to this many entries are scanned by [`Map::get`] rather than searched.
const SCANNED_MAP_LEN: usize = 12;

/// A [`Str`] of a string literal, made once per call site and shared after that (a map
/// key such as `"Values"`, built for every render, costs a reference count instead of an
/// allocation).
#[macro_export]
macro_rules! static_str {
    ($s:literal) => {{
        static S: std::sync::LazyLock<$crate::Str> =
            std::sync::LazyLock::new(|| $crate::Str::from($s));
        $crate::Str::clone(&S)
    }};
}

/// The element type of a typed Go slice or map value (`[]string`, `map[string]string`…).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Elem {
    /// `interface {}`
    #[default]
    Any,
    /// `string`
    String,
    /// `int`
    Int,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `bool`
    Bool,
}

impl Elem {
    /// The type's name as Go prints it (`interface {}`, `string`).
    pub fn go_name(self) -> &'static str {
        match self {
            Elem::Any => "interface {}",
            Elem::String => "string",
            Elem::Int => "int",
            Elem::Int64 => "int64",
            Elem::Float64 => "float64",
            Elem::Bool => "bool",
        }
    }
}

/// A Go slice: element type, nil-ness and items.
#[derive(Clone, Debug, Default)]
pub struct List {
    /// The element type (`[]string` has `String`).
    pub elem: Elem,
    /// A nil slice (`%v` prints `[]` for both; JSON prints `null` for nil).
    pub nil: bool,
    /// The elements.
    pub items: Vec<Value>,
    /// Capacity beyond the length (Go's `cap - len`), which `slice` can reach: slices
    /// built by appending (encoding/json) have some; equality ignores it.
    pub spare: usize,
}

impl PartialEq for List {
    fn eq(&self, other: &List) -> bool {
        self.elem == other.elem && self.nil == other.nil && self.items == other.items
    }
}

/// Go's size classes (bytes) for small objects.
const SIZE_CLASSES: [usize; 67] = [
    8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352,
    384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
    2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728,
    10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672,
    32768,
];

/// Go's `growslice` for a `[]interface {}` (16-byte elements with pointers, malloc
/// headers above 512 bytes): the new capacity when appending one element to `old`.
fn grow_capacity(old: usize) -> usize {
    let new_len = old + 1;
    let newcap = if new_len > old * 2 {
        new_len
    } else if old < 256 {
        old * 2
    } else {
        let mut c = old;
        while c < new_len {
            c += (c + 3 * 256) / 4;
        }
        c
    };
    let size = newcap * 16;
    let rounded = if size <= 32768 - 8 {
        let req = if size > 512 { size + 8 } else { size };
        match SIZE_CLASSES.iter().find(|&&c| c >= req) {
            Some(class) => class - (req - size),
            None => size,
        }
    } else {
        size.div_ceil(8192) * 8192
    };
    rounded / 16
}

/// The capacity of a `[]interface {}` built by appending `n` elements one by one, as
/// encoding/json builds the slices it decodes.
pub(crate) fn append_capacity(n: usize) -> usize {
    let mut cap = 0;
    while cap < n {
        cap = grow_capacity(cap);
    }
    cap
}

/// A Go map with string keys, iterated in sorted key order.
///
/// Go maps are references: a template's `set` changes the map every holder sees. The
/// entries are therefore behind a lock, and [`Map::write`] changes them in place for all
/// clones of the `Value` holding this map. Code that builds values (YAML, merging) uses
/// copy-on-write through [`Value::map_entries_mut`] instead, which never disturbs other
/// holders.
#[derive(Debug)]
pub struct Map {
    /// The value type (`map[string]string` has `String`).
    pub elem: Elem,
    /// A nil map.
    pub nil: bool,
    entries: RwLock<BTreeMap<Str, Value>>,
    /// The epoch it was made in ([`write_guard`]).
    born: u32,
}

impl Default for Map {
    fn default() -> Self {
        Map::new(Elem::default(), false, BTreeMap::new())
    }
}

impl Clone for Map {
    fn clone(&self) -> Self {
        Map::new(self.elem, self.nil, self.read().clone())
    }
}

impl PartialEq for Map {
    fn eq(&self, other: &Self) -> bool {
        self.elem == other.elem
            && self.nil == other.nil
            && (std::ptr::eq(self, other) || {
                // Comparing maps that contain themselves would never end.
                if let Err(c) = cycles::check_map(self).and(cycles::check_map(other)) {
                    std::panic::panic_any(c);
                }
                *self.read() == *other.read()
            })
    }
}

impl Map {
    /// A map of `elem` values with `entries`.
    pub fn new(elem: Elem, nil: bool, entries: BTreeMap<Str, Value>) -> Map {
        Map {
            elem,
            nil,
            entries: RwLock::new(entries),
            born: write_guard::current_epoch(),
        }
    }

    /// The entries, for reading.
    pub fn read(&self) -> RwLockReadGuard<'_, BTreeMap<Str, Value>> {
        self.entries.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The entries, changed in place for every holder of this map (Go semantics). Only
    /// inside this crate: stores go through [`Map::insert`], which notes cycles.
    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<Str, Value>> {
        write_guard::check_write(self.born);
        self.entries.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores `value` under `key`, in place for every holder of this map (Go's
    /// `m[key] = value`). A value that holds this map makes a cycle (see [`cycles`]).
    pub fn insert(&self, key: Str, value: Value) -> Option<Value> {
        write_guard::check_write(self.born);
        cycles::note_insert(self, &value);
        self.write().insert(key, value)
    }

    /// Deletes `key`, in place for every holder of this map (Go's `delete(m, key)`).
    pub fn remove(&self, key: &str) -> Option<Value> {
        self.write().remove(key)
    }

    /// The entries through exclusive access (no lock needed).
    pub(crate) fn entries_mut(&mut self) -> &mut BTreeMap<Str, Value> {
        self.entries.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// One entry, cloned out.
    pub fn get(&self, key: &str) -> Option<Value> {
        let entries = self.read();
        // A small map (`.Values` sections, `.Release`, `.Chart`) is scanned, keys of
        // another length skipped without comparing their bytes.
        if entries.len() <= SCANNED_MAP_LEN {
            return entries
                .iter()
                .find(|(k, _)| k.len() == key.len() && &***k == key)
                .map(|(_, v)| v.clone());
        }
        entries.get(key).cloned()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// A copy of the entries.
    pub fn snapshot(&self) -> BTreeMap<Str, Value> {
        self.read().clone()
    }
}

/// A `map[interface {}]interface {}`: keys of any scalar type, in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnyMap {
    /// The entries, in insertion order.
    pub entries: Vec<(Value, Value)>,
}

/// A Go `error` value crossing into templates (a host object's method failing): its
/// `Display` is Go's exact `Error()` text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoError(pub String);

impl fmt::Display for GoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GoError {}

impl From<String> for GoError {
    fn from(message: String) -> GoError {
        GoError(message)
    }
}

/// An object provided by the host (`.Files`, `.Capabilities`, `.Release`…): fields and
/// methods reachable from templates.
pub trait HostObject: Send + Sync + fmt::Debug {
    /// The Go type name `%T` prints.
    fn type_name(&self) -> &str;
    /// A field or zero-argument accessor; `None` when there is no such field.
    fn field(&self, name: &str) -> Option<Value>;
    /// Calls a method; `None` when there is no such method.
    fn call(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, GoError>> {
        None
    }
    /// The text Go prints for it (`String()` of a `fmt.Stringer`), also used by the
    /// encoders as its marshalled form.
    fn display(&self) -> Option<String> {
        None
    }
    /// For a host object that is a Go map or slice (Helm's `Files`): its entries, in
    /// the order `range` visits them.
    fn entries(&self) -> Option<Vec<(Value, Value)>> {
        None
    }
    /// Go's `reflect.Kind` of the value: `map` or `slice` for a host object with
    /// [`HostObject::entries`] (its length is theirs, it is false when empty), `ptr` for
    /// the rest (`struct` is derived from [`HostObject::fields`]).
    fn kind(&self) -> &'static str {
        "ptr"
    }
    /// For a host object that is a Go struct value: every field in declaration order,
    /// as `fmt` prints a struct (`{a b}`, `%+v`, `%#v`) and `encoding/json` and the YAML
    /// encoders write its exported ones (`kindOf` says `struct`).
    fn fields(&self) -> Option<Vec<GoField>> {
        None
    }
    /// For downcasting method arguments of the same host type.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A nil `error`: what a Go struct field of type `error` holds when there was none
/// (helmfile's `.Event.Error` in hooks). Unlike a nil `interface {}`, which a template
/// pipeline turns into "no value", it keeps its interface type: printed it is `<nil>`,
/// tested it is false, and sprig's `empty` holds for it.
#[derive(Debug)]
pub struct NilError;

impl HostObject for NilError {
    fn type_name(&self) -> &str {
        "<nil>"
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn display(&self) -> Option<String> {
        Some("<nil>".into())
    }
    /// `reflect.ValueOf` of it, as sprig's `kindOf` sees it, is invalid.
    fn kind(&self) -> &'static str {
        "invalid"
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// One field of a Go struct host object.
#[derive(Clone, Debug)]
pub struct GoField {
    /// The Go field name (`Version`, or an unexported `normalizedVersion`).
    pub name: &'static str,
    /// The key `encoding/json` writes it under; `None` when it is not marshalled
    /// (unexported, or `json:"-"`).
    pub json: Option<&'static str>,
    /// `omitempty` in its JSON tag.
    pub omit_empty: bool,
    /// The field's value.
    pub value: Value,
}

impl GoField {
    /// An exported field marshalled under its own name.
    pub fn exported(name: &'static str, value: Value) -> GoField {
        GoField {
            name,
            json: Some(name),
            omit_empty: false,
            value,
        }
    }

    /// An unexported field: printed by `fmt`, never marshalled.
    pub fn unexported(name: &'static str, value: Value) -> GoField {
        GoField {
            name,
            json: None,
            omit_empty: false,
            value,
        }
    }
}

/// A Go struct value whose `String()` has a pointer receiver (Helm's
/// `common.KubeVersion`), handed to a function as `interface {}`: Go copies the struct,
/// the copy is not addressable, so it is no `fmt.Stringer` any more and prints as a
/// struct (`{v1.37.0 v1.37.0 1 37}`). Everything else is the wrapped object's.
#[derive(Debug)]
struct CopiedStruct(Arc<dyn HostObject>);

impl HostObject for CopiedStruct {
    fn type_name(&self) -> &str {
        self.0.type_name()
    }
    fn field(&self, name: &str) -> Option<Value> {
        self.0.field(name)
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, GoError>> {
        self.0.call(name, args)
    }
    fn entries(&self) -> Option<Vec<(Value, Value)>> {
        self.0.entries()
    }
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
    fn fields(&self) -> Option<Vec<GoField>> {
        self.0.fields()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self.0.as_any()
    }
}

impl Value {
    /// The value a Go function receives when this one is passed as an argument: a
    /// struct value that is a `fmt.Stringer` only through its address (a host object
    /// with both [`HostObject::display`] and [`HostObject::fields`]) loses its
    /// `String()`; everything else is passed as it is.
    pub fn as_argument(self) -> Value {
        match &self {
            Value::Host(h) if h.fields().is_some() && h.display().is_some() => {
                Value::Host(Arc::new(CopiedStruct(h.clone())))
            }
            _ => self,
        }
    }
}

/// A Go value as seen through `interface {}`.
#[derive(Clone, Debug)]
pub enum Value {
    /// Go's `nil` (an absent or null value).
    Nil,
    /// `bool`
    Bool(bool),
    /// Go `int` (64-bit).
    Int(i64),
    /// `int64`
    Int64(i64),
    /// `uint64`
    Uint64(u64),
    /// `float64`
    Float64(f64),
    /// `float32`
    Float32(f32),
    /// `string`
    String(Str),
    /// A Go `string` whose bytes are not valid UTF-8 (from `!!binary` data, for example).
    RawString(Arc<[u8]>),
    /// `[]byte`
    Bytes(Arc<[u8]>),
    /// `time.Time`
    Time(Arc<GoTime>),
    /// A slice (`[]interface {}` or a typed slice).
    List(Arc<List>),
    /// A `map[string]...`.
    Map(Arc<Map>),
    /// A `map[interface {}]interface {}`.
    AnyMap(Arc<AnyMap>),
    /// Any other Go object templates can call methods on.
    Host(Arc<dyn HostObject>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Nil, Nil) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) | (Int64(a), Int64(b)) => a == b,
            (Uint64(a), Uint64(b)) => a == b,
            (Float64(a), Float64(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Float32(a), Float32(b)) => a == b || (a.is_nan() && b.is_nan()),
            (String(a), String(b)) => a == b,
            (RawString(a), RawString(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Time(a), Time(b)) => a == b,
            // Containers compare element by element, as deep as they nest.
            (List(a), List(b)) => stack::grow(|| a == b),
            (Map(a), Map(b)) => stack::grow(|| a == b),
            (AnyMap(a), AnyMap(b)) => stack::grow(|| a == b),
            (Host(a), Host(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(Str::from(s))
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(Str::from(s))
    }
}
impl From<std::borrow::Cow<'_, str>> for Value {
    fn from(s: std::borrow::Cow<'_, str>) -> Self {
        Value::String(Str::from(s.as_ref()))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float64(f)
    }
}

impl Value {
    /// An empty `map[string]interface {}`.
    pub fn empty_map() -> Value {
        Value::Map(Arc::new(Map::default()))
    }

    /// A `map[string]interface {}` from entries.
    pub fn map_from(entries: BTreeMap<Str, Value>) -> Value {
        Value::Map(Arc::new(Map::new(Elem::Any, false, entries)))
    }

    /// A `[]interface {}` from items.
    pub fn list_from(items: Vec<Value>) -> Value {
        Value::List(Arc::new(List {
            elem: Elem::Any,
            nil: false,
            items,
            spare: 0,
        }))
    }

    /// A `[]interface {}` built by appending, with the spare capacity Go's `append`
    /// leaves (what encoding/json decodes arrays into).
    pub fn appended_list(items: Vec<Value>) -> Value {
        let spare = append_capacity(items.len()) - items.len();
        Value::List(Arc::new(List {
            elem: Elem::Any,
            nil: false,
            items,
            spare,
        }))
    }

    /// The Go type name, as `%T` prints it.
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Int64(_) => "int64".into(),
            Value::Uint64(_) => "uint64".into(),
            Value::Float64(_) => "float64".into(),
            Value::Float32(_) => "float32".into(),
            Value::String(_) | Value::RawString(_) => "string".into(),
            Value::Bytes(_) => "[]uint8".into(),
            Value::Time(_) => "time.Time".into(),
            Value::List(l) => format!("[]{}", l.elem.go_name()),
            Value::Map(m) => format!("map[string]{}", m.elem.go_name()),
            Value::AnyMap(_) => "map[interface {}]interface {}".into(),
            Value::Host(h) => h.type_name().into(),
        }
    }

    /// Go's `reflect.Kind` name (`kindOf` in sprig): `map`, `slice`, `int`, `ptr`…
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint64(_) => "uint64",
            Value::Float64(_) => "float64",
            Value::Float32(_) => "float32",
            Value::String(_) | Value::RawString(_) => "string",
            Value::Bytes(_) | Value::List(_) => "slice",
            Value::Time(_) => "struct",
            Value::Map(_) | Value::AnyMap(_) => "map",
            Value::Host(h) if h.fields().is_some() => "struct",
            Value::Host(h) => h.kind(),
        }
    }

    /// sprig's `deepCopy` (copystructure): maps and slices are copied all the way
    /// down, so changing the copy (`set`, `unset`) never changes the original. Host
    /// objects, strings and times are immutable and stay shared.
    /// A map that contains itself stops the copy with a [`cycles::Cycle`] panic (Go's
    /// copystructure never ends there).
    pub fn deep_copy(&self) -> Value {
        cycles::assert_acyclic(self);
        self.deep_copy_inner()
    }

    fn deep_copy_inner(&self) -> Value {
        match self {
            Value::List(_) | Value::Map(_) | Value::AnyMap(_) => {
                stack::grow(|| self.deep_copy_here())
            }
            other => other.clone(),
        }
    }

    fn deep_copy_here(&self) -> Value {
        match self {
            Value::List(l) => Value::List(Arc::new(List {
                elem: l.elem,
                nil: l.nil,
                items: l.items.iter().map(Value::deep_copy_inner).collect(),
                spare: 0,
            })),
            Value::Map(m) => {
                // The tree copied as it is (no key compared again), then its collections.
                let mut entries = m.read().clone();
                for v in entries.values_mut() {
                    if matches!(v, Value::List(_) | Value::Map(_) | Value::AnyMap(_)) {
                        *v = v.deep_copy_inner();
                    }
                }
                Value::Map(Arc::new(Map::new(m.elem, m.nil, entries)))
            }
            Value::AnyMap(m) => Value::AnyMap(Arc::new(AnyMap {
                entries: m
                    .entries
                    .iter()
                    .map(|(k, v)| (k.deep_copy_inner(), v.deep_copy_inner()))
                    .collect(),
            })),
            other => other.clone(),
        }
    }

    /// Go template truthiness: false for nil, false, zero numbers, empty strings,
    /// collections and maps.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Uint64(u) => *u != 0,
            Value::Float64(f) => *f != 0.0,
            Value::Float32(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Bytes(b) | Value::RawString(b) => !b.is_empty(),
            Value::Host(h) if matches!(h.kind(), "map" | "slice") => {
                h.entries().is_some_and(|e| !e.is_empty())
            }
            Value::Host(h) if h.kind() == "invalid" => false,
            Value::Time(_) | Value::Host(_) => true,
            Value::List(l) => !l.items.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::AnyMap(m) => !m.entries.is_empty(),
        }
    }

    /// The text of a `String`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The map of a `Map`.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The slice of a `List`.
    pub fn as_list(&self) -> Option<&List> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// A string-keyed map's entries, taken out when nothing else holds the map (copied
    /// otherwise); `None` for any other value.
    pub fn into_map_entries(self) -> Option<BTreeMap<Str, Value>> {
        match self {
            Value::Map(m) => Some(match Arc::try_unwrap(m) {
                Ok(m) => m.entries.into_inner().unwrap_or_else(|e| e.into_inner()),
                Err(shared) => shared.snapshot(),
            }),
            _ => None,
        }
    }

    /// A map entry by key (`None`: not a map, or the key is missing).
    pub fn get(&self, key: &str) -> Option<Value> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// Mutable access to a string-keyed map's entries (copy-on-write).
    pub fn map_entries_mut(&mut self) -> Option<&mut BTreeMap<Str, Value>> {
        match self {
            Value::Map(m) => {
                let m = Arc::make_mut(m);
                m.nil = false;
                Some(m.entries_mut())
            }
            _ => None,
        }
    }

    /// Mutable access to a list's items (copy-on-write).
    pub fn list_items_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::List(l) => {
                let l = Arc::make_mut(l);
                l.nil = false;
                Some(&mut l.items)
            }
            _ => None,
        }
    }

    /// Whether this is a map of either kind.
    pub fn is_map(&self) -> bool {
        matches!(self, Value::Map(_) | Value::AnyMap(_))
    }
}

/// Go's `%v` formatting of a value (`map[a:1 b:[x y]]`, `<nil>`, `1e+06`).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `%v` of a map that contains itself never ends in Go.
        cycles::assert_acyclic(self);
        let mut s = String::new();
        fmt_go::write_v(&mut s, self, true);
        f.write_str(&s)
    }
}

/// Helm's `MergeMaps` (used between the documents of one values file): nested string maps
/// merge, anything else in `b` replaces what `a` had.
pub fn merge_maps(a: &BTreeMap<Str, Value>, b: &BTreeMap<Str, Value>) -> BTreeMap<Str, Value> {
    let mut out = a.clone();
    for (k, v) in b {
        if let (Value::Map(vm), Some(Value::Map(am))) = (v, out.get(k)) {
            let merged = merge_maps(&am.read(), &vm.read());
            out.insert(k.clone(), Value::map_from(merged));
            continue;
        }
        out.insert(k.clone(), v.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pairs: &[(&str, Value)]) -> Value {
        Value::map_from(
            pairs
                .iter()
                .map(|(k, v)| (Str::from(*k), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn append_capacity_follows_go_growslice() {
        let caps: Vec<usize> = [0, 1, 2, 3, 5, 9, 17, 33]
            .iter()
            .map(|&n| append_capacity(n))
            .collect();
        assert_eq!(caps, [0, 1, 2, 4, 8, 16, 32, 71]);
    }

    #[test]
    fn type_names_and_truthiness() {
        assert_eq!(Value::Int(1).type_name(), "int");
        assert_eq!(Value::empty_map().type_name(), "map[string]interface {}");
        let strs = Value::List(Arc::new(List {
            elem: Elem::String,
            nil: false,
            items: vec![],
            spare: 0,
        }));
        assert_eq!(strs.type_name(), "[]string");
        assert!(!strs.is_truthy());
        assert!(Value::from("x").is_truthy());
        assert!(!Value::Float64(0.0).is_truthy());
    }

    #[test]
    fn percent_v() {
        let v = m(&[
            ("b", Value::list_from(vec![Value::Int(1), "x".into()])),
            ("a", Value::Float64(1e6)),
        ]);
        assert_eq!(v.to_string(), "map[a:1e+06 b:[1 x]]");
        assert_eq!(Value::Nil.to_string(), "<nil>");
    }

    #[test]
    fn merge_maps_nested() {
        let a = m(&[
            ("x", m(&[("a", Value::Int(1)), ("b", Value::Int(2))])),
            ("l", Value::list_from(vec![Value::Int(1)])),
        ]);
        let b = m(&[
            ("x", m(&[("b", Value::Int(3))])),
            ("l", Value::list_from(vec![])),
        ]);
        let out = Value::map_from(merge_maps(
            &a.as_map().unwrap().read(),
            &b.as_map().unwrap().read(),
        ));
        assert_eq!(out.to_string(), "map[l:[] x:map[a:1 b:3]]");
    }

    #[test]
    fn clones_share_and_copy_on_write() {
        let mut a = m(&[("k", Value::Int(1))]);
        let b = a.clone();
        a.map_entries_mut()
            .unwrap()
            .insert("k".into(), Value::Int(2));
        assert_eq!(b.get("k"), Some(Value::Int(1)));
        assert_eq!(a.get("k"), Some(Value::Int(2)));
    }
}

#[cfg(test)]
mod reference_tests {
    use super::*;

    #[test]
    fn map_write_is_seen_by_every_holder() {
        let a = Value::empty_map();
        let b = a.clone();
        if let Value::Map(m) = &a {
            m.insert("k".into(), Value::Int(9));
        }
        assert_eq!(b.get("k"), Some(Value::Int(9)));
        // Copy-on-write access leaves the other holder alone.
        let mut c = b.clone();
        c.map_entries_mut()
            .unwrap()
            .insert("k".into(), Value::Int(1));
        assert_eq!(a.get("k"), Some(Value::Int(9)));
    }
}
