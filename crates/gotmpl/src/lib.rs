//! Go's `text/template`: lexer → parser → tree → evaluator, with the builtin functions,
//! `missingkey` modes, template sets (`define`/`template`/`block`) and Go's error texts.
//!
//! A [`Templates`] set is parsed once and can be executed many times, from many threads:
//! trees and functions are shared (`Arc`). Functions are registered in a [`FuncMap`];
//! sprig, Helm and helmfile add theirs on top of [`builtins`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod builtins;
mod defs;
mod exec;
mod lex;
mod parse;

pub use builtins::{builtins, escape_html, query_escape};
pub use exec::{ExecCause, ExecError, ExecLocation, Executing};
pub use parse::{ParseError, Tree};

use ast::Node;
use capstan_value::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// What `{{ .missing }}` does on a map without that key (`Option("missingkey=…")`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MissingKey {
    /// Prints `<no value>` (`missingkey=default` / `invalid`).
    #[default]
    Default,
    /// The map's zero value (`missingkey=zero`): nil for `interface {}` maps.
    Zero,
    /// Fails with `map has no entry for key "x"`.
    Error,
}

/// The Go type a function parameter is declared with; arguments are checked and
/// converted as Go's `evalArg` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `interface {}`: any value.
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
    /// `[]interface {}`
    List,
    /// `map[string]interface {}`
    Map,
    /// A host object (a Go struct such as sprig's `certificate`) of this type name.
    Host(&'static str),
}

impl Ty {
    /// The type's name as Go prints it in errors.
    pub fn go_name(self) -> &'static str {
        match self {
            Ty::Any => "interface {}",
            Ty::String => "string",
            Ty::Int => "int",
            Ty::Int64 => "int64",
            Ty::Float64 => "float64",
            Ty::Bool => "bool",
            Ty::List => "[]interface {}",
            Ty::Map => "map[string]interface {}",
            Ty::Host(name) => name,
        }
    }
}

/// What a function sees besides its arguments: the template set it runs in.
pub struct CallCtx<'a> {
    /// The set the calling template belongs to (`include`, `tpl` execute in it).
    pub templates: &'a Templates,
    /// How deep template calls are nested (Go's limit is checked against it).
    pub depth: usize,
    /// Per argument: whether Go sees it with the static type `interface {}` — a map value
    /// reached by a field lookup (`.a.b`, `$x.a`), not unwrapped by a pipeline. Builtins
    /// taking `reflect.Value`s (`slice`) report that type in their errors.
    pub interface_args: &'a [bool],
}

/// Why a template function failed: Go's `error` value, whose `Display` is Go's exact text
/// (the evaluator prefixes it with `error calling NAME: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FuncError {
    /// The error a function returned (Go's `errors.New`/`fmt.Errorf`).
    #[error("{0}")]
    Message(String),
    /// A template the function executed failed (`include`, `tpl`, `template`-like
    /// functions); kept whole so its location survives.
    #[error("{0}")]
    Exec(Box<ExecError>),
}

impl From<String> for FuncError {
    fn from(message: String) -> FuncError {
        FuncError::Message(message)
    }
}

impl From<&str> for FuncError {
    fn from(message: &str) -> FuncError {
        FuncError::Message(message.to_string())
    }
}

impl From<ExecError> for FuncError {
    fn from(e: ExecError) -> FuncError {
        FuncError::Exec(Box::new(e))
    }
}

impl From<ParseError> for FuncError {
    fn from(e: ParseError) -> FuncError {
        FuncError::Message(e.to_string())
    }
}

impl From<capstan_value::GoError> for FuncError {
    fn from(e: capstan_value::GoError) -> FuncError {
        FuncError::Message(e.0)
    }
}

impl From<capstan_value::json::JsonError> for FuncError {
    fn from(e: capstan_value::json::JsonError) -> FuncError {
        FuncError::Message(e.to_string())
    }
}

/// Go standard-library errors a function returns as they are (their text is Go's).
macro_rules! func_errors_from_go {
    ($($t:ty),* $(,)?) => {
        $(impl From<$t> for FuncError {
            fn from(e: $t) -> FuncError {
                FuncError::Message(e.to_string())
            }
        })*
    };
}

func_errors_from_go!(
    capstan_gocompat::NumError,
    capstan_gocompat::strconv::SyntaxError,
    capstan_gocompat::base64::CorruptInputError,
    capstan_gocompat::time::DurationError,
    capstan_gocompat::timefmt::TimeParseError,
    capstan_gocompat::regexp::RegexpError,
);

