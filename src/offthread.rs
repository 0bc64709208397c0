//! Big JS inputs of the Promise forms, taken off the main thread a slice per event-loop turn.
//!
//! A JS value can only be read on the main thread, and napi's conversions of a 100 MB string
//! (UTF-8) or of 50,000 messages (an object walk) block it for hundreds of milliseconds. Here a
//! big string is copied as UTF-16 (a plain copy, no transcoding) [`STRING_STEP_UNITS`] at a time,
//! and a big array is serialised with the engine's own `JSON.stringify` [`ARRAY_STEP_ITEMS`]
//! items at a time, each slice in its own turn of the event loop (a round trip through the libuv
//! pool in between), so timers and I/O run between slices. The conversion to UTF-8 and the JSON
//! parse run on the pool with the work itself. The array is shallow-copied when the call is made
//! (`slice()`): pushing to it afterwards changes nothing; changing its messages before the
//! Promise settles may be seen.

use crate::error::{catch_panic, throw};
use context_fsio::Error;
use napi::bindgen_prelude::{AsyncTask, JsValue, Object, ToNapiValue, TypeName, Unknown};
use napi::{sys, Env, Task, ValueType};
use std::ffi::CStr;

/// Strings with at least this many UTF-16 units are gathered in slices; shorter ones are
/// converted at once (a few milliseconds at most).
pub const STRING_MIN_UNITS: usize = 1 << 22;
/// UTF-16 units (2 bytes each) copied per event-loop turn.
pub const STRING_STEP_UNITS: usize = 1 << 21;
/// Arrays with at least this many items are gathered in slices.
pub const ARRAY_MIN_ITEMS: u32 = 2048;
/// Array items serialised per event-loop turn.
pub const ARRAY_STEP_ITEMS: u32 = 1024;

/// A napi reference, only ever touched on the main thread (created by the export, read and
/// deleted in `resolve` / `finally`); it rides along through the pool untouched.
struct Ref(sys::napi_ref);
// SAFETY: see the type's doc: the worker thread never dereferences it.
unsafe impl Send for Ref {}

enum Source {
    /// A string copied as UTF-16 into `buf` (`len + 1` units: napi writes a NUL after each slice).
    Text {
        r: Option<Ref>,
        len: usize,
        at: usize,
        buf: Vec<u16>,
    },
    /// An array serialised slice by slice, each slice's JSON text as UTF-16.
    Items {
        r: Option<Ref>,
        len: u32,
        at: u32,
        parts: Vec<Vec<u16>>,
    },
}

/// What a source became, on the worker.
pub enum Gathered {
    Text(String),
    Items(Vec<serde_json::Value>),
}

impl Source {
    fn complete(&self) -> bool {
        match self {
            Source::Text { at, len, .. } => at >= len,
            Source::Items { at, len, .. } => at >= len,
        }
    }

    fn into_gathered(self) -> Result<Gathered, Error> {
        match self {
            Source::Text { mut buf, len, .. } => {
                buf.truncate(len);
                // Lone surrogates become U+FFFD, as napi's own UTF-8 conversion does.
                Ok(Gathered::Text(String::from_utf16_lossy(&buf)))
            }
            Source::Items { parts, .. } => {
                let mut out = Vec::new();
                for p in parts {
                    let text = String::from_utf16_lossy(&p);
                    let text = fix_lone_surrogate_escapes(&text);
                    let items: Vec<serde_json::Value> = serde_json::from_str(&text)
                        .map_err(|e| Error::invalid_arg(format!("input: {e}")))?;
                    out.extend(items);
                }
                Ok(Gathered::Items(out))
            }
        }
    }
}

/// `JSON.stringify` writes a lone surrogate as `\udXXX`, which serde_json refuses: such escapes
/// become `\ufffd` (U+FFFD, what napi's conversion makes of them); valid pairs stay.
fn fix_lone_surrogate_escapes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\ud") && !text.contains("\\uD") {
        return text.into();
    }
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u16> {
        let s = text.get(i..i + 4)?;
        u16::from_str_radix(s, 16).ok()
    };
    let unit_at = |i: usize| -> Option<u16> {
        if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
            hex(i + 2)
        } else {
            None
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit_at(i) {
            Some(u @ 0xD800..=0xDBFF) => {
                if matches!(unit_at(i + 6), Some(0xDC00..=0xDFFF)) {
                    i += 12;
                } else {
                    out.push_str(&text[copied..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    copied = i;
                }
                let _ = u;
            }
            Some(0xDC00..=0xDFFF) => {
                out.push_str(&text[copied..i]);
                out.push_str("\\ufffd");
                i += 6;
                copied = i;
            }
            Some(_) => i += 6,
            // Any other escape: the backslash and the escaped character.
            None => i += 2,
        }
    }
    out.push_str(&text[copied.min(text.len())..]);
    out.into()
}

type Finish<T> = Box<dyn FnOnce(Vec<Gathered>) -> Result<T, Error> + Send>;

/// A Promise whose big inputs are gathered slice by slice on the main thread, then `finish`
/// runs on the pool with them (in the order they were added). Without big inputs it is one pool
/// job, like `error::spawn`.
pub struct Gather<T: Send + 'static> {
    sources: Vec<Source>,
    finish: Option<Finish<T>>,
    /// An argument error found by the export: the Promise rejects with it (never a sync throw).
    failed: Option<Error>,
}

