use context_fsio::{session_dir_name, ErrorCode};
use context_offload::*;
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};

struct Tmp(PathBuf);
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
fn tmp(tag: &str) -> Tmp {
    let d = std::env::temp_dir().join(format!("offload-it-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    Tmp(d)
}

const KEY: &str = "agent:main:telegram:direct:42";

fn store_dir(root: &Path, key: &str) -> PathBuf {
    root.join("context/observations")
        .join(session_dir_name(key).unwrap())
}

fn offload_text(root: &Path, text: &str, tool: &str) -> OffloadOutcome {
    let mut r = OffloadRequest::new(Content::Text(text));
    r.tool_name = Some(tool.into());
    r.store.durable = false;
    offload(root, KEY, r).unwrap()
}

fn read_req(id: &str, mode: Mode) -> ReadRequest {
    ReadRequest::new(id, mode)
}

/// The seed 003 log: `INFO <ts> event number i` lines, an ERROR last.
fn big_log(lines: usize) -> String {
    let mut s = String::new();
    for i in 0..lines {
        s.push_str(&format!(
            "INFO 2026-04-26 10:{:02}:{:02} event number {i}\n",
            (i / 60) % 60,
            i % 60
        ));
    }
    s.push_str("ERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT\n");
    s
}

/// Text with 1-4 byte characters, long and short lines.
fn mixed_text(lines: usize) -> String {
    let mut s = String::new();
    for i in 0..lines {
        s.push_str(&format!("{i}: é日本🎉 {}\n", "ab".repeat(i % 13)));
    }
    s.push_str("tail ü");
    s
}

#[test]
fn under_the_threshold_nothing_is_stored() {
    let t = tmp("under");
    let mut r = OffloadRequest::new(Content::Text("small result"));
    r.metadata = Some(json!({"path": "/tmp/x"}));
    let out = offload(&t.0, KEY, r).unwrap();
    assert!(!out.offloaded && out.entry.is_none());
    assert_eq!(
        out.observation,
        Observation::Whole(WholeObservation {
            content: "small result".into(),
            encoding: None,
            metadata: Some(json!({"path": "/tmp/x"}))
        })
    );
    assert!(!t.0.join("context").exists());
    // The boundary: measured == threshold stays, one byte more goes.
    let text = "x".repeat(4096 - 14);
    let out = offload(&t.0, KEY, OffloadRequest::new(Content::Text(&text))).unwrap();
    assert_eq!(out.measured_bytes, 4096);
    assert!(!out.offloaded);
    let text = "x".repeat(4096 - 13);
    let out = offload(&t.0, KEY, OffloadRequest::new(Content::Text(&text))).unwrap();
    assert_eq!(out.measured_bytes, 4097);
    assert!(out.offloaded);
}

#[test]
fn over_the_threshold_gives_seed_003_synthetic_observation() {
    let t = tmp("synthetic");
    let log = big_log(2000);
    let mut r = OffloadRequest::new(Content::Text(&log));
    r.metadata = Some(json!({"path": "/tmp/big_log.txt", "bytes": log.len(), "encoding": "utf-8"}));
    r.tool_name = Some("fs_read".into());
    r.turn_id = Some("turn-1".into());
    let out = offload(&t.0, KEY, r).unwrap();
    assert!(out.offloaded);
    let Observation::Synthetic(obs) = &out.observation else {
        panic!("synthetic expected")
    };
    assert!(obs.ok);
    assert_eq!(obs.scratchpad_id.len(), 16);
    assert!(obs.scratchpad_id.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(obs.size_bytes, log.len() as u64);
    assert_eq!(obs.kind, Kind::Text);
    assert_eq!(obs.name, "fs_read_1");
    assert_eq!(obs.metadata.as_ref().unwrap()["path"], "/tmp/big_log.txt");
    assert!(obs._note.contains("scratchpad_read"));
    let omitted = log.chars().count() - 1000;
    assert!(obs
        .summary
        .starts_with("INFO 2026-04-26 10:00:00 event number 0\n"));
    assert!(obs
        .summary
        .contains(&format!("\n[... {omitted} characters omitted ...]\n")));
    assert!(obs
        .summary
        .ends_with("ERROR 2026-04-26 23:59:59 LAST_CRITICAL_EVENT\n"));
    // The JSON of the synthetic observation keeps seed 003's field order.
    let j = serde_json::to_string(obs).unwrap();
    assert!(j.starts_with("{\"ok\":true,\"scratchpad_id\":"));
    // Stored by id; names never become paths.
    let files: Vec<String> = fs::read_dir(store_dir(&t.0, KEY))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for f in &files {
        assert!(
            f == "catalog.json" || f == ".lock" || f.starts_with(&obs.scratchpad_id),
            "{f}"
        );
    }
    // Ids are unpredictable: a second offload of the same content gets another id and name.
    let again = offload_text(&t.0, &log, "fs_read");
    let Observation::Synthetic(o2) = &again.observation else {
        panic!()
    };
    assert_ne!(o2.scratchpad_id, obs.scratchpad_id);
    assert_eq!(o2.name, "fs_read_2");
    // Read by id and by name.
    let r = read(&t.0, KEY, &read_req(&obs.scratchpad_id, Mode::Tail)).unwrap();
    assert_eq!(r.content, log[log.len() - 2000..]);
    let mut by_name = read_req("x", Mode::Head);
    by_name.id = None;
    by_name.name = Some("fs_read_1".into());
    assert_eq!(read(&t.0, KEY, &by_name).unwrap().content, log[..2000]);
}

#[test]
fn text_offsets_count_characters_and_match_a_naive_slice() {
    let t = tmp("ranges");
    let text = mixed_text(3000);
    let chars: Vec<char> = text.chars().collect();
    let out = offload_text(&t.0, &text, "t");
    let id = out.entry.unwrap().id;
    let total = chars.len() as u64;
    let mut seed = 12345u64;
    let mut rnd = |m: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let mut cases = vec![
        (0, 0),
        (0, 1),
        (4095, 4097),
        (4096, 8192),
        (total - 1, total),
        (total - 3, total + 100),
        (total + 5, total + 10),
    ];
    for _ in 0..200 {
        let a = rnd(total);
        cases.push((a, a + rnd(9000)));
    }
    for (start, end) in cases {
        let mut r = read_req(&id, Mode::Range);
        r.start = Some(start);
        r.end = Some(end);
        let got = read(&t.0, KEY, &r).unwrap();
        let (s, e) = (start.min(total) as usize, end.min(total) as usize);
        let want: String = chars[s..e].iter().collect();
        assert_eq!(got.content, want, "range {start}..{end}");
        assert_eq!(got.start, Some(s as u64));
        assert_eq!(got.end, Some(e as u64));
        assert_eq!(got.entry.chars, total);
    }
    // head / tail with n.
    let mut r = read_req(&id, Mode::Head);
    r.n = Some(7);
    assert_eq!(
        read(&t.0, KEY, &r).unwrap().content,
        chars[..7].iter().collect::<String>()
    );
    let mut r = read_req(&id, Mode::Tail);
    r.n = Some(9);
    assert_eq!(
        read(&t.0, KEY, &r).unwrap().content,
        chars[chars.len() - 9..].iter().collect::<String>()
    );
    // end before start is refused.
    let mut r = read_req(&id, Mode::Range);
    r.start = Some(10);
    r.end = Some(5);
    assert_eq!(read(&t.0, KEY, &r).unwrap_err().code, ErrorCode::InvalidArg);
    // A slice longer than max_chars is cut and says so.
    let mut r = read_req(&id, Mode::Range);
    r.start = Some(100);
    r.end = Some(100_000);
    r.max_chars = Some(1000);
    let got = read(&t.0, KEY, &r).unwrap();
    assert!(got.truncated);
    assert_eq!(got.end, Some(1100));
    assert_eq!(got.content, chars[100..1100].iter().collect::<String>());
}

#[test]
fn full_is_refused_above_max_chars() {
    let t = tmp("full");
    let text = mixed_text(500);
    let id = offload_text(&t.0, &text, "t").entry.unwrap().id;
    let mut r = read_req(&id, Mode::Full);
    assert_eq!(read(&t.0, KEY, &r).unwrap().content, text);
    r.max_chars = Some(100);
    let err = read(&t.0, KEY, &r).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
    assert!(err.message.contains("range") && err.message.contains("grep"));
}

#[test]
fn lines_are_one_based_and_inclusive() {
    let t = tmp("lines");
    let text = mixed_text(2000); // 2001 lines, the last without a newline
    let id = offload_text(&t.0, &text, "t").entry.unwrap().id;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 2001);
    for (a, b) in [
        (1, 1),
        (1, 3),
        (255, 258),
        (256, 256),
        (257, 700),
        (1999, 2001),
        (2001, 2001),
        (2000, 5000),
    ] {
        let mut r = read_req(&id, Mode::Lines);
        r.start = Some(a);
        r.end = Some(b);
        let got = read(&t.0, KEY, &r).unwrap();
        let want: String = lines[a as usize - 1..(b as usize).min(2001)].concat();
        assert_eq!(got.content, want, "lines {a}..={b}");
        assert_eq!(got.start_line, Some(a));
        assert_eq!(got.end_line, Some(b.min(2001)));
        let before: usize = lines[..a as usize - 1]
            .iter()
            .map(|l| l.chars().count())
            .sum();
        assert_eq!(got.start, Some(before as u64));
        assert_eq!(got.entry.lines, 2001);
    }
    // Past the end: empty. Line 0 and end < start are refused.
    let mut r = read_req(&id, Mode::Lines);
    r.start = Some(3000);
    assert_eq!(read(&t.0, KEY, &r).unwrap().content, "");
    r.start = Some(0);
    assert_eq!(read(&t.0, KEY, &r).unwrap_err().code, ErrorCode::InvalidArg);
    r.start = Some(5);
    r.end = Some(4);
    assert_eq!(read(&t.0, KEY, &r).unwrap_err().code, ErrorCode::InvalidArg);
    // Cut at max_chars mid-line.
    let mut r = read_req(&id, Mode::Lines);
    r.start = Some(10);
    r.end = Some(20);
    r.max_chars = Some(25);
    let got = read(&t.0, KEY, &r).unwrap();
    assert!(got.truncated);
    assert_eq!(got.content.chars().count(), 25);
    assert!(lines[9..20].concat().starts_with(&got.content));
}

#[test]
fn grep_returns_numbered_lines_with_context_and_stops_at_100() {
    let t = tmp("grep");
    let mut text = String::new();
    for i in 1..=1000 {
        let level = if i % 7 == 0 { "ERROR" } else { "INFO" };
        text.push_str(&format!("{level} line {i}\r\n"));
    }
    let id = offload_text(&t.0, &text, "t").entry.unwrap().id;
    let mut r = read_req(&id, Mode::Grep);
    r.pattern = Some("^ERROR line (7|14|21)$".into());
    let got = read(&t.0, KEY, &r).unwrap();
    assert_eq!(
        got.content,
        "7:ERROR line 7\n14:ERROR line 14\n21:ERROR line 21"
    );
    assert_eq!(got.matches, Some(3));
    assert!(!got.truncated);
    // Context lines, `--` between groups, overlapping context merged.
    r.pattern = Some("^ERROR line (7|14|35)$".into());
    r.context = Some(3);
    let got = read(&t.0, KEY, &r).unwrap();
    let want = [
        "4-INFO line 4",
        "5-INFO line 5",
        "6-INFO line 6",
        "7:ERROR line 7",
        "8-INFO line 8",
        "9-INFO line 9",
        "10-INFO line 10",
        "11-INFO line 11",
        "12-INFO line 12",
        "13-INFO line 13",
        "14:ERROR line 14",
        "15-INFO line 15",
        "16-INFO line 16",
        "17-INFO line 17",
        "--",
        "32-INFO line 32",
        "33-INFO line 33",
        "34-INFO line 34",
        "35:ERROR line 35",
        "36-INFO line 36",
        "37-INFO line 37",
        "38-INFO line 38",
    ]
    .join("\n");
    assert_eq!(got.content, want);
    // At most 100 matches, and it says there are more.
    let mut r = read_req(&id, Mode::Grep);
    r.pattern = Some("INFO".into());
    let got = read(&t.0, KEY, &r).unwrap();
    assert_eq!(got.matches, Some(100));
    assert!(got.truncated);
    assert_eq!(got.content.lines().count(), 100);
    // Exactly 142 ERROR lines: n = 200 is capped at 100.
    r.pattern = Some("ERROR".into());
    r.n = Some(200);
    assert_eq!(read(&t.0, KEY, &r).unwrap().matches, Some(100));
    // An invalid regex is InvalidArg with the engine's message.
    r.pattern = Some("(unclosed".into());
    let err = read(&t.0, KEY, &r).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArg);
    assert!(err.message.contains("unclosed group"), "{}", err.message);
    r.pattern = None;
    assert_eq!(read(&t.0, KEY, &r).unwrap_err().code, ErrorCode::InvalidArg);
}

#[test]
fn binary_entries_count_bytes() {
    let t = tmp("binary");
    let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 256) as u8).collect();
    let mut r = OffloadRequest::new(Content::Bytes(&bytes));
    r.tool_name = Some("fs_read".into());
    let out = offload(&t.0, KEY, r).unwrap();
    assert_eq!(out.kind, Kind::Binary);
    let Observation::Synthetic(obs) = &out.observation else {
        panic!()
    };
    assert_eq!(
        obs.summary,
        format!(
            "[BINARY: 10000 bytes, sha256={}]",
            observation::sha256_hex(&bytes)
        )
    );
    let mut rr = read_req(&obs.scratchpad_id, Mode::Range);
    rr.start = Some(4094);
    rr.end = Some(4100);
    let got = read(&t.0, KEY, &rr).unwrap();
    assert_eq!(got.encoding, "hex");
    assert_eq!(got.content, observation::hex(&bytes[4094..4100]));
    assert_eq!(got.entry.chars, 10_000);
    for mode in [Mode::Lines, Mode::Grep] {
        let mut rr = read_req(&obs.scratchpad_id, mode);
        rr.pattern = Some("x".into());
        assert_eq!(
            read(&t.0, KEY, &rr).unwrap_err().code,
            ErrorCode::InvalidArg
        );
    }
    // Bytes that are valid UTF-8 are text.
    let out = offload(
        &t.0,
        KEY,
        OffloadRequest::new(Content::Bytes("é".repeat(3000).as_bytes())),
    )
    .unwrap();
    assert_eq!(out.kind, Kind::Text);
    assert_eq!(out.entry.unwrap().chars, 3000);
}

