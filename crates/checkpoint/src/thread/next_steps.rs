//! Next steps: the agent's latest plan (its last numbered or unchecked list, the open tasks of its
//! task list, or the plan it set in the scratchpad), whichever came last.

use super::*;

/// The lines of a text outside its code fences (the fence lines left out too), each as written
/// and trimmed.
fn unfenced(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut in_fence = false;
    text.lines().filter_map(move |line| {
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
            return None;
        }
        (!in_fence).then_some((line, t))
    })
}

/// What follows a line's number of one to three digits and its `.` or `)` (`1.`, `12)`).
fn after_number(t: &str) -> Option<&str> {
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    (digits > 0 && digits < 4 && t[digits..].starts_with(['.', ')'])).then(|| &t[digits + 1..])
}

/// The titles of a text's numbered headings, in order: a markdown heading or a line in bold
/// that starts with a number (`### 1. Parser`, `## 2) Tests`, `**3. Docs**`), outside fences.
pub fn numbered_headings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (_, t) in unfenced(text) {
        let title = if let Some(h) = t.strip_prefix('#') {
            h.trim_start_matches('#').strip_prefix(' ')
        } else {
            t.strip_prefix("**")
                .and_then(|b| b.strip_suffix("**").or_else(|| b.strip_suffix("**:")))
        };
        if let Some(rest) = title.map(str::trim).and_then(after_number) {
            let name = rest.trim().trim_matches('*').trim();
            if !name.is_empty() {
                out.push(squash(name));
            }
        }
    }
    out
}