/// What one trip through the pool produced.
pub enum Step<T> {
    /// More slices to gather.
    More,
    Done(Result<T, Error>),
}

/// A raw JS value handed back to napi as the Promise's resolution (a value, or the next step's
/// Promise, which the outer Promise then follows).
pub struct Raw(sys::napi_value);

impl TypeName for Raw {
    fn type_name() -> &'static str {
        "unknown"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for Raw {
    unsafe fn to_napi_value(_env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        Ok(val.0)
    }
}

impl<T: Send + 'static> Gather<T> {
    /// A job with no big input yet.
    pub fn new(finish: impl FnOnce(Vec<Gathered>) -> Result<T, Error> + Send + 'static) -> Self {
        Gather {
            sources: Vec::new(),
            finish: Some(Box::new(finish)),
            failed: None,
        }
    }

    /// A job that rejects with `e`.
    pub fn failed(e: Error) -> Self {
        Gather {
            sources: Vec::new(),
            finish: None,
            failed: Some(e),
        }
    }

    /// Adds a string to gather (its index in `finish`'s list is the number of sources before it).
    pub fn add_text(&mut self, env: &Env, value: &Unknown, len: usize) -> Result<(), Error> {
        // Node 20 refuses references to primitives: the string is held by a one-item array.
        let mut holder = std::ptr::null_mut();
        // SAFETY: main thread, live handles.
        let ok = unsafe {
            sys::napi_create_array_with_length(env.raw(), 1, &mut holder) == sys::Status::napi_ok
                && sys::napi_set_element(env.raw(), holder, 0, value.raw()) == sys::Status::napi_ok
        };
        if !ok {
            return Err(napi_err("cannot hold the string"));
        }
        let r = make_ref_raw(env.raw(), holder)?;
        self.sources.push(Source::Text {
            r: Some(r),
            len,
            at: 0,
            buf: Vec::new(),
        });
        Ok(())
    }

    /// Adds an array to gather (shallow-copied now).
    pub fn add_items(&mut self, env: &Env, value: &Unknown) -> Result<(), Error> {
        let len = array_len(env, value)?;
        // SAFETY: `value` is a live array handle of the current call.
        let copy = unsafe { call_method(env.raw(), value.raw(), c"slice", &[]) }?;
        let r = make_ref_raw(env.raw(), copy)?;
        self.sources.push(Source::Items {
            r: Some(r),
            len,
            at: 0,
            parts: Vec::new(),
        });
        Ok(())
    }

