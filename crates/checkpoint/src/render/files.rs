//! The files as the restore lists them: most active first, each path whole, under a root
//! stated once.

use super::*;

/// Every file of the checkpoint, most active first, and whether it was changed. With
/// `active_files` (written since this version) its order; files it lacks (or every file of an
/// older checkpoint) follow: changed ones, then read ones, most recent first.
pub(super) fn ranked_files(cp: &Checkpoint) -> Vec<(String, bool)> {
    let r = &cp.resources;
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let changed = |p: &str| r.files_modified.iter().any(|m| m == p);
    for p in r
        .active_files
        .iter()
        .chain(r.files_modified.iter().rev())
        .chain(r.files_read.iter().rev())
    {
        if seen.insert(p.as_str()) {
            out.push((p.clone(), changed(p)));
        }
    }
    out
}

/// The files without the directories read (listed, searched) whose files the list names: a
/// file under it says where the work went in it.
pub(super) fn without_listed_dirs(files: Vec<(String, bool)>) -> Vec<(String, bool)> {
    // how many files are under each directory (every prefix ending in `/`), and how often each
    // file is listed: a directory is listed when a file other than itself is under it (counted,
    // not scanned: a list of thousands of files would take quadratic time)
    let mut under: HashMap<&str, usize> = HashMap::new();
    let mut listed: HashMap<&str, usize> = HashMap::new();
    for (q, _) in &files {
        *listed.entry(q.as_str()).or_default() += 1;
        for (k, _) in q.match_indices('/') {
            *under.entry(&q[..=k]).or_default() += 1;
        }
    }
    files
        .iter()
        .filter(|(p, changed)| {
            let dir = format!("{}/", p.trim_end_matches('/'));
            let own = if p.starts_with(&dir) {
                listed[p.as_str()]
            } else {
                0
            };
            *changed || under.get(dir.as_str()).copied().unwrap_or(0) <= own
        })
        .cloned()
        .collect()
}

/// The session's root: the directory (of at least two components, holding at least two of the
/// absolute files) that makes the file list shortest, files under it shown relative to it and the
/// others whole (ties: the deeper). Files that are themselves a directory of another file are
/// left out of the choice.
pub(super) fn common_root(files: &[(String, bool)]) -> Option<String> {
    let abs: Vec<&str> = files
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| p.starts_with('/'))
        .collect();
    let leaves: Vec<&str> = abs
        .iter()
        .copied()
        .filter(|p| {
            let dir = format!("{}/", p.trim_end_matches('/'));
            !abs.iter().any(|q| q.starts_with(&dir))
        })
        .collect();
    let mut count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for p in &leaves {
        // every ancestor directory of the file: "/a", "/a/b", ... (not the file itself)
        for (i, _) in p.match_indices('/').skip(1) {
            *count.entry(&p[..i]).or_default() += 1;
        }
    }
    // characters saved: each file under the root loses the root and its slash
    count
        .into_iter()
        .filter(|(dir, n)| *n >= 2 && dir.matches('/').count() >= 2)
        .map(|(dir, n)| (dir, n * (dir.len() + 1)))
        .max_by(|a, b| {
            a.1.cmp(&b.1)
                .then(a.0.matches('/').count().cmp(&b.0.matches('/').count()))
                .then(b.0.cmp(a.0))
        })
        .map(|(d, _)| d.to_string())
}

/// The files as listed under `root`: a path given both absolute and relative to the session's
/// root (`/Users/hope/setup.js` written once, `setup.js` once) is one file shown once, in the
/// place of its first, changed when either was.
pub(super) fn shown_once(files: Vec<(String, bool)>, root: Option<&str>) -> Vec<(String, bool)> {
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<(String, bool)> = Vec::with_capacity(files.len());
    for (path, changed) in files {
        let shown = relative(&path, root).to_string();
        match at.get(&shown) {
            Some(&i) => out[i].1 |= changed,
            None => {
                at.insert(shown, out.len());
                out.push((path, changed));
            }
        }
    }
    out
}

pub(super) fn relative<'a>(path: &'a str, root: Option<&str>) -> &'a str {
    match root {
        Some(r) => path
            .strip_prefix(r)
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(path),
        None => path,
    }
}
