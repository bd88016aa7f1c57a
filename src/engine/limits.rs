//! Bounded evaluation: what keeps a hostile or runaway Jsonnet file from aborting kf or
//! eating the machine, so that it ends with an error naming the component instead.
//!
//! - Source nesting: parsing recurses once per level; a file nested deeper than
//!   [`MAX_NESTING`] is refused before it is parsed (the binary runs on a thread whose
//!   stack holds that depth with a wide margin).
//! - Sizes: `std.makeArray` and `std.repeat` refuse results longer than
//!   [`MAX_ARRAY_ITEMS`] items or [`MAX_STRING_BYTES`] bytes before allocating them
//!   (jrsonnet would allocate first and abort when the allocation fails).
//! - Time: [`watchdog`] ends kf with an error when one evaluation runs past
//!   `--eval-timeout`.

use std::cell::{Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use jrsonnet_evaluator::function::{NativeFn, builtin};
use jrsonnet_evaluator::typed::Either2;
use jrsonnet_evaluator::val::ArrValue;
use jrsonnet_evaluator::{
    Either, IStr, InitialContextBuilder, ObjValue, ObjValueBuilder, Result, Source, Thunk, Val,
    bail, tla::TlaArg, trace::PathResolver,
};
use jrsonnet_gcmodule::{Cc, Trace};
use jrsonnet_stdlib::{Settings, StdTracePrinter, stdlib_uncached};

/// The deepest source nesting kf parses (brackets, plus `local`, `if`, `function` and
/// `assert` chains). Real Jsonnet stays below 100; ksonnet-lib below 20.
pub const MAX_NESTING: usize = 2_000;
/// The longest array kf builds or manifests.
pub const MAX_ARRAY_ITEMS: usize = 1_000_000;
/// The longest string `std.repeat` builds (Kubernetes keeps objects below 1.5 MB).
pub const MAX_STRING_BYTES: usize = 256 * 1024 * 1024;

/// Why a source is refused before parsing.
pub fn check_nesting(text: &str) -> std::result::Result<(), String> {
    let (depth, line) = max_nesting(text);
    if depth > MAX_NESTING {
        return Err(format!(
            "line {line}: nested {depth} levels deep; kf parses at most {MAX_NESTING} levels (brackets, `local`, `if` and `function` chains); flatten it or split it into files"
        ));
    }
    Ok(())
}

/// The deepest nesting and the line where it is reached, skipping strings and comments.
/// An expression `local`/`if`/`function`/`assert` nests until its enclosing bracket
/// closes; an object's `local` (after `{` or `,`) is a field and does not.
fn max_nesting(text: &str) -> (usize, usize) {
    let b = text.as_bytes();
    // Per open bracket: how many nesting keywords are open inside it.
    let mut frames: Vec<usize> = vec![0];
    let mut depth = 0usize;
    let (mut max, mut max_line, mut line) = (0usize, 1usize, 1usize);
    let mut last_sig = b';';
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => line += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'|' if b[i..].starts_with(b"|||") => {
                i += 3;
                while i < b.len() && !b[i..].starts_with(b"|||") {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 3;
                last_sig = b'"';
                continue;
            }
            b'"' | b'\'' => {
                let verbatim = i > 0 && b[i - 1] == b'@';
                i += 1;
                while i < b.len() && b[i] != c {
                    if b[i] == b'\\' && !verbatim {
                        i += 1;
                    }
                    line += usize::from(b.get(i) == Some(&b'\n'));
                    i += 1;
                }
                i += 1;
                last_sig = b'"';
                continue;
            }
            b'(' | b'[' | b'{' => {
                frames.push(0);
                depth += 1;
            }
            b')' | b']' | b'}' if frames.len() > 1 => {
                let inner = frames.pop().unwrap_or(0);
                depth = depth.saturating_sub(inner + 1);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &b[start..i];
                let nests = match word {
                    b"local" => last_sig != b'{' && last_sig != b',',
                    b"if" | b"function" | b"assert" => true,
                    _ => false,
                };
                if nests {
                    if let Some(top) = frames.last_mut() {
                        *top += 1;
                    }
                    depth += 1;
                }
                last_sig = b'a';
                if depth > max {
                    max = depth;
                    max_line = line;
                }
                continue;
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            last_sig = c;
        }
        if depth > max {
            max = depth;
            max_line = line;
        }
        i += 1;
    }
    (max, max_line)
}

/// `std.makeArray`, refusing sizes kf would never manifest before allocating them.
#[builtin]
fn kf_make_array(sz: u32, func: NativeFn!((u32,) -> Val)) -> Result<ArrValue> {
    if sz as usize > MAX_ARRAY_ITEMS {
        bail!(
            "std.makeArray({sz}, …): kf builds at most {MAX_ARRAY_ITEMS} items per array (a runaway size?)"
        );
    }
    jrsonnet_stdlib::builtin_make_array(sz, func)
}

/// `std.repeat`, refusing results beyond kf's limits before allocating them.
#[builtin]
fn kf_repeat(what: Either![IStr, ArrValue], count: u32) -> Result<Val> {
    match &what {
        Either2::A(s) => {
            let bytes = s.len().saturating_mul(count as usize);
            if bytes > MAX_STRING_BYTES {
                bail!(
                    "std.repeat: a string of {bytes} bytes; kf builds strings of at most {MAX_STRING_BYTES} bytes (a runaway count?)"
                );
            }
        }
        Either2::B(a) => {
            let items = (a.len() as usize).saturating_mul(count as usize);
            if items > MAX_ARRAY_ITEMS {
                bail!(
                    "std.repeat: an array of {items} items; kf builds at most {MAX_ARRAY_ITEMS} items per array (a runaway count?)"
                );
            }
        }
    }
    jrsonnet_stdlib::builtin_repeat(what, count)
}

/// jrsonnet's standard library with kf's bounded `makeArray` and `repeat`, and the ext
/// vars and `thisFile` of jrsonnet's own initializer.
#[derive(Trace, Clone)]
pub struct BoundedStdlib {
    stdlib: ObjValue,
    settings: Cc<RefCell<Settings>>,
}

impl BoundedStdlib {
    pub fn new(resolver: PathResolver) -> Self {
        let settings = Cc::new(RefCell::new(Settings {
            ext_vars: HashMap::new(),
            ext_natives: HashMap::new(),
            trace_printer: Rc::new(StdTracePrinter::new(resolver.clone())),
            path_resolver: resolver,
        }));
        let mut std = ObjValueBuilder::new();
        std.with_super(stdlib_uncached(settings.clone()));
        std.method("makeArray", kf_make_array {});
        std.method("repeat", kf_repeat {});
        BoundedStdlib {
            stdlib: std.build(),
            settings,
        }
    }

    fn settings(&self) -> Ref<'_, Settings> {
        self.settings.borrow()
    }

    fn settings_mut(&self) -> RefMut<'_, Settings> {
        self.settings.borrow_mut()
    }

    pub fn add_ext_var(&self, name: IStr, value: Val) {
        self.settings_mut()
            .ext_vars
            .insert(name, TlaArg::Val(value));
    }

    pub fn add_ext_str(&self, name: IStr, value: IStr) {
        self.settings_mut()
            .ext_vars
            .insert(name, TlaArg::String(value));
    }

    pub fn add_ext_code(&self, name: &str, code: &str) {
        self.settings_mut()
            .ext_vars
            .insert(name.into(), TlaArg::InlineCode(code.to_owned()));
    }
}

