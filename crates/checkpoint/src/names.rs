//! What an identifier is (issue 27 part 3): a name in code or an exact value, never a sentence,
//! a fragment of prose split at a slash (`months/years`, `下午2点之后不喝咖啡/浓茶/奶茶`), an emoji
//! line, or a fragment of JSON-escaped text read with `\n` as the letter n (`nJWT_SECRET`). The
//! identifier passes of [`crate::thread`] ask these questions; the rules live here, in any script:
//! text in a script written without spaces (CJK) is prose unless it is clearly a path. The host's
//! protocol tokens (`HEARTBEAT_OK`, `NO_REPLY`) are no names of the work either.

use context_state::substance::{is_path_like, unspaced};

/// Most words of a snippet kept as an identifier (`cargo test -p x --release`); more is prose.
pub const MAX_NAME_WORDS: usize = 6;
/// Most words of a snippet without a character of code (`npm run build`); more is a phrase.
pub const MAX_PLAIN_WORDS: usize = 3;

/// Directory names that make a two-part slash word a path (`src/lib`, `docs/api`), not prose.
const DIRECTORIES: &[&str] = &[
    "src",
    "lib",
    "app",
    "apps",
    "docs",
    "doc",
    "test",
    "tests",
    "spec",
    "bin",
    "pkg",
    "cmd",
    "internal",
    "components",
    "pages",
    "api",
    "scripts",
    "crates",
    "packages",
    "config",
    "public",
    "assets",
    "static",
    "dist",
    "build",
    "target",
    "vendor",
    "node_modules",
    "plugin",
    "plugins",
    "home",
    "usr",
    "etc",
    "var",
    "tmp",
    "opt",
    "memory",
    "workspace",
    "skills",
    "data",
];

/// Characters that say a snippet is code or a value, not words (`(`, `=`, `_`, `.`, `/`, ...).
fn code_char(c: char) -> bool {
    matches!(
        c,
        '(' | ')'
            | '='
            | '_'
            | '.'
            | '/'
            | '\\'
            | ':'
            | '$'
            | '@'
            | '{'
            | '}'
            | '<'
            | '>'
            | '['
            | ']'
            | '#'
            | '*'
            | '&'
            | '|'
            | '`'
            | '"'
            | '\''
    ) || c.is_ascii_digit()
}

/// A pictograph, dingbat or ornament (emoji, `✅`, `━`): no name holds one.
fn pictograph(c: char) -> bool {
    matches!(c as u32,
        0x2190..=0x21FF | 0x2300..=0x23FF | 0x2500..=0x27BF | 0x2900..=0x297F | 0x2B00..=0x2BFF
        | 0x3030 | 0x303D | 0xFE0F | 0x1F000..=0x1FAFF)
}

