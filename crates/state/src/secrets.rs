//! Credentials redacted where text is captured (issue 27 part 4): a checkpoint, a state file or a
//! restore never holds a credential the session used. A value is replaced by [`REDACTED`], the
//! text around it (the command, the flag, the variable's name, the URL) stays, so the restore
//! still says what was done.
//!
//! Shapes: provider API keys (`sk-...`, `sk-ant-...`, `sk-proj-...`, `AIza...`, `gsk_...`,
//! `hf_...`, `xai-...`, `r8_...`), GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`),
//! GitLab (`glpat-`), Slack (`xoxb-`, `xoxp-`, ...), Stripe (`sk_live_`, `rk_live_`), npm
//! (`npm_`), Telegram bot tokens (`123456789:AA...`), AWS access key ids (`AKIA...`, `ASIA...`),
//! JWTs (`eyJ...`), private key blocks; and by context: `Authorization: Bearer|Basic|token <v>`,
//! `--token v` / `--password=v` / `--api-key v` style flags, `-p<v>` after a database client,
//! `user:pass@` in URLs, `?token=v` style query parameters, and `KEY=value` / `KEY: value` /
//! `"key": "value"` where KEY names a secret (`TOKEN`, `SECRET`, `PASSWORD`, `API_KEY`, ...).
//! Pure string work, linear in the text; nothing else (hashes, UUIDs, paths) is touched.

use std::borrow::Cow;

/// What a credential value becomes.
pub const REDACTED: &str = "[redacted]";

/// Prefixes of provider and service tokens, with the fewest characters that must follow each.
const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("sk-ant-", 16),
    ("sk-proj-", 16),
    ("sk-or-", 16),
    ("sk-", 20),
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("sk_", 20),
    ("rk_live_", 16),
    ("pk_live_", 16),
    ("AIza", 30),
    ("gsk_", 20),
    ("hf_", 20),
    ("xai-", 20),
    ("r8_", 20),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghu_", 20),
    ("ghs_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 16),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxa-", 10),
    ("xoxs-", 10),
    ("xoxe-", 10),
    ("xapp-", 10),
    ("npm_", 30),
    ("AKIA", 16),
    ("ASIA", 16),
    ("eyJ", 30),
];

/// Words that, in a variable's, a key's or a flag's name, say its value is a credential.
const SECRET_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "apikey",
    "api_key",
    "api-key",
    "access_key",
    "accesskey",
    "private_key",
    "privatekey",
    "credential",
    "credentials",
    "auth",
    "bearer",
    "cookie",
    "session_key",
    "client_secret",
    "webhook_secret",
    "signing_key",
];

/// Names that hold a secret word but no secret (`TOKEN_LIMIT=8000`, `max_tokens: 800`).
const NOT_SECRET_WORDS: &[&str] = &[
    "tokens",
    "max_tokens",
    "token_limit",
    "token_count",
    "token_budget",
    "tokenizer",
    "token_usage",
    "auth_url",
    "auth_type",
    "auth_mode",
    "authority",
    "author",
    "password_min_length",
    "secret_name",
    "token_file",
    "token_path",
    "password_file",
    "secret_file",
    "key_file",
];

/// Programs whose `-p<value>` (glued) is a password: database clients.
const PASSWORD_P_PROGRAMS: &[&str] = &["mysql", "mysqldump", "mariadb", "mysqladmin"];

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | '=')
}

/// True when `name` (a variable, key or flag name) says its value is a credential.
pub fn names_secret(name: &str) -> bool {
    let n = name
        .trim_start_matches('-')
        .trim_matches(|c| c == '"' || c == '\'')
        .to_ascii_lowercase();
    if n.is_empty() || n.len() > 64 {
        return false;
    }
    let n = n.replace('-', "_");
    if NOT_SECRET_WORDS
        .iter()
        .any(|w| n == *w || n.ends_with(&format!("_{w}")))
    {
        return false;
    }
    if n.split('_').any(|p| p == "key") && !n.contains("public") && !n.contains("keys") {
        // `API_KEY`, `STRIPE_KEY`, `key` alone; not `KEYBOARD` or `key_id` (an id is no secret)
        return !n.ends_with("_id") && !n.ends_with("_name") && !n.ends_with("_path");
    }
    let squashed = n.replace('_', "");
    SECRET_WORDS.iter().any(|w| {
        let w = w.replace(['_', '-'], "");
        squashed.contains(&w)
    }) && !n.ends_with("_id")
}

