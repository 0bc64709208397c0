//! Seed 002's opt-in nudges: `[Hint: ...]` lines the host prepends to the next user message.
//! Each fires once per episode of its condition, not on every turn. Trigger state is transient
//! (it lives in the registry, not in the session file), as the seed specifies.

/// The four `nudge*` settings of seed 002; 0 (the default) turns a nudge off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NudgeSettings {
    /// Turns with an empty scratchpad before nudging to populate it.
    pub after_turns: u32,
    /// Non-zero: nudge when the assistant writes a plan while the scratchpad is empty.
    pub on_plan_detected: u32,
    /// Non-zero: nudge after every context compaction.
    pub after_compaction: u32,
    /// Turns without an update, while the scratchpad has content, before nudging to review it.
    pub turns_since_last_use: u32,
}

/// What just happened in the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NudgeEvent<'a> {
    /// An agent turn starts (counts the turn).
    TurnStart,
    /// The assistant produced this text.
    AssistantMessage(&'a str),
    /// A context compaction finished.
    CompactionEnd,
}

/// Per-session trigger state.
#[derive(Debug, Clone, Default)]
pub struct NudgeState {
    /// Turn starts seen.
    turns: u64,
    /// `turns` when the scratchpad last became empty (0: the session started empty).
    empty_since: u64,
    /// `turns` at the last change.
    last_change: u64,
    fired_after_turns: bool,
    fired_plan: bool,
    fired_since_last_use: bool,
}

impl NudgeState {
    /// Called on every change of the scratchpad: ends the "not used lately" episode, and starts or
    /// ends the "empty" episode.
    pub(crate) fn on_change(&mut self, was_empty: bool, now_empty: bool) {
        self.last_change = self.turns;
        self.fired_since_last_use = false;
        if now_empty && !was_empty {
            self.empty_since = self.turns;
        }
        if !now_empty {
            self.fired_after_turns = false;
            self.fired_plan = false;
        }
    }

    /// Evaluates `event` for a scratchpad that is `empty` or not; returns the hint line to inject.
    pub(crate) fn evaluate(
        &mut self,
        event: NudgeEvent<'_>,
        settings: &NudgeSettings,
        empty: bool,
    ) -> Option<String> {
        match event {
            NudgeEvent::TurnStart => {
                // Whole turns completed since the episode began (this one not yet).
                let hint = if empty {
                    let n = settings.after_turns as u64;
                    let elapsed = self.turns - self.empty_since;
                    (n > 0 && !self.fired_after_turns && elapsed >= n).then(|| {
                        self.fired_after_turns = true;
                        format!(
                            "[Hint: The session scratchpad is still empty after {elapsed} turns. If this task \
                             has a plan, key findings or files you will need again, save them with \
                             session_scratchpad (set_plan, append_notes, refs.add) so they survive context \
                             compaction.]"
                        )
                    })
                } else {
                    let n = settings.turns_since_last_use as u64;
                    let elapsed = self.turns - self.last_change;
                    (n > 0 && !self.fired_since_last_use && elapsed >= n).then(|| {
                        self.fired_since_last_use = true;
                        format!(
                            "[Hint: Your scratchpad has not been updated in {elapsed} turns. Review it: mark \
                             finished plan steps (set_plan), record new findings (append_notes) and remove \
                             refs you no longer need (refs.remove).]"
                        )
                    })
                };
                self.turns += 1;
                hint
            }
            NudgeEvent::AssistantMessage(text) => {
                let on = settings.on_plan_detected > 0;
                (on && empty && !self.fired_plan && looks_like_plan(text)).then(|| {
                    self.fired_plan = true;
                    "[Hint: You just laid out a multi-step plan. Save it with session_scratchpad \
                     (action \"set_plan\") so it survives context compaction, and update it as steps \
                     complete.]"
                        .to_string()
                })
            }
            NudgeEvent::CompactionEnd => (settings.after_compaction > 0).then(|| {
                if empty {
                    "[Hint: Context was just compacted and earlier turns are gone. Save your current \
                     plan, key findings and the files you still need with session_scratchpad now, so they \
                     survive the next compaction.]"
                        .to_string()
                } else {
                    "[Hint: Context was just compacted and earlier turns are gone; your scratchpad \
                     survived. Review it and add anything from before the compaction that is still \
                     needed.]"
                        .to_string()
                }
            }),
        }
    }
}