/// Punctuation of scripts written without spaces and full-width forms (`，`, `。`, `：`, `（`).
pub fn wide_punctuation(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303F | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// True when `s` is a path: a root (`/`, `./`, `../`, `~/`), or a last part with a file
/// extension of ASCII letters and digits (`docs/指南.md`).
fn clearly_path(s: &str) -> bool {
    if s.contains(char::is_whitespace) || s.chars().any(wide_punctuation) {
        return false;
    }
    // a bracket it never closes: a piece cut out of prose (`送信(結果フォーマット(task.result`)
    if s.matches(['(', '[']).count() != s.matches([')', ']']).count() {
        return false;
    }
    let rooted = ["/", "./", "../", "~/"].iter().any(|r| s.starts_with(r)) && s.len() > 2;
    let last = s.rsplit(['/', '\\']).next().unwrap_or(s);
    let extension = last.rsplit_once('.').is_some_and(|(name, ext)| {
        !name.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.starts_with(|c: char| c.is_ascii_alphabetic())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    // a root before prose is no path: its last part, in a script without spaces, names a file
    // only with an extension (`/knowledge_base/配下全ファイル` is "every file under it")
    let prose_last = last.chars().any(unspaced) && !extension;
    (rooted && !prose_last) || extension
}

/// True when a part of a path has text of a script without spaces glued to ASCII letters
/// (`更新SKILL.md和CHANGELOG.md`: prose around names, not a file name; `docs/指南.md` is one).
fn glued_text(s: &str) -> bool {
    s.split(['/', '\\']).any(|part| {
        let c: Vec<char> = part.chars().collect();
        c.windows(2).any(|w| {
            (unspaced(w[0]) && w[1].is_ascii_alphanumeric())
                || (w[0].is_ascii_alphanumeric() && unspaced(w[1]))
        })
    })
}

/// True for words joined by slashes (`months/years`, `before/after`, `时间/次数`): two or three
/// parts of letters only, not rooted, no part a directory name ([`DIRECTORIES`]).
pub fn slash_prose(s: &str) -> bool {
    if s.contains(char::is_whitespace) || s.starts_with(['/', '.', '~', '@']) || s.ends_with('/') {
        return false;
    }
    let parts: Vec<&str> = s.split('/').collect();
    (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(char::is_alphabetic))
        && !parts
            .iter()
            .any(|p| DIRECTORIES.contains(&p.to_ascii_lowercase().as_str()))
}

/// True for a lower-case escape letter glued to a name (`nJWT_SECRET` from `\nJWT_SECRET`):
/// `n`, `t` or `r` before an upper-case snake name.
fn escaped_fragment(s: &str) -> bool {
    let Some(rest) = s.strip_prefix(['n', 't', 'r']) else {
        return false;
    };
    rest.len() >= 3
        && rest.starts_with(|c: char| c.is_ascii_uppercase())
        && rest
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && rest.contains('_')
}

/// True when `s` can stand as an identifier: not prose (a sentence, a phrase, more than
/// [`MAX_NAME_WORDS`] words, words split at slashes, text in a script without spaces unless
/// clearly a path), not a pictograph line, not a fragment of escaped text.
pub fn is_name(s: &str) -> bool {
    let t = s.trim();
    if t.is_empty() || t.chars().any(pictograph) {
        return false;
    }
    // the host's protocol tokens (`HEARTBEAT_OK`, `NO_REPLY`) name nothing of the work, nor does
    // prose glued to one (`discuss.HEARTBEAT_OK`, `HEARTBEAT_OK.Got`, `HEARTBEAT_OKI'm`)
    if t.split(['.', ' ']).any(|p| {
        context_state::wrappers::NO_OP_REPLIES
            .iter()
            .any(|r| p.starts_with(r))
    }) {
        return false;
    }
    if t.chars().any(unspaced) || t.chars().any(wide_punctuation) {
        return clearly_path(t) && !glued_text(t);
    }
    let words = t.split_whitespace().count();
    if words > MAX_NAME_WORDS {
        return false;
    }
    if words > MAX_PLAIN_WORDS && !t.chars().any(code_char) && !t.contains(" -") {
        return false;
    }
    // a sentence: several words ending as sentences end
    if words >= 3 && t.ends_with(['.', '!', '?']) && t.starts_with(|c: char| c.is_uppercase()) {
        return false;
    }
    if title_phrase(t) {
        return false;
    }
    !(slash_prose(t) || escaped_fragment(t) || closes_unopened(t))
}

/// A piece cut out of longer text: it closes a bracket it never opened (`14)/EMA(50)/EMA(200`
/// of `RSI(14)/EMA(50)/EMA(200)`), or, after text of its own, a markup tag it never opened or
/// never ends (`Title</small></h1` of `<h1>Title<br><small>Title</small></h1>`; a tag alone,
/// `</div>` or `<br><small>`, is the markup the work writes).
fn closes_unopened(t: &str) -> bool {
    let cut_tag = t.match_indices("</").any(|(i, _)| {
        let rest = &t[i + 2..];
        let name = &rest[..rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len())];
        // `<name` opened before it: the `<` just before this tag's name in the piece
        let opened = t[..i]
            .match_indices('<')
            .any(|(k, _)| t[k + 1..].starts_with(name));
        !name.is_empty() && i > 0 && (!rest.contains('>') || !opened)
    });
    if cut_tag {
        return true;
    }
    let (mut round, mut square) = (0i32, 0i32);
    for c in t.chars() {
        match c {
            '(' => round += 1,
            ')' => round -= 1,
            '[' => square += 1,
            ']' => square -= 1,
            _ => {}
        }
        if round < 0 || square < 0 {
            return true;
        }
    }
    false
}

/// A heading or a label written in code marks (`Validation Outcome: PASS`, `Mem0 Sync`): words
/// only, two or more of them capitalised as titles are (`Outcome`, not `TABLE` or `build`), at
/// most a colon after a word. Commands are lower case, SQL upper case, names joined.
fn title_phrase(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    let title = |w: &str| {
        let mut c = w.chars();
        c.next().is_some_and(|f| f.is_ascii_uppercase())
            && c.as_str().chars().any(|c| c.is_ascii_lowercase())
            && c.as_str()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    };
    words.len() >= 2
        && words.iter().all(|w| {
            let w = w.strip_suffix(':').unwrap_or(w);
            !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric())
        })
        && words
            .iter()
            .filter(|w| title(w.strip_suffix(':').unwrap_or(w)))
            .count()
            >= 2
}

/// A token up to where its code span, markdown emphasis or punctuation of a script without
/// spaces starts (opening marks skipped first): `(`/api/auth/register`)：**已停用**` ->
/// `/api/auth/register`. A name ends there; what follows is prose.
pub fn cut_at_markup(token: &str) -> &str {
    let token = token.trim_start_matches(['`', '*', '(', '[', '"', '\'']);
    let end = token
        .char_indices()
        // (a markdown link's text ends at `](`: `[docs/hooks/](docs/hooks/)`)
        .find(|&(i, c)| {
            c == '`'
                || wide_punctuation(c)
                || token[i..].starts_with("**")
                || token[i..].starts_with("](")
        })
        .map_or(token.len(), |(i, _)| i);
    &token[..end]
}

/// The path a prose token names (`src/app.ts`, `/etc/hosts`, `README.md`), without the
/// punctuation around it (ASCII and full-width: `security-audit.sh：`); `None` for a token that
/// only holds a slash (`months/years`, `24/7`), an escaped line break (`a\nb`), a URL or prose.
pub fn path_mention(token: &str) -> Option<&str> {
    let token = cut_at_markup(token);
    // a path passed in code starts after its quote or parenthesis: `import('/src/a.ts')`,
    // `src="/img/a.png"`
    let token = match token.find('/') {
        Some(slash) => match token[..slash].rfind(['(', '\'', '"', '=', '[', '{']) {
            Some(open) => &token[open + 1..],
            None => token,
        },
        None => token,
    };
    let t = token.trim_matches(|c: char| {
        wide_punctuation(c)
            || matches!(
                c,
                '`' | '"'
                    | '\''
                    | ','
                    | ';'
                    | ':'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | '*'
                    | '.'
                    | '!'
                    | '?'
            )
    });
    if t.contains("://") || t.contains("\\n") || t.contains("\\t") || t.contains("\\\"") {
        return None;
    }
    if !is_path_like(t) || !is_name(t) {
        return None;
    }
    // a slash word with no extension and no root is a path only with a directory in it
    let has_ext = clearly_path(t);
    let dir = t
        .split('/')
        .any(|p| DIRECTORIES.contains(&p.to_ascii_lowercase().as_str()));
    let digits_only = t.split('/').all(|p| p.chars().all(|c| c.is_ascii_digit()));
    (has_ext || dir || t.split('/').count() >= 3 && !digits_only).then_some(t)
}

/// The name a function's written form marks (`parse/2`, `parse()` -> `parse`), `None` for any
/// other name; a name with a slash is a function only as `name/arity` (`src/app()` is none).
pub fn function_name(d: &str) -> Option<&str> {
    match d.rsplit_once('/') {
        Some((b, arity)) => {
            (!arity.is_empty() && arity.chars().all(|c| c.is_ascii_digit())).then_some(b)
        }
        None => d.strip_suffix("()"),
    }
}

/// Bytes to skip at a word that starts at `start` in `text`: 1 when the word follows a backslash
/// and starts with the letter of an escape (`\nJWT_SECRET` -> `JWT_SECRET`), else 0.
pub fn escape_letter(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let escaped = start > 0
        && b[start - 1] == b'\\'
        && (start < 2 || b[start - 2] != b'\\')
        && matches!(b.get(start), Some(b'n' | b't' | b'r'));
    usize::from(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_no_name() {
        for prose in [
            "下午2点之后不喝咖啡/浓茶/奶茶",
            "时间/次数",
            "months/years",
            "before/after",
            "and/or",
            "每天早上跑步",
            "ランニングは週3回まで",
            "주간 운동 계획",
            "🏃‍♂️ 跑步计划",
            "✅ Done",
            "━━━━━━━━",
            "Always run the tests before you push.",
            "keep it short and friendly please",
            "this is a whole sentence written as an identifier here",
            "nJWT_SECRET",
            "nPOSTGRES_DB",
            "security-audit.sh：",
            "更新SKILL.md和CHANGELOG.md",
            "/api/auth/register`)：**已停用**",
            "HEARTBEAT_OK",
            "NO_REPLY",
            "discuss.HEARTBEAT_OK",
            "HEARTBEAT_OK.Got",
            "HEARTBEAT_OKI",
            "Validation Outcome: PASS",
            "Workspace Compliance: FAIL",
            "Mem0 Sync",
            "14)/EMA(50)/EMA(200",
            "x]",
            "Title</small></h1",
            "中文标题</h1>",
            "送信(結果フォーマット(task.result",
            "/knowledge_base/配下全ファイル",
        ] {
            assert!(!is_name(prose), "{prose}");
        }
    }

    #[test]
    fn names_and_paths_stay() {
        for name in [
            "JWT_SECRET",
            "setModel",
            "session.compact",
            "src/lib",
            "docs/指南.md",
            "docs/报告(最终).md",
            "/home/用户/notes",
            "~/.openclaw/openclaw.json",
            "api/v1",
            "npm run build",
            "ALTER TABLE",
            "SELECT *",
            "<br><small>",
            "</div>",
            "<b>bold</b>",
            "Mem0",
            "New_York",
            "gog calendar list",
            "cargo test -p context-state --release",
            "read_file(path)",
            "localhost:3000",
            "react@18.2.0",
            "node_modules",
            "nextTick",
            "tRPC",
            "README.md",
            "RSI(14)/EMA(50)",
            "items[0].id",
            "$(date)",
        ] {
            assert!(is_name(name), "{name}");
        }
    }

    #[test]
    fn path_mentions() {
        assert_eq!(path_mention("`src/app.ts`,"), Some("src/app.ts"));
        assert_eq!(
            path_mention("security-audit.sh："),
            Some("security-audit.sh")
        );
        assert_eq!(path_mention("(/etc/hosts)"), Some("/etc/hosts"));
        assert_eq!(
            path_mention("[examples/hooks/](examples/hooks/)"),
            Some("examples/hooks/")
        );
        assert_eq!(path_mention("scripts/deploy"), Some("scripts/deploy"));
        // cut where the code span, the emphasis or the full-width punctuation starts
        assert_eq!(
            path_mention("/api/auth/register`)：**已停用**"),
            Some("/api/auth/register")
        );
        assert_eq!(path_mention("**src/app.ts**"), Some("src/app.ts"));
        assert_eq!(path_mention("`docs/指南.md`。"), Some("docs/指南.md"));
        assert_eq!(path_mention("更新SKILL.md和CHANGELOG.md"), None);
        // a path passed in code, without the call or the attribute around it
        assert_eq!(
            path_mention("import('/src/stores/auth.store.ts');"),
            Some("/src/stores/auth.store.ts")
        );
        assert_eq!(
            path_mention("src=\"/img/logo.png\">"),
            Some("/img/logo.png")
        );
        for prose in [
            "months/years",
            "before/after",
            "24/7",
            "时间/次数",
            "下午2点之后不喝咖啡/浓茶/奶茶",
            "a\\nnode_modules/x",
            "https://example.com/a.html",
        ] {
            assert_eq!(path_mention(prose), None, "{prose}");
        }
    }

    #[test]
    fn escapes_are_skipped() {
        let t = "PORT=3000\\nJWT_SECRET=x";
        let at = t.find("nJWT").unwrap();
        assert_eq!(escape_letter(t, at), 1);
        assert_eq!(escape_letter("a nice name", 2), 0);
        // an escaped backslash before `n` is a backslash and the letter n
        let t = "C:\\\\new";
        assert_eq!(escape_letter(t, t.find("new").unwrap()), 0);
    }
}
