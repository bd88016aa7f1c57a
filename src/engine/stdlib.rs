//! jrsonnet's standard library with kf's bounded `std.makeArray` and `std.repeat`,
//! ksonnet 0.13's `std.objectHas` (see [`kf_object_has_ex`]) and the text go-jsonnet
//! 0.11.2's manifest and escape functions wrote ([`super::std_text`]).

use std::cell::{Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::rc::Rc;

use std::ops::ControlFlow;

use jrsonnet_evaluator::function::{FuncVal, NativeFn, builtin};
use jrsonnet_evaluator::typed::{Either2, FromUntyped};
use jrsonnet_evaluator::val::ArrValue;
use jrsonnet_evaluator::{
    Either, EnumFields, IStr, InitialContextBuilder, ObjValue, ObjValueBuilder, Result, Source,
    Thunk, Val, Visibility, bail, tla::TlaArg, trace::PathResolver,
};
use jrsonnet_gcmodule::{Cc, Trace};
use jrsonnet_stdlib::{Settings, StdTracePrinter, stdlib_uncached};

use super::limits::{MAX_ARRAY_ITEMS, MAX_STRING_BYTES};
use super::std_text as text;

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

/// `std.objectHasEx` as go-jsonnet 0.11.2 (ksonnet 0.13.1's engine) answered it: a field
/// counts as visible unless its topmost definition is hidden (value.go objectHasField asks
/// `findField`, which stops at the first layer defining it), so `{ v:: 1 } + { v: 2 }`
/// has `v` although `std.objectFields` omits it. Real apps branch on this
/// (`$.defaultParams + overrides`); each answer that differs from today's Jsonnet is
/// counted, for a warning naming its call site ([`super::ksonnet_answer`]).
#[builtin]
fn kf_object_has_ex(obj: ObjValue, fname: IStr, hidden: bool) -> Result<bool> {
    if hidden || obj.has_field(fname.clone()) || !obj.has_field_include_hidden(fname.clone()) {
        return Ok(obj.has_field_ex(fname, hidden));
    }
    // Defined, and hidden by the rules of today: which layer defines it on top?
    let mut topmost = None;
    obj.enum_fields(&mut |_, _, name, field| {
        if name != fname {
            return ControlFlow::Continue(());
        }
        topmost = Some(field);
        ControlFlow::Break(())
    });
    let ksonnet = matches!(
        topmost,
        Some(EnumFields::Normal(Visibility::Normal | Visibility::Unhide))
    );
    if ksonnet {
        super::ksonnet_answer(&fname)?;
    }
    Ok(ksonnet)
}

/// `std.objectHas(o, f)`: `std.objectHasEx(o, f, false)`, as go-jsonnet 0.11.2 defines it.
#[builtin]
fn kf_object_has(o: ObjValue, f: IStr) -> Result<bool> {
    kf_object_has_ex(o, f, false)
}

/// `std.setUnion(a, b, keyF)` as go-jsonnet 0.11.2 defined it: `std.set(a + b, keyF)`,
/// sorted and unique whatever order `a` and `b` come in (jrsonnet merges them as the sets
/// they should be, and keeps an unsorted input's order).
#[builtin]
#[allow(non_snake_case)]
fn kf_set_union(a: ArrValue, b: ArrValue, keyF: Option<Val>) -> Result<ArrValue> {
    let all = ArrValue::extended(a, b).unwrap_or_else(|| ArrValue::new(Vec::<Val>::new()));
    match keyF {
        None => jrsonnet_stdlib::builtin_set(all, Default::default()),
        Some(f) => jrsonnet_stdlib::builtin_set(all, FromUntyped::from_untyped(f)?),
    }
}

/// `std.parseJson`, its values made as they are read ([`super::parse_json`]); a text that
/// reader refuses gets jrsonnet's own error.
#[builtin]
fn kf_parse_json(str: IStr) -> Result<Val> {
    kf_parse_json_of(str)
}

fn kf_parse_json_of(str: IStr) -> Result<Val> {
    match super::parse_json::parse(&str) {
        Some(val) => Ok(val),
        None => jrsonnet_stdlib::builtin_parse_json(str),
    }
}

/// `std.native('kf.keptJson')(id, text)`, which json_import.rs writes in place of an
/// import of JSON data: the value kept under `id` when the import was checked, or else
/// `std.parseJson(text)`, `text` (an `importstr` of the file) read only then.
#[builtin]
fn kf_kept_json(id: f64, text: Thunk<Val>) -> Result<Val> {
    // Ids are small whole numbers json_import.rs wrote; anything else is no id kept.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let kept = (id.fract() == 0.0 && id >= 1.0)
        .then(|| super::parse_json::kept(id as u64))
        .flatten();
    match kept {
        Some(val) => Ok(val),
        None => kf_parse_json_of(IStr::from_untyped(text.evaluate()?)?),
    }
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
            ext_natives: super::natives::all()
                .into_iter()
                .chain([(
                    IStr::from(super::json_import::KEPT_JSON),
                    FuncVal::builtin(kf_kept_json {}),
                )])
                .collect(),
            trace_printer: Rc::new(StdTracePrinter::new(resolver.clone())),
            path_resolver: resolver,
        }));
        let mut std = ObjValueBuilder::new();
        std.with_super(stdlib_uncached(settings.clone()));
        std.method("makeArray", kf_make_array {});
        std.method("repeat", kf_repeat {});
        std.method("objectHas", kf_object_has {});
        std.method("objectHasEx", kf_object_has_ex {});
        std.method("setUnion", kf_set_union {});
        std.method("parseJson", kf_parse_json {});
        std.method("escapeStringJson", text::kf_escape_string_json {});
        std.method("escapeStringPython", text::kf_escape_string_python {});
        std.method("manifestJsonEx", text::kf_manifest_json_ex {});
        std.method("manifestJson", text::kf_manifest_json {});
        std.method("manifestYamlDoc", text::kf_manifest_yaml_doc {});
        std.method("manifestYamlStream", text::kf_manifest_yaml_stream {});
        std.method("manifestPython", text::kf_manifest_python {});
        std.method("manifestPythonVars", text::kf_manifest_python_vars {});
        std.method("toString", text::kf_to_string {});
        std.method("escapeStringBash", text::kf_escape_string_bash {});
        std.method("escapeStringDollars", text::kf_escape_string_dollars {});
        std.method("manifestIni", text::kf_manifest_ini {});
        std.method("manifestXmlJsonml", text::kf_manifest_xml_jsonml {});
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
