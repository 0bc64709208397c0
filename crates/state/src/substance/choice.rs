//! Proposals and the user's choices among them: what a decision quotes.

use super::*;

/// When an agent message ends by asking the user something, the question and what it proposes:
/// `(question, proposal)`, the proposal being the nearest paragraph before the question that is
/// not itself a question and has letters of its own (a rule `---`, a table rule, an emoji line
/// or a code block is never a proposal), as [`plain`] text; `None` when the question stands
/// alone. `None` when the message does not end with a question.
pub fn proposal(agent_text: &str) -> Option<(String, Option<String>)> {
    let paras = paragraphs(agent_text);
    let last = *paras.last()?;
    // The question is the last sentence of the last paragraph's last line.
    let last_line = last.lines().last().unwrap_or(last).trim();
    if !is_question(last_line) {
        return None;
    }
    let body = last_line.trim_end_matches(|c: char| !matches!(c, '?' | '？' | '⸮' | '؟'));
    let body = &body[..body.len() - body.chars().last().map_or(0, char::len_utf8)];
    let cut = body
        .char_indices()
        .filter(|(i, c)| {
            matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?' | ':')
                    && body[i + c.len_utf8()..].starts_with(char::is_whitespace))
        })
        .map(|(i, c)| i + c.len_utf8())
        .next_back();
    let (head_of_line, question) = match cut {
        Some(i) => (&last_line[..i], last_line[i..].trim()),
        None => ("", last_line),
    };
    let question = squash(question);
    let mut before: Vec<&str> = vec![head_of_line.trim()];
    let lines: Vec<&str> = last.lines().collect();
    if lines.len() > 1 {
        // the lines above the question in its paragraph, nearest first
        for l in lines[..lines.len() - 1].iter().rev() {
            before.push(l.trim());
        }
        before.push(last[..last.len() - last_line.len()].trim());
    }
    // `last` is a slice of `agent_text`: the prose before it, nearest paragraph first
    let offset = last.as_ptr() as usize - agent_text.as_ptr() as usize;
    before.extend(prose_paragraphs(&agent_text[..offset]).into_iter().rev());
    let proposal = before
        .into_iter()
        .find(|p| letters(p) >= PROSE_MIN_LETTERS && !asks_back(p) && !is_fence(p))
        .map(|p| {
            match is_table(p)
                .then(|| outline(&agent_text[..offset]))
                .flatten()
            {
                // a table is one part of what the message proposes, its cells no gist of it: the
                // headings of the section the question closes say what the proposal is (with the
                // table's cells when no heading is under it)
                Some((head, under)) if under.is_empty() => format!("{head}: {}", plain(p)),
                Some((head, under)) => format!("{head}: {}", under.join("; ")),
                None => plain(p),
            }
        });
    Some((question, proposal))
}

/// True when every line of a paragraph is a table row.
fn is_table(p: &str) -> bool {
    p.lines().all(|l| l.trim_start().starts_with('|'))
}

/// The outline of the last section of a message (fenced code left out): its heading and the
/// headings under it (`推广策略方案`, [`方式一：社区推广`, `方式二：平台推广`]), as plain text; `None`
/// when the message has no heading. The section is the last one of the message's highest
/// heading level.
fn outline(text: &str) -> Option<(String, Vec<String>)> {
    let headings: Vec<(usize, &str)> = prose_paragraphs(text)
        .into_iter()
        .flat_map(str::lines)
        .filter_map(|l| {
            let t = l.trim_start();
            let level = t.chars().take_while(|&c| c == '#').count();
            let title = t[level..].strip_prefix(' ')?;
            ((1..=6).contains(&level) && letters(title) > 0).then_some((level, title))
        })
        .collect();
    let top = headings.iter().map(|&(level, _)| level).min()?;
    let at = headings.iter().rposition(|&(level, _)| level == top)?;
    let under = headings[at + 1..].iter().map(|&(_, t)| plain(t)).collect();
    Some((plain(headings[at].1), under))
}

/// True when a paragraph before the question asks too ([`is_question`]), unless it is a list
/// whose last item ends with a question mark (`- C) Something else?`): the options offered.
pub(super) fn asks_back(p: &str) -> bool {
    let lines: Vec<&str> = p.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let listed = lines.len() >= 2
        && lines.last().is_some_and(|l| {
            offered(l).is_some_and(|(o, bulleted)| bulleted || !o.keys.is_empty())
        });
    is_question(p) && !listed
}

