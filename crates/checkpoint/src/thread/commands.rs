//! Commands: the shell commands the agent ran, the working part of each, most used first.

use super::*;

/// Programs that keep house (make a directory, move, copy or remove files, set a variable):
/// they change something, but nothing a person would run again to get back into the work.
pub(super) const HOUSEKEEPING: &[&str] = &[
    "mkdir", "rmdir", "rm", "cp", "mv", "touch", "chmod", "chown", "ln", "kill", "pkill",
    "killall", "export", "source", ".", "set", "unset", "alias", "clear", "open", "xdg-open",
    "exit", "wait", "trap", "shopt", "read", "umask",
];

/// True for a command that weighs less: a look around ([`looks_around`]) or housekeeping
/// ([`HOUSEKEEPING`]).
pub(super) fn minor(command: &str) -> bool {
    let program = command
        .split_whitespace()
        .find(|w| !w.contains('=') || w.starts_with('-'))
        .unwrap_or_default();
    looks_around(command) || HOUSEKEEPING.contains(&program.rsplit('/').next().unwrap_or(program))
}

/// The shell line of a tool call's `command` argument: a string (pi, OpenClaw's `exec`, Claude
/// Code's `Bash`), or an argument vector (`["bash", "-lc", "npm test"]` -> `npm test`,
/// `["npm", "test"]` -> `npm test`).
pub(super) fn shell_line(args: &Value) -> Option<Cow<'_, str>> {
    match args.get("command")? {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Array(argv) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            let shell = words.len() == 3
                && ["sh", "bash", "zsh"].contains(&words[0].rsplit('/').next().unwrap_or(""))
                && words[1].starts_with('-')
                && words[1].ends_with('c');
            Some(Cow::Owned(if shell {
                words[2].to_string()
            } else {
                words.join(" ")
            }))
        }
        _ => None,
    }
}

/// True for a command that does nothing to retype: it prints a label or waits (`echo "==="`,
/// `sleep 2`, `true`), or it only sets a variable to a credential, redacted when captured
/// (`export API_TOKEN="[redacted]"`: nothing is left to set).
pub(super) fn says_nothing(command: &str) -> bool {
    if command.contains(context_state::secrets::REDACTED)
        && command
            .split_whitespace()
            .all(|w| w == "export" || w.contains('='))
    {
        return true;
    }
    let program = command.split_whitespace().next().unwrap_or_default();
    matches!(
        program,
        "echo" | "printf" | "true" | "false" | ":" | "sleep" | "clear" | "exit" | "wait"
    )
}

/// Weight of a use of a minor command (a working command's use weighs 1).
pub(super) const MINOR_WEIGHT: f64 = 0.3;

/// Shell commands from the `command` argument of the agent's tool calls (heredoc bodies, list
/// lines and messages are not commands: [`shell_commands`]), ranked by how often and how lately
/// the agent ran them. A command that builds, tests or changes something counts from its first
/// run; a look around or housekeeping ([`minor`]: `ls`, `grep`, `git status`, `mkdir -p`) weighs
/// less and only when the agent kept running it.
pub(super) fn commands(walk: &Walk) -> Vec<String> {
    let n = walk.lines.len();
    let mut commands = Tally::default();
    let mut lesser: HashSet<String> = HashSet::new();
    for (at, _, args) in walk.calls() {
        if let Some(cmd) = shell_line(args) {
            // (a credential in a command is redacted before it is kept: issue 27)
            let cmd = context_state::secrets::redact(&cmd);
            for (part, cut) in shell_commands(&cmd) {
                if part.chars().count() > COMMAND_CHARS || says_nothing(&part) {
                    continue;
                }
                // a command whose message was cut (`git commit`) did what its message said
                let less = cut || minor(&part);
                if less {
                    lesser.insert(part.clone());
                }
                commands.add(&part, if less { MINOR_WEIGHT } else { 1.0 }, at, n);
            }
        }
    }
    commands
        .items
        .retain(|k, u| u.uses >= 2 || !lesser.contains(k));
    commands.ranked(MAX_COMMANDS)
}