    /// Copies or serialises the next slice of the first incomplete source (main thread).
    fn advance(&mut self, env: &Env) -> Result<(), Error> {
        let raw_env = env.raw();
        let Some(src) = self.sources.iter_mut().find(|s| !s.complete()) else {
            return Ok(());
        };
        match src {
            Source::Text { r, len, at, buf } => {
                let Some(rf) = r else { return Ok(()) };
                if buf.is_empty() {
                    // Zeroed pages from the OS: they are touched slice by slice, not here.
                    *buf = vec![0u16; *len + 1];
                }
                // SAFETY: main thread; `rf` is live until deleted below; `buf` holds `len + 1`
                // units, so the slice and napi's NUL after it fit.
                unsafe {
                    let holder = ref_value(raw_env, rf)?;
                    let mut s = std::ptr::null_mut();
                    if sys::napi_get_element(raw_env, holder, 0, &mut s) != sys::Status::napi_ok {
                        return Err(napi_err("the string is gone"));
                    }
                    let end = (*at + STRING_STEP_UNITS).min(*len);
                    let part = if *at == 0 && end == *len {
                        s
                    } else {
                        let a = number(raw_env, *at as f64)?;
                        let b = number(raw_env, end as f64)?;
                        call_method(raw_env, s, c"slice", &[a, b])?
                    };
                    let mut copied = 0usize;
                    let status = sys::napi_get_value_string_utf16(
                        raw_env,
                        part,
                        buf.as_mut_ptr().add(*at),
                        end - *at + 1,
                        &mut copied,
                    );
                    if status != sys::Status::napi_ok || copied != end - *at {
                        return Err(Error::invalid_arg("input: the string could not be read"));
                    }
                    *at = end;
                }
            }
            Source::Items { r, len, at, parts } => {
                let Some(rf) = r else { return Ok(()) };
                // SAFETY: main thread; `rf` is live until deleted below.
                unsafe {
                    let arr = ref_value(raw_env, rf)?;
                    let end = (*at + ARRAY_STEP_ITEMS).min(*len);
                    let a = number(raw_env, f64::from(*at))?;
                    let b = number(raw_env, f64::from(end))?;
                    let part = call_method(raw_env, arr, c"slice", &[a, b])?;
                    let json = stringify(raw_env, part)?;
                    parts.push(utf16(raw_env, json)?);
                    *at = end;
                }
            }
        }
        self.release_complete(raw_env);
        Ok(())
    }

    /// Deletes the references of sources fully gathered (or of all, with `all`).
    fn release(&mut self, env: sys::napi_env, all: bool) {
        for s in &mut self.sources {
            let done = s.complete();
            let r = match s {
                Source::Text { r, .. } | Source::Items { r, .. } => r,
            };
            if all || done {
                if let Some(rf) = r.take() {
                    // SAFETY: main thread; each reference is deleted once (taken out first).
                    unsafe { sys::napi_delete_reference(env, rf.0) };
                }
            }
        }
    }

    fn release_complete(&mut self, env: sys::napi_env) {
        self.release(env, false)
    }
}

impl<T: Send + ToNapiValue + 'static> Task for Gather<T> {
    type Output = Step<T>;
    type JsValue = Raw;

    fn compute(&mut self) -> napi::Result<Step<T>> {
        if let Some(e) = self.failed.take() {
            return Ok(Step::Done(Err(e)));
        }
        if self.sources.iter().any(|s| !s.complete()) {
            return Ok(Step::More);
        }
        let sources = std::mem::take(&mut self.sources);
        let finish = self.finish.take();
        Ok(Step::Done(catch_panic(move || {
            let gathered = sources
                .into_iter()
                .map(Source::into_gathered)
                .collect::<Result<Vec<_>, _>>()?;
            match finish {
                Some(f) => f(gathered),
                None => Err(Error::new(
                    context_fsio::ErrorCode::Panic,
                    "job already ran",
                )),
            }
        })))
    }

    fn resolve(&mut self, env: Env, out: Step<T>) -> napi::Result<Raw> {
        match out {
            Step::Done(r) => {
                let v = throw(&env, r)?;
                // SAFETY: `env` is the live env of this callback.
                Ok(Raw(unsafe { T::to_napi_value(env.raw(), v) }?))
            }
            Step::More => {
                if let Err(e) = self.advance(&env) {
                    self.release(env.raw(), true);
                    return throw(&env, Err(e));
                }
                let next = Gather {
                    sources: std::mem::take(&mut self.sources),
                    finish: self.finish.take(),
                    failed: None,
                };
                let p = env.spawn(next)?;
                Ok(Raw(p.promise_object().raw()))
            }
        }
    }

    fn finally(mut self, env: Env) -> napi::Result<()> {
        // Whatever was not moved on to a next step (a failure) lets go of its values.
        self.release(env.raw(), true);
        Ok(())
    }
}

fn napi_err(what: &str) -> Error {
    Error::invalid_arg(format!("input: {what}"))
}

fn make_ref_raw(env: sys::napi_env, value: sys::napi_value) -> Result<Ref, Error> {
    let mut r = std::ptr::null_mut();
    // SAFETY: main thread, live handle.
    let status = unsafe { sys::napi_create_reference(env, value, 1, &mut r) };
    if status != sys::Status::napi_ok {
        return Err(napi_err("cannot hold the value"));
    }
    Ok(Ref(r))
}

unsafe fn ref_value(env: sys::napi_env, r: &Ref) -> Result<sys::napi_value, Error> {
    let mut v = std::ptr::null_mut();
    // SAFETY: the caller is on the main thread with a live reference.
    if unsafe { sys::napi_get_reference_value(env, r.0, &mut v) } != sys::Status::napi_ok
        || v.is_null()
    {
        return Err(napi_err("the value was collected"));
    }
    Ok(v)
}

