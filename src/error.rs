//! The one mapping from core errors (and panics) to JS errors with a stable `code`, and the two
//! wrappers every export goes through: `run` (sync) and `spawn` (a Promise run off the main thread).

use context_fsio::{Error, ErrorCode};
use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, JsError, Task};
use serde::de::DeserializeOwned;

/// The JS `Error.code` of every error this addon throws: `ErrorCode::as_str` of the core error,
/// one of `InvalidArg`, `NotFound`, `Io`, `Corrupt`, `NoSpace`, `PermissionDenied`, `TooLarge`,
/// `UnsafePath`, `UnsafeFile` (a file in the state dir refused: a link, a FIFO or device, or
/// oversized) and `Panic`.
pub struct Code(pub &'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// Turns a core result into a napi result whose error, once thrown, is a JS `Error` with the
/// stable `code`. napi-rs only carries `Status` codes through `napi::Result`, so the JS error
/// object is built here, on the JS thread, and thrown as is.
pub fn throw<T>(env: &Env, result: Result<T, Error>) -> napi::Result<T> {
    result.map_err(|err| {
        let js = JsError::from(napi::Error::new(Code(err.code.as_str()), err.message))
            .into_unknown(*env);
        napi::Error::from(js)
    })
}

/// Runs `f`, turning a panic into an error with code `Panic`.
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::new(
                ErrorCode::Panic,
                format!("internal error (a bug, please report it): {what}"),
            ))
        }
    }
}

/// The body of every synchronous export: panics and core errors become coded JS errors.
pub fn run<T>(env: &Env, f: impl FnOnce() -> Result<T, Error>) -> napi::Result<T> {
    throw(env, catch_panic(f))
}

/// Converts a JS value (received as JSON) into a core input type. Type errors, missing fields,
/// negative or fractional numbers where integers are expected all become `InvalidArg` naming `what`.
pub fn from_js<T: DeserializeOwned>(value: serde_json::Value, what: &str) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::invalid_arg(format!("{what}: {e}")))
}

/// A unit of blocking work run on the libuv thread pool; its result resolves the Promise, its
/// error rejects it with a coded JS error. Argument errors reject too: async exports never throw.
pub struct Job<T: Send + 'static> {
    work: Option<Box<dyn FnOnce() -> Result<T, Error> + Send>>,
}

impl<T: Send + ToNapiValue + TypeName + 'static> Task for Job<T> {
    type Output = Result<T, Error>;
    type JsValue = T;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        let work = self.work.take();
        Ok(catch_panic(move || match work {
            Some(w) => w(),
            None => Err(Error::new(ErrorCode::Panic, "job already ran")),
        }))
    }
    fn resolve(&mut self, env: Env, out: Self::Output) -> napi::Result<T> {
        throw(&env, out)
    }
}

/// Wraps blocking work as a Promise-returning task (the async twin of `run`).
pub fn spawn<T: Send + ToNapiValue + TypeName + 'static>(
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> AsyncTask<Job<T>> {
    AsyncTask::new(Job {
        work: Some(Box::new(work)),
    })
}