impl jrsonnet_evaluator::ContextInitializer for BoundedStdlib {
    fn populate(&self, source: Source, builder: &mut InitialContextBuilder) {
        let mut std = ObjValueBuilder::new();
        std.with_super(self.stdlib.clone());
        std.field("thisFile").hide().value({
            let source_path = source.source_path();
            source_path.path().map_or_else(
                || source_path.to_string(),
                |p| self.settings().path_resolver.resolve(p),
            )
        });
        builder.bind("std", Thunk::evaluated(Val::Obj(std.build())));
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// When the current evaluation started (ms since [`EPOCH`]; 0: none running).
static EVALUATING_SINCE: AtomicU64 = AtomicU64::new(0);
static EPOCH: Mutex<Option<Instant>> = Mutex::new(None);
/// What is being evaluated, for the timeout message.
static SUBJECT: Mutex<String> = Mutex::new(String::new());
static TIMEOUT: Mutex<Option<Duration>> = Mutex::new(None);

fn now_ms() -> u64 {
    let mut epoch = EPOCH.lock().unwrap_or_else(|e| e.into_inner());
    let start = *epoch.get_or_insert_with(Instant::now);
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX) + 1
}

/// The default `--eval-timeout`: generous, for the slowest real app on a slow CI runner.
pub const DEFAULT_EVAL_TIMEOUT: Duration = Duration::from_secs(300);

/// Start ending kf with an error when one evaluation runs longer than `timeout`. jrsonnet
/// cannot be interrupted, so the watchdog exits the process; no file is being written
/// while Jsonnet evaluates (kf evaluates before it stages anything).
pub fn watchdog(timeout: Duration) {
    {
        let mut t = TIMEOUT.lock().unwrap_or_else(|e| e.into_inner());
        if t.is_some() {
            *t = Some(timeout);
            return;
        }
        *t = Some(timeout);
    }
    now_ms();
    let _ = std::thread::Builder::new()
        .name("kf-eval-timeout".into())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let since = EVALUATING_SINCE.load(Ordering::SeqCst);
                let limit = TIMEOUT
                    .lock()
                    .map(|t| t.unwrap_or(timeout))
                    .unwrap_or(timeout);
                if since == 0 || now_ms().saturating_sub(since) < limit.as_millis() as u64 {
                    continue;
                }
                let subject = SUBJECT
                    .lock()
                    .map(|s| s.clone())
                    .unwrap_or_else(|e| e.into_inner().clone());
                eprintln!(
                    "error: {subject}: evaluation took longer than --eval-timeout {}s; look for runaway recursion or huge comprehensions, or raise --eval-timeout",
                    limit.as_secs_f64()
                );
                std::process::exit(1);
            }
        });
}

