//! Resume: rebuilding a session's scratchpad from its pi session entries.

use crate::pad::{
    clean_refs, fit_refs, fit_text, measure, Limits, Outcome, PersistData, Scratchpad, Space,
    Usage, LEGACY_KEY, NOTES_KEY, PLAN_KEY, REFS_KEY, VERSION_KEY,
};
use crate::text::{truncate_utf16, utf16_len};
use context_fsio::Error;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

/// The parts of a pi session entry (`{ type, customType?, data?, id?, parentId? }`) a restore
/// reads. `custom_type` is set only for entries of `type: "custom"`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntryLike {
    pub custom_type: Option<String>,
    pub data: Option<Value>,
    pub id: Option<String>,
    pub parent_id: Option<String>,
}

/// True for the `customType`s a restore reads (so a binding converts only their `data`).
/// The version a persisted map of spaces records (0 when absent or unreadable).
pub fn persisted_version(spaces: &serde_json::Map<String, Value>) -> u64 {
    spaces
        .get(VERSION_KEY)
        .and_then(Value::as_str)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

pub fn is_scratchpad_key(custom_type: &str) -> bool {
    matches!(
        custom_type,
        NOTES_KEY | PLAN_KEY | REFS_KEY | LEGACY_KEY | VERSION_KEY
    )
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    pub usage: Usage,
    /// Restored content was cut to fit the limits.
    pub truncated: bool,
    /// One line per thing the host should know: cuts made, entries ignored.
    pub warnings: Vec<String>,
}

/// The ids on the branch from the root to `leaf` (inclusive).
fn branch_ids<'a>(entries: &'a [EntryLike], leaf: &'a str) -> Result<FxHashSet<&'a str>, Error> {
    let parents: FxHashMap<&str, Option<&str>> = entries
        .iter()
        .filter_map(|e| Some((e.id.as_deref()?, e.parent_id.as_deref())))
        .collect();
    if !parents.contains_key(leaf) {
        return Err(Error::not_found(format!(
            "leafId {leaf:?} is not the id of any of the given entries: pass the session's current \
             leaf (SessionManager.getLeafId()) together with getEntries()"
        )));
    }
    let mut on = FxHashSet::default();
    let mut cur = Some(leaf);
    while let Some(id) = cur {
        if !on.insert(id) {
            break; // a cycle: stop rather than loop
        }
        cur = parents.get(id).copied().flatten();
    }
    Ok(on)
}

fn text_of(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        // tolerate `{ content: "..." }`, the shape some seed-000 hosts wrote
        Value::Object(o) => o.get("content").and_then(Value::as_str),
        _ => None,
    }
}

impl Scratchpad {
    /// Applies one tool call to the spaces as persisted (`spaces`: persisted key -> data, as a
    /// host stores them, [`VERSION_KEY`] included), not to what this scratchpad held before: it
    /// first becomes exactly the persisted state (content and version), then the call applies.
    /// Returns the outcome and the map entries to write back: the changed spaces and the new
    /// version, or none when nothing changed. The caller holds the store's lock around the read,
    /// this call and the write, so two processes applying calls lose none of them.
    pub fn apply_persisted(
        &mut self,
        spaces: &serde_json::Map<String, Value>,
        call: &Value,
        limits: Option<Limits>,
    ) -> Result<(Outcome, Vec<(String, Value)>), Error> {
        let entries: Vec<EntryLike> = spaces
            .iter()
            .filter(|(k, _)| is_scratchpad_key(k))
            .map(|(k, v)| EntryLike {
                custom_type: Some(k.clone()),
                data: Some(v.clone()),
                ..EntryLike::default()
            })
            .collect();
        self.restore(&entries, None, limits)?;
        self.version = persisted_version(spaces); // 0 for a map written before versions were
        let outcome = self.apply(call, None);
        let mut write: Vec<(String, Value)> = outcome
            .persist
            .iter()
            .map(|e| {
                let data = match &e.data {
                    PersistData::Text(t) => Value::String(t.clone()),
                    PersistData::List(l) => {
                        Value::Array(l.iter().cloned().map(Value::String).collect())
                    }
                };
                (e.custom_type.to_string(), data)
            })
            .collect();
        if !write.is_empty() {
            write.push((
                VERSION_KEY.to_string(),
                Value::String(self.version.to_string()),
            ));
        }
        Ok((outcome, write))
    }