#[test]
fn unknown_ids_and_bad_names() {
    let t = tmp("bad");
    let err = read(&t.0, KEY, &read_req("0123456789abcdef", Mode::Head)).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    offload_text(&t.0, &"y".repeat(5000), "t");
    let err = read(&t.0, KEY, &read_req("0123456789abcdef", Mode::Head)).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = read(&t.0, KEY, &read_req("../catalog", Mode::Head)).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    for bad in ["../x", "a/b", "a\\b", "..", ".", ""] {
        let e = write(
            &t.0,
            KEY,
            bad,
            Content::Text("x"),
            None,
            None,
            &StoreOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArg, "{bad:?}");
        let mut r = OffloadRequest::new(Content::Text("x"));
        r.name = Some(bad.into());
        assert_eq!(
            offload(&t.0, KEY, r).unwrap_err().code,
            ErrorCode::InvalidArg
        );
    }
    assert!(!t.0.join("context/observations/x").exists());
    assert_eq!(
        read(&t.0, "", &read_req("x", Mode::Head)).unwrap_err().code,
        ErrorCode::InvalidArg
    );
}

#[test]
fn turn_scope_limits_reads_and_lists() {
    let t = tmp("turns");
    let mut ids = vec![];
    for turn in ["t1", "t2"] {
        let text = "z".repeat(5000);
        let mut r = OffloadRequest::new(Content::Text(&text));
        r.turn_id = Some(turn.into());
        ids.push(offload(&t.0, KEY, r).unwrap().entry.unwrap().id);
    }
    let mut r = read_req(&ids[0], Mode::Head);
    r.turn_id = Some("t1".into());
    read(&t.0, KEY, &r).unwrap();
    r.turn_id = Some("t2".into());
    assert_eq!(read(&t.0, KEY, &r).unwrap_err().code, ErrorCode::NotFound);
    let l = list(&t.0, KEY, Some("t2"), false).unwrap();
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].id, ids[1]);
    assert_eq!(list(&t.0, KEY, None, false).unwrap().len(), 2);
}