pub(super) fn is_fence(p: &str) -> bool {
    let t = p.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// What an agent message that asks nothing reported last: its last prose paragraph that is not a
/// question ([`prose_paragraphs`], as [`plain`] text), else its last prose paragraph.
pub fn report_gist(agent_text: &str) -> Option<String> {
    let paras = prose_paragraphs(agent_text);
    paras
        .iter()
        .rev()
        .find(|p| !is_question(p))
        .or(paras.last())
        .map(|p| plain(p))
}

/// How an option the agent offered is referred to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Key {
    /// `2.`, `2)`, `(2)`, `Option 2`, `方案二`.
    Num(usize),
    /// `B.`, `B)`, `Option B`, `方案B`.
    Letter(char),
}

/// One option line of an agent message.
pub(super) struct Offered {
    keys: Vec<Key>,
    /// The option's label (`option b`, `方案二`, `postgres`), lower-cased, when it has one.
    label: Option<String>,
    /// Its place in a run of bullet lines (1-based) and the run's number, for a bulleted list.
    bullet: Option<(usize, usize)>,
    text: String,
}

/// The value of a CJK numeral from one to ten (`一` .. `十`).
pub(super) fn cjk_numeral(c: char) -> Option<usize> {
    "一二三四五六七八九十"
        .chars()
        .position(|n| n == c)
        .map(|i| i + 1)
}

/// The option an agent message's line offers, if it is one: a numbered or lettered item
/// (`2. x`, `(2) x`, `B) x`), a bullet (`- x`), a heading or a bold lead (`### Option A: x`,
/// `**方案二：** x`); with its keys and label.
pub(super) fn offered(line: &str) -> Option<(Offered, bool)> {
    let t = line.trim();
    let heading = t.starts_with('#');
    let t = t.trim_start_matches(['#', '>']).trim_start();
    let (bulleted, t) = match t.strip_prefix(['-', '*', '+', '•']) {
        Some(rest) if rest.starts_with(' ') => (true, rest.trim_start()),
        _ => (false, t),
    };
    let bold = t.starts_with("**") || t.starts_with("__");
    let t = t.trim_start_matches(['*', '_']).trim_start();
    let text = squash(&t.replace("**", "").replace("__", ""));
    let mut keys = Vec::new();
    // a number or a single capital letter, then `.`, `)`, `:`, `、`: `2. x`, `(2) x`, `B) x`
    let inner = t.strip_prefix('(').unwrap_or(t);
    let lead: String = inner.chars().take_while(char::is_ascii_digit).collect();
    let after = if lead.is_empty() {
        let mut cs = inner.chars();
        match cs.next() {
            Some(c) if c.is_ascii_uppercase() => {
                let rest = cs.as_str();
                if rest.starts_with(['.', ')', ':', '：', '、']) {
                    keys.push(Key::Letter(c));
                    Some(rest)
                } else {
                    None
                }
            }
            _ => None,
        }
    } else {
        let rest = &inner[lead.len()..];
        if rest.starts_with(['.', ')', ':', '：', '、', '．']) {
            keys.push(Key::Num(lead.parse().ok()?));
            Some(rest)
        } else {
            None
        }
    };
    if let Some(rest) = after {
        let rest = rest
            .trim_start_matches(['.', ')', ':', '：', '、', '．', '*', '_'])
            .trim();
        if letters(rest) < PROSE_MIN_LETTERS && !rest.chars().any(|c| c.is_alphanumeric()) {
            return None;
        }
        return Some((
            Offered {
                keys,
                label: None,
                bullet: None,
                text: squash(&rest.replace("**", "").replace("__", "")),
            },
            false,
        ));
    }
    if !(bulleted || bold || heading) {
        return None;
    }
    // a label before a separator: `Option A: x`, `方案二：x`, `Postgres - x`, `**Redis** x`
    let plain_t = t.replace("__", "**");
    let sep = [":", "：", " - ", " — ", " – ", "**", "（", " ("]
        .iter()
        .filter_map(|s| plain_t.find(s))
        .min();
    // without a separator, a short item is its own label (`### Option A`, `- Postgres`)
    let label = sep
        .map(|i| plain_t[..i].trim())
        .or(Some(text.as_str()))
        .filter(|l| !l.is_empty() && l.chars().count() <= 24 && l.split_whitespace().count() <= 4);
    if let Some(l) = label {
        let last = l.split_whitespace().last().unwrap_or(l);
        let lc = last.chars().last();
        let digits = last.len() - last.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && digits <= 2 {
            // `Option 2`, `方案1`: a number at the label's end (not inside a word of Latin letters)
            let head = &last[..last.len() - digits];
            if head.is_empty() || head.chars().last().is_some_and(unspaced) {
                keys.push(Key::Num(last[last.len() - digits..].parse().ok()?));
            }
        } else if let Some(n) = lc.and_then(cjk_numeral) {
            // `方案二`: a numeral after the word it counts
            if l.chars().count() >= 2 {
                keys.push(Key::Num(n));
            }
        } else if let Some(c) = lc.filter(char::is_ascii_uppercase) {
            // `Option A`, `方案A`: a capital letter standing alone at the label's end
            let before = l[..l.len() - 1].chars().last();
            if before.is_none_or(|b| !b.is_ascii_alphanumeric()) {
                keys.push(Key::Letter(c));
            }
        }
    }
    if letters(&text) < PROSE_MIN_LETTERS {
        return None;
    }
    Some((
        Offered {
            keys,
            label: label.map(|l| l.to_lowercase()),
            bullet: None,
            text,
        },
        bulleted,
    ))
}