unsafe fn number(env: sys::napi_env, n: f64) -> Result<sys::napi_value, Error> {
    let mut v = std::ptr::null_mut();
    // SAFETY: main thread.
    if unsafe { sys::napi_create_double(env, n, &mut v) } != sys::Status::napi_ok {
        return Err(napi_err("cannot create a number"));
    }
    Ok(v)
}

/// The pending JS exception's message, cleared (so the call can reject instead of throw).
unsafe fn take_exception(env: sys::napi_env) -> String {
    let mut e = std::ptr::null_mut();
    // SAFETY: main thread.
    unsafe { sys::napi_get_and_clear_last_exception(env, &mut e) };
    if e.is_null() {
        return "an exception".into();
    }
    let mut msg = std::ptr::null_mut();
    // SAFETY: main thread; `e` is the exception value (coerced to a string).
    if unsafe { sys::napi_coerce_to_string(env, e, &mut msg) } != sys::Status::napi_ok {
        return "an exception".into();
    }
    // SAFETY: as above.
    unsafe { utf16(env, msg) }
        .map(|u| String::from_utf16_lossy(&u))
        .unwrap_or_else(|_| "an exception".into())
}

/// `value[name](...args)` on an object value (a string is boxed by the lookup through its
/// prototype: `String.prototype` / `Array.prototype` methods).
unsafe fn call_method(
    env: sys::napi_env,
    value: sys::napi_value,
    name: &CStr,
    args: &[sys::napi_value],
) -> Result<sys::napi_value, Error> {
    let mut obj = std::ptr::null_mut();
    let mut f = std::ptr::null_mut();
    let mut out = std::ptr::null_mut();
    // SAFETY: main thread, live handles; napi_coerce_to_object boxes a string primitive.
    unsafe {
        if sys::napi_coerce_to_object(env, value, &mut obj) != sys::Status::napi_ok
            || sys::napi_get_named_property(env, obj, name.as_ptr(), &mut f) != sys::Status::napi_ok
        {
            return Err(napi_err(&format!("no {name:?} method")));
        }
        if sys::napi_call_function(env, value, f, args.len(), args.as_ptr(), &mut out)
            != sys::Status::napi_ok
        {
            return Err(napi_err(&take_exception(env)));
        }
    }
    Ok(out)
}

/// `JSON.stringify(value)` with the engine's own serialiser.
unsafe fn stringify(env: sys::napi_env, value: sys::napi_value) -> Result<sys::napi_value, Error> {
    let mut global = std::ptr::null_mut();
    let mut json = std::ptr::null_mut();
    let mut f = std::ptr::null_mut();
    let mut out = std::ptr::null_mut();
    // SAFETY: main thread, live handles.
    unsafe {
        if sys::napi_get_global(env, &mut global) != sys::Status::napi_ok
            || sys::napi_get_named_property(env, global, c"JSON".as_ptr(), &mut json)
                != sys::Status::napi_ok
            || sys::napi_get_named_property(env, json, c"stringify".as_ptr(), &mut f)
                != sys::Status::napi_ok
        {
            return Err(napi_err("JSON.stringify is not available"));
        }
        if sys::napi_call_function(env, json, f, 1, &value, &mut out) != sys::Status::napi_ok {
            return Err(napi_err(&format!(
                "the messages cannot be serialised: {}",
                take_exception(env)
            )));
        }
    }
    Ok(out)
}

/// A JS string copied as UTF-16.
unsafe fn utf16(env: sys::napi_env, s: sys::napi_value) -> Result<Vec<u16>, Error> {
    let mut len = 0usize;
    // SAFETY: main thread; a null buffer asks for the length.
    if unsafe { sys::napi_get_value_string_utf16(env, s, std::ptr::null_mut(), 0, &mut len) }
        != sys::Status::napi_ok
    {
        return Err(napi_err("expected a string"));
    }
    let mut buf = vec![0u16; len + 1];
    let mut copied = 0usize;
    // SAFETY: `buf` holds `len + 1` units.
    unsafe { sys::napi_get_value_string_utf16(env, s, buf.as_mut_ptr(), len + 1, &mut copied) };
    buf.truncate(copied);
    Ok(buf)
}

