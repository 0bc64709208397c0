// The defect scan of a restore text (issue 27): what a restore must never carry, found line by line. Used by
// `npm run eval:restore` / `openclaw-context eval` (counts, reported) and by __test__/restore-invariants.test.ts
// (asserted: these are invariants, not scores). The same scan as ../shared/measures/restore-defects.mjs.
//
//   credential  a line holding a secret: a provider API key (`sk-…`, `sk-ant-…`, `sk-proj-…`), a GitHub token
//               (`ghp_…`, `github_pat_…`), a Slack token (`xox[abp]-…`), a Telegram bot token (`123456789:AA…`),
//               an AWS access key id (`AKIA…`), or a long value after `Bearer`, `token`, `password`, `passwd`,
//               `secret`, `api_key`;
//   host        a line holding text the host wrote, not the user: OpenClaw's untrusted-metadata blocks, internal
//               context, media notes, heartbeat prompt and its no-op replies (`HEARTBEAT_OK`, `NO_REPLY`), message
//               ids, `System: [` event lines, reply directives (`[[reply_to_current]]`), 2026.9 transcript bodies
//               (`[OpenClaw session new]`, `[User sent media without caption]`), sub-agent task and group-history
//               wrappers; Claude Code's `<ide_opened_file>`, `<ide_selection>`,
//               `<system-reminder>`, `<command-name>`, `<local-command-stdout>`, local-command caveat and pointer to
//               the transcript after an approved plan (`If you need specific details from before exiting plan mode`);
//   escaped     a fragment of JSON-escaped text read with `\n` as the letter n: `nJWT_SECRET`, `nnode_modules`,
//               `nserver.ts` after a space, comma or parenthesis;
//   prose       an entry of the `Identifiers:` line that is prose: CJK text with a slash or longer than 12
//               characters, or more than 6 words;
//   task        the `Task:` line, and whether it is a greeting or a host prompt rather than the user's request.
// Only the restore's body is scanned (from `<checkpoint-data>` on): the frame above it is the package's own.