/// True when `v` could be a credential value: long enough, not a placeholder, a variable
/// reference or an obvious non-secret (`true`, a number, a path).
fn plausible_value(v: &str) -> bool {
    let v = v.trim_matches(|c| c == '"' || c == '\'');
    if v.chars().count() < 6 || v == REDACTED {
        return false;
    }
    if v.starts_with('$') || v.starts_with('<') || v.starts_with('{') || v.starts_with('%') {
        return false;
    }
    if v.starts_with('/') || v.starts_with("./") || v.starts_with("~/") {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "null" | "none" | "undefined" | "required" | "optional"
    ) || lower.chars().all(|c| c == '*' || c == 'x' || c == '.')
        || lower.contains("your_")
        || lower.contains("your-")
        || lower.starts_with("xxx")
        || lower.contains("changeme")
        || lower.contains("example")
        || lower.contains("placeholder")
        || lower.contains("redacted")
    {
        return false;
    }
    !v.chars().all(|c| c.is_ascii_digit())
        && !openclaw_session_key(v)
        && !OAUTH_ERRORS.contains(&lower.as_str())
}

/// True when an unquoted `value` given to the key `name` is code that names a credential, not the
/// credential: a variable, a member or a call whose own name says it holds one (`resolveApiKey:
/// getApiKey,`, `apiKey: config.apiKey`, `token: process.env.API_TOKEN`, `password: password`),
/// written as code is (camelCase without a digit, a member path, or the key's own name). A
/// literal in code is quoted; a bare word in a config (`password: mypassword`, `apiKey:
/// Xk29fQ`) still reads as a value. Taken for a credential, the name was redacted wherever the
/// session said it (`getApiKeyForModel` read `[redacted]ForModel` in a restore).
fn names_a_variable(name: &str, value: &str) -> bool {
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let v = value.trim_end_matches(['(', ')']);
    let parts: Vec<&str> = v.split('.').collect();
    if !parts.iter().all(|p| ident(p)) {
        return false;
    }
    let own_name = v.eq_ignore_ascii_case(name.rsplit('.').next().unwrap_or(name));
    let member = parts.len() >= 2;
    let camel = v.starts_with(|c: char| c.is_ascii_lowercase())
        && v.chars().any(|c| c.is_ascii_uppercase())
        && !v.chars().any(|c| c.is_ascii_digit());
    names_secret(parts[parts.len() - 1]) && (own_name || member || camel)
}

/// The error codes of OAuth 2.0 (RFC 6749, 4.1.2.1 and 5.2; RFC 6750, 3.1): what a failed token
/// request says (`oauth2: "invalid_grant" "Token has been expired or revoked."`), never a
/// credential, though it follows an `oauth` key.
const OAUTH_ERRORS: &[&str] = &[
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
    "access_denied",
    "unsupported_response_type",
    "server_error",
    "temporarily_unavailable",
    "invalid_token",
    "insufficient_scope",
];

/// An OpenClaw session key (`agent:<agentId>:<rest>`: `agent:main:main`,
/// `agent:build:subagent:<uuid>`, as its docs write them): the address of a session, which
/// `sessions_spawn` returns and `sessions_send` takes, not a credential (a web app's session key,
/// a cookie, is random text without that shape and stays one).
fn openclaw_session_key(v: &str) -> bool {
    let mut parts = v.split(':');
    parts.next() == Some("agent")
        && parts.clone().count() >= 2
        && parts.all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '@'))
        })
}

/// Where every rule finds a credential value in `text` (byte ranges, unsorted, may overlap).
fn credential_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    if text.len() < 8 {
        return spans;
    }
    private_keys(text, &mut spans);
    prefixed_tokens(text, &mut spans);
    telegram_tokens(text, &mut spans);
    auth_headers(text, &mut spans);
    url_credentials(text, &mut spans);
    named_values(text, &mut spans);
    labelled_values(text, &mut spans);
    password_values(text, &mut spans);
    spans
}

