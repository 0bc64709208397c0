//! The document model: the conversation's sentences, each with its speaker and place.

use super::rank::terms;
use crate::model::Role;
use context_state::dialogue::{Line, Said};
use context_state::gist;
use context_state::substance::{plain, prose_paragraphs};
use context_state::wrappers::NO_OP_REPLIES;

/// Longest sentence kept (characters); a longer one is cut with `…`.
pub const SENTENCE_CHARS: usize = 240;
/// Fewest terms with a letter ([`terms`]) of a sentence: `Done.` or `Fixed it` says nothing on
/// its own.
pub const MIN_TERMS: usize = 3;

/// One sentence of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// The index of its message.
    pub at: usize,
    /// The index of its turn (a user request opens one; 0 holds what came before the first).
    pub turn: usize,
    /// Who said it.
    pub role: Role,
    /// Its text, as plain text (no markdown marks), at most [`SENTENCE_CHARS`] characters.
    pub text: String,
    /// It is in the agent's last message of its turn, the report the turn closed on, or in a
    /// status note the agent wrote with its plan tool (what happened, what is blocked).
    pub closing: bool,
    /// It is in an agent message that called tools: what the agent said while it worked.
    pub worked: bool,
    /// It is the last sentence of its message: in a message that called tools, the one that
    /// announces the call (`Let me rewrite the migration.`).
    pub last: bool,
}

/// Fewest lines of a [block](is_block).
pub const BLOCK_LINES: usize = 4;

/// The sentences of a text's prose: code blocks left out, each line's list and heading marks
/// removed, split after `.`, `!`, `?` and their full-width forms, a table or a block of lines
/// ([`is_block`]) as one; a sentence of fewer than [`MIN_TERMS`] worded terms is left out.
pub fn sentences_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for para in prose_paragraphs(text) {
        // a block of lines is one statement, its lines joined; a table is one too, its rows'
        // cells ([`plain`])
        let whole = if is_block(para) {
            let lines: Vec<String> = para.lines().map(plain).filter(|l| !l.is_empty()).collect();
            Some(lines.join("; "))
        } else if para.trim_start().starts_with('|') {
            Some(plain(para))
        } else {
            None
        };
        if let Some(s) = whole {
            if worded(&s) {
                out.push(gist(&s, SENTENCE_CHARS));
            }
            continue;
        }
        for line in para.lines() {
            let line = unmarked(line);
            if line.is_empty() {
                continue;
            }
            for s in split_sentences(&plain(line)) {
                if worded(&s) {
                    out.push(gist(&s, SENTENCE_CHARS));
                }
            }
        }
    }
    out
}

/// A paragraph of lines that are no sentences: at least [`BLOCK_LINES`] lines, three in four of
/// them neither a list item (a marker's or a pictograph's), a table's row, a heading nor the end
/// of a sentence, and [alike](ALIKE_LINES) line to line (a pasted log or stack trace, a listing;
/// not a message written a point per line). Its lines say one thing together, as a table's rows
/// do: taken one by one, forty frames of one stack trace rank as forty central sentences.
fn is_block(para: &str) -> bool {
    let lines: Vec<&str> = para
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let bare = lines
        .iter()
        .filter(|l| {
            unmarked(l) == **l
                && !l.starts_with(['|', '#'])
                // (a line led by a pictograph or a symbol, `✅ Fixed the parser`, is a list's item)
                && !l.starts_with(|c: char| !c.is_ascii() && !c.is_alphanumeric())
                && !l.ends_with(['.', '!', '?', ':', '。', '！', '？', '：'])
        })
        .count();
    lines.len() >= BLOCK_LINES && bare * 4 >= lines.len() * 3 && alike(&lines) >= ALIKE_LINES
}

/// How alike a [block](is_block)'s lines are at least (the mean [`alike`] of each line and the
/// next): the frames of one trace, the entries of one log or listing share most of their terms;
/// the points of a message written a line per point share few.
pub const ALIKE_LINES: f64 = 0.25;

/// The mean share of terms ([`terms`]) two consecutive lines have in common (Jaccard).
fn alike(lines: &[&str]) -> f64 {
    use std::collections::HashSet;
    let sets: Vec<HashSet<String>> = lines
        .iter()
        .map(|l| terms(l).into_iter().collect())
        .collect();
    let pairs = sets.windows(2).map(|w| {
        let union = w[0].union(&w[1]).count();
        if union == 0 {
            0.0
        } else {
            w[0].intersection(&w[1]).count() as f64 / union as f64
        }
    });
    pairs.sum::<f64>() / (sets.len().max(2) - 1) as f64
}

/// At least [`MIN_TERMS`] terms with a letter (`4.7.2` or `v2, 3` is no statement on its own).
fn worded(s: &str) -> bool {
    terms(s)
        .iter()
        .filter(|t| t.chars().any(char::is_alphabetic))
        .count()
        >= MIN_TERMS
}

