//! Goal and thread: the task (the first substantive request, or the request that changed the
//! plan), the topic (the latest substantive one), the summary and the key exchanges (the
//! briefing's sentences, the commits and the tasks marked done, in the order said).
//!
//! A request is substantive when the agent went to work on it (called tools before the next
//! request) and it is more than a single word (`morning` opens an assistant's day of work, it
//! asks for none of it) or a number (a pick), or when it holds a name (a path, a file name, a code span) or at least
//! [`GOAL_MIN_LETTERS`] letters (a character of a script written without spaces counts as
//! [`UNSPACED_LETTERS`]); the current request (the topic) needs half as many letters. A greeting that opens a chat (`hi`, `Wake up, my friend!`, `你好`), a
//! bare number (`1`) or a short remark is not the goal while a substantive request exists: a chat
//! with an assistant lasts days, and its first message is rarely its task. Structure only: no
//! keywords, any language; but for telling a change of plan from an addition ([`revises`]).

use super::*;

/// One request of the user and the agent's response to it.
#[derive(Default)]
pub(super) struct Turn {
    /// Squashed user text; `None` for agent output before the first request.
    user: Option<String>,
    /// When the user sent it (the message's `timestamp`, ms since the epoch), if it says.
    at: Option<u64>,
    /// Characters of all agent text in the turn.
    agent_chars: usize,
    /// The agent's last text in the turn (its final word).
    agent_last: Option<String>,
    /// When the agent's last message of the turn was sent, if it says.
    agent_at: Option<u64>,
    /// The agent called tools in the turn.
    worked: bool,
}

/// Fewest letters of a substantive request the agent did not work on.
pub const GOAL_MIN_LETTERS: usize = 24;
/// Letters one character of a script written without spaces (Han, Kana, Hangul...) counts for.
pub const UNSPACED_LETTERS: usize = 3;

/// Whether a request is the kind of message a goal is made of (see the module docs).
pub fn substantive(text: &str, worked: bool) -> bool {
    weighs(text, worked, GOAL_MIN_LETTERS)
}

/// Whether a request can be the current one (the topic): as [`substantive`], with half the
/// letters (`now the signup form`), since what follows a task is often said briefly.
pub fn current(text: &str, worked: bool) -> bool {
    weighs(text, worked, GOAL_MIN_LETTERS / 2)
}

/// How a request that changes the plan opens, lower-cased, before a space or a stop (`Change of
/// plan: …`, `Forget the cache, …`). `Actually, …` is no sign alone: it corrects a fact as often
/// (`actually, it's the background colour that does not change`).
const REVISION_OPENERS: &[&str] = &[
    "scratch that",
    "change of plan",
    "on second thought",
    "forget",
    "never mind",
    "instead",
    "rather",
    "let's not",
    "lets not",
];
/// What a request that changes the plan says anywhere in it, lower-cased: the one keyword table
/// of the goal (structure cannot tell `use Redis` added from `use Redis` instead), in the common
/// channel languages. `instead of` is left out (`it shows 404 instead of the page` describes a
/// fault); `instead` at a clause's end says it.
const REVISION_MARKERS: &[&str] = &[
    "change of plan",
    "changed my mind",
    "scratch that",
    "don't use",
    "do not use",
    "dont use",
    "stop using",
    "no longer use",
    "instead.",
    "instead,",
    "instead!",
    "instead;",
    "改用",
    "不要用",
    "别用",
    "还是用",
    "算了",
    "stattdessen",
    "doch lieber",
    "plutôt",
    "au lieu de",
    "en vez de",
    "en lugar de",
    "やっぱり",
    "代わりに",
    "대신",
];

/// Whether a request changes the plan the user set before rather than adding to it: it opens
/// with one (`Change of plan: …`, `Scratch that, …`) or says so
/// ([`REVISION_MARKERS`]: `use PostgreSQL instead.`, `改用PostgreSQL`).
pub fn revises(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    // a question proposes a change, it does not make one (`Actually, should we use Redis?`)
    if t.ends_with(['?', '？']) {
        return false;
    }
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
    let opens = REVISION_OPENERS.iter().any(|o| {
        t.strip_prefix(o)
            .is_some_and(|r| r.starts_with([' ', ',', ':', '—', '-', '!', '.', '，', '：']))
    });
    opens || REVISION_MARKERS.iter().any(|m| t.contains(m)) || t.ends_with("instead")
}

