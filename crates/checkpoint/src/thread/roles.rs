//! What an exact value is: the words the conversation says it with. A bare id says nothing
//! (`b1918bcf-fdcc-…`); the line the agent or the user wrote it on does (`| InStreet 晚6点 |
//! b1918bcf-… |`, `Skill ID: 61c9999f-…`, `` `4.6.0`（平台版本） ``). Read from the dialogue's own
//! lines, newest first: no keyword, any language.

use super::*;

/// Longest role shown (characters); a longer one is cut at a word.
pub const ROLE_CHARS: usize = 40;
/// Fewest letters of a role: `ID`, `v` or `=` say nothing.
const ROLE_MIN_LETTERS: usize = 2;
/// Most named values kept.
pub const MAX_NAMED_VALUES: usize = 40;

/// `role: value` for each of `values` that is an exact value ([`is_value`]) a line of the
/// dialogue names with words of its own, in the order of `values`, the newest line that does
/// first. One pass over the dialogue: each line's words are looked up among the values (a scan
/// of the whole dialogue per value took time in proportion to both).
pub(super) fn named_values(lines: &[Line], values: &[String]) -> Vec<String> {
    let mut wanted: HashMap<&str, Option<String>> = values
        .iter()
        .filter(|v| is_value(v))
        .map(|v| (v.as_str(), None))
        .collect();
    let mut open = wanted.len();
    let texts = lines.iter().rev().filter_map(|l| match l {
        Line::Agent { text, .. } | Line::User { text, .. } => Some(text.as_str()),
        Line::Other => None,
    });
    'lines: for line in texts.flat_map(str::lines) {
        for word in line
            .split(|c: char| !(c.is_ascii_alphanumeric() || "._:_-".contains(c)))
            .map(|w| w.trim_matches(['.', ':', '-']))
        {
            if let Some(role @ None) = wanted.get_mut(word) {
                if let Some(r) = role_in(line, word) {
                    *role = Some(r);
                    open -= 1;
                    if open == 0 {
                        break 'lines;
                    }
                }
            }
        }
    }
    values
        .iter()
        .filter_map(|v| {
            let role = wanted.get(v.as_str())?.as_deref()?;
            Some(format!("{role}: {v}"))
        })
        .take(MAX_NAMED_VALUES)
        .collect()
}

/// An exact value that says nothing of what it is: an id, a hash, an address with a port, a
/// version, a service's id (`cus_NffrFeUfNV2Hib`); not a URL.
fn is_value(v: &str) -> bool {
    (is_exact_value(v) || is_version(v) || is_opaque_id(v)) && !v.contains("://")
}

/// What a line says `value` is, when it says so as a label does: in a table row, the row's first
/// cell of words; `role: value` (or `=`, `：`); else `value (role)` right after it. Prose around a
/// value (`升级到 2026.4.8 了`, `the job b1918bcf failed`) names nothing.
fn role_in(line: &str, value: &str) -> Option<String> {
    let at = line.find(value)?;
    if line.trim_start().starts_with('|') {
        return line
            .split('|')
            .map(bare)
            .find(|c| !c.contains(value) && labels(c, value))
            .map(|c| cut(&c));
    }
    let head = line[..at].trim_end_matches(|c: char| c.is_whitespace() || "`*\"'“".contains(c));
    if head.ends_with([':', '：', '=']) {
        let before = bare(head);
        let before = last_clause(&before);
        if labels(before, value) {
            return Some(cut(before));
        }
    }
    let tail = line[at + value.len()..]
        .trim_start_matches(|c: char| c.is_whitespace() || "`*\"'”".contains(c));
    let inner = tail.strip_prefix('(').or_else(|| tail.strip_prefix('（'))?;
    let inner = first_clause(inner.split([')', '）']).next().unwrap_or(inner));
    let inner = bare(inner);
    labels(&inner, value).then(|| cut(&inner))
}

/// A cell or a line's part without markdown marks, list markers and the punctuation that joins
/// a role to its value (`:`, `=`, `-`, brackets, quotes).
fn bare(s: &str) -> String {
    // (and pictographs: `✅ 新任务ID` is `新任务ID`)
    let s: String = s
        .chars()
        .filter(|c| !matches!(c, '*' | '`' | '#' | '>' | '[' | ']'))
        .filter(|&c| {
            c.is_alphanumeric()
                || (c as u32) < 0x2190
                || ('\u{3000}'..='\u{30ff}').contains(&c)
                || ('\u{ff00}'..='\u{ffef}').contains(&c)
        })
        .collect();
    let s = s.trim();
    let s = s
        .strip_prefix("- ")
        .or_else(|| s.strip_prefix("• "))
        .unwrap_or(s);
    s.trim_matches(|c: char| c.is_whitespace() || ":：=-–—(（)）\"'“”,，;；|/".contains(c))
        .to_string()
}