/// The single capital letters standing alone in a reply (`B`, `option B`, `方案B`), or its only
/// letter when the reply is just that (`b`).
pub(super) fn reply_letters(reply: &str) -> Vec<char> {
    let t = reply.trim_matches(|c: char| !c.is_alphanumeric());
    if t.len() == 1 && t.chars().all(|c| c.is_ascii_alphabetic()) {
        return vec![t.chars().next().unwrap_or('A').to_ascii_uppercase()];
    }
    let cs: Vec<char> = reply.chars().collect();
    (0..cs.len())
        .filter(|&i| {
            cs[i].is_ascii_uppercase()
                && (i == 0 || !cs[i - 1].is_ascii_alphanumeric())
                && cs.get(i + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
        })
        .map(|i| cs[i])
        .collect()
}

/// The option of the agent's message a short reply picks, by structure: options are the
/// message's numbered, lettered or bulleted items and its headings or bold leads with a label
/// (`1.`, `(2)`, `B)`, `- Postgres: ...`, `### Option A`, `**方案二：**`). The reply picks one by
/// its label (`方案1`, `Option B`), its number (`3`, `3.`, `lets do 2`, `2番`), several numbers
/// (`1 and 3`, `1，2，3`, `1-3`: their items joined by `; `, [`several_picked`]) or its letter (`B`,
/// `option B`, `方案B`). Only when the message `asked` something: a
/// bulleted item by its place (`2`), or by a label of its own that is most of the reply
/// (`Postgres`, `sqlite is enough`). When several items carry that number or letter, the last
/// (options are usually listed last). `None` when nothing is picked or the pick is ambiguous.
pub fn chosen_option(agent_text: &str, reply: &str, asked: bool) -> Option<String> {
    let mut items: Vec<Offered> = Vec::new();
    // runs of bullet lines: (run number, place in it)
    let (mut run, mut place, mut in_run) = (0usize, 0usize, false);
    let lines: Vec<&str> = lines_outside_fences(agent_text)
        .filter(|l| !l.trim().is_empty())
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let nested = line.starts_with([' ', '\t']);
        match offered(line) {
            Some((mut o, bulleted)) => {
                // a heading or lead that is only a label (`### Option A`) is told by the line below
                if o.label.as_deref() == Some(o.text.to_lowercase().as_str()) && !bulleted {
                    if let Some(next) = lines.get(i + 1).filter(|n| offered(n).is_none()) {
                        o.text = format!("{}: {}", o.text, plain(next));
                    }
                }
                if bulleted && !nested {
                    if !in_run {
                        run += 1;
                        place = 0;
                        in_run = true;
                    }
                    place += 1;
                    o.bullet = Some((run, place));
                } else if !nested {
                    in_run = false;
                }
                items.push(o);
            }
            None if !nested => in_run = false,
            None => {}
        }
    }
    if items.is_empty() {
        return None;
    }
    // by label: exactly one label (of two characters or more) in the reply (`方案1`, `option b`;
    // a label without a number or letter, `postgres`, only `by_label`)
    let folded = reply.to_lowercase();
    let carried = |l: &str| {
        items
            .iter()
            .filter(|o| o.label.as_deref() == Some(l))
            .count()
    };
    let mut labels: Vec<&str> = items
        .iter()
        .filter(|o| {
            !o.keys.is_empty()
                || (asked
                    // a free label: one item's own (not a field every item repeats, `Note:`),
                    // of three characters or more
                    && o.label
                        .as_deref()
                        .is_some_and(|l| l.chars().count() >= 3 && carried(l) == 1))
        })
        .filter_map(|o| o.label.as_deref())
        .filter(|l| l.chars().count() >= 2 && label_in(&folded, l))
        .collect();
    labels.sort_unstable();
    labels.dedup();
    // a label inside a longer one that matched (`redis` in `redis cluster`) is that one
    let longest: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| !labels.iter().any(|m| m != l && m.contains(l)))
        .collect();
    match longest.as_slice() {
        [label] => {
            let o = items
                .iter()
                .rev()
                .find(|o| o.label.as_deref() == Some(*label))?;
            // a free label picks when it is most of the reply (`sqlite is enough`), not when the
            // reply only mentions it (`open skills.md first so I can review`)
            if !o.keys.is_empty() || letters(reply) <= letters(label) + 10 {
                return Some(o.text.clone());
            }
            return None;
        }
        [] => {}
        _ => return None,
    }
    let numbers: Vec<&str> = reply
        .split(|c: char| !c.is_ascii_digit())
        .filter(|d| !d.is_empty())
        .collect();
    match numbers.as_slice() {
        [n] => {
            let n: usize = n.parse().ok()?;
            if let Some(o) = items.iter().rev().find(|o| o.keys.contains(&Key::Num(n))) {
                return Some(o.text.clone());
            }
            // a bulleted list picked by place (after a question): its last run with that many items
            if !asked {
                return None;
            }
            let last_run = items
                .iter()
                .filter_map(|o| o.bullet)
                .filter(|(_, p)| *p == n && n >= 1)
                .map(|(r, _)| r)
                .next_back()?;
            let run: Vec<&Offered> = items
                .iter()
                .filter(|o| o.bullet.is_some_and(|(r, _)| r == last_run))
                .collect();
            // a list whose labels carry numbers (`Tier 0` .. `Tier 3`) is picked by them: a
            // number none of them carries (`there is tier 4`) is no place in it
            if run.len() < 2
                || run
                    .iter()
                    .any(|o| o.keys.iter().any(|k| matches!(k, Key::Num(_))))
            {
                return None;
            }
            return items
                .iter()
                .find(|o| o.bullet == Some((last_run, n)))
                .map(|o| o.text.clone());
        }
        [] => {}
        // `1, 2 and 3`, `1和3都做`, `1-3`: each of several numbered options; `2 or 3` picks none
        ns => return several_picked(&items, reply, ns),
    }
    let letters_offered: Vec<char> = reply_letters(reply)
        .into_iter()
        .filter(|c| items.iter().any(|o| o.keys.contains(&Key::Letter(*c))))
        .collect();
    match letters_offered.as_slice() {
        [c] => items
            .iter()
            .rev()
            .find(|o| o.keys.contains(&Key::Letter(*c)))
            .map(|o| o.text.clone()),
        _ => None,
    }
}