fn is_numbered_item(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return false;
    }
    let rest = &line[digits..];
    (rest.starts_with(". ") || rest.starts_with(") "))
        && rest[2..].chars().any(|c| !c.is_whitespace())
}

fn is_task_item(line: &str) -> bool {
    let rest = match line.as_bytes().first() {
        Some(b'-' | b'*' | b'+') => line[1..].trim_start(),
        _ => return false,
    };
    rest.len() >= 3
        && matches!(&rest[..3], "[ ]" | "[x]" | "[X]")
        && rest[3..].chars().any(|c| !c.is_whitespace())
}

fn step_mentions(line: &str) -> usize {
    // "Step 1", "step 2:", "STEP 3 -": the word then a number.
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while let Some(p) = lower[i..].find("step") {
        let at = i + p;
        let before_ok = at == 0 || !b[at - 1].is_ascii_alphanumeric();
        let mut j = at + 4;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if before_ok && j > at + 4 && j < b.len() && b[j].is_ascii_digit() {
            n += 1;
        }
        i = at + 4;
    }
    n
}

/// Plan-like text (seed 002): a numbered list, "Step N" mentions or a task list, each with at
/// least three items.
pub fn looks_like_plan(text: &str) -> bool {
    let (mut numbered, mut tasks, mut steps) = (0, 0, 0);
    for line in text.lines() {
        let l = line.trim_start();
        if is_numbered_item(l) {
            numbered += 1;
        }
        if is_task_item(l) {
            tasks += 1;
        }
        steps += step_mentions(l);
        if numbered >= 3 || tasks >= 3 || steps >= 3 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_plans() {
        assert!(looks_like_plan("Plan:\n1. read\n2. fix\n3. test"));
        assert!(looks_like_plan("- [ ] a\n- [x] b\n* [ ] c"));
        assert!(looks_like_plan("Step 1: a. Step 2: b. Then step 3: c."));
        assert!(!looks_like_plan("1. only\n2. two items"));
        assert!(!looks_like_plan("In 2024. I went. 3 times."));
        assert!(!looks_like_plan("footsteps 1 2 3, steps, stepping"));
    }

    #[test]
    fn after_turns_fires_once_per_empty_episode() {
        let s = NudgeSettings {
            after_turns: 2,
            ..Default::default()
        };
        let mut st = NudgeState::default();
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_none()); // 0 done
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_none()); // 1 done
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_some()); // 2 done
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_none()); // same episode
        st.on_change(true, false); // filled
        st.on_change(false, true); // emptied again: a new episode
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_none());
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_none());
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_some());
    }

    #[test]
    fn everything_is_off_by_default() {
        let s = NudgeSettings::default();
        let mut st = NudgeState::default();
        for _ in 0..100 {
            assert!(st.evaluate(NudgeEvent::TurnStart, &s, true).is_none());
            assert!(st.evaluate(NudgeEvent::TurnStart, &s, false).is_none());
        }
        assert!(st
            .evaluate(NudgeEvent::AssistantMessage("1. a\n2. b\n3. c"), &s, true)
            .is_none());
        assert!(st.evaluate(NudgeEvent::CompactionEnd, &s, true).is_none());
    }

    #[test]
    fn since_last_use_resets_on_change() {
        let s = NudgeSettings {
            turns_since_last_use: 1,
            ..Default::default()
        };
        let mut st = NudgeState::default();
        st.evaluate(NudgeEvent::TurnStart, &s, true);
        st.on_change(true, false);
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, false).is_none());
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, false).is_some());
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, false).is_none());
        st.on_change(false, false);
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, false).is_none());
        assert!(st.evaluate(NudgeEvent::TurnStart, &s, false).is_some());
    }
}
