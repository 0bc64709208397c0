//! JS value wrappers shared by the binding modules.

use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName, ValidateNapiValue};
use napi::{sys, ValueType};

/// Any JS value, received (or returned) as JSON. Accepted as is by `strict` argument checking (so the other
/// arguments of the same export keep their `InvalidArg` type checks); its content is validated
/// afterwards, by `from_js` or, for a model's tool call, by the core.
pub struct Json(pub serde_json::Value);

impl TypeName for Json {
    fn type_name() -> &'static str {
        "unknown"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ValidateNapiValue for Json {
    unsafe fn validate(
        _env: sys::napi_env,
        _value: sys::napi_value,
    ) -> napi::Result<sys::napi_value> {
        Ok(std::ptr::null_mut())
    }
}

impl FromNapiValue for Json {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        let mut ty = 0;
        // SAFETY: `env` and `value` come unchanged from napi's own argument conversion.
        unsafe { sys::napi_typeof(env, value, &mut ty) };
        if ValueType::from(ty) == ValueType::Undefined {
            return Ok(Json(serde_json::Value::Null));
        }
        // SAFETY: as above.
        unsafe { serde_json::Value::from_napi_value(env, value) }.map(Json)
    }
}

/// An optional return value that is `undefined` in JS when absent (napi's `Option` gives `null`;
/// the contract says `undefined`).
pub struct Maybe<T>(pub Option<T>);

impl<T: TypeName> TypeName for Maybe<T> {
    fn type_name() -> &'static str {
        T::type_name()
    }
    fn value_type() -> ValueType {
        T::value_type()
    }
}

impl<T: ToNapiValue> ToNapiValue for Maybe<T> {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: `env` is the live env napi hands to every return conversion.
        match val.0 {
            Some(v) => unsafe { T::to_napi_value(env, v) },
            None => unsafe { <()>::to_napi_value(env, ()) },
        }
    }
}

impl ToNapiValue for Json {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: `env` is the live env napi hands to every return conversion.
        unsafe { serde_json::Value::to_napi_value(env, val.0) }
    }
}
