//! Constraints and preferences: the rules the user set, in their own short sentences (`no running
//! for four weeks: old foot injury`, `budget ~$10/month`, `下午2点之后不喝咖啡`, `immer auf Deutsch
//! antworten`).
//!
//! A sentence of the user's own (not a question, not code or pasted output) is a constraint when it
//! limits: it negates or forbids, says always / never / only / at most, sets a standing rule
//! (`from now on`, `以后先…`), or states an amount with a currency or per-period unit. Negation,
//! limits and standing rules are read from a short list of such words in the languages OpenClaw's
//! channels see most (they are the grammar of a rule, not its topic); amounts from structure (a
//! currency sign or a number per unit).

use super::*;

/// Most constraints kept (the newest).
pub const MAX_CONSTRAINTS: usize = 8;
/// Characters of one constraint.
pub const CONSTRAINT_CHARS: usize = 140;
/// Longest sentence read as a constraint (a longer one is an explanation, not a rule).
const SENTENCE_MAX_CHARS: usize = 220;
/// A user message longer than this is mostly pasted text: no constraint is read from it.
const PASTED_CHARS: usize = 1200;
/// Fewest letters of a constraint (a character of a script written without spaces counts 3).
const MIN_LETTERS: usize = 9;

/// Plain negations: a limit only among a sentence's first [`LEAD_WORDS`] words (`No running for
/// four weeks`, `Do not push`, `Bitte nicht ...`); further in they describe (`the state is not
/// good`).
const NEGATIONS: &[&str] = &[
    "no", "not", "nicht", "kein", "keine", "ne", "pas", "non", "не", "нет", "não", "ні",
];
/// Words that open a sentence giving a reason (`because`, `weil`, `porque`), lowercase.
#[rustfmt::skip]
const REASONS: &[&str] = &["because", "weil", "porque", "perché", "perche", "потому", "бо"];
/// Pieces that open a sentence giving a reason in a script written without spaces, or in two
/// words (`parce que`).
const REASON_PIECES: &[&str] = &["parce que", "parce qu'", "因为", "因為", "なぜなら"];

/// Words at the start of a sentence where a plain negation still makes it a rule.
const LEAD_WORDS: usize = 2;

/// Words after a leading negation that make the sentence a judgement of what happened, not a
/// rule (`not what I wanted`, `not sure`, `not working yet`, `nicht so gut`).
const JUDGED: &[&str] = &[
    "what", "how", "why", "sure", "really", "quite", "exactly", "yet", "bad", "good", "right",
    "correct", "working", "was", "so", "ganz", "wirklich", "mal", "vraiment", "encore",
];

/// Words after a negation that make an idiom, not a limit: `no wonder`, `no matter`, `no doubt`,
/// `never mind`; `not only` / `nicht nur` / `non seulement` / `no solo` add (`not only X, also
/// Y`), they do not restrict.
const IDIOM_AFTER_NEGATION: &[&str] = &[
    "wonder",
    "matter",
    "doubt",
    "mind",
    "only",
    "just",
    "nur",
    "seulement",
    "solo",
    "sólo",
    "só",
    "solamente",
    "только",
];

/// Verbs of knowing and seeing after `I don't` / `I never`: the speaker's state of mind
/// (`i don't know if ...`, `i don't see its doc says it`), not a rule.
const STATE_OF_MIND: &[&str] = &[
    "know",
    "see",
    "think",
    "understand",
    "remember",
    "recall",
    "get",
    "care",
    "mind",
    "believe",
    "knew",
    "thought",
    "saw",
    "expected",
    "realized",
    "realised",
    "noticed",
];

/// Past participles without the regular `-ed` / `-en` ending, after `must have` (`you must have
/// done something`): a guess at what happened, not a rule.
#[rustfmt::skip]
const IRREGULAR_PARTICIPLES: &[&str] = &[
    "been", "done", "had", "made", "gone", "seen", "got", "gotten", "left", "lost", "sent", "run",
    "read", "said", "told", "put", "set", "hit", "cut", "let", "kept", "felt", "meant", "built",
    "found", "thought", "bought", "brought", "caught", "taught", "heard", "paid", "slept", "spent",
    "stood", "understood", "won", "come", "become", "begun", "known", "shown", "grown", "thrown",
    "drawn", "flown", "worn", "torn",
];

