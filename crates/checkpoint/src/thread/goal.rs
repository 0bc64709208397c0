//! Goal and thread: the task (the first request), the topic (the latest), the summary and the key
//! exchanges (the first request, pivots after long agent responses, the last two pairs).

use super::*;

/// One request of the user and the agent's response to it.
pub(super) struct Turn {
    /// Squashed user text; `None` for agent output before the first request.
    user: Option<String>,
    /// Characters of all agent text in the turn.
    agent_chars: usize,
    /// The agent's last text in the turn (its final word).
    agent_last: Option<String>,
}

/// The turns of the dialogue: a request opens one; answers, acknowledgements, slash commands and
/// injections do not (the agent's response continues the turn of the request before).
pub(super) fn turns(lines: &[Line]) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for line in lines {
        match line {
            Line::User {
                text,
                said: Said::Request,
                ..
            } => turns.push(Turn {
                user: Some(squash(text)),
                agent_chars: 0,
                agent_last: None,
            }),
            Line::Agent { text, .. } if !text.trim().is_empty() => {
                if turns.is_empty() {
                    turns.push(Turn {
                        user: None,
                        agent_chars: 0,
                        agent_last: None,
                    });
                }
                let t = turns.last_mut().expect("a turn was pushed");
                t.agent_chars += text.chars().count();
                t.agent_last = Some(text.clone());
            }
            _ => {}
        }
    }
    turns
}

/// Task (the first request), topic (the last), summary and key exchanges (the first request,
/// pivots after long agent responses, the last two pairs).
pub(super) fn thread(turns: &[Turn], out: &mut Extracted) {
    let users: Vec<usize> = (0..turns.len())
        .filter(|&i| turns[i].user.is_some())
        .collect();
    let (Some(&first), Some(&last)) = (users.first(), users.last()) else {
        return;
    };
    let user_text = |i: usize| turns[i].user.as_deref().unwrap_or_default();
    out.task = Some(gist(user_text(first), TASK_CHARS));
    out.topic = Some(gist(user_text(last), TOPIC_CHARS));
    out.summary = Some(if first == last {
        gist(user_text(first), TOPIC_CHARS)
    } else {
        format!(
            "{} ... {}",
            gist(user_text(first), TOPIC_CHARS),
            gist(user_text(last), TOPIC_CHARS)
        )
    });

    // Entries are (turn, role); the agent entry of a turn sorts after its user entry.
    let mut must: Vec<(usize, Role)> = vec![(first, Role::User)];
    for &i in &users[users.len().saturating_sub(LAST_PAIRS)..] {
        must.push((i, Role::User));
        if turns[i].agent_last.is_some() {
            must.push((i, Role::Agent));
        }
    }
    // Pivots: a user message right after a long agent response, newest first.
    let pivots = users
        .iter()
        .rev()
        .copied()
        .filter(|&i| i > 0 && turns[i - 1].agent_chars > LONG_AGENT_CHARS)
        .map(|i| (i, Role::User));
    let mut chosen = must;
    chosen.sort_by_key(|&(i, r)| (i, r == Role::Agent));
    chosen.dedup();
    for p in pivots {
        if chosen.len() >= MAX_EXCHANGES {
            break;
        }
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.sort_by_key(|&(i, r)| (i, r == Role::Agent));
    out.key_exchanges = chosen
        .into_iter()
        .map(|(i, role)| {
            let text = match role {
                Role::User => user_text(i),
                Role::Agent => turns[i].agent_last.as_deref().unwrap_or_default(),
            };
            Exchange {
                role,
                gist: gist(text, GIST_CHARS),
            }
        })
        .collect();
}