/// What a template function returns.
pub type FuncResult<T = Value> = Result<T, FuncError>;

/// A template function's implementation: the call context and the arguments, converted to the declared parameter types.
pub type FuncImpl = dyn Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync;

/// A template function: its Go signature and its implementation, shared (a clone, as
/// each call site of the function in a parsed template holds, is one counter increment).
#[derive(Clone)]
pub struct Func(Arc<FuncSig>);

/// What a [`Func`] holds.
pub struct FuncSig {
    /// The declared parameter types, in order.
    pub params: Box<[Ty]>,
    /// The element type of a final `...T` parameter.
    pub variadic: Option<Ty>,
    /// The implementation.
    pub imp: Box<FuncImpl>,
    /// For Go builtins whose parameters are `reflect.Value` (`len`): the error the call
    /// fails with when an argument is invalid (a missing key), which Go tells apart from
    /// a present `nil`.
    pub invalid_arg: Option<&'static str>,
}

impl std::ops::Deref for Func {
    type Target = FuncSig;
    fn deref(&self) -> &FuncSig {
        &self.0
    }
}

impl Func {
    /// A function with fixed parameters.
    pub fn new(
        params: &[Ty],
        imp: impl Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync + 'static,
    ) -> Func {
        Func::made(params.into(), None, None, Box::new(imp))
    }

    /// A function whose last parameter is `...T`.
    pub fn variadic(
        params: &[Ty],
        rest: Ty,
        imp: impl Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync + 'static,
    ) -> Func {
        Func::made(params.into(), Some(rest), None, Box::new(imp))
    }

    /// The same signature with another implementation (a function switched off).
    pub fn with_impl(
        &self,
        imp: impl Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync + 'static,
    ) -> Func {
        Func::made(
            self.params.clone(),
            self.variadic,
            self.invalid_arg,
            Box::new(imp),
        )
    }

    /// A function with fixed parameters that are `reflect.Value`s in Go (`len`): an
    /// invalid argument fails the call with `invalid_arg` (see [`FuncSig::invalid_arg`]).
    pub(crate) fn reflective(
        params: &[Ty],
        invalid_arg: &'static str,
        imp: impl Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync + 'static,
    ) -> Func {
        Func::made(params.into(), None, Some(invalid_arg), Box::new(imp))
    }

    fn made(
        params: Box<[Ty]>,
        variadic: Option<Ty>,
        invalid_arg: Option<&'static str>,
        imp: Box<FuncImpl>,
    ) -> Func {
        Func(Arc::new(FuncSig {
            params,
            variadic,
            imp,
            invalid_arg,
        }))
    }
}

impl std::fmt::Debug for Func {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Func({:?}, {:?})", self.params, self.variadic)
    }
}

/// Bytes of template text from which [`Templates::parse_all`] parses on every core (below
/// it, starting threads costs more than it saves).
const PARALLEL_PARSE_FROM: usize = 64 * 1024;

/// Template functions by name.
pub type FuncMap = HashMap<String, Func>;

/// Helm's and helmfile's `include`: executes template `name` of the calling set with
/// `data` and returns its output; more than `max_depth` nested includes is Helm's
/// "nested reference" error.
pub fn include(ctx: &CallCtx, name: &str, data: &Value, max_depth: usize) -> FuncResult {
    if ctx.depth > max_depth {
        return Err(format!(
            "rendering template has a nested reference name: {name}: unable to execute template"
        )
        .into());
    }
    let mut out = String::new();
    ctx.templates
        .execute_into(name, data, &mut out, ctx.depth + 1)?;
    Ok(Value::from(out))
}

/// Adds a function with fixed parameters to a map.
pub fn register(
    m: &mut FuncMap,
    name: &str,
    params: &[Ty],
    f: impl Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync + 'static,
) {
    m.insert(name.to_string(), Func::new(params, f));
}

/// Adds a function whose last parameter is `...interface {}`.
pub fn register_variadic(
    m: &mut FuncMap,
    name: &str,
    params: &[Ty],
    f: impl Fn(&CallCtx, Vec<Value>) -> FuncResult + Send + Sync + 'static,
) {
    m.insert(name.to_string(), Func::variadic(params, Ty::Any, f));
}

/// One parsed template body and the text it came from (for error positions).
#[derive(Debug)]
pub struct TemplateDef {
    pub(crate) root: Vec<Node>,
    /// The text the body was parsed from (for line and column in errors).
    pub text: Source,
    /// The name of the top-level template whose text holds this one (Go's `ParseName`).
    pub parse_name: String,
}