fn array_len(env: &Env, value: &Unknown) -> Result<u32, Error> {
    let mut len = 0u32;
    // SAFETY: main thread, live handle.
    if unsafe { sys::napi_get_array_length(env.raw(), value.raw(), &mut len) }
        != sys::Status::napi_ok
    {
        return Err(napi_err("expected an array"));
    }
    Ok(len)
}

/// Whether `value` is an array with at least [`ARRAY_MIN_ITEMS`] items.
pub fn is_big_array(env: &Env, value: &Unknown) -> bool {
    let mut is = false;
    // SAFETY: main thread, live handle.
    unsafe { sys::napi_is_array(env.raw(), value.raw(), &mut is) };
    is && array_len(env, value).is_ok_and(|n| n >= ARRAY_MIN_ITEMS)
}

/// Every property of `obj` but `skip`, as JSON for `from_js`.
pub fn rest_json(obj: &Object, skip: &str) -> Result<serde_json::Value, Error> {
    let bad = |e: napi::Error| Error::invalid_arg(format!("input: {}", e.reason));
    let mut rest = serde_json::Map::new();
    for key in Object::keys(obj).map_err(bad)? {
        if key == skip {
            continue;
        }
        if let Some(v) = obj
            .get::<serde_json::Value>(&key)
            .map_err(|e| Error::invalid_arg(format!("input.{key}: {}", e.reason)))?
        {
            rest.insert(key, v);
        }
    }
    Ok(serde_json::Value::Object(rest))
}

/// The Promise form of a call whose input object carries a message array under `key`
/// (`writeCheckpoint`, `recordMessages`): an array of at least [`ARRAY_MIN_ITEMS`] items is
/// serialised a slice per event-loop turn and put back into the input on the pool; a smaller
/// input is converted at once, as before. `work` gets the whole input as JSON.
pub fn messages_job<T: Send + ToNapiValue + 'static>(
    env: &Env,
    input: Unknown,
    key: &'static str,
    work: fn(serde_json::Value) -> Result<T, Error>,
) -> AsyncTask<Gather<T>> {
    let split = (|| -> Result<Option<(Unknown, serde_json::Value)>, Error> {
        if input.get_type().ok() != Some(ValueType::Object) {
            return Ok(None);
        }
        // SAFETY: checked to be an object just above.
        let obj: Object = unsafe { input.cast() }
            .map_err(|e| Error::invalid_arg(format!("input: {}", e.reason)))?;
        let Ok(Some(items)) = obj.get::<Unknown>(key) else {
            return Ok(None);
        };
        if !is_big_array(env, &items) {
            return Ok(None);
        }
        Ok(Some((items, rest_json(&obj, key)?)))
    })();
    let task = match split {
        Err(e) => Gather::failed(e),
        Ok(Some((items, mut rest))) => {
            let mut g = Gather::new(move |mut got: Vec<Gathered>| {
                if let (Some(Gathered::Items(v)), Some(obj)) = (got.pop(), rest.as_object_mut()) {
                    obj.insert(key.to_string(), serde_json::Value::Array(v));
                }
                work(rest)
            });
            match g.add_items(env, &items) {
                Ok(()) => g,
                Err(e) => Gather::failed(e),
            }
        }
        // SAFETY: `input` is a live handle of the current call.
        Ok(None) => match unsafe {
            <serde_json::Value as napi::bindgen_prelude::FromNapiValue>::from_napi_value(
                env.raw(),
                input.raw(),
            )
        } {
            Ok(v) => Gather::new(move |_| work(v)),
            Err(e) => Gather::failed(Error::invalid_arg(format!("input: {}", e.reason))),
        },
    };
    AsyncTask::new(task)
}

#[cfg(test)]
mod tests {
    use super::fix_lone_surrogate_escapes as fix;

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters() {
        assert_eq!(fix(r#"["a\"b"]"#), r#"["a\"b"]"#);
        assert_eq!(fix(r#"["\ud83e\udd8a"]"#), r#"["\ud83e\udd8a"]"#);
        assert_eq!(fix(r#"["x\ud800y"]"#), r#"["x\ufffdy"]"#);
        assert_eq!(fix(r#"["\udc00\ud800"]"#), r#"["\ufffd\ufffd"]"#);
        assert_eq!(fix(r#"["\\ud800"]"#), r#"["\\ud800"]"#);
        for t in [
            r#"["x\ud800y"]"#,
            r#"["\udc00"]"#,
            r#"["\ud83e\udd8a\ud800"]"#,
        ] {
            let v: Vec<String> = serde_json::from_str(&fix(t)).unwrap();
            assert!(v[0].contains('\u{FFFD}'), "{t}");
        }
    }
}