/// A line without its list marker (`-`, `*`, `+`, `1.`, `1)`, each before a space) and
/// checkbox; `**Task 1**:` keeps its bold marks for [`plain`] to remove.
fn unmarked(line: &str) -> &str {
    let mut l = line.trim();
    let bullet = l
        .strip_prefix(['-', '*', '+', '•'])
        .filter(|rest| rest.starts_with(char::is_whitespace));
    if let Some(rest) = bullet {
        l = rest.trim_start();
    } else {
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits <= 3 {
            let rest = &l[digits..];
            if let Some(r) = rest.strip_prefix(['.', ')']) {
                if r.starts_with(' ') {
                    l = r.trim_start();
                }
            }
        }
    }
    for mark in ["[ ]", "[x]", "[X]"] {
        if let Some(rest) = l.strip_prefix(mark) {
            l = rest.trim_start();
        }
    }
    l
}

/// Splits after a sentence's end: `.`, `!`, `?` followed by a space and not by a lower-case
/// word (`e.g. the parser`, `job 5f0c2a9e... in that listing` go on), or a full-width end mark
/// (`。`, `！`, `？`). A dot inside a word (`auth.ts`, `v1.2`) or a code span (`` `ALTER TABLE
/// ... ADD` ``) ends nothing.
fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    // inside a code span: a backtick opened it and another closes it later on the line
    let last_tick = chars.iter().rposition(|&c| c == '`');
    let mut in_code = false;
    for (i, &c) in chars.iter().enumerate() {
        cur.push(c);
        if c == '`' {
            in_code = !in_code && last_tick.is_some_and(|l| l > i);
        }
        let end = !in_code
            && match c {
                '。' | '！' | '？' => true,
                '.' | '!' | '?' => {
                    let rest = &chars[i + 1..];
                    let next = rest.iter().find(|n| !n.is_whitespace());
                    rest.first().is_none_or(|n| n.is_whitespace())
                        && !next.is_some_and(|n| n.is_lowercase())
                }
                _ => false,
            };
        if end {
            let s = cur.trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            cur.clear();
        }
    }
    let s = cur.trim();
    if !s.is_empty() {
        out.push(s.to_string());
    }
    out
}

/// What the agent wrote with a tool rather than in its messages, said where it wrote it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Note<'a> {
    /// The index of the message it was written at (its call's result).
    pub at: usize,
    pub text: &'a str,
    /// A status report (OpenClaw's progress card's `markdown`), read as a turn's closing report;
    /// else (what it wrote of its work: a commit's message, a prose document) as the agent's other
    /// replies.
    pub report: bool,
}