/// The items of the last numbered list (`1.`, `2)`) or unchecked todo list (`- [ ]`) of a text
/// with at least two items, in order.
pub fn last_list(text: &str) -> Vec<String> {
    let mut lists: Vec<Vec<String>> = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    for (line, t) in unfenced(text) {
        let numbered = after_number(t).filter(|rest| rest.starts_with(' '));
        let item = numbered
            .or_else(|| t.strip_prefix("- [ ] "))
            .or_else(|| t.strip_prefix("* [ ] "))
            .map(str::trim);
        match item {
            // a numbered list restarting at 1 is a new list
            Some(it) if !it.is_empty() => {
                let first = t.starts_with("1.") || t.starts_with("1)");
                if numbered.is_some() && first && !cur.is_empty() {
                    lists.push(std::mem::take(&mut cur));
                }
                cur.push(squash(it));
            }
            _ => {
                // indented sub-items and blank lines keep a list open; anything else ends it
                let continues = t.is_empty() || line.starts_with([' ', '\t']);
                if !continues && !cur.is_empty() {
                    lists.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        lists.push(cur);
    }
    lists
        .into_iter()
        .rev()
        .find(|l| l.len() >= 2)
        .unwrap_or_default()
}

/// True for a list item marked done: a check mark before or after it (`✅ Added`, `Tests - done ✓`,
/// `[x]`) or struck through (`~~old step~~`).
pub(super) fn is_done(item: &str) -> bool {
    const MARKS: [char; 6] = ['✅', '✓', '✔', '☑', '☒', '🟢'];
    let t = item.trim_start_matches(['*', '_', ' ']);
    // a mark before the step or after it (`Update CHANGELOG - done ✅`)
    t.starts_with(MARKS)
        || t.trim_end_matches(['*', '_', ' ', '.', ')'])
            .ends_with(MARKS)
        || t.starts_with("[x]")
        || t.starts_with("[X]")
        || t.starts_with("~~")
}

/// True for a list item that is a label of the text below it: it ends with a colon (`**Tests:**`,
/// `结论：`), or it is bold whole, a heading written as a list item (`**仕様詳細**`, `**2026年2月6日
/// 21:52 UTC**`: the sections of a report, not its steps).
fn is_label(item: &str) -> bool {
    let t = item.trim();
    let heading = t
        .strip_prefix("**")
        .and_then(|b| b.strip_suffix("**"))
        .is_some_and(|b| !b.trim().is_empty() && !b.contains("**"));
    heading || t.trim_end_matches(['*', '_', ' ']).ends_with([':', '：'])
}

/// `1. a; 2. b; ...` of a plan's items, each at most [`PLAN_ITEM_CHARS`], the whole at most
/// [`NEXT_ACTION_CHARS`].
pub(super) fn plan_text(items: &[String]) -> String {
    let joined = items
        .iter()
        .enumerate()
        .map(|(i, it)| format!("{}. {}", i + 1, gist(it, PLAN_ITEM_CHARS)))
        .collect::<Vec<_>>()
        .join("; ");
    gist(&joined, NEXT_ACTION_CHARS)
}

/// A plan an earlier checkpoint stated, which [`next_action`] starts from.
#[derive(Debug, Clone, Copy)]
pub(super) struct CarriedPlan<'a> {
    /// The plan as the checkpoint states it.
    pub text: &'a str,
    /// When it was set, if known (ms since the epoch).
    pub set_at: Option<u64>,
    /// It came from the agent's text (not its task list or the scratchpad).
    pub from_text: bool,
}

/// The agent's latest plan: its last numbered or unchecked todo list, the open tasks of its task
/// list (`tasks`, [`task_changes`]: none once every task is done), or the plan it set in the
/// scratchpad, whichever came last.
///
/// A numbered list in the agent's last word of a turn it worked in (it called tools before, and
/// calls none in that message or after it before the user speaks) reports the work (`Done. Summary of changes: 1. ...`, `Now you can: 1.
/// ...`): it is no plan, and the plan its text laid out before the work is done with. Unless the
/// message ends by asking the user (`Which should I do first?`): then the list is a proposal.
/// A numbered list ending a turn the agent did not work in answers the user (a skill's strengths,
/// the parts of a design): it is the plan only when the user's next message accepts it (an
/// acknowledgement: `ok, do it`), or when the message asks the user. A list of labels (`1. **Intro
/// lists use cases:**`, `1. **仕様詳細**`) names no steps. Structure only, any language. With the plan, the time of
/// the message that set it, if it says.
///
/// The plan starts as `carried`, the plan an earlier checkpoint stated (with when it was set, and
/// whether it came from the agent's text): it stands until these messages set another, or, when
/// it came from the text, until a report of the work closes it, as a plan of these messages would.
pub(super) fn next_action(
    walk: &Walk,
    tasks: &[TaskChange],
    carried: Option<CarriedPlan<'_>>,
) -> (Option<String>, Option<u64>) {
    // the plan and when it was set (the time of the message that set it, if it says)
    let mut next: Option<(String, Option<u64>)> = carried.map(|c| (c.text.to_string(), c.set_at));
    // the plan came from the agent's text (not a todo tool or the scratchpad)
    let mut from_text = carried.is_some_and(|c| c.from_text);
    // the list of the agent's last word in a turn it did not work in (an answer: `Its strengths:
    // 1. ... 2. ...`): a plan only once the user accepts it
    let mut answered: Option<String> = None;
    // the agent called tools since the user's last message
    let mut worked = false;
    // for each message: the agent calls tools after it in the same turn (it went on working)
    let mut works_after = vec![false; walk.lines.len()];
    let mut later = false;
    for (i, line) in walk.lines.iter().enumerate().rev() {
        works_after[i] = later;
        match line {
            Line::User { said, .. } if *said != Said::Noise => later = false,
            Line::Agent { worked: true, .. } => later = true,
            _ => {}
        }
    }
    let mut tasks = tasks.iter().peekable();
    for (i, (line, m)) in walk.lines.iter().zip(&walk.messages).enumerate() {
        // the task list changed: its open items are the plan, none when every task is done
        while let Some(change) = tasks.next_if(|c| c.at == i) {
            next = open_plan(&change.open).map(|plan| (plan, m.sent_at));
            from_text = false;
        }
        let (text, calls_now) = match line {
            Line::Agent { text, worked } => (text, *worked),
            Line::User { said, text, .. } => {
                if *said != Said::Noise {
                    // an answer's list becomes the plan when the user accepts it (`ok, go`)
                    if let Some(plan) = answered.take().filter(|_| {
                        context_state::substance::substance(text)
                            == context_state::substance::Substance::Ack
                    }) {
                        next = Some((plan, m.sent_at));
                        from_text = true;
                    }
                    worked = false;
                }
                continue;
            }
            Line::Other => continue,
        };
        // items marked done (a report of finished steps) are not what comes next
        let all = last_list(text);
        // a list marking steps done is a status: its other steps are open, whoever speaks next
        let status = all.iter().any(|it| is_done(it));
        let list: Vec<String> = all.into_iter().filter(|it| !is_done(it)).collect();
        // a list of labels each introducing what follows it (`1. **Intro lists use cases:**`)
        // structures an answer or a report: it names no steps (though a report of sections
        // still closes the plan before it)
        let steps = !list.iter().all(|it| is_label(it));
        let numbered = !list.is_empty() && !text.contains("- [ ]") && !text.contains("* [ ]");
        // the agent's last word of the turn: a report (it worked) or an answer (it did not, and
        // marked no step done); a message that ends by asking the user proposes its list
        if numbered
            && !calls_now
            && !works_after[i]
            && (worked || !status)
            && context_state::substance::proposal(text).is_none()
        {
            if !worked && steps {
                answered = Some(plan_text(&list));
            } else if worked && from_text {
                next = None;
            }
        } else if !list.is_empty() && steps {
            next = Some((plan_text(&list), m.sent_at));
            from_text = true;
        }
        worked |= calls_now;
        for args in m.calls.iter().map(|c| c.args) {
            // the scratchpad's plan (session_scratchpad / session.scratchpad `set_plan`), or a
            // plan the agent presents with a tool (a `plan` argument: Claude Code's ExitPlanMode)
            let plan = if args.get("action").and_then(Value::as_str) == Some("set_plan") {
                args.get("content").and_then(Value::as_str)
            } else {
                args.get("plan").and_then(Value::as_str)
            };
            if let Some(plan) = plan {
                // a plan written as numbered sections (`### 1. Parser`, `**2. Tests**`) is
                // its sections; otherwise its last list
                let sections = numbered_headings(plan);
                let items = if sections.len() >= 2 {
                    sections
                } else {
                    last_list(plan)
                };
                next = Some(if items.is_empty() {
                    gist(plan, NEXT_ACTION_CHARS)
                } else {
                    plan_text(&items)
                })
                .filter(|s| !s.is_empty())
                .map(|s| (s, m.sent_at));
                from_text = false;
            }
        }
    }
    let (plan, at) = next.unzip();
    (plan, at.flatten())
}
