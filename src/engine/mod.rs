//! The Jsonnet engine: one jrsonnet state per render, kf's import resolution, ext vars,
//! conversion of values to JSON and of errors to one readable message with file:line.
//!
//! jrsonnet's state is thread-local and its values are not `Send`: an [`Engine`] lives and
//! dies on the thread that made it.

pub mod chartfile;
pub mod external;
mod helm;
mod imports;
pub mod json_import;
mod kustomize;
pub mod lexer;
pub mod limits;
pub mod memory;
mod name_format;
pub use helm::set_chart_cache;
mod natives;
pub mod overflow;
mod parse_json;
mod resolver;
mod snakecase;
mod split_cache;
mod split_library;
mod split_parts;
mod walk;
pub use split_cache::set_place as set_split_cache;
mod std_text;
mod stdlib;
pub mod watchdog;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use jrsonnet_evaluator::trace::{CompactFormat, PathResolver, TraceFormat};
use jrsonnet_evaluator::val::MemoizedClosureThunk;
use jrsonnet_evaluator::{ObjValue, State, Thunk, Val};
use serde_json::{Map, Number, Value};

pub use imports::FileImports;
pub use resolver::KfImportResolver;
pub use walk::{FieldJson, ItemsError, Piece};

pub const DEFAULT_MAX_STACK: usize = 500;

/// A Jsonnet failure, already formatted (jrsonnet's own error is neither `Send` nor `Sync`).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    pub message: String,
}

pub struct EngineOptions {
    /// Paths shown in errors are relative to this folder (the app root).
    pub display_root: PathBuf,
    /// Library folders searched, in order, after the importing file's own folder.
    pub search_paths: Vec<PathBuf>,
    /// `(prefix, folder)`: an import starting with `prefix` that no search path has is
    /// looked up in `folder` (ksonnet 0.13's `vendor/<registry>/<pkg>@<version>/`).
    pub aliases: Vec<(PathBuf, PathBuf)>,
    /// The import sandbox: where imports may read files from.
    pub sandbox: crate::sandbox::Sandbox,
    pub max_stack: usize,
    /// Source rewritten before it is parsed, for the files below a folder.
    pub rewrite: Option<SourceRewrite>,
    /// Files read from memory instead of disk (canonical path → contents): an edit is
    /// evaluated before it is written.
    pub overlay: Vec<(PathBuf, String)>,
}

/// A rewrite of Jsonnet source before it is parsed: `rewrite(text, is_component)` for every
/// `.jsonnet`/`.libsonnet` file, `is_component` for those below `components` (ksonnet's
/// engine accepted what jrsonnet does not, and reprinted component files before evaluating
/// them; real apps were rendered with both). `None` keeps the text as it is.
#[derive(Clone)]
pub struct SourceRewrite {
    pub components: PathBuf,
    pub rewrite: fn(&str, bool) -> Option<String>,
}

// Holds no Jsonnet values, so the cycle collector has nothing to trace in it.
impl jrsonnet_gcmodule::Trace for SourceRewrite {
    fn is_type_tracked() -> bool {
        false
    }
}
// SAFETY: a path and a function pointer refer to no garbage-collected values.
unsafe impl jrsonnet_gcmodule::Acyclic for SourceRewrite {}

pub struct Engine {
    state: State,
    context: stdlib::BoundedStdlib,
    display_root: PathBuf,
    /// The resolver's overlay and sandbox, for [`Engine::read_as_written`].
    overlay: std::rc::Rc<Vec<(PathBuf, String)>>,
    sandbox: crate::sandbox::Sandbox,
    _stack_guard: jrsonnet_evaluator::stack::StackDepthLimitOverrideGuard,
}

impl Engine {
    pub fn new(options: EngineOptions) -> Engine {
        let resolver = PathResolver::Relative(options.display_root.clone());
        let context = stdlib::BoundedStdlib::new(resolver);
        let overlay = std::rc::Rc::new(options.overlay);
        let sandbox = options.sandbox;
        external::set_place(&options.display_root, &sandbox);
        let mut builder = State::builder();
        builder
            .import_resolver(KfImportResolver::new(
                options.search_paths,
                options.aliases,
                sandbox.clone(),
                options.display_root.clone(),
                options.rewrite,
                overlay.clone(),
            ))
            .context_initializer(context.clone());
        let state = builder.build();
        let guard = jrsonnet_evaluator::stack::limit_stack_depth(options.max_stack);
        Engine {
            state,
            context,
            display_root: options.display_root,
            overlay,
            sandbox,
            _stack_guard: guard,
        }
    }

