//! What a checkpoint and its restore never carry (issue 27): host text, prose as identifiers, a
//! credential. Whole sessions written by hand as OpenClaw 2026.9.6 records them (its envelopes,
//! heartbeat polls between the user's turns, a greeting before the task), in several languages,
//! through the real write and render.

use context_checkpoint::*;
use serde_json::{json, Value};
use std::fs;
use std::path::PathBuf;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cp-clean-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}
fn user(t: &str) -> Value {
    json!({"role": "user", "content": t})
}
fn agent(t: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": t}], "stopReason": "stop"})
}
fn call(name: &str, args: Value) -> Value {
    json!({"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": name, "arguments": args}], "stopReason": "toolUse"})
}
fn result(t: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": "t", "toolName": "exec", "content": [{"type": "text", "text": t}]})
}
/// A Telegram DM as OpenClaw's inbound-meta and envelope write it.
fn telegram(t: &str) -> Value {
    user(&format!("Conversation info (untrusted metadata):\n```json\n{{\n  \"message_id\": \"42\",\n  \"sender\": \"Ann\"\n}}\n```\n\nSender (untrusted metadata):\n```json\n{{\n  \"label\": \"Ann (5479949022)\",\n  \"name\": \"Ann\"\n}}\n```\n\n[Telegram Ann +2m Tue 2026-04-07 09:12 GMT+2] Ann: {t}\n[message_id: 42]"))
}
const HEARTBEAT: &str = "Follow the heartbeat monitor scratch context when provided. Recurring tasks are automations; create or change their schedules with the automations tool, not heartbeat scratch. Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply NO_REPLY.";

const SECRETS: &[&str] = &[
    "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "7123456789:AAHk3j2l1mN0pQrStUvWxYz_AbCdEfGhIjK",
    "sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX0yZa",
    "Pa55w0rd!x9",
    "s3cr3tPW",
];

fn session() -> Vec<Value> {
    vec![
        user("A new session was started via /new or /reset. Execute your Session Startup sequence now - read the required files before responding to the user.\nCurrent time: Tuesday, April 7th, 2026 - 9:10 AM (Europe/Paris)\nReference UTC: 2026-04-07 07:10 UTC"),
        agent("Hi Ann! What shall we do today?"),
        telegram("salut !"),
        agent("Salut ! Tu veux travailler sur quoi ?"),
        telegram("migre le bot de notifications vers la nouvelle API GitHub et déploie-le sur le serveur de staging"),
        call("exec", json!({"command": format!("export GITHUB_TOKEN={} && gh api /user", SECRETS[0])})),
        result("{\"login\": \"ann\"}"),
        call("exec", json!({"command": format!("openclaw channels add --channel telegram --token {}", SECRETS[1])})),
        result("ok"),
        call("write", json!({"path": "/srv/bot/.env", "content": format!("PORT=3000\nOPENAI_API_KEY={}\nDB_PASSWORD={}\nDATABASE_URL=postgres://bot:{}@db.internal:5432/bot\n", SECRETS[2], SECRETS[3], SECRETS[4])})),
        result("written"),
        agent("J'ai écrit `/srv/bot/.env` et configuré `notifyGithubEvents()`. Je garde les horaires avant/après le déploiement, en mois/années comme tu veux. ✅ Terminé"),
        user(HEARTBEAT),
        agent("NO_REPLY"),
        user("[OpenClaw heartbeat poll]"),
        agent("HEARTBEAT_OK"),
        telegram("pas de déploiement après 18h, et garde les logs 30 jours"),
        call("exec", json!({"command": "curl -H 'Authorization: Bearer abc123def456ghi789jkl' https://staging.example.org/deploy"})),
        result("deployed"),
        agent("Déployé sur staging. Les logs sont gardés 30 jours (`LOG_RETENTION_DAYS=30`)."),
    ]
}

#[test]
fn host_text_and_credentials_stay_out_of_the_checkpoint_and_the_restore() {
    let state = tmp("session");
    let mut input = CheckpointInput::new(
        &state,
        "agent:main:telegram:ann",
        Trigger::Auto80Pct,
        150_000,
        200_000,
    );
    input.messages = Some(session());
    let written = write_checkpoint(&input).unwrap();
    let yaml = fs::read_to_string(&written.path).unwrap();
    let cp = from_yaml(&yaml).unwrap();
    let restore = render(&cp, RenderOptions::default()).unwrap();
    for text in [&yaml, &restore] {
        for secret in SECRETS {
            assert!(!text.contains(secret), "{secret} in\n{text}");
        }
        for host in [
            "HEARTBEAT",
            "NO_REPLY",
            "untrusted metadata",
            "message_id",
            "A new session",
            "heartbeat poll",
            "Current time",
        ] {
            assert!(!text.contains(host), "{host} in\n{text}");
        }
    }
    // the task is the user's own words, without the envelope (which of them is the task is the
    // task section's rule)
    let task = cp.working.task.clone().unwrap_or_default();
    assert!(
        ["salut !", "migre le bot de notifications"]
            .iter()
            .any(|t| task.starts_with(t)),
        "{task}"
    );
    // identifiers are names: no prose split at a slash, no emoji line
    for id in &cp.resources.identifiers {
        assert!(context_checkpoint::names::is_name(id), "{id}");
        assert!(
            !["avant/après", "mois/années"].contains(&id.as_str()),
            "{id}"
        );
    }
    assert!(cp
        .resources
        .identifiers
        .iter()
        .any(|i| i.contains("notifyGithubEvents")));
    // what was done stays readable: the command, without its token
    assert!(
        cp.resources
            .commands
            .iter()
            .any(|c| c.contains("openclaw channels add") && c.contains("[redacted]")),
        "{:?}",
        cp.resources.commands
    );
    let _ = fs::remove_dir_all(&state);
}

#[test]
fn a_short_task_the_agent_worked_on_is_carried_across_compactions_a_greeting_is_not() {
    let key = "agent:main:carry";
    let write = |state: &PathBuf, count: u64, messages: Vec<Value>| {
        let mut input = CheckpointInput::new(state, key, Trigger::Compaction, 150_000, 200_000);
        input.compaction_count = Some(count);
        input.messages = Some(messages);
        let written = write_checkpoint(&input).unwrap();
        assert!(written.written);
        from_yaml(&fs::read_to_string(&written.path).unwrap()).unwrap()
    };
    // a short request the agent went to work on is the task of the first compaction
    let state = tmp("carry");
    let first = write(
        &state,
        1,
        vec![
            user("Speed up the cache lookups."),
            call("exec", json!({"command": "cargo bench"})),
            result("lookup: 41 ns"),
            agent("Profiling."),
        ],
    );
    assert_eq!(
        first.working.task.as_deref(),
        Some("Speed up the cache lookups.")
    );
    // the second compaction's messages hold a longer request: the task stays the first one
    let second = write(
        &state,
        2,
        vec![
            user("Continue with the hot path and write down what the profile showed us today"),
            agent("Shrinking."),
        ],
    );
    assert_eq!(
        second.working.task.as_deref(),
        Some("Speed up the cache lookups.")
    );

    // a greeting carried as the task (nothing substantive was there) gives way to a request
    let state = tmp("carry-greeting");
    let first = write(&state, 1, vec![user("hi"), agent("Hello!")]);
    assert_eq!(first.working.task.as_deref(), Some("hi"));
    let second = write(
        &state,
        2,
        vec![
            user("Plan my training week: no running for four weeks, old foot injury"),
            agent("Here is a plan."),
        ],
    );
    assert_eq!(
        second.working.task.as_deref(),
        Some("Plan my training week: no running for four weeks, old foot injury")
    );
}