/** Line classes of the scan, as in the reference script. */
export const DEFECT_CLASSES = {
  credential:
    /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|\bghp_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}|\bxox[abp]-[A-Za-z0-9-]{20,}|\b\d{8,10}:AA[A-Za-z0-9_-]{30,}|\bAKIA[0-9A-Z]{16}\b|(?:Bearer|token|password|passwd|secret|api[_-]?key)["'=:\s]+[A-Za-z0-9_\-.]{24,}/i,
  host: /\(untrusted metadata\)|<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT|\[media attached|Read HEARTBEAT\.md|HEARTBEAT_OK|NO_REPLY|\[message_id:|^System: \[|<ide_opened_file>|<ide_selection>|<system-reminder>|<command-name>|<local-command-stdout>|Caveat: The messages below|\[\[\s*(?:reply_to_current|reply_to\s*:|audio_as_voice)|\breply_to_current\b|\[OpenClaw (?:session (?:new|reset)|room event|runtime event|interruption)\]|\[User sent media without caption\]|\[Subagent (?:Context|Task)\]|- for context\]|\[Current message - respond to this\]|\[SYSTEM HANDOFF\]|\[Startup context loaded by runtime\]|This is an unattended scheduled run|If you need specific details from before (?:exiting plan mode|compaction)/m,
  escaped: /(?:^|[\s,(])n(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|node_modules|[a-z]+\.(?:ts|js|json|md))\b/,
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/

/** Whether one entry of the `Identifiers:` line is prose rather than a name. */
export function isProseIdentifier(id) {
  return (CJK.test(id) && (id.includes('/') || id.length > 12)) || id.split(' ').length > 6
}

// Prompts a host sends as a user turn (OpenClaw 2026.9.6's dist and the releases the bundled sessions were
// recorded with; Claude Code's wrappers): never the user's task.
const HOST_PROMPTS = [
  /^A new session was started via \/new or \/reset/i, // OpenClaw's new-session prompt
  /Read HEARTBEAT\.md/i, // OpenClaw's heartbeat prompt (older releases)
  /^Follow the heartbeat monitor scratch context/i, // OpenClaw 2026.9's heartbeat prompt
  /^If working, briefly report progress/i, // a heartbeat / cron progress prompt
  /^Note: Reference memory below/i, // a memory plugin's injected note
  /^\[cron:/i,
  /^System: /,
  /^\[System:/,
  /^(?:HEARTBEAT_OK|NO_REPLY)\b/,
  /\(untrusted metadata\)|<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT|\[media attached|\[message_id:/,
  /^<(?:ide_opened_file|ide_selection|system-reminder|command-name|command-message|local-command-stdout|local-command-caveat)>/,
  /^Caveat: The messages below/,
  // OpenClaw 2026.9's transcript bodies of its own (get-reply-*.mjs), sub-agent task and group-history wrappers
  /^\[OpenClaw (?:session (?:new|reset)|room event|runtime event|interruption)\]|^\[User sent media without caption\]|^\[Subagent (?:Context|Task)\]|^\[(?:Chat messages since your last reply|Recent chat messages) - for context\]|^\[SYSTEM HANDOFF\]|^\[Startup context loaded by runtime\]/,
]

// Greetings, in the languages of the bundled sessions and a few more; matched against the whole task.
const GREETING_WORDS =
  /^(?:(?:hi|hello|hey|hiya|howdy|yo|sup|hallo|hola|bonjour|salut|ciao|ola|olá|привет|здравствуйте|你好|您好|嗨|哈喽|哈囉|早上好|晚上好|下午好|在吗|在嗎|こんにちは|こんばんは|おはよう|안녕하세요|안녕|good (?:morning|afternoon|evening|night)|morning|wake up|are you there|you there|my friend|there|again|all|bot|claw|openclaw)[\s,.!?！？。，~…]*)+$/i

/**
 * Why `task` is not the user's request, or null when it may be: 'empty', 'host' (a host prompt or wrapper),
 * 'greeting' (a greeting, however addressed: `@bot hi`, `ou_123: hello`), 'no-words' (digits, punctuation or
 * emoji only: a bare `1`).
 * @param {string | null | undefined} task
 */
export function taskDefect(task) {
  const t = (task ?? '').trim()
  if (!t) return 'empty'
  if (HOST_PROMPTS.some((re) => re.test(t))) return 'host'
  if (!/\p{L}/u.test(t)) return 'no-words'
  // a leading sender id or mention (`ou_5f3a…:`, `@ann`, `Ann:`) is not part of the greeting
  const bare = t.replace(/^(?:@\S+|[\w.-]*\d[\w.-]*:?|[\p{L}\w.-]{1,32}:)\s+/u, '').replace(/\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f/gu, '').trim()
  if (!bare || !/\p{L}/u.test(bare)) return 'no-words'
  if (GREETING_WORDS.test(bare)) return 'greeting'
  return null
}

/** The restore's body: from `<checkpoint-data>` on (all of it when there is no such fence). */
export function restoreBody(restore) {
  return restore.replace(/^[\s\S]*?<checkpoint-data>/, '')
}

/**
 * The defects of one restore text: `{ credential, host, escaped }` (the lines of each class), `prose` (the prose
 * entries of the `Identifiers:` line), `task` (the `Task:` line's text or null) and `taskDefect` (see above).
 * @param {string} restore
 */
export function restoreDefects(restore) {
  const body = restoreBody(restore)
  const lines = body.split('\n')
  const out = {}
  for (const [k, re] of Object.entries(DEFECT_CLASSES)) out[k] = lines.filter((l) => re.test(l))
  const ids = (body.match(/^Identifiers: (.*)$/m) ?? [])[1] ?? ''
  out.prose = ids ? ids.split(', ').filter(isProseIdentifier) : []
  out.task = (body.match(/^Task: (.*)$/m) ?? [])[1] ?? null
  out.taskDefect = out.task === null ? null : taskDefect(out.task)
  return out
}

/** Counts of a defect scan: `{ credential, host, escaped, prose, badTask }` (lines / entries / 0 or 1). */
export function defectCounts(d) {
  return { credential: d.credential.length, host: d.host.length, escaped: d.escaped.length, prose: d.prose.length, badTask: d.taskDefect ? 1 : 0 }
}