fn weighs(text: &str, worked: bool, min_letters: usize) -> bool {
    // the agent's work makes a request of a short one, not of a single word: an assistant that
    // opens the day's briefing on `morning`, or reads its memory on `hello` or `你好`, was greeted
    // (a number is kept: a bare pick of an option the agent offered, `1`)
    if worked
        && (context_state::dialogue::more_than_a_word(text)
            || text.chars().any(|c| c.is_ascii_digit()))
    {
        return true;
    }
    let letters: usize = text
        .chars()
        .filter(|c| c.is_alphabetic())
        .map(|c| {
            if context_state::substance::unspaced(c) {
                UNSPACED_LETTERS
            } else {
                1
            }
        })
        .sum();
    letters >= min_letters
        || text.contains('`')
        || text
            .split_whitespace()
            .any(|w| is_path_like(w) && w.chars().any(char::is_alphabetic))
}

/// A pause between two of the user's requests this long (8 hours) starts a new sitting: the
/// task is then the first request after it. An assistant on a channel is talked to for days, and
/// what the user asked yesterday morning is not what they came back for.
pub const SITTING_GAP_MS: u64 = 8 * 3600 * 1000;

/// The turns of the dialogue: a request opens one; answers, acknowledgements, slash commands and
/// injections do not (the agent's response continues the turn of the request before).
pub(super) fn turns(walk: &Walk) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for (line, m) in walk.lines.iter().zip(&walk.messages) {
        match line {
            Line::User {
                text,
                said: Said::Request,
                ..
            } => turns.push(Turn {
                user: Some(squash(text)),
                at: m.sent_at,
                ..Turn::default()
            }),
            Line::Agent { text, worked } => {
                if turns.is_empty() {
                    turns.push(Turn::default());
                }
                let t = turns.last_mut().expect("a turn was pushed");
                t.worked |= *worked;
                t.agent_at = m.sent_at.or(t.agent_at);
                if !text.trim().is_empty() {
                    t.agent_chars += text.chars().count();
                    t.agent_last = Some(text.clone());
                }
            }
            _ => {}
        }
    }
    turns
}

/// What a span with no request of the user's works on when the host's heartbeat drove it (a
/// channel assistant's day of polls): `the heartbeat runs (12; no request of the user's in this
/// span)`, in the package's words, never the host's prompt. `None` without a heartbeat poll.
pub(super) fn heartbeat_topic(walk: &Walk) -> Option<String> {
    let polls = walk
        .lines
        .iter()
        .zip(&walk.messages)
        .filter(|(line, m)| {
            matches!(
                line,
                Line::User {
                    said: Said::Noise,
                    ..
                }
            ) && context_state::wrappers::is_heartbeat_prompt(&m.text)
        })
        .count();
    (polls > 0)
        .then(|| format!("the heartbeat runs ({polls}; no request of the user's in this span)"))
}