/// True for `must have` + a past participle at `i` (`must` at `i`): English's guess at the past
/// (`you must have done something to hit the rate limit`, `it must have been the cache`), which
/// says what the speaker believes happened; `you must have a license` still sets a rule.
fn guesses_the_past(words: &[&str], i: usize) -> bool {
    words[i] == "must"
        && words.get(i + 1) == Some(&"have")
        && words.get(i + 2).is_some_and(|w| {
            IRREGULAR_PARTICIPLES.contains(w)
                || (w.len() > 4 && (w.ends_with("ed") || w.ends_with("en")))
        })
}

/// True when the limit word at `i` of `words` makes no limit: it opens an idiom (`no wonder`,
/// `not only`), is the `only` of a `not only`, tells the speaker's state of mind (`i don't know`,
/// `we never thought`), exclaims (`oh, no`) or guesses the past (`you must have done something`).
fn idiom_at(words: &[&str], i: usize) -> bool {
    let next = words.get(i + 1).copied().unwrap_or_default();
    let prev = i.checked_sub(1).map(|p| words[p]).unwrap_or_default();
    if guesses_the_past(words, i) {
        return true;
    }
    (NEGATIONS.contains(&words[i]) || words[i] == "never") && IDIOM_AFTER_NEGATION.contains(&next)
        || (IDIOM_AFTER_NEGATION.contains(&words[i]) && NEGATIONS.contains(&prev))
        || (matches!(prev, "i" | "we")
            && matches!(words[i], "don't" | "dont" | "never")
            && STATE_OF_MIND.contains(&next))
        // an exclamation (`oh, no, ...`)
        || (NEGATIONS.contains(&words[i]) && matches!(prev, "oh" | "ah" | "uh"))
}

/// Words that make a sentence a limit wherever they stand, lowercase, matched as whole words
/// (spaced scripts).
#[rustfmt::skip]
const LIMIT_WORDS: &[&str] = &[
    // English
    "don't", "dont", "never", "always", "only", "must", "mustn't", "shouldn't", "avoid",
    "without", "max", "maximum", "minimum", "budget", "prefer",
    // German
    "nie", "niemals", "immer", "nur", "muss", "ohne", "höchstens", "mindestens",
    // French
    "jamais", "toujours", "seulement", "sans", "doit",
    // Spanish / Portuguese / Italian
    "nunca", "siempre", "solo", "sólo", "sin", "debe", "sempre", "só", "sem", "mai", "senza",
    // Russian / Ukrainian
    "никогда", "всегда", "только", "без", "нельзя", "завжди", "лише",
];

/// Pieces that make a sentence of a script written without spaces a limit.
#[rustfmt::skip]
const LIMIT_PIECES: &[&str] = &[
    // Chinese
    "不要", "不用", "不想", "不喝", "不吃", "禁止", "只", "必须", "总是", "永远", "一定要",
    "最多", "最少", "至少", "以内", "预算", "不超过", "避免",
    // Japanese
    "ないで", "だけ", "必ず", "いつも", "禁止", "以内", "予算",
    // Korean
    "하지 마", "말고", "항상", "절대", "이내", "예산",
];

/// True when `piece` of [`LIMIT_PIECES`] limits in `lower`: somewhere not as the `只` of
/// `不只` (not only), nor as the `だけ` of `だけど` / `だけれど` (but: `…やってもらいながらだけど、
/// うまくいかない` reports, it limits nothing).
fn limits_by_piece(lower: &str, piece: &str) -> bool {
    context_state::substance::occurs(lower, piece, |before, after| {
        !(piece == "只" && before.ends_with('不'))
            && !(piece == "だけ" && (after.starts_with('ど') || after.starts_with("れど")))
    })
}

/// Characters after which `别` is the imperative `don't` (`别用`, `你别动`, `千万别删`), not a
/// syllable of a word (`识别`, `区别`, `特别`, `分别`).
const BIE_AFTER: &[char] = &[
    '你', '您', '就', '也', '可', '请', '先', '还', '都', '万', '们',
];