/// The text with every credential value replaced by [`REDACTED`] (borrowed when there is none).
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut spans = credential_spans(text);
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    spans.sort();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e) in spans {
        if e <= at {
            continue;
        }
        let s = s.max(at);
        out.push_str(&text[at..s]);
        out.push_str(REDACTED);
        at = e;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// The credential values [`redact`] replaces in `text`, each once, in order: a value a rule
/// recognised in one place (`Gitee 令牌: <v>`) is a credential wherever else it appears.
pub fn secret_values(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for (s, e) in credential_spans(text) {
        let v = &text[s..e];
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// [`redact`] into an owned string.
pub fn redact_owned(text: String) -> String {
    match redact(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(s) => s,
    }
}

/// The end of the run of [`token_char`]s from `from`.
fn token_end(text: &str, from: usize) -> usize {
    text[from..]
        .char_indices()
        .find(|&(_, c)| !token_char(c))
        .map_or(text.len(), |(i, _)| from + i)
}

/// True when the character before `i` cannot continue a token (the prefix starts a word).
fn starts_word(text: &str, i: usize) -> bool {
    !text[..i]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `-----BEGIN ... PRIVATE KEY-----` blocks.
fn private_keys(text: &str, spans: &mut Vec<(usize, usize)>) {
    let mut from = 0;
    while let Some(i) = text[from..].find("-----BEGIN ").map(|i| i + from) {
        let line_end = text[i..].find('\n').map_or(text.len(), |j| i + j);
        if !text[i..line_end].contains("PRIVATE KEY") {
            from = line_end;
            continue;
        }
        let end = text[i..]
            .find("-----END ")
            .and_then(|j| text[i + j..].find("KEY-----").map(|k| i + j + k + 8))
            .unwrap_or(text.len());
        spans.push((i, end));
        from = end;
    }
}

/// Tokens that carry their kind in their prefix (`sk-...`, `ghp_...`, `AKIA...`).
fn prefixed_tokens(text: &str, spans: &mut Vec<(usize, usize)>) {
    for (prefix, min) in TOKEN_PREFIXES {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix).map(|i| i + from) {
            from = i + prefix.len();
            if !starts_word(text, i) {
                continue;
            }
            let end = token_end(text, from);
            let body = &text[from..end];
            let body = body.trim_end_matches(['.', '/', '=', '-']);
            let end = from + body.len();
            let chars = body.chars().count();
            let ok = match *prefix {
                // an access key id is exactly 16 upper-case letters and digits
                "AKIA" | "ASIA" => {
                    chars == 16
                        && body
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                }
                // a JWT is three base64url parts
                "eyJ" => body.split('.').count() == 3 && chars >= *min,
                // a service's secret key (`sk_N0wc…`): mixed case and digits, never a snake name
                "sk_" => {
                    chars >= *min
                        && body.chars().any(|c| c.is_ascii_digit())
                        && body.chars().any(|c| c.is_ascii_uppercase())
                        && body.chars().any(|c| c.is_ascii_lowercase())
                }
                _ => {
                    chars >= *min
                        && body.chars().any(|c| c.is_ascii_digit())
                        && body.chars().any(|c| c.is_ascii_alphabetic())
                        && !body.contains('/')
                }
            };
            if ok {
                spans.push((i, end));
                from = end;
            }
        }
    }
}

/// Telegram bot tokens: `<8-10 digits>:<35 characters of [A-Za-z0-9_-]>` (they start `AA`).
fn telegram_tokens(text: &str, spans: &mut Vec<(usize, usize)>) {
    let mut from = 0;
    while let Some(i) = text[from..].find(":AA").map(|i| i + from) {
        from = i + 3;
        let digits = text[..i]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .count();
        let start = i - digits;
        if !(6..=12).contains(&digits) || !starts_word(text, start) {
            continue;
        }
        let end = text[i + 1..]
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .map_or(text.len(), |(k, _)| i + 1 + k);
        if end - (i + 1) >= 30 {
            spans.push((start, end));
            from = end;
        }
    }
}

/// `Authorization: Bearer <v>`, `Bearer <v>`, `Basic <v>`, `token <v>` in a header.
fn auth_headers(text: &str, spans: &mut Vec<(usize, usize)>) {
    for scheme in ["Bearer ", "bearer ", "Basic ", "Token ", "token "] {
        let mut from = 0;
        while let Some(i) = text[from..].find(scheme).map(|i| i + from) {
            from = i + scheme.len();
            if !starts_word(text, i) {
                continue;
            }
            // `token ` only in a header (`Authorization: token ...`)
            if scheme.eq_ignore_ascii_case("token ")
                && !text[..i]
                    .to_ascii_lowercase()
                    .trim_end()
                    .ends_with("authorization:")
            {
                continue;
            }
            let v_start = from;
            let end = token_end(text, v_start);
            if plausible_value(&text[v_start..end]) && end - v_start >= 8 {
                spans.push((v_start, end));
                from = end;
            }
        }
    }
}

/// `scheme://user:password@host` -> the password; `?token=v&...` query values of secret names.
fn url_credentials(text: &str, spans: &mut Vec<(usize, usize)>) {
    let mut from = 0;
    while let Some(i) = text[from..].find("://").map(|i| i + from) {
        from = i + 3;
        let end = text[from..]
            .char_indices()
            .find(|&(_, c)| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')'))
            .map_or(text.len(), |(k, _)| from + k);
        let url = &text[from..end];
        let authority_end = url.find(['/', '?', '#']).unwrap_or(url.len());
        if let Some(at) = url[..authority_end].rfind('@') {
            if let Some(colon) = url[..at].find(':') {
                if at > colon + 1 {
                    spans.push((from + colon + 1, from + at));
                }
            }
        }
        if let Some(q) = url.find('?') {
            let mut k = q + 1;
            for pair in url[q + 1..].split('&') {
                if let Some((name, v)) = pair.split_once('=') {
                    if names_secret(name) && plausible_value(v) {
                        let vs = from + k + name.len() + 1;
                        spans.push((vs, vs + v.len()));
                    }
                }
                k += pair.len() + 1;
            }
        }
        from = end.max(from);
    }
}

/// Values of names that say they are secrets: `KEY=value` (env files, `export`, command
/// prefixes), `KEY: value` (YAML, headers), `"key": "value"` (JSON), `--token value`,
/// `--password=value`, and a database client's `-p<value>`.
fn named_values(text: &str, spans: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if !(c == b'=' || c == b':' || c == b' ') {
            i += 1;
            continue;
        }
        // the name before the separator
        let name_end = if c == b':' && i > 0 && bytes[i - 1] == b'"' {
            i - 1
        } else {
            i
        };
        let name_start = text[..name_end]
            .char_indices()
            .rev()
            .find(|&(_, ch)| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.')))
            .map_or(0, |(k, ch)| k + ch.len_utf8());
        let name = &text[name_start..name_end];
        let flag = name.starts_with("--");
        // `--token value`: a space separates a flag from its value only
        if c == b' ' && !flag {
            i += 1;
            continue;
        }
        if name.is_empty() || !names_secret(name.rsplit('.').next().unwrap_or(name)) {
            i += 1;
            continue;
        }
        // a `:` is a separator only when followed by a space or a quote (`KEY: v`, `"k": "v"`),
        // not inside a URL or a time
        let mut v_start = i + 1;
        if c == b':' && !matches!(bytes.get(i + 1), Some(b' ' | b'"' | b'\'')) {
            i += 1;
            continue;
        }
        while matches!(bytes.get(v_start), Some(b' ')) && v_start - i < 4 {
            v_start += 1;
        }
        let quote = match bytes.get(v_start) {
            Some(q @ (b'"' | b'\'')) => {
                v_start += 1;
                Some(*q as char)
            }
            _ => None,
        };
        let v_end = match quote {
            Some(q) => text[v_start..]
                .find([q, '\n'])
                .map_or(text.len(), |k| v_start + k),
            None => {
                // a value runs to the end of its word (a backslash ends it: `\n` in escaped text)
                text[v_start..]
                    .char_indices()
                    .find(|&(_, ch)| {
                        ch.is_whitespace()
                            || matches!(
                                ch,
                                '"' | '\'' | '`' | ',' | ';' | '&' | '|' | ')' | '}' | '\\'
                            )
                    })
                    .map_or(text.len(), |(k, _)| v_start + k)
            }
        };
        let value = &text[v_start..v_end];
        // `Authorization: Bearer <v>`: the scheme is no value ([`auth_headers`] takes the token)
        let scheme = ["Bearer", "Basic", "Token", "token", "Digest", "bearer"].contains(&value);
        // (in code, `key: value`; an env file's `KEY=value` holds literals)
        let reference = c == b':' && quote.is_none() && names_a_variable(name, value);
        if plausible_value(value) && !scheme && !reference {
            spans.push((v_start, v_end));
        }
        i = v_end.max(i + 1);
    }
    // `mysql -u root -pS3cret`
    for program in PASSWORD_P_PROGRAMS {
        let mut from = 0;
        while let Some(k) = text[from..].find(program).map(|k| k + from) {
            from = k + program.len();
            if !starts_word(text, k) {
                continue;
            }
            let line_end = text[from..].find('\n').map_or(text.len(), |j| from + j);
            let mut at = from;
            for word in text[from..line_end].split(' ') {
                if let Some(v) = word.strip_prefix("-p") {
                    if plausible_value(v) || (v.len() >= 4 && !v.starts_with('$')) {
                        spans.push((at + 2, at + word.len()));
                    }
                }
                at += word.len() + 1;
            }
        }
    }
}

/// Words of other languages that name a credential in a label (`Gitee 令牌:`), besides those
/// that name a password ([`PASSWORD_LABELS`], `密码：`).
#[rustfmt::skip]
const SECRET_LABELS: &[&str] = &["令牌", "密钥", "秘钥", "凭证", "凭据", "トークン", "토큰", "токен"];

/// A label word typed short of a secret word (`edgeone toke: v`, `pass: v`): four letters or
/// more that start `token`, `secret` or `password`. Only ever read as a label before a
/// credential-shaped value.
fn cut_secret_word(word: &str) -> bool {
    word.len() >= 4
        && ["token", "secret", "password"]
            .iter()
            .any(|w| w.starts_with(word))
}

/// Characters of a label read before its separator.
const LABEL_CHARS: usize = 24;

/// A value that only a credential would be: one word of at least 12 token characters with a
/// digit and a letter, not a path, a URL or a placeholder.
fn credential_shaped(v: &str) -> bool {
    v.chars().count() >= 12
        && v.chars().all(token_char)
        && v.chars().any(|c| c.is_ascii_digit())
        && v.chars().any(|c| c.is_ascii_alphabetic())
        && !v.contains("://")
        && plausible_value(v)
}

/// A value after a label that names a credential, as people write it in prose and markdown:
/// `**EdgeOne API Token:** `v``, `Gitee 令牌:v`, `密码： v`, `Token = v`. The label is the text
/// just before the separator (`:`, `：`, `=`), markup left out: its last word names a secret
/// ([`names_secret`]) or it holds a word of [`SECRET_LABELS`] or [`PASSWORD_LABELS`]. Only a [`credential_shaped`]
/// value is taken, so prose after a label (`Token: expired yesterday`) stays.
fn labelled_values(text: &str, spans: &mut Vec<(usize, usize)>) {
    for (i, sep) in text.char_indices() {
        if !matches!(sep, ':' | '：' | '=') {
            continue;
        }
        // the value first (most separators in code and JSON have none of a credential's shape):
        // after markup, spaces and an opening quote or backtick
        let rest = &text[i + sep.len_utf8()..];
        let skip = rest
            .char_indices()
            .find(|&(_, c)| !matches!(c, '*' | '_' | ' ' | '`' | '"' | '\''))
            .map_or(rest.len(), |(k, _)| k);
        if skip > 6 {
            continue;
        }
        let v_start = i + sep.len_utf8() + skip;
        let v_end = token_end(text, v_start);
        if !credential_shaped(&text[v_start..v_end]) {
            continue;
        }
        // the label: the last LABEL_CHARS characters before the separator, markup left out, from
        // the start of its line or clause
        let before = text[..i].trim_end_matches(['*', '_', ' ']);
        let from = before
            .char_indices()
            .rev()
            .nth(LABEL_CHARS - 1)
            .map_or(0, |(k, _)| k);
        let label = before[from..]
            .rsplit(['\n', '.', ',', ';', '|', '(', '[', '{'])
            .next()
            .unwrap_or("");
        let lower = label.to_lowercase();
        let last_word = lower
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .next()
            .unwrap_or("");
        if names_secret(last_word)
            || cut_secret_word(last_word)
            || SECRET_LABELS
                .iter()
                .chain(PASSWORD_LABELS)
                .any(|w| lower.contains(w))
        {
            spans.push((v_start, v_end));
        }
    }
}

/// Words that name a password (a password is short and typed by people, so it is read after
/// these alone, not after every secret word): ASCII ones as whole words, the others anywhere.
const PASSWORD_WORDS: &[&str] = &["password", "passwd", "passphrase", "passcode", "pwd"];
/// Words of other languages that name a password in a label, anywhere (`密码：`, `账号密码`;
/// `Пароль` too: the text is lower-cased for ASCII only).
#[rustfmt::skip]
const PASSWORD_LABELS: &[&str] = &[
    "密码", "口令", "パスワード", "비밀번호", "암호", "пароль", "Пароль", "passwort", "senha",
    "contraseña", "mot de passe",
];
/// Words between a password's label and its value (`the password is hunter2!x`, `密码是…`).
#[rustfmt::skip]
const PASSWORD_COPULAS: &[&str] = &[
    "is", "was", "ist", "est", "es", "é", "是", "为", "為", "は", "은", "는", "：", ":", "=",
];
/// Words between a password and a label after it (`kaitou@2015 这是账号密码`, `x9!pass is my
/// password`).
#[rustfmt::skip]
const PASSWORD_LEADS: &[&str] = &[
    "is", "my", "the", "our", "as", "这是", "是", "我的", "账号", "帐号", "的", "登录", "邮箱",
];

/// A value that could be a password people type: 6 to 64 ASCII characters without spaces, a
/// letter and a digit or symbol among them (`kaitou@2015`, `hunter2`; not a word, `stored`), not a
/// path, a URL or a placeholder.
fn password_shaped(v: &str) -> bool {
    let n = v.chars().count();
    // code, not a password: a call, an index, a variable, a dotted name (`os.environ[`, `$PW`,
    // `self.password`, `db_password`)
    let dotted = v.split('.').all(|p| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    (6..=64).contains(&n)
        && v.chars()
            .all(|c| c.is_ascii_graphic() && !"()[]{}<>$%".contains(c))
        && v.chars().any(|c| c.is_ascii_alphabetic())
        && v.chars()
            .any(|c| c.is_ascii_digit() || "!@#^&*+=?~".contains(c))
        && !(dotted && v.contains('.'))
        && !v.contains("://")
        && plausible_value(v)
}

/// Longest stretch read for one password (its 64 characters and the punctuation after it): a
/// longer run without a break is no password, and no text is scanned further per label.
const PASSWORD_SCAN: usize = 72;

/// Whether a character ends a password typed in prose: a space, a quote, a backtick, markup or
/// a character outside ASCII.
fn ends_password(c: char) -> bool {
    c.is_whitespace() || !c.is_ascii() || matches!(c, '`' | '"' | '\'' | '*')
}

/// The end of a password typed in prose from `from` (see [`ends_password`]), without the
/// sentence's closing punctuation; `from` itself when no end comes within [`PASSWORD_SCAN`]
/// bytes.
fn password_end(text: &str, from: usize) -> usize {
    let rest = &text[from..];
    let end = match rest
        .char_indices()
        .take(PASSWORD_SCAN)
        .find(|&(_, c)| ends_password(c))
    {
        Some((k, _)) => from + k,
        None if rest.len() <= PASSWORD_SCAN => text.len(),
        None => return from,
    };
    from + text[from..end]
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']'])
        .len()
}

/// A password after or before a label that names one, in prose: `密码：kaitou@2015`, `the
/// password is hunter2!`, `kaitou@2015 这是账号密码`. A [`password_shaped`] value only, so
/// prose (`the password is stored in Vault`) stays. Each label is read within a few words of it:
/// linear in the text.
fn password_values(text: &str, spans: &mut Vec<(usize, usize)>) {
    // ASCII lower case keeps every byte offset of `text`
    let lower = text.to_ascii_lowercase();
    let mut labels: Vec<(usize, usize)> = Vec::new();
    let edge = |c: Option<char>| {
        !c.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    for w in PASSWORD_WORDS {
        for (i, _) in lower.match_indices(w) {
            let e = i + w.len();
            if edge(lower[..i].chars().next_back()) && edge(lower[e..].chars().next()) {
                labels.push((i, e));
            }
        }
    }
    for w in PASSWORD_LABELS {
        labels.extend(lower.match_indices(w).map(|(i, _)| (i, i + w.len())));
    }
    let filler = |c: char| c.is_whitespace() || matches!(c, '*' | '_' | '`' | '"' | '\'');
    // a word is a whole word (an ASCII one not glued to a letter or digit)
    let word_ends = |w: &str, next: Option<char>| {
        !(w.bytes().all(|b| b.is_ascii_alphabetic())
            && next.is_some_and(|n| n.is_ascii_alphanumeric()))
    };
    for (start, end) in labels {
        // after: markup, at most three copulas or separators, markup, then the value
        let mut at = end;
        for _ in 0..3 {
            at = text.len() - text[at..].trim_start_matches(filler).len();
            match PASSWORD_COPULAS.iter().find(|c| {
                lower[at..].starts_with(*c) && word_ends(c, lower[at + c.len()..].chars().next())
            }) {
                Some(c) => at += c.len(),
                None => break,
            }
        }
        let v_end = password_end(text, at);
        if at < v_end && password_shaped(&text[at..v_end]) {
            spans.push((at, v_end));
            continue;
        }
        // before: the words that lead to the label (one at least: a word just before `password`
        // names something else, `reset2 password`), then the value
        let mut b = start;
        let mut leads = 0;
        for _ in 0..4 {
            b = text[..b].trim_end_matches(filler).len();
            match PASSWORD_LEADS.iter().find(|l| {
                lower[..b].ends_with(*l) && word_ends(l, lower[..b - l.len()].chars().next_back())
            }) {
                Some(l) => {
                    b -= l.len();
                    leads += 1;
                }
                None => break,
            }
        }
        if leads == 0 {
            continue;
        }
        let before = text[..b].trim_end_matches(filler);
        let v_start = match before
            .char_indices()
            .rev()
            .take(PASSWORD_SCAN)
            .find(|&(_, c)| ends_password(c))
        {
            Some((k, c)) => k + c.len_utf8(),
            None if before.len() <= PASSWORD_SCAN => 0,
            None => continue,
        };
        let v_end = password_end(text, v_start);
        if v_start < v_end && v_end <= before.len() && password_shaped(&text[v_start..v_end]) {
            spans.push((v_start, v_end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_shapes_are_redacted() {
        let cases: &[(&str, &str)] = &[
            // provider keys
            ("export OPENAI_API_KEY=sk-proj-4fG7hJ2kL9mN3pQ8rS1tV6wX0yZa", "export OPENAI_API_KEY=[redacted]"),
            ("- **API Key**: sk_N0wcqRIDDt_Py_rz8O7plGO8EKL1Lmmp", "- **API Key**: [redacted]"),
            ("curl -H 'x-api-key: sk-ant-api03-AbCdEf123456GhIjKl7890' https://api.anthropic.com", "curl -H 'x-api-key: [redacted]' https://api.anthropic.com"),
            ("key is sk-1234567890abcdefghijklmnop ok", "key is [redacted] ok"),
            ("GEMINI: AIzaSyD4-9aBcDeFgHiJkLmNoPqRsTuVwXyZ0123 used", "GEMINI: [redacted] used"),
            // GitHub, GitLab, Slack, npm
            ("export GITHUB_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "export GITHUB_TOKEN=[redacted]"),
            ("git clone https://github_pat_11ABCDEFG0123456789_abcdefghijklmnop@github.com/o/r", "git clone https://[redacted]@github.com/o/r"),
            ("token glpat-xY7zW3vU9tS1rQ5pO2nM", "token [redacted]"),
            ("SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "SLACK=[redacted]"),
            // Telegram bot token from `openclaw channels add --token`
            ("openclaw channels add --channel telegram --token 7123456789:AAHk3j2l1mN0pQrStUvWxYz_AbCdEfGhIjK", "openclaw channels add --channel telegram --token [redacted]"),
            ("bot 7123456789:AAHk3j2l1mN0pQrStUvWxYz_AbCdEfGhIjK here", "bot [redacted] here"),
            // AWS
            ("aws_access_key_id = AKIAIOSFODNN7QWERTYU", "aws_access_key_id = [redacted]"),
            ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7u1KEYq", "aws_secret_access_key=[redacted]"),
            ("id AKIAZ3MQWERTY7ABCDEF in logs", "id [redacted] in logs"),
            // headers
            ("curl -H \"Authorization: Bearer abc123def456ghi789\" http://x", "curl -H \"Authorization: Bearer [redacted]\" http://x"),
            ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [redacted]"),
            ("Authorization: token 0123456789abcdefabcd", "Authorization: token [redacted]"),
            // flags
            ("tool login --password hunter2hunter2", "tool login --password [redacted]"),
            ("tool --api-key=Zq8wX2vY7uT4", "tool --api-key=[redacted]"),
            ("mysql -u root -pS3cretPass db", "mysql -u root -p[redacted] db"),
            // URLs
            ("postgres://admin:s3cr3tPW@db.internal:5432/app", "postgres://admin:[redacted]@db.internal:5432/app"),
            ("https://api.x.com/v1?user=ann&access_token=abcdef123456", "https://api.x.com/v1?user=ann&access_token=[redacted]"),
            // env files, YAML, JSON
            ("DB_HOST=localhost\nDB_PASSWORD=Pa55w0rd!x\nJWT_SECRET=9f8e7d6c5b4a", "DB_HOST=localhost\nDB_PASSWORD=[redacted]\nJWT_SECRET=[redacted]"),
            ("password: \"correct horse battery\"", "password: \"[redacted]\""),
            ("{\"client_secret\": \"Gx7Kp2Lq9Mz4\"}", "{\"client_secret\": \"[redacted]\"}"),
            // a web app's session key is a credential
            ("{\"session_key\": \"q8w7e6r5t4y3u2i1o0p9\"}", "{\"session_key\": \"[redacted]\"}"),
            ("sessionKey=agentq8w7e6r5t4y3u2", "sessionKey=[redacted]"),
            // a bare word in a config is a value, even with a secret's name in it
            ("password: mypassword", "password: [redacted]"),
            ("apiKey: myApiKey2", "apiKey: [redacted]"),
            ("SECRET_KEY=mySecretKey", "SECRET_KEY=[redacted]"),
            // JSON-escaped env text in a tool argument
            ("\"content\": \"PORT=3000\\nJWT_SECRET=abcdef123456\\nPOSTGRES_DB=app\"", "\"content\": \"PORT=3000\\nJWT_SECRET=[redacted]\\nPOSTGRES_DB=app\""),
            // a private key
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nrest", "[redacted]\nrest"),
            // labels in prose and markdown, in several languages
            ("Gitee 令牌:1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d 我再提供一次", "Gitee 令牌:[redacted] 我再提供一次"),
            ("**令牌值:** `Xy3/2bCEGv96OAhb6FOBYThbqh+FzKmzXoT2pt=`", "**令牌值:** `[redacted]`"),
            // a label typed short of `token`
            ("Gitee 令牌:[redacted] edgeone toke : nErJUE/2bCEGv96OAhb6FOBYThbqh+FzKmzXoT2ptXs=", "Gitee 令牌:[redacted] edgeone toke : [redacted]"),
            ("**EdgeOne API Token:** `nQ7kLm2Pz8Rt4Vw6Yx1Ab3Cd5Ef=`", "**EdgeOne API Token:** `[redacted]`"),
            ("数据库密码： Hk29dLq8Zp3x", "数据库密码： [redacted]"),
            ("- Access token = 9f8e7d6c5b4a3f2e1d0c", "- Access token = [redacted]"),
            // a password people type: short, with a symbol, after or before its label
            ("这是github的账号信息：账号：[email]\n密码：kaitou@2015", "这是github的账号信息：账号：[email]\n密码：[redacted]"),
            ("kaitou@2015 这是账号密码", "[redacted] 这是账号密码"),
            ("the password is hunter2!", "the password is [redacted]!"),
            ("Password: x9!Lq2 (don't share it)", "Password: [redacted] (don't share it)"),
            ("密码是Abc#2024，账号是ann", "密码是[redacted]，账号是ann"),
            ("x9!pass7 is my password", "[redacted] is my password"),
        ];
        for (input, want) in cases {
            assert_eq!(redact(input), *want, "{input}");
        }
    }

    #[test]
    fn ordinary_values_stay() {
        for text in [
            "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
            "id 123e4567-e89b-12d3-a456-426614174000",
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "/home/ann/.ssh/id_ed25519.pub and src/auth/token.ts",
            "max_tokens: 800",
            "TOKEN_LIMIT=8000",
            "export API_KEY=$OPENAI_API_KEY",
            "API_KEY=<your-key>",
            "sk_learn_pipeline_step_2024 and sk_live",
            "password: ${DB_PASSWORD}",
            "--token-file /run/secrets/t",
            "author: Ann Lee",
            "Bearer tokens expire after an hour",
            "令牌: 已保存到 ~/.git-credentials",
            "**API Token:** see /run/secrets/edgeone_token_2024",
            "Token usage: 12k/200k",
            "sk-learn is a library; task-1234 done",
            "http://localhost:3000/api?page=2",
            "git@github.com:owner/repo.git",
            "ssh user@host.example.org",
            "12:30 meeting, 10:00:00 start",
            "用户密码长度至少 8 位",
            "the password is stored in Vault",
            "keyboard: us",
            "password: required",
            "round trip: oauth2: \"invalid_grant\" \"Token has been expired or revoked.\"",
            "reset the password at /account/reset",
            "密码：已经改好了",
            "the password-reset flow sends a link",
            "new passwords need 12+ characters",
            "password = os.environ[\"DB_PW\"]",
            "run test123 password reset",
            "password is ÄÖÜ-not-ascii",
            // an OpenClaw session key is a session's address (sessions_spawn returns it)
            "{\"childSessionKey\": \"agent:build:subagent:13b68bda-06c8-4fbc-8cb5-8c9c37770c29\"}",
            "sessionKey: agent:main:telegram:dm:7123456789",
            // code that names a credential is no credential: a variable, a member, a call
            "\t\tresolveApiKey: getApiKey,\n\t});",
            "{ apiKey: config.apiKey, token: process.env.API_TOKEN }",
            "const opts = { password: password, authToken: getAuthToken() }",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
    }

    #[test]
    fn passwords_in_long_or_mixed_text_are_read_near_their_label() {
        // every label is read within a few words: a long text of labels and long runs is read once
        let many = "密码是 İstanbul password is ".repeat(20_000);
        assert!(redact(&many) == many, "labels without values");
        let run = format!("密码是{}", "x9".repeat(500_000));
        assert!(redact(&run) == run, "a run longer than any password");
        let glued = format!("{}9 is my password", "a".repeat(100_000));
        assert!(
            redact(&glued) == glued,
            "a run longer than any password, before its label"
        );
        // a label beside text whose lower case is longer (`İ`) is still read
        assert_eq!(redact("İ password: k9!x2q"), "İ password: [redacted]");
    }

    #[test]
    fn secret_names() {
        for n in [
            "GITHUB_TOKEN",
            "api_key",
            "--api-key",
            "DB_PASSWORD",
            "client_secret",
            "aws_secret_access_key",
            "STRIPE_KEY",
            "passwd",
            "x-api-key",
        ] {
            assert!(names_secret(n), "{n}");
        }
        for n in [
            "max_tokens",
            "TOKEN_LIMIT",
            "author",
            "key_id",
            "keyboard",
            "PUBLIC_KEY",
            "monkey",
        ] {
            assert!(!names_secret(n), "{n}");
        }
    }
}
