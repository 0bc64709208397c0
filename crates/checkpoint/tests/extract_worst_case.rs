//! Worst-case inputs for the restore extraction, timed (run by hand:
//! `cargo test --release -p context-checkpoint --test extract_worst_case -- --ignored --nocapture`).
//! Timings are printed, never asserted (the product's rule: targets live in the bench).

use context_checkpoint::thread::extract;
use serde_json::{json, Value};
use std::hash::{Hash, Hasher};
use std::time::Instant;

fn call(name: &str, args: Value) -> Value {
    json!({"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": name, "arguments": args}], "stopReason": "toolUse"})
}

/// 2 MB of code with 30,000 distinct identifiers, as TypeScript, Elixir and Python lines.
fn big_code(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        match i % 3 {
            0 => s.push_str(&format!("export function handleEvent{i}(someValue{i}, other_arg_{i}) {{\n  return callHelper{i}(someValue{i}).then_do_{i}();\n}}\n")),
            1 => s.push_str(&format!("  defp process_item_{i}(state, opts \\\\ []) do\n    Worker{i}.run(state)\n  end\n")),
            _ => s.push_str(&format!("MAX_LIMIT_{i} = {i}\nconst configValue{i} = https://example.com/{i}abc;\n")),
        }
    }
    s
}

/// Times one case (`WORST_CASE=write` runs only the cases whose label holds that word).
fn timed(label: &str, messages: &[Value]) {
    if std::env::var("WORST_CASE").is_ok_and(|only| !label.contains(&only)) {
        return;
    }
    let start = Instant::now();
    let out = extract(messages);
    let took = start.elapsed();
    // a digest of what was extracted: the same before and after a speed fix
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{out:?}").hash(&mut h);
    println!(
        "{label}: {took:?} ({} identifiers, {} commands, digest {:016x})",
        out.identifiers.len(),
        out.commands.len(),
        h.finish()
    );
}

#[test]
#[ignore]
fn worst_case_inputs_timed() {
    let code = big_code(30_000);
    println!("write content: {} bytes", code.len());
    timed(
        "write 2 MB, 30,000 identifiers",
        &[call("write", json!({"path": "/w/a.ts", "content": code}))],
    );
    let half = &code[..code.len() / 2];
    let other = half.replace("handleEvent", "onEvent");
    timed(
        "edit 1 MB old_string/new_string",
        &[call(
            "edit",
            json!({"path": "/w/a.ts", "old_string": half, "new_string": other}),
        )],
    );
    timed(
        "user message 500 KB",
        &[json!({"role": "user", "content": code[..500_000].to_string()})],
    );
    timed(
        "agent message 500 KB",
        &[
            json!({"role": "assistant", "content": [{"type": "text", "text": code[..500_000].to_string()}]}),
        ],
    );
    // Elixir function heads whose parameter list never closes (a cut fragment)
    let heads = format!("defmodule A do\n{}", "  def f(a,\n".repeat(50_000));
    timed(
        "write 50,000 unclosed def heads",
        &[call("write", json!({"path": "/w/a.ex", "content": heads}))],
    );
    let mut cmd = String::new();
    let mut i = 0;
    while cmd.len() < 200_000 {
        cmd.push_str(&format!("npm run task{i} --flag=v{i} && "));
        i += 1;
    }
    cmd.push_str("true");
    timed(
        "bash 200 KB with many &&",
        &[call("bash", json!({"command": cmd}))],
    );
    let mut many = Vec::new();
    for i in 0..5_000 {
        many.push(json!({"role": "user", "content": format!("please fix `parseThing{i}` in src/mod{i}/file{i}.ts and run cargo test -p crate{i}")}));
        many.push(call("edit", json!({"path": format!("/w/src/mod{i}/file{i}.ts"), "old_string": format!("fn old_{i}() {{}}"), "new_string": format!("fn new_name_{i}() {{ helperCall{i}() }}")})));
        many.push(call(
            "bash",
            json!({"command": format!("cd /w && cargo test -p crate{i} && ls src/mod{i}")}),
        ));
        many.push(json!({"role": "toolResult", "toolCallId": "t", "content": [{"type": "text", "text": "ok"}]}));
        many.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("Done with `someName{i}` in src/mod{i}/file{i}.ts at http://localhost:{}", 3000 + i % 1000)}]}));
    }
    timed("5,000 turns (25,000 messages)", &many);
    // a page script of 200,000 arrows, unclosed parameter lists and keywords, each of which
    // the local bindings read around (a window, not the whole text)
    let script = ")=>(function(catch(for x let ".repeat(40_000);
    timed(
        "evaluate 1.2 MB of arrows and keywords",
        &[call("browser_evaluate", json!({"function": script}))],
    );
}

/// A checkpoint file near the 4 MB read limit (a hand-edited or damaged one) with long lists:
/// rendering it must not take quadratic time in their lengths.
#[test]
#[ignore]
fn long_lists_rendered_timed() {
    use context_checkpoint::{from_yaml, render, RenderOptions};
    let mut cp = from_yaml(include_str!("fixtures/seed_example.yaml")).unwrap();
    let sizes = [(2_000, 1_000), (20_000, 10_000), (100_000, 30_000)];
    let runs = if std::env::var("WORST_CASE").is_ok() {
        2
    } else {
        3
    };
    for &(ids, files) in &sizes[..runs] {
        cp.resources.identifiers = (0..ids).map(|i| format!("name_{i}")).collect();
        cp.resources.files_read = (0..files)
            .map(|i| format!("/w/src/d{}/f{i}.rs", i % 50))
            .collect();
        cp.resources.active_files = cp.resources.files_read.clone();
        let start = Instant::now();
        let text = render(&cp, RenderOptions::default()).unwrap();
        println!(
            "render {ids} identifiers, {files} files: {:?} ({} chars)",
            start.elapsed(),
            text.len()
        );
    }
}