    /// Replaces this session's spaces with the last persisted entry of each key among `entries`
    /// (in file order). With `leaf_id`, only entries on the branch from the root to that leaf
    /// count. The legacy `openclaw:scratchpad` entry fills notes when no notes entry exists.
    /// Content over a limit is cut (reported in the warnings): restored content never exceeds
    /// the limits silently. `limits`, when given, replace the session's limits first.
    pub fn restore(
        &mut self,
        entries: &[EntryLike],
        leaf_id: Option<&str>,
        limits: Option<Limits>,
    ) -> Result<RestoreReport, Error> {
        let on_branch = match leaf_id {
            Some(leaf) => Some(branch_ids(entries, leaf)?),
            None => None,
        };
        let mut warnings = Vec::new();
        let (mut notes, mut plan, mut refs, mut legacy) = (None, None, None, None);
        let mut version: Option<u64> = None;
        for e in entries {
            let Some(key) = e.custom_type.as_deref() else {
                continue;
            };
            if !is_scratchpad_key(key) {
                continue;
            }
            if let Some(set) = &on_branch {
                if !e.id.as_deref().is_some_and(|id| set.contains(id)) {
                    continue;
                }
            }
            let data = e.data.as_ref().unwrap_or(&Value::Null);
            if key == VERSION_KEY {
                // A persisted map's version (apply_persisted); unreadable: the count goes on from here.
                version = data.as_str().and_then(|v| v.parse().ok()).or(version);
                continue;
            }
            let ok = match key {
                NOTES_KEY => text_of(data).map(|s| notes = Some(s)).is_some(),
                PLAN_KEY => text_of(data).map(|s| plan = Some(s)).is_some(),
                LEGACY_KEY => text_of(data).map(|s| legacy = Some(s)).is_some(),
                _ => data.as_array().map(|a| refs = Some(a.as_slice())).is_some(),
            };
            if !ok {
                warnings.push(format!(
                    "ignored a {key} entry{} whose data is not a {}",
                    e.id.as_deref()
                        .map(|i| format!(" ({i})"))
                        .unwrap_or_default(),
                    if key == REFS_KEY {
                        "string array"
                    } else {
                        "string"
                    }
                ));
            }
        }
        if let Some(l) = limits {
            self.limits = l;
        }
        let l = self.limits;
        let mut truncated = false;
        let mut cap = |space: &str, s: &str, max: usize, warnings: &mut Vec<String>| -> String {
            let t = truncate_utf16(s, max);
            if t.len() < s.len() {
                truncated = true;
                warnings.push(format!(
                    "{space} cut from {} to {} chars (limit {max})",
                    utf16_len(s),
                    utf16_len(t)
                ));
            }
            t.to_string()
        };
        let mut notes = cap(
            "notes",
            notes.or(legacy).unwrap_or(""),
            l.notes_max_chars,
            &mut warnings,
        );
        let mut plan = cap("plan", plan.unwrap_or(""), l.plan_max_chars, &mut warnings);
        let (mut refs, dropped) = clean_refs(refs.unwrap_or(&[]));
        if dropped > 0 {
            warnings.push(format!(
                "dropped {dropped} refs item(s) that were not non-empty strings or were repeats"
            ));
        }
        if refs.len() > l.refs_max {
            truncated = true;
            warnings.push(format!(
                "refs cut from {} to the first {}",
                refs.len(),
                l.refs_max
            ));
            refs.truncate(l.refs_max);
        }
        // Token budget: shorten notes first, then plan, then refs, until the block fits.
        let mut m = measure(&notes, &plan, &refs, &l);
        if m.tokens > l.max_tokens {
            truncated = true;
            let before = m.tokens;
            for space in [Space::Notes, Space::Plan] {
                if m.tokens <= l.max_tokens {
                    break;
                }
                let fitted = match space {
                    Space::Notes => fit_text(space, &notes, &plan, &refs, &l),
                    Space::Plan => fit_text(space, &plan, &notes, &refs, &l),
                };
                let text = match space {
                    Space::Notes => &mut notes,
                    Space::Plan => &mut plan,
                };
                match fitted {
                    Some((cut, fitted)) if fitted.tokens <= l.max_tokens => {
                        text.truncate(cut);
                        m = fitted;
                    }
                    _ => {
                        text.clear();
                        m = measure(&notes, &plan, &refs, &l);
                    }
                }
            }
            if m.tokens > l.max_tokens {
                let (k, fitted) = fit_refs(&notes, &plan, &refs, &l)
                    .unwrap_or_else(|| (0, measure(&notes, &plan, &[], &l)));
                refs.truncate(k);
                m = fitted;
            }
            warnings.push(format!(
                "content cut from {before} to {} tokens to fit the {}-token budget (notes first, then plan, then refs)",
                m.tokens, l.max_tokens
            ));
        }
        self.install(Some(notes), Some(plan), Some(refs), m);
        if let Some(v) = version {
            self.version = v;
        }
        Ok(RestoreReport {
            usage: self.usage(),
            truncated,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn custom(key: &str, data: Value, id: &str, parent: Option<&str>) -> EntryLike {
        EntryLike {
            custom_type: Some(key.into()),
            data: Some(data),
            id: Some(id.into()),
            parent_id: parent.map(Into::into),
        }
    }

    #[test]
    fn last_entry_per_key_wins_and_legacy_fills_notes() {
        let entries = vec![
            custom(LEGACY_KEY, json!("legacy"), "a", None),
            custom(PLAN_KEY, json!("p1"), "b", Some("a")),
            custom(PLAN_KEY, json!("p2"), "c", Some("b")),
            custom(REFS_KEY, json!(["x", 3, "y"]), "d", Some("c")),
        ];
        let mut p = Scratchpad::new();
        let r = p.restore(&entries, None, None).unwrap();
        assert_eq!(p.notes(), "legacy");
        assert_eq!(p.plan(), "p2");
        assert_eq!(p.refs(), ["x", "y"]);
        assert!(!r.truncated);
        assert_eq!(r.warnings.len(), 1);
        // a notes entry, even empty, beats the legacy one
        let mut e2 = entries.clone();
        e2.push(custom(NOTES_KEY, json!(""), "e", Some("d")));
        p.restore(&e2, None, None).unwrap();
        assert_eq!(p.notes(), "");
    }

    #[test]
    fn branch_restore_follows_the_leaf() {
        // a -> b(plan "main") ; a -> c(plan "side")
        let entries = vec![
            EntryLike {
                id: Some("a".into()),
                ..Default::default()
            },
            custom(PLAN_KEY, json!("main"), "b", Some("a")),
            custom(PLAN_KEY, json!("side"), "c", Some("a")),
        ];
        let mut p = Scratchpad::new();
        p.restore(&entries, Some("b"), None).unwrap();
        assert_eq!(p.plan(), "main");
        p.restore(&entries, Some("c"), None).unwrap();
        assert_eq!(p.plan(), "side");
        p.restore(&entries, Some("a"), None).unwrap();
        assert_eq!(p.plan(), "");
        let e = p.restore(&entries, Some("zz"), None).unwrap_err();
        assert_eq!(e.code, context_fsio::ErrorCode::NotFound);
    }

    #[test]
    fn restored_content_is_cut_to_limits_with_warnings() {
        let entries = vec![
            custom(NOTES_KEY, json!("ab ".repeat(1700)), "a", None),
            custom(
                REFS_KEY,
                json!((0..60).map(|i| format!("r{i}")).collect::<Vec<_>>()),
                "b",
                Some("a"),
            ),
        ];
        let mut p = Scratchpad::new();
        let r = p.restore(&entries, None, None).unwrap();
        assert!(r.truncated);
        assert_eq!(r.usage.notes_chars, 4000);
        assert_eq!(r.usage.refs, 50);
        assert!(r.usage.tokens <= 2000);
        assert!(r.warnings.iter().any(|w| w.contains("notes cut")));
        let tight = Limits {
            max_tokens: 30,
            ..Limits::default()
        };
        let r = p.restore(&entries, None, Some(tight)).unwrap();
        assert!(r.truncated && r.usage.tokens <= 30, "{r:?}");
    }

    #[test]
    fn apply_persisted_applies_to_the_stored_spaces_not_a_stale_copy() {
        // Two processes' scratchpads over one persisted map: each applies its append to what is stored.
        let mut stored = serde_json::Map::new();
        let (mut a, mut b) = (Scratchpad::new(), Scratchpad::new());
        for i in 0..10 {
            for (name, pad) in [("a", &mut a), ("b", &mut b)] {
                let call = json!({"action": "append_notes", "content": format!("{name}{i}")});
                let (o, write) = pad.apply_persisted(&stored, &call, None).unwrap();
                assert!(o.ok, "{}", o.message);
                for (k, v) in write {
                    stored.insert(k, v);
                }
            }
        }
        let notes = stored[NOTES_KEY].as_str().unwrap();
        assert_eq!(notes.lines().count(), 20, "{notes}");
        assert_eq!(persisted_version(&stored), 20);
        assert_eq!(b.usage().version, 20);
        // expectedVersion compares with the stored version, whoever wrote last.
        let stale = json!({"action": "set_plan", "content": "x", "expectedVersion": 19});
        let (o, write) = a.apply_persisted(&stored, &stale, None).unwrap();
        assert!(!o.ok && write.is_empty(), "{}", o.message);
        let fresh = json!({"action": "set_plan", "content": "x", "expectedVersion": 20});
        let (o, write) = a.apply_persisted(&stored, &fresh, None).unwrap();
        assert!(o.ok && write.iter().any(|(k, v)| k == VERSION_KEY && v == "21"));
    }
}