/// The text a template was parsed from, kept for its errors' lines and columns: a copy,
/// or the very bytes a chart file was read into (valid UTF-8), shared rather than copied.
#[derive(Clone, Debug)]
pub enum Source {
    /// A copy of the text.
    Text(Arc<str>),
    /// The bytes of the file, which are the text.
    Bytes(Arc<[u8]>),
}

impl Source {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Source::Text(t) => t,
            Source::Bytes(b) => std::str::from_utf8(b).unwrap_or_default(),
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Source::Text(t) => t.len(),
            Source::Bytes(b) => b.len(),
        }
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A template to parse: its name, its text, and the bytes the text is borrowed from
/// whole, when it is (see [`Templates::parse_all`]).
pub type NamedText<'a> = (&'a str, &'a str, Option<Arc<[u8]>>);

/// A set of associated templates sharing functions and options.
#[derive(Clone, Default)]
pub struct Templates {
    defs: defs::Defs,
    funcs: Arc<FuncMap>,
    /// `missingkey=` (`Option("missingkey=error")`): what a missing map key yields.
    pub missing_key: MissingKey,
    /// The name of the set's root template (Go's `template.New(name)`), used in
    /// "no template … associated with template …" errors and by Helm's `tpl`.
    pub root_name: String,
    /// A bound on the nodes one execution may walk (none in Go; for untrusted input
    /// such as fuzzing).
    pub step_limit: Option<u64>,
    /// A bound on the bytes of any string a function returns and of the output (none in
    /// Go; for untrusted input: `printf "%q"` chains double their size at every step).
    pub value_limit: Option<usize>,
    /// How many calls of each template are running through a host's `include` (Helm
    /// counts them per name; shared by the copies `tpl` makes, and by every thread a deep
    /// render moves to).
    pub include_nesting: Arc<std::sync::Mutex<HashMap<String, usize>>>,
}

impl Templates {
    /// An empty set with the builtins and `extra` functions.
    pub fn new(extra: FuncMap) -> Templates {
        let mut funcs = builtins();
        funcs.extend(extra);
        Templates {
            defs: Default::default(),
            funcs: Arc::new(funcs),
            missing_key: MissingKey::Default,
            root_name: String::new(),
            step_limit: None,
            include_nesting: Default::default(),
            value_limit: None,
        }
    }

    /// A set sharing an existing function map, which must include the builtins.
    pub fn with_funcs(funcs: Arc<FuncMap>) -> Templates {
        Templates {
            defs: Default::default(),
            funcs,
            missing_key: MissingKey::Default,
            root_name: String::new(),
            step_limit: None,
            include_nesting: Default::default(),
            value_limit: None,
        }
    }

    /// The function map every template of the set can call.
    pub fn funcs(&self) -> &Arc<FuncMap> {
        &self.funcs
    }