/// Phrases that make a sentence of a spaced script a standing rule wherever they stand (`from now
/// on, publish to the platform first`), lowercase, matched at word edges.
#[rustfmt::skip]
const STANDING_PHRASES: &[&str] = &[
    "from now on", "going forward", "from here on", "henceforth", "ab jetzt", "ab sofort",
    "künftig", "désormais", "à l'avenir",
    "de ahora en adelante", "a partir de ahora", "d'ora in poi", "daqui em diante",
    "впредь", "отныне", "с этого момента", "надалі",
];

/// Pieces of a script written without spaces that set a standing rule at the start of a clause
/// (`以后先发布到虾评`, `今後は日本語で`), not inside one (`下午2点以后`: after two, `升级以后`: after
/// the upgrade).
#[rustfmt::skip]
const STANDING_LEADS: &[&str] = &["以后", "今后", "往后", "从现在开始", "今後", "これから", "앞으로"];

/// Whether a sentence sets a standing rule ([`STANDING_PHRASES`], [`STANDING_LEADS`]). (`every
/// time` / `每次` are not among them: `it crashes every time` reports, it sets nothing.)
fn sets_standing_rule(lower: &str) -> bool {
    let edge = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
    STANDING_PHRASES.iter().any(|p| {
        context_state::substance::occurs(lower, p, |before, after| {
            edge(before.chars().next_back()) && edge(after.chars().next())
        })
    }) || lower.split(|c: char| !c.is_alphanumeric()).any(|clause| {
        // a clause may open with who it addresses (`你以后`, `我们以后`)
        let clause = clause.trim_start_matches(['你', '您', '我', '们']);
        // `これからよろしくお願いします` greets (I look forward to working with you), it sets nothing
        STANDING_LEADS.iter().any(|l| {
            clause
                .strip_prefix(l)
                .is_some_and(|rest| !rest.trim_start_matches('も').starts_with("よろしく"))
        })
    })
}

/// Chinese `别` as `don't`: at the start of a clause or after one of [`BIE_AFTER`], and not
/// opening a word of its own (`别人`, `别的`, `别处`).
fn forbids_bie(s: &str) -> bool {
    let cs: Vec<char> = s.chars().collect();
    (0..cs.len()).any(|i| {
        cs[i] == '别'
            && (i == 0 || !cs[i - 1].is_alphanumeric() || BIE_AFTER.contains(&cs[i - 1]))
            && !cs
                .get(i + 1)
                .is_some_and(|n| matches!(n, '人' | '的' | '处' | '名' | '墅'))
    })
}

/// Currency signs: a sentence stating an amount in one is a budget.
const CURRENCY: &[char] = &['$', '€', '£', '¥', '₹', '₽', '₩', '元', '円'];

/// The sentences of a text: split at line ends and sentence ends of any script, outside code
/// fences.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in context_state::substance::lines_outside_fences(text) {
        let mut start = 0;
        for (i, c) in line.char_indices() {
            let end = i + c.len_utf8();
            let stop = matches!(c, '。' | '！' | '；' | '？' | '!' | ';')
                || (matches!(c, '.' | '?') && line[end..].starts_with(' '));
            if stop {
                out.push(line[start..end].trim());
                start = end;
            }
        }
        out.push(line[start..].trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

fn letters(s: &str) -> usize {
    s.chars()
        .filter(|c| c.is_alphabetic())
        .map(|c| {
            if context_state::substance::unspaced(c) {
                3
            } else {
                1
            }
        })
        .sum()
}

/// Prose, not code or output: most of its visible characters are letters, and it names no path
/// or URL (a line of a log or a listing).
fn is_prose(s: &str) -> bool {
    if s.split_whitespace().any(|w| {
        // a path opens a word, also in brackets or quotes (`(/home/x/index.ts)`)
        let w = w.trim_start_matches(['(', '[', '"', '\'', '<', '（']);
        w.starts_with('/') || w.starts_with("./") || w.starts_with("~/") || w.contains("://")
    }) {
        return false;
    }
    let visible = s.chars().filter(|c| !c.is_whitespace()).count();
    let wordy = s
        .chars()
        .filter(|c| c.is_alphabetic() || matches!(c, '\'' | ',' | '.' | '-' | '~'))
        .count();
    visible > 0 && wordy * 10 >= visible * 7 || s.chars().any(context_state::substance::unspaced)
}

/// An amount: a currency sign next to a number, or a number per a unit (`10/month`, `3x/week`).
fn states_amount(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        let digit_near = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(char::is_ascii_digit)
        };
        (CURRENCY.contains(c)
            && (digit_near(i.checked_sub(1))
                || digit_near(Some(i + 1))
                || (chars.get(i + 1) == Some(&'~') && digit_near(Some(i + 2)))))
            || (*c == '/'
                && digit_near(i.checked_sub(1))
                && chars.get(i + 1).is_some_and(|n| n.is_alphabetic()))
    })
}