fn set_expired(root: &Path, id: &str) {
    let p = store_dir(root, KEY).join("catalog.json");
    let mut c: serde_json::Value = serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
    for e in c["entries"].as_array_mut().unwrap() {
        if e["id"] == id {
            e["expires_at"] = json!(1);
        }
    }
    fs::write(&p, serde_json::to_vec(&c).unwrap()).unwrap();
}

#[test]
fn ttl_and_gc() {
    let t = tmp("ttl");
    let auto = offload_text(&t.0, &"a".repeat(5000), "web_fetch")
        .entry
        .unwrap();
    let expires = auto.expires_at.unwrap();
    assert!(expires - auto.created_at == DEFAULT_TTL_SECONDS * 1000);
    let (named, _) = write(
        &t.0,
        KEY,
        "notes",
        Content::Text("keep me"),
        None,
        None,
        &StoreOptions::default(),
    )
    .unwrap();
    assert_eq!(named.expires_at, None);
    let mut r = OffloadRequest::new(Content::Text("short-lived but stored under a name"));
    r.name = Some("explicit".into());
    r.ttl_seconds = Some(5);
    let e = offload(&t.0, KEY, r).unwrap().entry.unwrap();
    assert_eq!(e.expires_at, Some(e.created_at + 5000));

    set_expired(&t.0, &auto.id);
    // Expired: not readable, not listed, still on disk until gc.
    assert_eq!(
        read(&t.0, KEY, &read_req(&auto.id, Mode::Head))
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(list(&t.0, KEY, None, false).unwrap().len(), 2);
    assert_eq!(list(&t.0, KEY, None, true).unwrap().len(), 3);
    // An orphan data file (a crash between content and catalog) and a temp file.
    let dir = store_dir(&t.0, KEY);
    fs::write(dir.join("ffffffffffffffff.dat"), b"orphan").unwrap();
    fs::write(dir.join(".tmp-catalog.json-1-1"), b"torn").unwrap();
    let report = gc(&t.0, None, &StoreOptions::default()).unwrap();
    assert_eq!(report.removed.len(), 1);
    assert_eq!(report.removed[0].id, auto.id);
    assert_eq!(report.sessions, 1);
    assert_eq!(report.remaining_entries, 2);
    assert!(!dir.join(format!("{}.dat", auto.id)).exists());
    assert!(!dir.join("ffffffffffffffff.dat").exists());
    assert!(!dir.join(".tmp-catalog.json-1-1").exists());
    // A protected expired entry survives.
    let auto2 = offload_text(&t.0, &"b".repeat(5000), "web_fetch")
        .entry
        .unwrap();
    set_expired(&t.0, &auto2.id);
    let opts = StoreOptions {
        protect: vec![auto2.name.clone()],
        ..StoreOptions::default()
    };
    assert!(gc(&t.0, Some(KEY), &opts).unwrap().removed.is_empty());
    assert_eq!(
        gc(&t.0, Some(KEY), &StoreOptions::default())
            .unwrap()
            .removed
            .len(),
        1
    );
}

#[test]
fn quota_evicts_expired_then_least_recently_used_never_protected() {
    let t = tmp("quota");
    let opts = StoreOptions {
        quota_bytes: Some(30_000),
        durable: false,
        ..StoreOptions::default()
    };
    let put = |name: &str, c: char| {
        write(
            &t.0,
            KEY,
            name,
            Content::Text(&c.to_string().repeat(10_000)),
            None,
            None,
            &opts,
        )
        .unwrap()
    };
    put("a", 'a');
    std::thread::sleep(std::time::Duration::from_millis(5));
    put("b", 'b');
    std::thread::sleep(std::time::Duration::from_millis(5));
    put("c", 'c');
    std::thread::sleep(std::time::Duration::from_millis(5));
    // Read `a`: now `b` is the least recently used.
    read(&t.0, KEY, &read_req("a", Mode::Head)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let (_, evicted) = put("d", 'd');
    assert_eq!(
        evicted.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["b"]
    );
    // Expired goes before LRU, even when recently read.
    let id_a = list(&t.0, KEY, None, true)
        .unwrap()
        .into_iter()
        .find(|e| e.name == "a")
        .unwrap()
        .id;
    set_expired(&t.0, &id_a);
    let (_, evicted) = put("e", 'e');
    assert_eq!(
        evicted.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["a"]
    );
    // Protected by the caller: `c` (the LRU) is skipped, `d` goes.
    let prot = StoreOptions {
        protect: vec!["c".into()],
        ..opts.clone()
    };
    let (_, evicted) = write(
        &t.0,
        KEY,
        "f",
        Content::Text(&"f".repeat(10_000)),
        None,
        None,
        &prot,
    )
    .unwrap();
    assert_eq!(
        evicted.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["d"]
    );
    // Protected by the latest checkpoint, which names `c` and refers to `e` by id.
    let id_e = list(&t.0, KEY, None, false)
        .unwrap()
        .into_iter()
        .find(|e| e.name == "e")
        .unwrap()
        .id;
    let cp =
        t.0.join("context/checkpoints")
            .join(session_dir_name(KEY).unwrap());
    fs::create_dir_all(&cp).unwrap();
    fs::write(
        cp.join("_latest.json"),
        r#"{"checkpoint_id":"cp_002","path":"/elsewhere/cp_002.yaml"}"#,
    )
    .unwrap();
    fs::write(
        cp.join("cp_002.yaml"),
        format!("open_items:\n  - \"see scratchpad entry c\"\n  - \"diff in {{{{observation:{id_e}}}}}\"\n"),
    )
    .unwrap();
    let (_, evicted) = put("g", 'g');
    assert_eq!(
        evicted.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["f"]
    );
    // Everything else protected: no room is TooLarge, nothing written.
    let all = StoreOptions {
        protect: vec!["g".into()],
        ..opts.clone()
    };
    let err = write(
        &t.0,
        KEY,
        "h",
        Content::Text(&"h".repeat(10_000)),
        None,
        None,
        &all,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
    assert!(list(&t.0, KEY, None, false)
        .unwrap()
        .iter()
        .all(|e| e.name != "h"));
    // gc never fails on the quota: it evicts what it may and reports what is left.
    let report = gc(
        &t.0,
        Some(KEY),
        &StoreOptions {
            quota_bytes: Some(15_000),
            protect: vec!["g".into()],
            ..StoreOptions::default()
        },
    )
    .unwrap();
    assert!(report.removed.is_empty());
    assert_eq!(report.remaining_bytes, 30_000);
    // Bigger than the quota itself.
    let err = write(
        &t.0,
        KEY,
        "big",
        Content::Text(&"x".repeat(30_001)),
        None,
        None,
        &opts,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
}

#[test]
fn write_edit_list_delete_and_session_delete() {
    let t = tmp("named");
    let o = StoreOptions::default();
    let (e1, _) = write(
        &t.0,
        KEY,
        "plan",
        Content::Text("step one\nstep two\nstep two\n"),
        Some("t1"),
        None,
        &o,
    )
    .unwrap();
    // Overwrite keeps the id.
    let (e2, _) = write(
        &t.0,
        KEY,
        "plan",
        Content::Text("alpha beta beta"),
        None,
        None,
        &o,
    )
    .unwrap();
    assert_eq!(e1.id, e2.id);
    assert_eq!(
        read(&t.0, KEY, &read_req("plan", Mode::Full))
            .unwrap()
            .content,
        "alpha beta beta"
    );
    // Ambiguous edit refused, replace_all works, missing old_string is NotFound.
    let sub = |old: &str, new: &str, all: bool| Edit::Substitute {
        old: old.into(),
        new: new.into(),
        replace_all: all,
    };
    assert_eq!(
        edit(
            &t.0,
            KEY,
            None,
            Some("plan"),
            None,
            &sub("beta", "x", false),
            &o
        )
        .unwrap_err()
        .code,
        ErrorCode::InvalidArg
    );
    let (e, n) = edit(
        &t.0,
        KEY,
        None,
        Some("plan"),
        None,
        &sub("beta", "gamma", true),
        &o,
    )
    .unwrap();
    assert_eq!(n, 2);
    assert_eq!(e.chars, "alpha gamma gamma".len() as u64);
    let (_, n) = edit(
        &t.0,
        KEY,
        None,
        Some("plan"),
        None,
        &sub("alpha", "ä", false),
        &o,
    )
    .unwrap();
    assert_eq!(n, 1);
    assert_eq!(
        read(&t.0, KEY, &read_req("plan", Mode::Full))
            .unwrap()
            .content,
        "ä gamma gamma"
    );
    assert_eq!(
        edit(
            &t.0,
            KEY,
            None,
            Some("plan"),
            None,
            &sub("zzz", "y", false),
            &o
        )
        .unwrap_err()
        .code,
        ErrorCode::NotFound
    );
    let (e, _) = edit(
        &t.0,
        KEY,
        Some(&e1.id),
        None,
        None,
        &Edit::Replace("new\ncontent\n".into()),
        &o,
    )
    .unwrap();
    assert_eq!((e.lines, e.chars), (2, 12));
    let mut r = read_req("plan", Mode::Lines);
    r.start = Some(2);
    assert_eq!(read(&t.0, KEY, &r).unwrap().content, "content\n");
    // Two sessions, same name, no conflict.
    write(
        &t.0,
        "other-session",
        "plan",
        Content::Text("theirs"),
        None,
        None,
        &o,
    )
    .unwrap();
    assert_eq!(
        read(&t.0, "other-session", &read_req("plan", Mode::Full))
            .unwrap()
            .content,
        "theirs"
    );
    // List and delete.
    write(&t.0, KEY, "second", Content::Text("2"), None, None, &o).unwrap();
    let l = list(&t.0, KEY, None, false).unwrap();
    assert_eq!(
        l.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["plan", "second"]
    );
    let gone = delete(&t.0, KEY, None, Some("second")).unwrap();
    assert_eq!(gone.name, "second");
    assert!(!store_dir(&t.0, KEY)
        .join(format!("{}.dat", gone.id))
        .exists());
    assert_eq!(
        delete(&t.0, KEY, None, Some("second")).unwrap_err().code,
        ErrorCode::NotFound
    );
    // The whole session.
    assert!(delete_session(&t.0, KEY).unwrap());
    assert!(!store_dir(&t.0, KEY).exists());
    assert!(!delete_session(&t.0, KEY).unwrap());
    assert!(list(&t.0, KEY, None, false).unwrap().is_empty());
    assert_eq!(
        read(&t.0, "other-session", &read_req("plan", Mode::Full))
            .unwrap()
            .content,
        "theirs"
    );
}

#[test]
fn references_expand_to_the_full_content() {
    let t = tmp("refs");
    let body = format!(
        "{{\"url\":\"https://httpbin.org/get\",\"pad\":\"{}\"}}",
        "p".repeat(14_000)
    );
    let out = offload_text(&t.0, &body, "web_fetch");
    let id = out.entry.unwrap().id;
    let args = json!({
        "path": "/tmp/out.txt",
        "content": format!("{{{{observation:{id}}}}}"),
        "nested": [{"x": "before {{observation:web_fetch_1}} after"}],
        "n": 3
    });
    let got = expand_refs(&t.0, KEY, args, None, None).unwrap();
    assert_eq!(got["content"], body.as_str());
    assert_eq!(
        got["nested"][0]["x"],
        format!("before {body} after").as_str()
    );
    assert_eq!(got["n"], 3);
    let err = expand_refs(&t.0, KEY, json!("{{observation:nope}}"), None, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    let err = expand_refs(
        &t.0,
        KEY,
        json!(format!("{{{{observation:{id}}}}}")),
        None,
        Some(100),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
    assert_eq!(
        expand_refs(&t.0, "no-store", json!("plain"), None, None).unwrap(),
        json!("plain")
    );
    let err = expand_refs(&t.0, "no-store", json!("{{observation:x}}"), None, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    // Binary entries expand as base64.
    let bin = [0xffu8, 0x00, 0xfe];
    let (e, _) = write(
        &t.0,
        KEY,
        "blob",
        Content::Bytes(&bin),
        None,
        None,
        &StoreOptions::default(),
    )
    .unwrap();
    assert_eq!(e.kind, Kind::Binary);
    assert_eq!(
        expand_refs(&t.0, KEY, json!("{{observation:blob}}"), None, None).unwrap(),
        json!("/wD+")
    );
}

#[test]
fn concurrent_offloads_to_one_session_all_land() {
    let t = tmp("concurrent");
    let root = t.0.clone();
    let handles: Vec<_> = (0..4)
        .map(|k| {
            let root = root.clone();
            std::thread::spawn(move || {
                (0..5)
                    .map(|i| {
                        let text = format!("{k}-{i}-").repeat(2000);
                        offload_text(&root, &text, "exec").entry.unwrap().id
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let ids: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let l = list(&root, KEY, None, false).unwrap();
    assert_eq!(l.len(), 20);
    let mut names: Vec<_> = l.iter().map(|e| e.name.clone()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 20);
    for id in ids {
        assert!(read(&root, KEY, &read_req(&id, Mode::Head))
            .unwrap()
            .content
            .starts_with(char::is_numeric));
    }
}

#[test]
fn survives_a_restart_of_the_store() {
    // Every call opens the store from disk: a second "process" sees what the first wrote.
    let t = tmp("restart");
    let text = mixed_text(400);
    let id = offload_text(&t.0, &text, "t").entry.unwrap().id;
    let cat = fs::read(store_dir(&t.0, KEY).join("catalog.json")).unwrap();
    assert!(String::from_utf8(cat).unwrap().contains(&id));
    let mut r = read_req(&id, Mode::Range);
    r.start = Some(100);
    r.end = Some(200);
    assert_eq!(
        read(&t.0, KEY, &r).unwrap().content,
        text.chars().skip(100).take(100).collect::<String>()
    );
}

#[test]
fn a_burst_of_reads_writes_the_catalog_once() {
    let t = tmp("burst");
    let id = offload_text(&t.0, &"w".repeat(6000), "t").entry.unwrap().id;
    let cat = store_dir(&t.0, KEY).join("catalog.json");
    let before = fs::read(&cat).unwrap();
    read(&t.0, KEY, &read_req(&id, Mode::Head)).unwrap();
    let first = fs::read(&cat).unwrap();
    assert_ne!(before, first, "the first read records its time");
    let listed = list(&t.0, KEY, None, false).unwrap();
    assert!(listed[0].last_read_at.is_some());
    for _ in 0..5 {
        read(&t.0, KEY, &read_req(&id, Mode::Tail)).unwrap();
    }
    assert_eq!(
        first,
        fs::read(&cat).unwrap(),
        "reads within a second do not rewrite it"
    );
}

#[test]
fn keep_live_never_evicts_a_live_entry_and_refuses_over_the_quota() {
    let t = tmp("keep-live");
    let park = |c: char, keep_live: bool| {
        let text = c.to_string().repeat(10_000);
        let mut r = OffloadRequest::new(Content::Text(&text));
        r.tool_name = Some("read".into());
        r.ttl_seconds = Some(0);
        r.store = StoreOptions {
            quota_bytes: Some(30_000),
            durable: false,
            keep_live,
            ..StoreOptions::default()
        };
        offload(&t.0, KEY, r)
    };
    let a = park('a', true).unwrap();
    park('b', true).unwrap();
    park('c', true).unwrap();
    // Full: the next result is refused (nothing stored) and every parked one stays readable.
    let err = park('d', true).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge, "{err}");
    assert_eq!(list(&t.0, KEY, None, true).unwrap().len(), 3);
    let a_id = a.entry.unwrap().id;
    assert_eq!(
        read(&t.0, KEY, &read_req(&a_id, Mode::Full))
            .unwrap()
            .content
            .len(),
        10_000
    );
    // An expired entry may still make room.
    set_expired(&t.0, &a_id);
    let d = park('d', true).unwrap();
    assert!(d.offloaded && d.evicted.iter().any(|e| e.id == a_id));
    // Without keep_live the least recently used live entry is evicted, as before.
    let e = park('e', false).unwrap();
    assert_eq!(e.evicted.len(), 1);
}

#[test]
fn update_scratchpad_reads_and_writes_under_one_lock() {
    let t = tmp("update-lock");
    let root = t.0.clone();
    let threads: Vec<_> = (0..4)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    update_scratchpad(&root, KEY, &StoreOptions::default(), |spaces| {
                        let notes = spaces
                            .get("openclaw:scratchpad:notes")
                            .and_then(|v| v.as_str())
                            .unwrap_or("")
                            .to_string();
                        let next = format!("{notes}w{w}.{i};");
                        Ok((
                            vec![("openclaw:scratchpad:notes".to_string(), json!(next))],
                            (),
                        ))
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    let spaces = read_persisted_scratchpad(&root, KEY).unwrap().unwrap();
    let notes = spaces["openclaw:scratchpad:notes"].as_str().unwrap();
    assert_eq!(
        notes.matches(';').count(),
        100,
        "an append was lost: {notes}"
    );
    for w in 0..4 {
        for i in 0..25 {
            assert!(notes.contains(&format!("w{w}.{i};")));
        }
    }
    // No entries: nothing written, the value handed back.
    let (written, v) =
        update_scratchpad(&root, KEY, &StoreOptions::default(), |_| Ok((vec![], 7))).unwrap();
    assert!(written.is_none() && v == 7);
}
