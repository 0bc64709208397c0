//! `{{observation:<id or name>}}` references in tool arguments, expanded to the full stored content
//! (seed 003's `{{step1.content}}` case): a model passes a large result to another tool without
//! ever reading it.

use crate::observation::{base64, Kind};
use crate::read::read_all;
use crate::store::Session;
use context_fsio::{Error, ErrorCode, Result};
use regex::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{\{\s*observation:\s*([^{}]+?)\s*\}\}").expect("valid regex"))
}

/// Whether `text` holds at least one reference.
pub fn has_refs(text: &str) -> bool {
    pattern().is_match(text)
}

/// The ids or names referenced in `text`, in order.
pub fn find_refs(text: &str) -> Vec<String> {
    pattern()
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

/// Expands references against one open session, caching each entry's content for the call.
pub struct Expander<'a> {
    session: Option<&'a Session>,
    turn_id: Option<&'a str>,
    max_bytes: u64,
    now: u64,
    cache: HashMap<String, String>,
    /// Indexes of the entries read (their `last_read_at` is updated by the caller).
    pub used: Vec<usize>,
}

impl<'a> Expander<'a> {
    pub fn new(
        session: Option<&'a Session>,
        turn_id: Option<&'a str>,
        max_bytes: u64,
        now: u64,
    ) -> Self {
        Expander {
            session,
            turn_id,
            max_bytes,
            now,
            cache: HashMap::new(),
            used: vec![],
        }
    }

    fn content(&mut self, key: &str) -> Result<String> {
        if let Some(c) = self.cache.get(key) {
            return Ok(c.clone());
        }
        let s = self.session.ok_or_else(|| {
            Error::not_found(format!(
                "no observation entry {key:?}: this session has no observation store"
            ))
        })?;
        let i = s.find(Some(key), None, self.turn_id, self.now)?;
        let e = &s.entries()[i];
        let bytes = read_all(s, e)?;
        let text = match e.kind {
            Kind::Text => String::from_utf8(bytes)
                .map_err(|_| Error::corrupt(format!("observation entry {key:?} is not UTF-8")))?,
            Kind::Binary => base64(&bytes),
        };
        self.used.push(i);
        self.cache.insert(key.to_string(), text.clone());
        Ok(text)
    }

    /// `text` with every reference replaced by the entry's content (binary entries as base64).
    /// Unknown references are `NotFound`; a result above `max_bytes` is `TooLarge`.
    pub fn expand_str(&mut self, text: &str) -> Result<String> {
        if !has_refs(text) {
            return Ok(text.to_string());
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for c in pattern().captures_iter(text) {
            let m = c.get(0).expect("group 0");
            out.push_str(&text[last..m.start()]);
            out.push_str(&self.content(&c[1])?);
            last = m.end();
            self.check(out.len())?;
        }
        out.push_str(&text[last..]);
        self.check(out.len())?;
        Ok(out)
    }

    fn check(&self, len: usize) -> Result<()> {
        if len as u64 > self.max_bytes {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "expanding observation references gives more than {} bytes; pass a smaller entry or raise maxBytes",
                    self.max_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Expands every string inside a JSON value (object keys are left alone).
    pub fn expand_value(&mut self, value: serde_json::Value) -> Result<serde_json::Value> {
        use serde_json::Value;
        Ok(match value {
            Value::String(s) => Value::String(self.expand_str(&s)?),
            Value::Array(a) => Value::Array(
                a.into_iter()
                    .map(|v| self.expand_value(v))
                    .collect::<Result<_>>()?,
            ),
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .map(|(k, v)| Ok((k, self.expand_value(v)?)))
                    .collect::<Result<_>>()?,
            ),
            other => other,
        })
    }
}

/// Whether a JSON value holds a reference anywhere.
pub fn value_has_refs(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => has_refs(s),
        Value::Array(a) => a.iter().any(value_has_refs),
        Value::Object(o) => o.values().any(value_has_refs),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_references() {
        assert_eq!(
            find_refs("a {{observation:abc}} b {{ observation: web_fetch_1 }} {{other}}"),
            vec!["abc", "web_fetch_1"]
        );
        assert!(!has_refs("{{step1.content}}"));
        assert!(has_refs("x{{observation:0123456789abcdef}}y"));
    }
}