/// The document: the user's requests and everything the agent wrote, sentence by sentence, in
/// order, with the `notes` it wrote with a tool (in order) said at their message.
/// Acknowledgements, short answers and host text are not in it ([`Said`]), nor a sentence naming
/// the host's no-op replies ([`NO_OP_REPLIES`]: a cron prompt's `If nothing changed, respond
/// exactly NO_REPLY.`).
pub fn document(lines: &[Line], notes: &[Note]) -> Vec<Sentence> {
    // the agent's last message with text in each turn
    let mut turn_of = vec![0usize; lines.len()];
    let mut last_agent: Vec<Option<usize>> = vec![None];
    let mut turn = 0;
    for (at, line) in lines.iter().enumerate() {
        match line {
            Line::User {
                said: Said::Request,
                ..
            } => {
                turn += 1;
                last_agent.push(None);
            }
            Line::Agent { text, .. } if !text.trim().is_empty() => last_agent[turn] = Some(at),
            _ => {}
        }
        turn_of[at] = turn;
    }
    // a sentence about the host's protocol (`reply exactly NO_REPLY`) is not the work's
    let work = |s: &String| !NO_OP_REPLIES.iter().any(|t| s.contains(t));
    let mut notes = notes.iter().peekable();
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let turn = turn_of[at];
        // what was said at this message: (who, text, closing, worked)
        let mut said: Vec<(Role, &str, bool, bool)> = Vec::new();
        // (a status note is the agent's report, said where it wrote it)
        while let Some(note) = notes.next_if(|n| n.at <= at) {
            said.push((Role::Agent, note.text, note.report, note.report));
        }
        match line {
            Line::User {
                text,
                said: Said::Request,
                ..
            } => said.push((Role::User, text, false, false)),
            Line::Agent { text, worked } => {
                said.push((Role::Agent, text, last_agent[turn] == Some(at), *worked))
            }
            _ => {}
        }
        for (role, text, closing, worked) in said {
            let sentences: Vec<String> = sentences_of(text).into_iter().filter(work).collect();
            let n = sentences.len();
            out.extend(sentences.into_iter().enumerate().map(|(i, text)| Sentence {
                at,
                turn,
                role,
                text,
                closing,
                worked,
                last: i + 1 == n,
            }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_leave_out_code_marks_and_short_ones() {
        let s = sentences_of(
            "## Done\n\n- **Fixed** the token refresh in `auth.ts`. It now expires after an hour.\n\
             1. Added a test for refreshSession() in the auth suite\n\n```\nlet x = 1;\n```\nOK.",
        );
        assert_eq!(
            s,
            vec![
                "Fixed the token refresh in `auth.ts`.",
                "It now expires after an hour.",
                "Added a test for refreshSession() in the auth suite",
            ]
        );
        // a script without spaces: each character a term
        assert_eq!(
            sentences_of("定时任务已经修复。明天早上再检查一次！"),
            vec!["定时任务已经修复。", "明天早上再检查一次！"]
        );
        // a stop before a lower-case word ends no sentence: an abbreviation, an id cut short
        assert_eq!(
            sentences_of(
                "The backfill job is 5f0c2a9e... in that listing. Rerun it, e.g. with --force."
            ),
            vec![
                "The backfill job is 5f0c2a9e... in that listing.",
                "Rerun it, e.g. with --force."
            ]
        );
        // a bold line start is no list marker
        assert_eq!(
            sentences_of("**Task 1**: Extend the annotation schema\n* **Task 2**: the hook"),
            vec!["Task 1: Extend the annotation schema", "Task 2: the hook"]
        );
        // nor a stop inside a code span; an unclosed backtick opens none
        assert_eq!(
            sentences_of(
                "The migration uses `ALTER TABLE ... ADD` without a default. SQLite rejects it. \
                 A stray ` tick. Then this works fine."
            ),
            vec![
                "The migration uses `ALTER TABLE ... ADD` without a default.",
                "SQLite rejects it.",
                "A stray ` tick.",
                "Then this works fine."
            ]
        );
    }

    #[test]
    fn a_pasted_log_is_one_statement_and_a_few_short_lines_are_not() {
        let mut trace = String::from(
            "Seems to work but the console warns:\n\nWarning: Encountered two children with the same key, `SKILL.md`\n",
        );
        for (i, f) in [
            "ContextTreeView",
            "ContextTab",
            "TabPanel",
            "AppContent",
            "Routes",
            "Router",
            "BrowserRouter",
            "App",
        ]
        .iter()
        .enumerate()
        {
            trace.push_str(&format!(
                "at {f} (http://localhost:3000/chunk-36jrqfj4.js:{}:20)\n",
                31000 + i
            ));
        }
        let s = sentences_of(&trace);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(s[1].starts_with("Warning: Encountered two children with the same key, `SKILL.md`; at ContextTreeView ("), "{s:?}");
        assert!(s[1].chars().count() <= SENTENCE_CHARS);
        // a message of a few lines, each its own statement, stays so; so do a table's rows under a
        // heading and a list
        let few = "Trigger: bootstrap tests marked FAIL\nImpact: false negatives everywhere\nCorrection: separate the two results";
        assert_eq!(sentences_of(few).len(), 3);
        let points = "遇到的问题\n部分脚本语法错误：security-checks.sh有语法问题\n依赖HOME变量：在沙盒环境中报错\n恶意技能扫描脚本有bug\nThe installer skips the config check\nLogs rotate too early on small disks\nThe report omits the firewall rules\nNo timeout on the network probe";
        assert_eq!(sentences_of(points).len(), 8, "{:?}", sentences_of(points));
        let ticks: String = (1..=9)
            .map(|i| format!("✅ 修复了第{i}个脚本的语法错误\n"))
            .collect();
        assert_eq!(sentences_of(&ticks).len(), 9, "{:?}", sentences_of(&ticks));
        let table = "### Feedback to handle\n| Priority | Source | Request |\n|---|---|---|\n| P1 | forum comment | add a section on limits |\n| P2 | review | schedule the checks |\n| P2 | review | export the report as HTML |\n| P3 | forum | add a dark theme to it |\n| P3 | forum | translate the guide to it |\n| P3 | chat | shorten the install steps |";
        assert!(sentences_of(table).len() > 2, "{:?}", sentences_of(table));
    }

    #[test]
    fn the_last_sentence_of_each_message_is_marked() {
        let lines = [
            Line::Agent {
                text: "The endpoint is not configured for tests. Let me add the config.".into(),
                worked: true,
            },
            Line::Agent {
                text: "All five tests pass now.".into(),
                worked: false,
            },
        ];
        let doc = document(&lines, &[]);
        let marks: Vec<(&str, bool)> = doc.iter().map(|s| (s.text.as_str(), s.last)).collect();
        assert_eq!(
            marks,
            vec![
                ("The endpoint is not configured for tests.", false),
                ("Let me add the config.", true),
                ("All five tests pass now.", true),
            ]
        );
    }
}