/// Task (the first substantive request, or the latest that changed the plan), topic (the last),
/// summary and key exchanges (the briefing's sentences, and what the agent did by its own records:
/// its commits and the tasks it marked done, `done`).
pub(super) fn thread(
    turns: &[Turn],
    done: &[(usize, String)],
    briefing: &[((usize, usize), Exchange)],
    out: &mut Extracted,
) {
    let users: Vec<usize> = (0..turns.len())
        .filter(|&i| turns[i].user.is_some())
        .collect();
    let user_text = |i: usize| turns[i].user.as_deref().unwrap_or_default();
    let goals: Vec<usize> = users
        .iter()
        .copied()
        .filter(|&i| substantive(user_text(i), turns[i].worked))
        .collect();
    let currents: Vec<usize> = users
        .iter()
        .copied()
        .filter(|&i| current(user_text(i), turns[i].worked))
        .collect();
    // the first request of the user's latest sitting (after a pause of SITTING_GAP_MS)
    let sitting = users
        .windows(2)
        .rev()
        .find(|w| match (turns[w[0]].at, turns[w[1]].at) {
            (Some(a), Some(b)) => b >= a.saturating_add(SITTING_GAP_MS),
            _ => false,
        })
        .map(|w| w[1]);
    // The key exchanges: the briefing's sentences and what the agent did by its own records (the
    // commits it made, the tasks it marked done), in the order they were said (see [`briefing`],
    // [`commits`] and [`done_tasks`]): by message, a message's sentences in the
    // order of its text, a commit after them. Whether or not the user asked anything in the span:
    // a span of heartbeat or cron runs is the agent's reports alone.
    let mut entries: Vec<((usize, usize), Exchange)> = done
        .iter()
        .map(|(at, what)| {
            let exchange = Exchange {
                role: Role::Agent,
                gist: gist(what, GIST_CHARS),
            };
            ((*at, usize::MAX), exchange)
        })
        .collect();
    let room = MAX_EXCHANGES.saturating_sub(entries.len());
    entries.extend(briefing.iter().take(room).cloned());
    entries.sort_by_key(|(at, _)| *at);
    out.key_exchanges = entries.into_iter().map(|(_, e)| e).collect();

    out.first_request_at = users.first().and_then(|&i| turns[i].at);
    let task = match sitting.and_then(|s| goals.iter().find(|&&i| i >= s)) {
        Some(&t) => {
            out.task_after_pause = true;
            Some(t)
        }
        None => goals.first().or(users.first()).copied(),
    };
    let Some(first) = task else {
        return;
    };
    // what the user asks now: none when nothing since the task is a request (`你好` after the
    // task): the state's latest request or the task says it, not a greeting
    let last = currents.last().or(goals.last()).copied();
    // a bare pick (`1`, `option B`) says what it picks: the option of the agent's message before it
    let said = |i: usize| -> Cow<'_, str> {
        let text = user_text(i);
        let picked = i
            .checked_sub(1)
            .and_then(|p| turns[p].agent_last.as_deref())
            .and_then(|agent| context_state::bare_pick(agent, text));
        match picked {
            Some(item) => Cow::Owned(format!("{text} (re: {})", squash(&item))),
            None => Cow::Borrowed(text),
        }
    };
    // a later request that changed the plan (`Actually, use PostgreSQL instead`) is the task
    // now, the one it replaced said as replaced: never the rejected plan as the task
    let revision = currents
        .iter()
        .copied()
        .filter(|&i| i >= first && revises(user_text(i)))
        .max();
    let first = match revision {
        Some(r) => {
            out.task_revised = true;
            out.task_revised_at = turns[r].at;
            if r > first {
                out.replaced_task = Some(gist(&said(first), TASK_CHARS));
            }
            r
        }
        None => first,
    };
    out.task = Some(gist(&said(first), TASK_CHARS));
    out.topic = last.map(|last| gist(&said(last), TOPIC_CHARS));
    out.summary = Some(match last {
        Some(last) if last != first => format!(
            "{} ... {}",
            gist(user_text(first), TOPIC_CHARS),
            gist(user_text(last), TOPIC_CHARS)
        ),
        _ => gist(user_text(first), TOPIC_CHARS),
    });
}

/// Most characters of the briefing's sentences together: enough for a summary of its own
/// (replace mode, 2,000 tokens); a restore of 800 keeps the most salient of them.
pub const BRIEFING_CHARS: usize = 6_000;
/// How much a sentence's salience outweighs its likeness to those already chosen (MMR's lambda).
pub const BRIEFING_LAMBDA: f64 = 0.7;
/// The prior weight of the agent's closing report of a turn and of the user's request, against
/// 1 for the agent's other replies: what a turn asked for and what it ended on.
pub const REPORT_WEIGHT: f64 = 1.5;
/// The prior weight of the sentence that ends an agent message that called tools (`Let me check
/// the config.`): it announces the call, it does not report anything.
pub const NARRATION_WEIGHT: f64 = 0.2;
/// The prior weight of the other sentences of a message that called tools: what the agent found
/// while it worked (`The endpoint isn't configured for the test env.`), said on the way to the
/// call.
pub const FINDING_WEIGHT: f64 = 0.7;
/// Terms of a sentence from which it weighs fully; a shorter one weighs the square root of its
/// share (`All 5 tests pass.` says less than a sentence of twenty terms).
pub const INFORMATIVE_TERMS: f64 = 20.0;