    fn enter(&self) -> Option<jrsonnet_evaluator::StateEnterGuard> {
        // A stack this evaluation runs out of ends with an error (see `overflow`).
        overflow::note_this_thread();
        self.state.try_enter()
    }

    pub fn set_ext_str(&self, name: &str, value: &str) {
        self.context.add_ext_str(name.into(), value.into());
    }

    pub fn set_ext_code(&self, name: &str, code: &str) {
        // add_ext_code only records the code; it is parsed when std.extVar reads it.
        self.context.add_ext_code(name, code);
    }

    pub fn set_ext_val(&self, name: &str, value: Val) {
        self.context.add_ext_var(name.into(), value);
    }

    pub fn set_ext_json(&self, name: &str, value: &Value) {
        self.set_ext_val(name, json_to_val(value));
    }

    /// Evaluate a file (cached: importing it again returns the same value).
    pub fn import_file(&self, path: &Path) -> Result<Val, EvalError> {
        let _g = self.enter();
        let _e = watchdog::Evaluating::start(|| self.shown(path));
        let resolved = self
            .state
            .resolve_from_default(&path)
            .map_err(|e| self.format_error(&e))?;
        self.state
            .import_resolved(resolved)
            .map_err(|e| self.format_error(&e))
    }

    /// A file evaluated and made JSON, every field forced, under the file's name: an error
    /// that happens while forcing (a timeout, the stack running out) names the file, not
    /// "rendering".
    pub fn file_json(&self, path: &Path) -> Result<Value, EvalError> {
        let _e = watchdog::Evaluating::start(|| self.shown(path));
        self.import_file(path).and_then(|v| self.to_json(&v))
    }

    /// The text of the file an import of `path` reads, as written: through the sandbox
    /// and the overlay, without a byte-order mark, but neither checked for nesting nor
    /// rewritten as ksonnet evaluated it. For a reader that accepts only text those leave
    /// unchanged (a plain literal: see params/literal.rs); `None` when the import would
    /// fail, which [`Engine::import_file`] then reports.
    pub fn read_as_written(&self, path: &Path) -> Option<String> {
        let resolved = self.state.resolve_from_default(&path).ok()?;
        let bytes = resolver::read_as_written(&self.overlay, &self.sandbox, &resolved).ok()?;
        String::from_utf8(bytes).ok()
    }

    pub fn eval_snippet(&self, name: &str, code: &str) -> Result<Val, EvalError> {
        let _g = self.enter();
        let _e = watchdog::Evaluating::start(|| name.to_string());
        limits::check_nesting(code.as_bytes()).map_err(|deep| EvalError {
            message: format!("{name}:{}: {deep}", deep.line),
        })?;
        self.state
            .evaluate_snippet(name, code)
            .map_err(|e| self.format_error(&e))
    }

    /// Manifest a value to JSON, forcing every field (errors carry the Jsonnet trace).
    pub fn to_json(&self, val: &Val) -> Result<Value, EvalError> {
        let _g = self.enter();
        let _e = watchdog::Evaluating::start(|| "rendering".to_string());
        val_to_json(val).map_err(|e| self.format_error(&e))
    }

    /// A field of an object, evaluated, as JSON.
    pub fn field_json(&self, obj: &ObjValue, field: &str) -> Result<Option<Value>, EvalError> {
        let _g = self.enter();
        let _e = watchdog::Evaluating::start(|| format!("component '{field}'"));
        match obj.get(field.into()) {
            Ok(Some(v)) => val_to_json(&v).map(Some).map_err(|e| self.format_error(&e)),
            Ok(None) => Ok(None),
            Err(e) => Err(self.format_error(&e)),
        }
    }

    /// The visible fields of an object, sorted.
    pub fn visible_fields(&self, obj: &ObjValue) -> Vec<String> {
        let _g = self.enter();
        obj.fields().iter().map(ToString::to_string).collect()
    }