/// Whether a sentence of the user's sets a limit (see the module docs).
pub fn is_constraint(sentence: &str) -> bool {
    sets_limit(sentence, false)
}

/// [`is_constraint`] of a sentence that may answer the agent's question: in an answer (a short
/// reply right after the agent asked, [`Said::Ack`]) a leading plain negation answers it (`no its
/// good` to `want me to check, or are you good?`); only a limit word or an amount makes a rule.
fn sets_limit(sentence: &str, answer: bool) -> bool {
    let s = sentence.trim();
    if s.chars().count() > SENTENCE_MAX_CHARS
        || letters(s) < MIN_LETTERS
        // code or an id quoted from output (`tool_use`, toolu_019tYDrb...): pasted, not said
        || s.contains('`')
        || s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| {
            w.len() >= 12 && w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic)
        })
        || context_state::substance::is_question(s)
        // a heading (`### No Built-in To-Dos`) titles a pasted document; nobody says it
        || s.starts_with('#')
        || !is_prose(s)
    {
        return false;
    }
    let lower = s.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    // a sentence that is only a `because` clause gives the reason of what was said before it
    // (`Because we don't control the application.`): the rule, if any, is in that sentence; one
    // with a main clause after a comma may set one (`Because of the injury, no running`)
    let reason_only = !lower.contains([',', '，'])
        && (words.first().is_some_and(|w| REASONS.contains(w))
            && words.get(1).is_none_or(|w| !matches!(*w, "of" | "von"))
            || REASON_PIECES.iter().any(|p| lower.starts_with(p)));
    if reason_only {
        return false;
    }
    let mut has_limit = false;
    // `No, we want ...`: a negation that answers (a comma after it) steers; it sets no rule
    let answers = lower
        .split_whitespace()
        .next()
        .is_some_and(|w| w.ends_with(',') && NEGATIONS.contains(&w.trim_end_matches(',')));
    for (i, &w) in words.iter().enumerate() {
        let leads = i < LEAD_WORDS
            && !answer
            && NEGATIONS.contains(&w)
            && !answers
            && !words.get(i + 1).is_some_and(|next| JUDGED.contains(next));
        if (LIMIT_WORDS.contains(&w) || leads) && !idiom_at(&words, i) {
            has_limit = true;
            break;
        }
    }
    has_limit
        || LIMIT_PIECES.iter().any(|p| limits_by_piece(&lower, p))
        || sets_standing_rule(&lower)
        || forbids_bie(s)
        || states_amount(s)
}