/// Words that join the numbers of one list (`1, 2 and 3`, `1和3`, `1到3`).
pub(super) const LIST_JOINS: &[&str] = &[
    "and", "und", "et", "y", "e", "и", "і", "&", "和", "及", "与", "與", "跟", "到", "至", "と",
];

/// True when the numbers of `reply` are one list of two or more: only separators (`,` `，` `、`
/// `;` `-` `~` `+` `/`, spaces) and joining words ([`LIST_JOINS`]) between them
/// (`立即执行操作1，2，3`, `do 1, 2 and 3 now`); `add 2 tests to 3 modules` names two counts.
pub fn number_list(reply: &str) -> bool {
    let mut runs = 0usize;
    let mut numbers = 0usize;
    let mut gap = String::new();
    let mut in_number = false;
    for c in reply.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                numbers += 1;
                if numbers == 1 || !joins_list(&gap) {
                    runs += 1;
                }
                gap.clear();
            }
            in_number = true;
        } else {
            in_number = false;
            if numbers > 0 {
                gap.push(c);
            }
        }
    }
    numbers >= 2 && runs == 1
}

/// True when `gap`, the text between two numbers, only joins them into a list.
pub(super) fn joins_list(gap: &str) -> bool {
    gap.split(|c: char| c.is_whitespace() || ",，、;；-~–+/.．".contains(c))
        .filter(|w| !w.is_empty())
        .all(|w| LIST_JOINS.contains(&w.to_lowercase().as_str()))
}