/// The last clause of the words before a value: after the last sentence end, list separator or
/// colon (`总结：升级到` is `升级到`).
fn last_clause(s: &str) -> &str {
    let start = s
        .rfind([
            '.', '。', ';', '；', ',', '，', '(', '（', '|', ':', '：', '!', '！', '?', '？',
        ])
        .map_or(0, |i| i + s[i..].chars().next().map_or(1, char::len_utf8));
    s[start..].trim()
}

/// The first clause of the words after a value.
fn first_clause(s: &str) -> &str {
    let end = s
        .find(['.', '。', ';', '；', ')', '）', '|'])
        .unwrap_or(s.len());
    s[..end].trim()
}

/// Most words of a label (`Skill ID`, `InStreet 晚6点 job`); more is a sentence.
const LABEL_WORDS: usize = 6;
/// Most characters of a label in a script written without spaces.
const LABEL_UNSPACED_CHARS: usize = 16;

/// A label of `value`: letters enough, a few words (not a sentence), no other exact value, and
/// not the value itself (`Aime_Iris_User_2026` with its marks gone).
fn labels(s: &str, value: &str) -> bool {
    let fold = |t: &str| -> String {
        t.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let unspaced = s
        .chars()
        .filter(|c| !c.is_ascii() && c.is_alphabetic())
        .count();
    s.chars().filter(|c| c.is_alphabetic()).count() >= ROLE_MIN_LETTERS
        && s.split_whitespace().count() <= LABEL_WORDS
        && unspaced <= LABEL_UNSPACED_CHARS
        && !s.split_whitespace().any(is_value)
        && !fold(s).contains(&fold(value))
}

/// At most [`ROLE_CHARS`] characters, cut after a whole word when it has spaces.
fn cut(s: &str) -> String {
    if s.chars().count() <= ROLE_CHARS {
        return s.to_string();
    }
    let head: String = s.chars().take(ROLE_CHARS).collect();
    match head.rfind(' ') {
        Some(i) if i > ROLE_CHARS / 2 => head[..i].trim_end().to_string(),
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_state::dialogue::Said;

    fn agent(t: &str) -> Line {
        Line::Agent {
            text: t.into(),
            worked: false,
        }
    }

    #[test]
    fn a_value_is_named_by_the_words_it_is_written_with() {
        let lines = vec![
            Line::User {
                text: "发布到虾评，Skill ID：61c9999f-1794-4f55-a6b8-6e457376b51e".into(),
                said: Said::Request,
                after_question: false,
            },
            agent(
                "| 任务 | ID | 时间 |\n|---|---|---|\n| InStreet论坛运营-晚6点 | `b1918bcf-fdcc-4152-aca3-4a34bd7def86` | 18:00 |",
            ),
            agent("- **Platform version**: `4.6.0`\n- 已发布 `v4.9.0`（功能版本）\n- ✅ 新任务ID: `31f9c941-7608-476b-b6e5-a577f9346921`"),
            agent("Billing customer: cus_NffrFeUfNV2Hib\nDeployed commit 3f2a9c1 and v5.0.0 today; 🎉 总结：升级到 2026.4.8 了. **Aime_Iris_User_2026**: Aime_Iris_User_2026"),
        ];
        let values: Vec<String> = [
            "b1918bcf-fdcc-4152-aca3-4a34bd7def86",
            "61c9999f-1794-4f55-a6b8-6e457376b51e",
            "4.6.0",
            "v4.9.0",
            "31f9c941-7608-476b-b6e5-a577f9346921",
            "3f2a9c1",
            "2026.4.8",
            "Aime_Iris_User_2026",
            "cus_NffrFeUfNV2Hib",
            "https://xiaping.coze.site/skill/61c9999f",
            "parseBlock",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            named_values(&lines, &values),
            [
                "InStreet论坛运营-晚6点: b1918bcf-fdcc-4152-aca3-4a34bd7def86",
                "Skill ID: 61c9999f-1794-4f55-a6b8-6e457376b51e",
                "Platform version: 4.6.0",
                "功能版本: v4.9.0",
                "新任务ID: 31f9c941-7608-476b-b6e5-a577f9346921",
                "Billing customer: cus_NffrFeUfNV2Hib",
            ]
        );
    }
}