    /// A field of an object, evaluated but not manifested.
    pub fn field(&self, obj: &ObjValue, field: &str) -> Result<Option<Val>, EvalError> {
        let _g = self.enter();
        let _e = watchdog::Evaluating::start(|| format!("field '{field}'"));
        obj.get(field.into()).map_err(|e| self.format_error(&e))
    }

    /// A function's parameters as jrsonnet prints them: `(name, replicas = <default>)`.
    pub fn function_signature(&self, val: &Val) -> Option<String> {
        match val {
            Val::Func(f) => Some(f.params().to_string()),
            _ => None,
        }
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.display_root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    pub fn format_error(&self, error: &jrsonnet_evaluator::Error) -> EvalError {
        record_probe_stop(error);
        let format = CompactFormat {
            resolver: PathResolver::Relative(self.display_root.clone()),
            max_trace: 12,
            padding: 4,
        };
        let message = match error.error() {
            // The analysis has no stack to trace: each finding says where it is itself.
            jrsonnet_evaluator::error::ErrorKind::StaticAnalysisError(found) => {
                let each: Vec<String> = found
                    .iter()
                    .map(|d| match &d.span {
                        Some(span) => {
                            let [at] = span.0.map_source_locations(&[span.1]);
                            let file = span.0.source_path().path().map_or_else(
                                || "<input>".to_string(),
                                |p| split_library::shown_path(&self.shown(p)).into_owned(),
                            );
                            format!("{file}:{}:{}: {}", at.line, at.column, d.message)
                        }
                        None => d.message.clone(),
                    })
                    .collect();
                format!("static analysis errors: {}", each.join("; "))
            }
            _ => {
                let mut text = format
                    .format(error)
                    .unwrap_or_else(|_| error.error().to_string());
                // jrsonnet names such a file by its debug form; say where and what to do.
                if let jrsonnet_evaluator::error::ErrorKind::ImportBadFileUtf8(source) =
                    error.error()
                    && let Some(path) = source.path()
                {
                    let end = text.find('\n').unwrap_or(text.len());
                    text.replace_range(..end, &self.not_utf8(path));
                }
                readable_frames(&text)
            }
        };
        EvalError { message }
    }

    /// What is wrong with an imported file that is not UTF-8, and where (its first bad
    /// byte's line).
    fn not_utf8(&self, path: &Path) -> String {
        let line = std::fs::read(path).ok().and_then(|bytes| {
            let good = std::str::from_utf8(&bytes).err()?.valid_up_to();
            Some(bytes[..good].iter().filter(|b| **b == b'\n').count() + 1)
        });
        let at = line.map_or(String::new(), |l| format!(":{l}"));
        format!(
            "{}{at}: not UTF-8 text; Jsonnet reads only UTF-8: save the file as UTF-8",
            self.shown(path)
        )
    }
}

/// jrsonnet's trace as kf shows it: a part of a big library named as its library file,
/// and without jrsonnet's `parse imported` frame, which a file that does not parse gets
/// at the place of its own syntax error (lib.rs, `import_resolved`): the line above it
/// already names that place (trace/mod.rs prints it for every `ImportSyntaxError`), and
/// the frame of the import itself follows.
fn readable_frames(trace: &str) -> String {
    trace
        .split('\n')
        .filter(|line| !line.ends_with(": parse imported"))
        .map(|line| split_library::shown_path(line))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Drop for Engine {
    fn drop(&mut self) {
        // The objects std.parseJson made are this engine's (or another's on this thread,
        // which then walks them as any other object).
        parse_json::forget();
    }
}

/// Answers of `std.objectHas` that followed ksonnet 0.13's engine where today's Jsonnet
/// answers otherwise, counted over every engine of the process since the last
/// [`take_ksonnet_answers`]. jrsonnet gives a builtin no call site, so a warning's file:line
/// comes from a probe: a render again with [`probe_ksonnet_answer`] set stops at the n-th
/// such answer, and the stop's stack trace names the call ([`Engine::format_error`]).
static KSONNET_ANSWERS: AtomicUsize = AtomicUsize::new(0);
/// The index of the answer a probe stops at; `usize::MAX` when no probe runs.
static PROBE_AT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Whether the running probe stopped at its answer.
static PROBE_STOPPED: AtomicBool = AtomicBool::new(false);
/// Call sites found by probes: (file, 1-based line, field).
static PROBED_SITES: std::sync::Mutex<std::collections::BTreeSet<(PathBuf, usize, String)>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());
/// The message a probe stops a render with, followed by the field's name.
const PROBE_STOP: &str = "kf probe: std.objectHas answered as ksonnet did for field ";

/// Count one ksonnet-style answer for `field`; a probe stops at the one it waits for.
fn ksonnet_answer(field: &str) -> jrsonnet_evaluator::Result<()> {
    let n = KSONNET_ANSWERS.fetch_add(1, Ordering::Relaxed);
    if n == PROBE_AT.load(Ordering::Relaxed) {
        PROBE_STOPPED.store(true, Ordering::Relaxed);
        jrsonnet_evaluator::bail!("{PROBE_STOP}{field}");
    }
    Ok(())
}

/// How many ksonnet-style answers were given since the last call (and start counting anew).
pub fn take_ksonnet_answers() -> usize {
    KSONNET_ANSWERS.swap(0, Ordering::Relaxed)
}

/// Run `render` as a probe that stops at ksonnet-style answer number `n` (0-based) and
/// records its call site; returns whether it stopped there (`false`: fewer answers).
/// `render` must evaluate on one thread (`RenderOptions::workers` 1), so that answer `n`
/// is the same call on every run.
pub fn probe_ksonnet_answer<T, E>(n: usize, render: impl FnOnce() -> Result<T, E>) -> bool {
    KSONNET_ANSWERS.store(0, Ordering::Relaxed);
    PROBE_STOPPED.store(false, Ordering::Relaxed);
    PROBE_AT.store(n, Ordering::Relaxed);
    // The render's result is the probe's stop (or not): only the site it recorded counts.
    let _ = render();
    PROBE_AT.store(usize::MAX, Ordering::Relaxed);
    KSONNET_ANSWERS.store(0, Ordering::Relaxed);
    PROBE_STOPPED.swap(false, Ordering::Relaxed)
}

/// The call sites probes found, each once, paths relative to `display_root`.
pub fn take_probed_sites(display_root: &Path) -> Vec<(String, usize, String)> {
    let sites = match PROBED_SITES.lock() {
        Ok(mut s) => std::mem::take(&mut *s),
        Err(_) => return Vec::new(),
    };
    sites
        .into_iter()
        .map(|(file, line, field)| {
            let shown = file.strip_prefix(display_root).unwrap_or(&file);
            (shown.display().to_string(), line, field)
        })
        .collect()
}

/// If `error` is a probe's stop, record where the call was.
fn record_probe_stop(error: &jrsonnet_evaluator::Error) {
    let message = error.error().to_string();
    let Some(field) = message.split_once(PROBE_STOP).map(|(_, f)| f.to_string()) else {
        return;
    };
    let Some(span) = error.trace().0.iter().find_map(|f| f.location.as_ref()) else {
        return;
    };
    let source = &span.0;
    let file = match source.source_path().path() {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from(source.source_path().to_string()),
    };
    let [at] = source.map_source_locations(&[span.1]);
    if let Ok(mut sites) = PROBED_SITES.lock() {
        sites.insert((file, at.line, field));
    }
}

/// A Jsonnet literal from an untrusted place (a prototype's `@optionalParam` default) as
/// JSON: evaluated with no imports at all, so that kf re-prints it instead of pasting
/// source that could close the value and add fields of its own.
pub fn literal_to_json(code: &str) -> Result<Value, EvalError> {
    let engine = Engine::new(EngineOptions {
        display_root: PathBuf::from("."),
        search_paths: Vec::new(),
        aliases: Vec::new(),
        sandbox: crate::sandbox::Sandbox::none(),
        max_stack: DEFAULT_MAX_STACK,
        rewrite: None,
        overlay: Vec::new(),
    });
    let val = engine.eval_snippet("<default>", code)?;
    engine.to_json(&val)
}

#[derive(Debug, Clone)]
pub enum TlaValue {
    Str(String),
    Code(String),
}

pub use limits::MAX_ARRAY_ITEMS;

/// Objects come out with sorted keys, numbers as integers where they are whole.
fn val_to_json(val: &Val) -> jrsonnet_evaluator::Result<Value> {
    Ok(match val {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(*b),
        Val::Str(s) => Value::String(s.clone().into_flat().to_string()),
        Val::Num(n) => number_to_json(n.get()),
        Val::Arr(arr) => {
            // No manifest holds a million-item list; a runaway std.range would otherwise
            // eat all memory before anything else stops it.
            if arr.len() as usize > MAX_ARRAY_ITEMS {
                return Err(jrsonnet_evaluator::RuntimeError(
                    format!(
                        "an array of {} items: kf renders at most {MAX_ARRAY_ITEMS} items per array (a runaway std.range?)",
                        arr.len()
                    )
                    .into(),
                )
                .into());
            }
            let mut out = Vec::with_capacity(arr.len() as usize);
            for (i, item) in arr.iter().enumerate() {
                let item = jrsonnet_evaluator::in_description_frame(
                    || format!("array index [{i}]"),
                    || item,
                )?;
                out.push(val_to_json(&item)?);
            }
            Value::Array(out)
        }
        Val::Obj(obj) => {
            if let Some(json) = parse_json::object_json(obj) {
                return Ok(json);
            }
            let mut out = Map::new();
            for (key, value) in obj.iter() {
                let v = jrsonnet_evaluator::in_description_frame(
                    || format!("field <{key}>"),
                    || val_to_json(&value?),
                )?;
                out.insert(key.to_string(), v);
            }
            Value::Object(out)
        }
        Val::Func(_) => {
            return Err(jrsonnet_evaluator::RuntimeError(
                "a function cannot be rendered to a manifest (missing a call, or top-level arguments?)".into(),
            )
            .into());
        }
        #[allow(unreachable_patterns)]
        _ => {
            return Err(jrsonnet_evaluator::RuntimeError("unsupported value".into()).into());
        }
    })
}

/// A Jsonnet number as kf writes it in JSON: an integer when it is one, else a double.
pub fn number_to_json(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        #[allow(clippy::cast_possible_truncation)]
        return Value::Number(Number::from(n as i64));
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

/// The JSON `build` gives, as a Jsonnet value, built the first time it is read (`null`
/// for `None`). `build` must hold only plain data: the cycle collector does not see it.
pub fn lazy_json(build: impl Fn() -> Option<Value> + 'static) -> Thunk<Val> {
    struct Build(Box<dyn Fn() -> Option<Value>>);
    // Plain JSON behind a closure: nothing the cycle collector could reach.
    impl jrsonnet_gcmodule::Trace for Build {
        fn is_type_tracked() -> bool {
            false
        }
    }
    Thunk::new(MemoizedClosureThunk::new(Build(Box::new(build)), |b| {
        Ok((b.0)().map_or(Val::Null, |v| json_to_val(&v)))
    }))
}

/// Field `key` of `object`, evaluated the first time it is read (`null` if absent). The
/// object may belong to another engine: its values keep their own engine's ext vars.
pub fn lazy_field(object: &ObjValue, key: &str) -> Thunk<Val> {
    Thunk::new(MemoizedClosureThunk::new(
        (object.clone(), jrsonnet_evaluator::IStr::from(key)),
        |(object, key)| Ok(object.get(key)?.unwrap_or(Val::Null)),
    ))
}

/// JSON into a Jsonnet value (used for params and environment ext vars).
pub fn json_to_val(value: &Value) -> Val {
    match value {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => Val::try_num(n.as_f64().unwrap_or(0.0)).unwrap_or(Val::Null),
        Value::String(s) => Val::string(s.as_str()),
        Value::Array(items) => Val::arr(items.iter().map(json_to_val).collect::<Vec<_>>()),
        Value::Object(map) => {
            let mut builder = ObjValue::builder_with_capacity(map.len());
            for (k, v) in map {
                builder.field(k.as_str()).value(json_to_val(v));
            }
            Val::Obj(builder.build())
        }
    }
}