/// Most options one reply picks by number (`1-3`, `1, 2, 4 and 5`).
pub const MAX_PICKS: usize = 6;

/// Words that make a reply naming several numbers a choice still open (`2 or 3`, `2还是3`).
pub(super) const EITHER: &[&str] = &["or", "oder", "ou", "o", "или", "або", "either", "vs"];
pub(super) const EITHER_PIECES: &[&str] = &["或", "还是", "還是", "か"];

/// The numbered options a reply picks by several numbers (`1, 2 and 3`, `do 1 and 3`, `1和3`,
/// `1-3`), their texts joined by `; `: only when every number (or each number of a range) is an
/// offered option's, at most [`MAX_PICKS`], and the reply does not weigh them against each
/// other (`2 or 3`, `2还是3`). `None` otherwise.
pub(super) fn several_picked(items: &[Offered], reply: &str, numbers: &[&str]) -> Option<String> {
    let lower = reply.to_lowercase();
    if lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| EITHER.contains(&w))
        || EITHER_PIECES.iter().any(|p| lower.contains(p))
    {
        return None;
    }
    let ns: Vec<usize> = numbers
        .iter()
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    // `1-3`, `1~3`, `1到3`: two numbers with a range sign between them
    let between = |a: &str, b: &str| {
        let (i, j) = (reply.find(a)?, reply.rfind(b)?);
        (i + a.len() <= j).then(|| reply[i + a.len()..j].trim())
    };
    let range = match (numbers, ns.as_slice()) {
        ([a, b], [lo, hi]) if lo < hi => between(a, b)
            .is_some_and(|sep| matches!(sep, "-" | "~" | "–" | "到" | "至" | "〜" | "..")),
        _ => false,
    };
    let ns: Vec<usize> = if range { (ns[0]..=ns[1]).collect() } else { ns };
    if ns.len() > MAX_PICKS {
        return None;
    }
    let mut picked: Vec<&str> = Vec::new();
    for n in ns {
        let o = items.iter().rev().find(|o| o.keys.contains(&Key::Num(n)))?;
        if !picked.contains(&o.text.as_str()) {
            picked.push(&o.text);
        }
    }
    (picked.len() >= 2).then(|| picked.join("; "))
}

/// True when `label` stands in `text` as a word (not inside a longer word of letters or digits;
/// a CJK label anywhere).
pub(super) fn label_in(text: &str, label: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() && !unspaced(c));
    occurs(text, label, |before, after| {
        !word(before.chars().next_back()) && !word(after.chars().next())
    })
}

/// Whether `needle` occurs in `text` at a place `bounded` accepts, given the text before and
/// after that occurrence (every occurrence is tried, overlapping ones too). The one search of
/// the "is it there as a whole word" checks, each with its own idea of a word's edge.
pub fn occurs(text: &str, needle: &str, bounded: impl Fn(&str, &str) -> bool) -> bool {
    let Some(first) = needle.chars().next() else {
        return false;
    };
    let mut from = 0;
    while let Some(i) = text[from..].find(needle) {
        let (s, e) = (from + i, from + i + needle.len());
        if bounded(&text[..s], &text[e..]) {
            return true;
        }
        from = s + first.len_utf8();
    }
    false
}