/// The constraints the user stated, oldest first, the newest [`MAX_CONSTRAINTS`], each once.
pub(super) fn constraints(lines: &[Line]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        let Line::User { text, said, .. } = line else {
            continue;
        };
        // a long message is mostly pasted text (a log, an error, a document): its rules are
        // not the user's
        if *said == Said::Noise || text.chars().count() > PASTED_CHARS {
            continue;
        }
        // a pasted terminal session (a shell prompt's line): its lines are the terminal's (a
        // CLI's banner `I don't sleep...`, a `>> --non-interactive` continuation)
        if text
            .lines()
            .any(context_state::substance::is_shell_prompt_line)
        {
            continue;
        }
        for s in sentences(text) {
            if sets_limit(s, *said == Said::Ack) {
                let g = gist(&squash(s), CONSTRAINT_CHARS);
                let key = context_state::substance::fold_key(&g);
                out.retain(|o| context_state::substance::fold_key(o) != key);
                out.push(g);
            }
        }
    }
    let excess = out.len().saturating_sub(MAX_CONSTRAINTS);
    out.drain(..excess);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thread::goal::tests::{agent, user};

    #[test]
    fn rules_in_several_languages_are_kept_in_the_users_words() {
        let e = extract(&[
            user(
                "Plan my training for the next month. No running for four weeks: old foot injury.",
            ),
            agent("Here is a plan without running."),
            user("should we add swimming? don't plan anything before 7am"),
            agent("Noted."),
            user("下午2点之后不喝咖啡。帮我安排一下饮食"),
            agent("好的。"),
            user("Bitte antworte immer auf Deutsch, und halte das Budget bei ~$10/month"),
            agent("Gern."),
        ]);
        assert_eq!(
            e.constraints,
            [
                "No running for four weeks: old foot injury.",
                "don't plan anything before 7am",
                "下午2点之后不喝咖啡。",
                "Bitte antworte immer auf Deutsch, und halte das Budget bei ~$10/month",
            ]
        );
    }

    #[test]
    fn a_standing_rule_is_a_constraint_in_any_language() {
        for s in [
            "以后先发布到虾评，然后获取虾评的版本号，保证一致性再更新GitHub",
            "好的，你以后都用中文回复我",
            "From now on, run the linter before every commit",
            "going forward, deploy to staging first",
            "Ab jetzt bitte die Tests zuerst laufen lassen",
            "désormais, publie d'abord sur la plateforme",
            "今後は日本語で返事してください",
            "앞으로 배포 전에 테스트를 실행해 주세요",
        ] {
            assert!(is_constraint(s), "{s}");
        }
        // `以后` inside a clause is `after`; `every time` reports what happens
        for s in [
            "下午2点以后帮我整理一下日报",
            "升级以后重新启动一下服务",
            "it crashes every time I open the settings page",
            "每次都报错，帮我看看日志",
        ] {
            assert!(!is_constraint(s), "{s}");
        }
        // in a conversation: the rule is kept, the request before it is not
        let e = extract(&[
            user("现在发布到虾评平台。 以后先发布到虾评，然后获取虾评的版本号，保证一致性再更新GitHub"),
            agent("✅ 发布完成！版本一致性已保证"),
        ]);
        assert_eq!(
            e.constraints,
            ["以后先发布到虾评，然后获取虾评的版本号，保证一致性再更新GitHub"]
        );
    }

    #[test]
    fn questions_code_output_and_plain_requests_are_not_constraints() {
        for s in [
            "Why does it not compile?",
            "为什么不能登录？",
            "let x = if !ok { 0 } else { 1 };",
            "error: not found at /usr/lib/x.so:12",
            "Plan my training for the next month",
            "no",
            "Fix the login page please",
            "the global state is not good :/",
            "i think that's better, the test doesn't pass",
            "ログインできない",
            "no, we want to put it in the pending container",
            "ids were found without `tool_result` blocks immediately after",
            "must match toolu_019tYDrbzifrra2KYzmYqWvk exactly",
            "not what i wanted.",
            "Not sure about the colours",
            "nicht so gut, mach es nochmal",
            "### No Built-in To-Dos",
            "或者然后识别图片内的文字",
            "这两个方案的区别是什么",
            "特别好，继续",
            // a greeting and a complaint of an unseen Telegram chat: `これから` + `よろしく` greets,
            // `だけど` is `but`
            "これからよろしくお願いします いろいろとあなたの機能を増やしていきますね♪",
            "何もわからないからAIにやってもらいながらだけど、うまくいかない(＞人＜;",
        ] {
            assert!(!is_constraint(s), "{s}");
        }
        for s in [
            "Never push to main directly",
            "Do not rewrite the changelog",
            "Only use the staging database",
            "he/him is correct, don't use they",
            "Keep it under 200€ per month",
            "回复只用中文",
            "テストは変更しないでください",
            "Not on weekends, please",
            "No emojis in the replies",
            "别用英文回复",
            "千万别删数据库",
            "これからは日本語だけで返信して",
            "今後は必ず確認してから実行して",
        ] {
            assert!(is_constraint(s), "{s}");
        }
    }

    #[test]
    fn a_negation_answering_the_agents_question_is_no_rule() {
        let e = extract(&[
            user("Hire the agents for the dumpster business, one per department"),
            agent("Done. Want me to check the cost breakdown, or are you good?"),
            user("no its good"),
            agent("Great."),
            user("ok next: write their SOUL.md files"),
            agent("Which tone should they use?"),
            user("no emojis, never use slang"),
        ]);
        // the answer's limit word still makes a rule; its leading `no` alone does not
        assert_eq!(e.constraints, ["no emojis, never use slang"]);
        // the same words said unasked set a rule
        let e = extract(&[
            user("Hire the agents for the dumpster business, one per department"),
            agent("Done."),
            user("No emojis in the replies"),
        ]);
        assert_eq!(e.constraints, ["No emojis in the replies"]);
    }

    #[test]
    fn idioms_and_the_speakers_state_of_mind_are_no_rules() {
        for s in [
            "no wonder i often see you mention this tool.",
            "never mind, let's get back work first, too much things to do.",
            "Not only its language agnostic, It is also modal agnostic.",
            "I don't know if you aware that you were on and off for the last few days.",
            "i don't see its doc says it.",
            "We don't know the size of the manifold, but think the whole universe builds on it.",
            "Oh, no, i just feel so unreal.",
            "这个不只是界面的问题，后端也有",
            "So what did you do between one and three? You must have done something to cost the rate limit.",
            "I think You must have done something.",
            "it must have been the cache that served the old page",
            "Because we don't control the application.",
            "因为你不要的东西我们已经删掉了。",
            "Parce que nous ne contrôlons pas l'application.",
            "discovered non-bundled plugins may auto-load: lossless-claw (/home/u/.openclaw/extensions/lossless-claw/index.ts).",
        ] {
            assert!(!is_constraint(s), "{s}");
        }
        // the same words in a rule still make it one
        for s in [
            "don't worry about badge, too detailed now.",
            "only deploy from the release branch",
            "i don't want any emojis in the report",
            "No matter what, never push to main",
            "只用中文回复",
            "every request must have a signature",
            "the PR must have tests before you merge it",
            "Because of the foot injury, never run more than 5 km.",
            "Because the API is rate limited, only fetch once an hour.",
            "因为脚伤，四周内不要跑步。",
        ] {
            assert!(is_constraint(s), "{s}");
        }
    }

    #[test]
    fn a_pasted_terminal_session_sets_no_rule() {
        let e = extract(&[
            user("Set up the cron job for the market report"),
            agent("Run `openclaw cron --help` and paste what it says."),
            user("PS C:\\Users\\Jules\\bot> openclaw cron --help\n\n🦞 OpenClaw 2026.3.2 (85377a2) — I don't sleep, I just enter low-power mode.\n\nUsage: openclaw cron [options]"),
            agent("Now add it."),
            user("voila:\n>> --non-interactive\nerror: unknown option"),
            agent("Drop that flag."),
            user("Never post the report before 8am"),
        ]);
        assert_eq!(e.constraints, ["Never post the report before 8am"]);
    }

    #[test]
    fn the_newest_are_kept_each_once_and_fenced_code_is_skipped() {
        let mut msgs = vec![user("```\nnever = true\n```\nstart the server")];
        for i in 0..12 {
            msgs.push(agent("ok"));
            msgs.push(user(&format!("never touch module number {i} again")));
        }
        msgs.push(agent("ok"));
        msgs.push(user("Never touch module number 11 again."));
        let e = extract(&msgs);
        assert_eq!(e.constraints.len(), MAX_CONSTRAINTS);
        assert_eq!(
            e.constraints.last().map(String::as_str),
            Some("Never touch module number 11 again.")
        );
        assert!(e.constraints.iter().all(|c| !c.contains("never = true")));
    }
}