/// The briefing: the conversation's most salient sentences ([`crate::briefing`]), at most
/// [`BRIEFING_CHARS`] characters, each with the index of its message and its own (the order it
/// was said in), best first. The prior weighs the turn's closing report and the user's requests
/// [`REPORT_WEIGHT`], what the agent found while it worked [`FINDING_WEIGHT`], the sentence
/// announcing its next call [`NARRATION_WEIGHT`], and a short sentence less
/// ([`INFORMATIVE_TERMS`]). Not when it was said: like a summary, the briefing covers the whole
/// span compacted (its first task as much as its last); a tight budget keeps the later of equally
/// salient ones (the render's drop order).
pub(super) fn briefing(lines: &[Line], notes: &[Note]) -> Vec<((usize, usize), Exchange)> {
    let doc = crate::briefing::document(lines, notes);
    let prior: Vec<f64> = doc
        .iter()
        .map(|s| {
            let said = if s.closing || s.role == Role::User {
                REPORT_WEIGHT
            } else if s.worked && s.last {
                NARRATION_WEIGHT
            } else if s.worked {
                FINDING_WEIGHT
            } else {
                1.0
            };
            let terms = crate::briefing::terms(&s.text).len() as f64;
            let informative = (terms / INFORMATIVE_TERMS).min(1.0).sqrt();
            said * informative
        })
        .collect();
    let texts: Vec<&str> = doc.iter().map(|s| s.text.as_str()).collect();
    let (ranking, scores) = crate::briefing::salience(&texts, &prior);
    let chars: Vec<usize> = texts.iter().map(|t| t.chars().count()).collect();
    crate::briefing::select(
        &ranking,
        &scores,
        &chars,
        BRIEFING_LAMBDA,
        BRIEFING_CHARS,
        MAX_EXCHANGES,
    )
    .into_iter()
    .map(|i| {
        let s = &doc[i];
        let exchange = Exchange {
            role: s.role,
            gist: s.text.clone(),
        };
        ((s.at, i), exchange)
    })
    .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// A user message (the thread passes' tests share these).
    pub(in crate::thread) fn user(t: &str) -> Value {
        json!({"role": "user", "content": t, "timestamp": 1})
    }
    /// An agent message of text only.
    pub(in crate::thread) fn agent(t: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": t}], "stopReason": "stop"})
    }
    fn working(t: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": t}, {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"command": "ls"}}], "stopReason": "toolUse"})
    }

    #[test]
    fn the_key_exchanges_of_one_message_keep_the_order_they_were_said_in() {
        // the closing report's sentences rank in another order than they were written
        let report =
            "Both test suites pass again. The parser now reads nested blocks and the lexer \
                      keeps comments, so the formatter sees every token the source had.";
        let e = extract(&[
            user("fix the parser so nested blocks and comments survive formatting"),
            working("Reading the parser."),
            agent(report),
        ]);
        let said: Vec<&str> = e
            .key_exchanges
            .iter()
            .map(|x| x.gist.as_str())
            .filter(|g| report.contains(*g))
            .collect();
        let mut in_text = said.clone();
        in_text.sort_by_key(|g| report.find(*g));
        assert!(said.len() >= 2, "{:?}", e.key_exchanges);
        assert_eq!(said, in_text);
    }

    #[test]
    fn what_the_agent_found_while_working_ranks_above_the_call_it_announces() {
        // each working message states a finding, then announces its next call; the findings
        // come first, the announcements after, whatever their place in the session
        let found = [
            "The endpoint is not configured for the test environment, so every request fails.",
            "The auto-generated migration adds a NOT NULL column without a default value.",
            "The live view runs in a separate process that cannot see the test sandbox.",
        ];
        let announced = [
            "Let me open the test configuration and look at the endpoint settings there.",
            "Let me rewrite the migration by hand so that it copies the table instead.",
            "Let me switch the sandbox to shared mode and run the whole suite again.",
        ];
        let mut messages = vec![user("make the review page tests pass")];
        for (f, a) in found.iter().zip(&announced) {
            messages.push(working(&format!("{f} {a}")));
        }
        messages.push(agent("The review page tests pass."));
        let ranked: Vec<String> = briefing(&read_dialogue(&messages), &[])
            .into_iter()
            .map(|(_, e)| e.gist)
            .collect();
        let place = |t: &str| ranked.iter().position(|g| g == t).unwrap();
        let last_finding = found.iter().map(|f| place(f)).max().unwrap();
        let first_announcement = announced.iter().map(|a| place(a)).min().unwrap();
        assert!(last_finding < first_announcement, "{ranked:#?}");
        // the first finding is not ranked below the later ones for being early
        assert!(place(found[0]) < first_announcement, "{ranked:#?}");
    }

    #[test]
    fn a_greeting_the_agent_went_to_work_on_is_not_the_task() {
        for opener in ["morning", "hello", "你好", "Morning!"] {
            let e = extract(&[
                user(opener),
                working("Good morning! Reading today's notes first."),
                agent("Here is your briefing: 3 meetings, 2 reminders."),
                user("move the 3pm meeting with Ann to Thursday"),
                working("Moving it."),
                agent("Done: the meeting with Ann is on Thursday at 3pm."),
            ]);
            assert_eq!(
                e.task.as_deref(),
                Some("move the 3pm meeting with Ann to Thursday"),
                "{opener}"
            );
        }
        // a greeting after the request the agent worked on is not what it works on now
        let e = extract(&[
            user("你是什么模型"),
            agent("我是 Kimi K2.5。"),
            user("你好"),
            working("正在执行 HEARTBEAT.md 检查任务..."),
            agent("检查完成。"),
        ]);
        assert_eq!(e.topic.as_deref(), Some("你是什么模型"), "{e:?}");
        // a request of two words the agent worked on still is one
        let e = extract(&[
            user("deploy staging"),
            working("Deploying."),
            agent("Deployed."),
        ]);
        assert_eq!(e.task.as_deref(), Some("deploy staging"));
    }

    #[test]
    fn a_greeting_or_a_bare_number_is_never_the_goal() {
        for opener in ["hi", "Wake up, my friend!", "1", "你好", "Hallo!"] {
            let e = extract(&[
                user(opener),
                agent("Hello! How can I help you today?"),
                user("Plan my training for the next four weeks, three sessions a week"),
                agent("Here is a plan: ..."),
                user("thanks"),
                agent("You're welcome."),
            ]);
            assert_eq!(
                e.task.as_deref(),
                Some("Plan my training for the next four weeks, three sessions a week"),
                "{opener}"
            );
            assert_eq!(e.topic, e.task, "{opener}");
        }
    }

    #[test]
    fn the_current_request_is_the_topic_in_any_script() {
        let e = extract(&[
            user("帮我整理一下上周的市场调研报告"),
            agent("好的，这是整理后的报告。"),
            user("现在帮我写一封给客户的邮件，说明仪表盘的进度"),
            agent("邮件草稿如下。"),
            user("好"),
        ]);
        assert_eq!(e.task.as_deref(), Some("帮我整理一下上周的市场调研报告"));
        assert_eq!(
            e.topic.as_deref(),
            Some("现在帮我写一封给客户的邮件，说明仪表盘的进度")
        );
    }

    #[test]
    fn a_short_request_the_agent_worked_on_is_the_goal() {
        let e = extract(&[
            user("hey"),
            agent("Hi!"),
            user("Fix the bug"),
            working("Looking at the failing test."),
        ]);
        assert_eq!(e.task.as_deref(), Some("Fix the bug"));
    }

    #[test]
    fn a_greeting_or_thanks_the_agent_only_answered_is_no_key_exchange() {
        let e = extract(&[
            user("hi"),
            agent("Hello! How can I help?"),
            user("The login session expires after 5 minutes instead of an hour; fix it"),
            working("Looking at src/auth.ts."),
            user("thanks!"),
            agent("You're welcome."),
        ]);
        let users: Vec<_> = e
            .key_exchanges
            .iter()
            .filter(|x| x.role == Role::User)
            .map(|x| x.gist.as_str())
            .collect();
        assert_eq!(
            users,
            vec!["The login session expires after 5 minutes instead of an hour; fix it"]
        );
    }

    #[test]
    fn a_bare_pick_as_the_topic_says_what_it_picks() {
        let e = extract(&[
            user("查一下定时任务"),
            working("有三个任务到期。"),
            agent("建议：\n1. **先处理 09:00 打卡**（简单，回复\"1\"我立即执行）\n2. **再处理 08:00 InStreet**"),
            user("1"),
            working("正在打卡。"),
        ]);
        assert_eq!(e.task.as_deref(), Some("查一下定时任务"));
        assert_eq!(
            e.topic.as_deref(),
            Some("1 (re: 先处理 09:00 打卡（简单，回复\"1\"我立即执行）)")
        );
        // several options picked by a list of their numbers in a sentence of the user's own
        let e = extract(&[
            user("查一下定时任务"),
            agent("建议的下一步：\n1. **更新文档**：修改SKILL.md\n2. **打包上传**：创建ZIP\n3. **同步版本**\n4. **社区推广**"),
            user("太好了，立即执行操作1，2，3"),
            working("正在更新文档。"),
        ]);
        assert_eq!(
            e.topic.as_deref(),
            Some("太好了，立即执行操作1，2，3 (re: 更新文档：修改SKILL.md; 打包上传：创建ZIP; 同步版本)")
        );
        // a request that is no pick stays as it is
        let e = extract(&[
            user("查一下定时任务"),
            agent("1. 打卡\n2. 推广"),
            user("把定时任务全部取消掉"),
            working("正在取消。"),
        ]);
        assert_eq!(e.topic.as_deref(), Some("把定时任务全部取消掉"));
    }

    #[test]
    fn an_agent_exchange_is_its_words_without_markdown() {
        let e = extract(&[
            user("Publish version 4.7.2 to the platform and sync GitHub"),
            working("Publishing."),
            agent("## ✅ Published\n\n| Platform | Version |\n|------|------|\n| **Xiaping** | **4.7.2** |\n| GitHub | 4.7.2 |"),
        ]);
        let said: Vec<_> = e
            .key_exchanges
            .iter()
            .filter(|x| x.role == Role::Agent)
            .map(|x| x.gist.as_str())
            .collect();
        // (the heading alone says too little to be a statement; the table is one)
        assert_eq!(said, ["Platform, Version; Xiaping, 4.7.2; GitHub, 4.7.2"]);
    }

    #[test]
    fn a_request_that_changes_the_plan_is_told_from_one_that_adds_to_it() {
        for changed in [
            "Actually, don't use SQLite. Use PostgreSQL for the store.",
            "Forget the CLI, ship the web UI first",
            "Change of plan: ship the CLI first, the web UI later",
            "Let's use Redis for the queue instead.",
            "Scratch that, keep the old parser and fix its tests",
            "数据库改用PostgreSQL，不要用SQLite了",
            "Nimm stattdessen PostgreSQL für die Daten",
            "Finalement, utilise plutôt PostgreSQL",
            "やっぱりPostgreSQLにしてください",
        ] {
            assert!(revises(changed), "{changed}");
        }
        for added in [
            "Also add tests for the parser",
            "Actually I also need a CSV export",
            "No worries, now add the signup form",
            "No, thanks, that's all for today",
            "Wait, did the deploy finish?",
            "Actually, should we use Redis instead?",
            "actually, it's the bg color of the tool execution that doesn't change",
            "The page shows 404 instead of the dashboard, fix it",
            "Now the settings page, same style",
            "把颜色换成红色",
        ] {
            assert!(!revises(added), "{added}");
        }
    }

    #[test]
    fn after_a_change_of_plan_the_task_is_the_new_one_and_the_old_is_replaced() {
        let msgs = vec![
            user("Build the notes API with Express and store the notes in SQLite"),
            working("Setting up Express and the SQLite schema."),
            agent("The Express app and the SQLite schema are in place."),
            user("Actually, don't use SQLite: store the notes in PostgreSQL instead."),
            working("Switching the store to PostgreSQL."),
        ];
        let e = extract(&msgs);
        assert_eq!(
            e.task.as_deref(),
            Some("Actually, don't use SQLite: store the notes in PostgreSQL instead.")
        );
        assert!(e.task_revised);
        assert_eq!(
            e.replaced_task.as_deref(),
            Some("Build the notes API with Express and store the notes in SQLite")
        );
        // a follow-up that adds to the plan leaves the task as it was
        let msgs = vec![
            user("Build the notes API with Express and store the notes in SQLite"),
            working("Setting up Express and the SQLite schema."),
            user("Also add a search endpoint over the note titles"),
            working("Adding the search endpoint."),
        ];
        let e = extract(&msgs);
        assert_eq!(
            e.task.as_deref(),
            Some("Build the notes API with Express and store the notes in SQLite")
        );
        assert!(!e.task_revised && e.replaced_task.is_none());
    }

    #[test]
    fn after_a_pause_of_a_sitting_the_task_is_the_first_request_since() {
        let at = |t: &str, hours: u64| json!({"role": "user", "content": t, "timestamp": 1_775_600_000_000u64 + hours * 3_600_000});
        let day = |first_hour: u64| {
            vec![
                at(
                    "luck，你当前版本是多少？请帮我查一下openclaw的版本",
                    first_hour,
                ),
                agent("当前版本是 2026.4.8。"),
                at("把健康体检去掉，其他定时任务保留下来", first_hour + 1),
                working("好的，正在修改定时任务。"),
            ]
        };
        let mut msgs = day(0);
        // a heartbeat between the user's turns is no request and no pause
        msgs.push(at("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, reply HEARTBEAT_OK.", 9));
        msgs.push(agent("HEARTBEAT_OK"));
        msgs.push(at("到论坛把未读消息都读一下，总结是否有好的升级建议", 20));
        msgs.push(working("正在读取论坛消息。"));
        msgs.push(at("好", 21));
        let e = extract(&msgs);
        assert_eq!(
            e.task.as_deref(),
            Some("到论坛把未读消息都读一下，总结是否有好的升级建议")
        );
        assert!(e.task_after_pause);
        // within one sitting (7 hours between requests) the first request stays the task
        let mut one = day(0);
        one.push(at("到论坛把未读消息都读一下，总结是否有好的升级建议", 8));
        one.push(working("正在读取论坛消息。"));
        let e = extract(&one);
        assert_eq!(
            e.task.as_deref(),
            Some("luck，你当前版本是多少？请帮我查一下openclaw的版本")
        );
        assert!(!e.task_after_pause);
        assert_eq!(e.first_request_at, Some(1_775_600_000_000));
    }

    #[test]
    fn a_span_of_heartbeat_runs_alone_keeps_the_agents_reports_and_says_what_drove_it() {
        // no request of the user's in the compacted span: the host's prompts only
        let poll = "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, reply HEARTBEAT_OK.";
        let report = "The Gmail check failed again with invalid_grant, so the OAuth token for the mail account has to be renewed by hand.";
        let mut msgs = vec![user(poll), agent("HEARTBEAT_OK"), user(poll), agent(report)];
        let e = extract(&msgs);
        assert_eq!(e.task, None);
        let reports: Vec<&str> = e.key_exchanges.iter().map(|x| x.gist.as_str()).collect();
        assert_eq!(reports, [report]);
        assert_eq!(
            e.topic.as_deref(),
            Some("the heartbeat runs (2; no request of the user's in this span)")
        );
        // a request of the user's among them is the topic
        msgs.push(user("Rotate the deploy key in docs/keys.md"));
        msgs.push(working("Rotating it."));
        let e = extract(&msgs);
        assert_eq!(
            e.topic.as_deref(),
            Some("Rotate the deploy key in docs/keys.md")
        );
    }

    #[test]
    fn with_nothing_substantive_the_first_request_stays_the_task() {
        let e = extract(&[user("hi there"), agent("Hello!")]);
        assert_eq!(e.task.as_deref(), Some("hi there"));
        // but it is not what the user works on now: a compaction's messages holding only a
        // greeting (the task came before them) leave that to the checkpoint's other sources
        let e = extract(&[
            user("你好"),
            working("正在执行 HEARTBEAT.md 检查任务..."),
            agent("检查完成。"),
        ]);
        assert_eq!(e.topic, None);
    }

    #[test]
    fn substantive_counts_letters_names_and_work() {
        assert!(!substantive("ok", false));
        assert!(!substantive("12345", false));
        // work makes a request of a short message, not of a single word (a greeting); a number
        // the agent worked on is a pick
        assert!(substantive("deploy staging", true));
        assert!(!substantive("morning", true));
        assert!(!substantive("你好", true));
        assert!(substantive("1", true));
        assert!(substantive("see src/auth.ts", false));
        assert!(substantive("rename `fooBar`", false));
        assert!(substantive("健身计划怎么安排比较好", false));
        assert!(!substantive("早上好", false));
    }
}