/// What is being evaluated now, for an error that must name it; never blocks (it may
/// run inside the allocator).
pub fn current_subject() -> String {
    match SUBJECT.try_lock() {
        Ok(s) if !s.is_empty() => s.clone(),
        _ => "kf".to_string(),
    }
}

/// Marks an evaluation as running (for the watchdog) while it lives.
pub struct Evaluating {
    outer: bool,
}

impl Evaluating {
    pub fn start(subject: impl FnOnce() -> String) -> Evaluating {
        let outer = EVALUATING_SINCE.load(Ordering::SeqCst) == 0;
        if outer {
            if let Ok(mut s) = SUBJECT.lock() {
                *s = subject();
            }
            EVALUATING_SINCE.store(now_ms(), Ordering::SeqCst);
        }
        Evaluating { outer }
    }
}

impl Drop for Evaluating {
    fn drop(&mut self) {
        if self.outer {
            EVALUATING_SINCE.store(0, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_brackets_and_expression_chains_not_strings_or_object_locals() {
        assert_eq!(max_nesting("{ a: [1, 2], b: { c: (3) } }").0, 3);
        assert_eq!(max_nesting("local a = 1; local b = 2; { x: a + b }").0, 3);
        assert_eq!(max_nesting("{ local a = 1, local b = 2, x: a }").0, 1);
        assert_eq!(max_nesting("'[[[[' + \"{{{{\" + ||| ((((\n|||").0, 0);
        assert_eq!(max_nesting("// [[[[\n# {{{{\n/* (((( */ 1").0, 0);
        let deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
        assert!(check_nesting(&deep).unwrap_err().contains("3000 levels"));
        let ifs = "if true then ".repeat(3000) + "1" + &" else 0".repeat(3000);
        assert!(check_nesting(&ifs).is_err());
    }

    #[test]
    fn the_generated_ksonnet_lib_is_well_within_the_nesting_limit() {
        let files = crate::ksonnetlib::lib_files(None).unwrap();
        assert!(files.iter().any(|(n, _)| *n == "k8s.libsonnet"));
        for (name, bytes) in files {
            if name.ends_with("sonnet") {
                let (depth, line) = max_nesting(&String::from_utf8_lossy(&bytes));
                assert!(depth < MAX_NESTING / 4, "{name}:{line}: {depth}");
            }
        }
    }

    #[test]
    fn every_embedded_source_is_within_the_nesting_limit() {
        let mut checked = 0;
        for (path, text) in crate::embedded::files_under("") {
            if path.ends_with("sonnet") {
                let (depth, line) = max_nesting(text);
                assert!(depth < MAX_NESTING / 4, "{path}:{line}: {depth}");
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} embedded sources");
    }
}