    /// Parses `text` as template `name` (plus every `define` in it) into the set.
    /// A definition with an empty body never replaces an existing one.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<(), ParseError> {
        self.parse_tree(name, text)?;
        self.defs.settle();
        Ok(())
    }

    /// [`Templates::parse`], returning the tree of `name` itself as Go's
    /// `t.New(name).Parse(text)` returns it: the text's own tree even when it is empty
    /// and the set keeps an older, non-empty `name` (Helm's `tpl` executes this tree).
    pub fn parse_tree(&mut self, name: &str, text: &str) -> Result<Arc<TemplateDef>, ParseError> {
        let funcs = self.funcs.clone();
        let trees = parse::parse(name, text, &|f| funcs.get(f).cloned())?;
        Ok(self.add_trees(name, Source::Text(Arc::from(text)), trees))
    }

    /// [`Templates::parse`] of every `(name, text, bytes)` in order, as if one after the
    /// other: a later definition replaces an earlier one, and the first text that does
    /// not parse is the error. Many texts are parsed on every core (parsing one text
    /// never depends on another). `bytes`, when `text` is borrowed from them whole (a
    /// chart file as read), are kept for the set's errors instead of a copy of the text.
    pub fn parse_all(&mut self, texts: &[NamedText]) -> Result<(), ParseError> {
        let total: usize = texts.iter().map(|(_, t, _)| t.len()).sum();
        let funcs = self.funcs.clone();
        let parse_one =
            |(name, text, _): &NamedText| parse::parse(name, text, &|f| funcs.get(f).cloned());
        let parsed: Vec<Option<Result<Vec<Tree>, ParseError>>> = if total < PARALLEL_PARSE_FROM {
            texts.iter().map(|item| Some(parse_one(item))).collect()
        } else {
            capstan_value::stack::parallel_map(texts, parse_one)
        };
        for (item, trees) in texts.iter().zip(parsed) {
            let trees = match trees {
                Some(t) => t?,
                None => parse_one(item)?,
            };
            let source = match &item.2 {
                Some(bytes)
                    if std::ptr::eq(bytes.as_ptr(), item.1.as_ptr())
                        && bytes.len() == item.1.len() =>
                {
                    Source::Bytes(bytes.clone())
                }
                _ => Source::Text(Arc::from(item.1)),
            };
            self.add_trees(item.0, source, trees);
        }
        // Every render copies this set: the templates go where copies share them.
        self.defs.settle();
        Ok(())
    }

    /// A copy to execute on its own: the same trees and functions, its own include counts
    /// (a parsed set kept for many renders hands each one such a copy).
    pub fn fresh_copy(&self) -> Templates {
        let mut copy = self.clone();
        copy.include_nesting = Default::default();
        copy
    }

    /// Adds the trees parsed from `text` (template `name` first), returning `name`'s own.
    fn add_trees(&mut self, name: &str, text: Source, trees: Vec<Tree>) -> Arc<TemplateDef> {
        let mut main = None;
        for t in trees {
            let is_main = t.name == name;
            let keep_old = self
                .defs
                .get(&t.name)
                .is_some_and(|_| parse::is_empty_tree(&t.root));
            let def = Arc::new(TemplateDef {
                root: t.root,
                text: text.clone(),
                parse_name: name.to_string(),
            });
            if is_main {
                main = Some(def.clone());
            }
            if !keep_old {
                self.defs.insert(t.name, def);
            }
        }
        main.unwrap_or_else(|| {
            Arc::new(TemplateDef {
                root: Vec::new(),
                text,
                parse_name: name.to_string(),
            })
        })
    }

    /// Executes a tree returned by [`Templates::parse_tree`] as template `name` of this
    /// set.
    pub fn execute_tree_into(
        &self,
        name: &str,
        def: &Arc<TemplateDef>,
        data: &Value,
        out: &mut String,
        depth: usize,
    ) -> Result<(), ExecError> {
        exec::execute_def(self, name, def, data, out, depth)
    }

    /// The parsed template `name`, if the set has one.
    pub fn lookup(&self, name: &str) -> Option<&Arc<TemplateDef>> {
        self.defs.get(name)
    }

    /// Names of the templates in the set.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.defs.keys()
    }

    /// Executes template `name` with `data` as dot.
    pub fn execute(&self, name: &str, data: &Value) -> Result<String, ExecError> {
        // About as long as the template's text: grown a few times less.
        let mut out = String::with_capacity(self.lookup(name).map_or(0, |d| d.text.len()));
        self.execute_into(name, data, &mut out, 0)?;
        Ok(out)
    }

    /// Executes into `out` at a nesting depth (for `include`/`tpl`).
    pub fn execute_into(
        &self,
        name: &str,
        data: &Value,
        out: &mut String,
        depth: usize,
    ) -> Result<(), ExecError> {
        exec::execute(self, name, data, out, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts past the parallel threshold: the result is that of parsing one by one.
    #[test]
    fn parse_all_is_parse_in_order_on_any_number_of_threads() {
        let filler = "x".repeat(PARALLEL_PARSE_FROM);
        for big in [false, true] {
            let pad = if big { filler.as_str() } else { "" };
            let a = format!("{{{{define \"t\"}}}}first{{{{end}}}}{pad}");
            let b = format!("{{{{define \"t\"}}}}second{{{{end}}}}{pad}");
            let mut set = Templates::new(FuncMap::new());
            set.parse_all(&[
                ("a", &a, None),
                ("b", &b, None),
                ("c", "{{template \"t\"}}", None),
            ])
            .unwrap();
            assert_eq!(set.execute("c", &Value::Nil).unwrap(), "second");
            // The first text that does not parse is the error, though a later one fails too.
            let mut set = Templates::new(FuncMap::new());
            let e = set
                .parse_all(&[
                    ("a", &a, None),
                    ("bad1", "{{ nope }}", None),
                    ("bad2", "{{ end }}", None),
                ])
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                "template: bad1:1: function \"nope\" not defined"
            );
        }
    }
}
