//! Redundancy removal: what one section says, another does not say again.

use super::*;

/// `a` and `b` say the same at the start: one's folded text begins with the other's (gists cut
/// the same message at different lengths).
pub(super) fn same_start(a: &str, b: &str) -> bool {
    let fa = fold_key(a.trim_end_matches('…'));
    let fb = fold_key(b.trim_end_matches('…'));
    !fa.is_empty() && !fb.is_empty() && (fa.starts_with(&fb) || fb.starts_with(&fa))
}

/// Folded characters of a decision's quoted proposal looked up in the next action.
pub(super) const QUOTE_LOOKUP_CHARS: usize = 24;

/// A decision replying to a proposal the next action states (`go ahead (re: 1. Add timeouts 2.
/// …)` while `Next action: 1. Add timeouts; 2. …`): the proposal is said there, so the reply
/// points to it. `next` is the next action's [`fold_key`].
pub(super) fn without_planned<'a>(what: &'a str, next: &str) -> Cow<'a, str> {
    let Some(at) = what.find(REPLY_QUOTE) else {
        return Cow::Borrowed(what);
    };
    let quoted = fold_key(&what[at + REPLY_QUOTE.len()..]);
    let lead: String = quoted.chars().take(QUOTE_LOOKUP_CHARS).collect();
    if lead.chars().count() < QUOTE_LOOKUP_CHARS || !next.contains(&lead) {
        return Cow::Borrowed(what);
    }
    Cow::Owned(format!("{} (re: the plan under Next action)", &what[..at]))
}

/// Folded entries, each once (the first), in order.
pub(super) fn distinct(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|s| {
            let k = fold_key(s);
            !k.is_empty() && seen.insert(k)
        })
        .collect()
}

/// What every draft of one render shares, computed once: the files ranked, their root, the
/// fold keys that decide what is said already, the open items without near-duplicates.
pub(super) struct Prepared {
    pub(super) files: Vec<(String, bool)>,
    pub(super) root: Option<String>,
    /// Key exchanges not to show whatever the budget: blank, a user message the task or topic
    /// states already, or a near-duplicate of an earlier one.
    pub(super) exchange_hidden: Vec<bool>,
    /// Near-duplicates of an earlier decision / learning.
    pub(super) decision_dup: Vec<bool>,
    pub(super) constraint_dup: Vec<bool>,
    pub(super) learning_dup: Vec<bool>,
    pub(super) open_items: Vec<String>,
    /// The thread summary says nothing the task and topic do not.
    pub(super) summary_redundant: bool,
    /// The identifiers as shown, by rank: `None` for one another identifier shows already.
    pub(super) identifiers: Vec<Option<String>>,
}

/// The identifiers with each name said once: a name another one contains (`touch` in
/// `Registry.touch`, `load/1` in `load/1`'s own `load`) is shown by that one. A name contained in
/// a better-ranked one is left out; a name whose container ranks lower takes the container's
/// text at its own rank, and the container is left out. Case-insensitive.
pub(super) fn merge_contained(items: &[String]) -> Vec<Option<String>> {
    // a checkpoint the extraction wrote has at most MAX_IDENTIFIERS; those beyond (a file edited
    // by hand) are shown as they are: comparing each with all the others takes quadratic time
    let merged = items.len().min(MAX_IDENTIFIERS);
    let lower: Vec<String> = items[..merged]
        .iter()
        .map(|s| shown_identifier(s).unwrap_or_default().to_lowercase())
        .collect();
    let mut shown: Vec<Option<usize>> = (0..items.len()).map(Some).collect();
    for i in 0..merged {
        if shown[i].is_none() || lower[i].is_empty() {
            continue;
        }
        let covered = (0..i).any(|k| shown[k].is_some_and(|t| lower[t].contains(&lower[i])));
        if covered {
            shown[i] = None;
            continue;
        }
        if let Some(j) =
            (i + 1..merged).find(|&j| shown[j] == Some(j) && lower[j].contains(&lower[i]))
        {
            if lower[j] != lower[i] {
                shown[i] = Some(j);
            }
            shown[j] = None;
        }
    }
    shown
        .into_iter()
        .map(|t| t.map(|t| items[t].clone()))
        .collect()
}

pub(super) fn dup_flags<'a>(items: impl Iterator<Item = &'a str>) -> Vec<bool> {
    let mut seen = std::collections::HashSet::new();
    items
        .map(|s| {
            let k = fold_key(s);
            k.is_empty() || !seen.insert(k)
        })
        .collect()
}

impl Prepared {
    pub(super) fn new(cp: &Checkpoint) -> Prepared {
        let files = without_listed_dirs(ranked_files(cp));
        let root = common_root(&files);
        let files = shown_once(files, root.as_deref());
        let w = &cp.working;
        let task = w.task.as_deref().filter(|t| !t.trim().is_empty());
        let topic = w.topic.as_deref().filter(|t| !t.trim().is_empty());
        let stated = |text: &str| {
            task.is_some_and(|t| same_start(t, text)) || topic.is_some_and(|t| same_start(t, text))
        };
        let mut seen = std::collections::HashSet::new();
        let exchange_hidden = cp
            .thread
            .key_exchanges
            .iter()
            .map(|e| {
                e.gist.trim().is_empty()
                    || (e.role == Role::User && stated(&e.gist))
                    || !seen.insert(fold_key(&e.gist))
            })
            .collect();
        let summary_redundant = cp
            .thread
            .summary
            .as_deref()
            .is_some_and(|s| s.split(" ... ").all(stated));
        Prepared {
            identifiers: merge_contained(&cp.resources.identifiers),
            root,
            exchange_hidden,
            decision_dup: dup_flags(cp.decisions.iter().map(|d| d.what.as_str())),
            // a constraint the task or the current request already states is said there
            constraint_dup: dup_flags(cp.constraints.iter().map(String::as_str))
                .into_iter()
                .zip(&cp.constraints)
                .map(|(dup, c)| dup || stated(c))
                .collect(),
            learning_dup: dup_flags(cp.learnings.iter().map(String::as_str)),
            open_items: distinct(cp.open_items.clone()),
            summary_redundant,
            files,
        }
    }
}
