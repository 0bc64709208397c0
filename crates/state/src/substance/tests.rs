//! Tests of what a message says on its own.

use super::*;
use serde_json::json;

#[test]
fn a_number_no_label_carries_is_no_place_in_a_list_numbered_by_its_labels() {
    let tiers = "Right, 4 tiers.\n\n**Four-tier system:**\n- Tier 0: Registered, not verified\n- Tier 1: Passed initiation\n- Tier 2: Parent verified\n- Tier 3: Community recognized\n\nOptions:\n- A) Tier 1 can use some apps\n- B) Tier 1 cannot use any apps\n\nWhat do you think Tier 1 should be able to do?";
    assert_eq!(
        chosen_option(tiers, "actually five, there is tier 4", true),
        None
    );
    assert_eq!(
        chosen_option(tiers, "2", true).as_deref(),
        Some("Tier 2: Parent verified")
    );
    // a list without numbers of its own is still picked by place
    let plain = "Two ways.\n\n- Keep the cache\n- Drop the cache\n\nWhich one?";
    assert_eq!(
        chosen_option(plain, "2", true).as_deref(),
        Some("Drop the cache")
    );
}

#[test]
fn numbers_joined_by_separators_are_one_list() {
    for list in [
        "太好了，立即执行操作1，2，3",
        "great, do 1, 2 and 3 right away",
        "1和3都做",
        "1、2、4",
        "1-3",
        "1到3",
    ] {
        assert!(number_list(list), "{list}");
    }
    for not in [
        "add 2 tests to 3 modules",
        "2 or 3",
        "2还是3",
        "do 2",
        "no numbers here",
    ] {
        assert!(!number_list(not), "{not}");
    }
}

#[test]
fn a_heredoc_marker_before_multi_byte_text_is_read_by_characters() {
    // `<<` followed by a character of several bytes cut the text inside it (a panic)
    assert_eq!(
        without_heredocs("cat <<日本語\nbody\n日本語\nnpm test"),
        "cat <<日本語\nnpm test"
    );
    assert_eq!(without_heredocs("echo a <<é"), "echo a <<é");
    assert_eq!(command_parts("cat <<🙂 && make"), ["make"]);
}

#[test]
fn messages_and_scripts_are_not_part_of_a_command() {
    // a commit message from a heredoc in a command substitution (Claude Code's usual commit)
    let commit = "git add -f priv/static/app.css && git commit -m \"$(cat <<'EOF'\nfeat: rebuild the panel\n\nCo-Authored-By: x\nEOF\n)\" && git log --oneline -1";
    assert_eq!(
        command_parts(commit),
        [
            "git add -f priv/static/app.css",
            "git commit",
            "git log --oneline -1"
        ]
    );
    // a long quoted value with its flag, in either form; later flags stay
    assert_eq!(
        command_parts(
            "bd close spotter-x.1 --reason=\"Enriched the renderer with metadata fields and tests\""
        ),
        ["bd close spotter-x.1"]
    );
    assert_eq!(
        command_parts(
            "gh pr create --title \"Add retry to the HTTP client with backoff and jitter\" --draft"
        ),
        ["gh pr create --draft"]
    );
    // short quoted arguments and patterns are part of the command
    assert_eq!(
        command_parts("git commit -m 'fix typo' && npm test -- -t \"retry policy\""),
        [
            "git commit -m 'fix typo'",
            "npm test -- -t \"retry policy\""
        ]
    );
    assert_eq!(
        command_parts("python3 -c \"$(cat script.py)\" --verbose"),
        ["python3 --verbose"]
    );
    // a program alone after the cut says nothing
    assert_eq!(
        shell_commands("bash -c \"set -e; for f in a b; do echo $f; done\" && make"),
        [("make".to_string(), false)]
    );
    assert_eq!(
        shell_commands("git commit -m \"fix the retry loop\""),
        [("git commit".to_string(), true)]
    );
    assert_eq!(
        command_parts("cd web && npm test 2>&1 | tail -20"),
        ["npm test"]
    );
    assert_eq!(
        command_parts("git commit -m \"WP12: Create rpc-mode.ts\""),
        ["git commit"]
    );
    // shell grammar: a loop's body is its command, the header and closer are none
    assert_eq!(
        command_parts("for f in *.ts; do cp \"$f\" ../out/; done"),
        ["cp \"$f\" ../out/"]
    );
    assert_eq!(
        command_parts("if [ -f Cargo.toml ]; then cargo build; else make; fi"),
        ["cargo build", "make"]
    );
    // a pipe or `;` inside `$( )` belongs to it; setting variables runs nothing; loop
    // control is grammar
    assert_eq!(
        command_parts(
            "while true; do\n  RESULT=$(gh api graphql -f query=\"$Q\")\n  PAGE=$(echo \"$RESULT\" | jq '.n'); TOTAL=$((TOTAL + PAGE))\n  [ \"$PAGE\" = 0 ] && break\ndone\nFOO=1 npm test"
        ),
        ["FOO=1 npm test"]
    );
    assert_eq!(
        command_parts("echo $(date; uptime) && make"),
        ["echo $(date; uptime)", "make"]
    );
    assert_eq!(
        command_parts("(cd web && git add -A && git push); if $ok; then make; fi"),
        ["git add -A", "git push", "make"]
    );
}

#[test]
fn substance_by_structure_in_several_languages() {
    for noise in [
        "",
        "   ",
        "/mode",
        "/the",
        "/compact keep the plan",
        "/モデル",
    ] {
        assert_eq!(substance(noise), Substance::Noise, "{noise:?}");
    }
    for ack in [
        "ok",
        "yes",
        "yeah, do it all",
        "continue",
        "weiter so",
        "はい",
        "да, давай",
        "sí, hazlo",
        "go",
    ] {
        assert_eq!(substance(ack), Substance::Ack, "{ack:?}");
    }
    for content in [
        "fix the failing tests",
        "no deprecation alias!",
        "read src/main.ts",
        "use `setModel` here",
        "https://github.com/x/y/issues/288",
        "do 2 and 3",
        "ログインのバグを直して",
        "bitte die Tests reparieren, danke",
        "исправь падающие тесты пожалуйста",
        "/Users/me/project/a.ts is broken",
    ] {
        assert_eq!(substance(content), Substance::Content, "{content:?}");
    }
}

#[test]
fn questions_and_proposals() {
    assert!(is_question("Shall I proceed?"));
    assert!(is_question("続けますか？"));
    assert!(is_question("**Want me to go on?**"));
    assert!(!is_question("Done."));
    let (q, p) = proposal("Here is the plan.\n\nMove `tools` to core/tools and theme to modes/theme.\n\nShall I proceed?").unwrap();
    assert_eq!(q, "Shall I proceed?");
    assert_eq!(
        p.as_deref(),
        Some("Move `tools` to core/tools and theme to modes/theme.")
    );
    let (q, p) = proposal("Option A or B?").unwrap();
    assert_eq!((q.as_str(), p), ("Option A or B?", None));
    let (q, p) = proposal("Here is the plan. Use SQLite. Postgres or SQLite?").unwrap();
    assert_eq!(q, "Postgres or SQLite?");
    assert_eq!(p.as_deref(), Some("Here is the plan. Use SQLite."));
    let (q, p) = proposal("計画です。よろしいですか？").unwrap();
    assert_eq!(
        (q.as_str(), p.as_deref()),
        ("よろしいですか？", Some("計画です。"))
    );
    let (_, p) = proposal("Wir verschieben die Dateien nach core/.\nSoll ich?").unwrap();
    assert_eq!(
        p.as_deref(),
        Some("Wir verschieben die Dateien nach core/.")
    );
    assert!(proposal("Done. Tomorrow brings another day.").is_none());
    assert!(proposal("").is_none());
}

#[test]
fn shell_prompts_of_pasted_terminal_sessions() {
    for l in [
        "PS C:\\Users\\Digy Agency\\Desktop\\hub> openclaw cron --help",
        ">> --non-interactive",
        "C:\\Windows\\system32>openclaw agents list",
        "$ npm test",
        "jules@vps:~/bot$ openclaw gateway restart",
        "PS /home/jules> ls",
    ] {
        assert!(is_shell_prompt_line(l), "{l}");
    }
    for l in [
        "Please don't restart the gateway",
        "$5 per month is the budget",
        "C:\\Users\\me is my home, use it",
        "email me at a@b.c: thanks",
        "> quoted text",
    ] {
        assert!(!is_shell_prompt_line(l), "{l}");
    }
}

#[test]
fn a_numbered_reply_picks_the_option() {
    let agent = "Three ways:\n1. Keep the cache\n2. **Drop the cache** and rebuild\n3. Move it to SQLite\n\nWhich one?";
    let pick = |r: &str| chosen_option(agent, r, true);
    assert_eq!(pick("3.").as_deref(), Some("Move it to SQLite"));
    assert_eq!(
        pick("lets do 2").as_deref(),
        Some("Drop the cache and rebuild")
    );
    assert_eq!(pick("2番で").as_deref(), Some("Drop the cache and rebuild"));
    assert_eq!(pick("(1)").as_deref(), Some("Keep the cache"));
    assert_eq!(pick("2 or 3"), None);
    assert_eq!(pick("2还是3"), None);
    assert_eq!(pick("7"), None);
    // several numbers: each of the options, in the reply's order; a number not offered, none
    assert_eq!(
        pick("do 1 and 3").as_deref(),
        Some("Keep the cache; Move it to SQLite")
    );
    assert_eq!(
        pick("立即执行1，2，3").as_deref(),
        Some("Keep the cache; Drop the cache and rebuild; Move it to SQLite")
    );
    assert_eq!(
        pick("1-3").as_deref(),
        Some("Keep the cache; Drop the cache and rebuild; Move it to SQLite")
    );
    assert_eq!(pick("2 and 7"), None);
    assert_eq!(pick("3 first then 3"), None);
    assert_eq!(chosen_option("no list here?", "1", true), None);
    // a rule or an emoji after the number is no option
    assert_eq!(chosen_option("1. ---\n2. 🎉\n", "1", true), None);
}

#[test]
fn options_in_bullets_letters_and_labels() {
    // a bulleted list: by place or by its label
    let bullets = "Two ways to store it:\n\n- **Postgres**: durable, needs a server\n- **SQLite**: one file, no server\n\nWhich one?";
    assert_eq!(
        chosen_option(bullets, "lets do 2", true).as_deref(),
        Some("SQLite: one file, no server")
    );
    assert_eq!(
        chosen_option(bullets, "sqlite is enough", true).as_deref(),
        Some("SQLite: one file, no server")
    );
    assert_eq!(chosen_option(bullets, "sqlite is enough", false), None);
    assert_eq!(chosen_option(bullets, "postgres and sqlite", true), None);
    // a label the reply only mentions, or a field every item repeats, picks nothing
    let files = "- **skills.md**: rewritten\n- **hooks.md**: untouched\n\nContinue with hooks.md?";
    assert_eq!(
        chosen_option(files, "open skills.md first so i can review it", true),
        None
    );
    let fields = "**问题**：冷却时间太长\n**建议**：分级响应\n\n**问题**：版本不一致\n**建议**：统一版本号\n\n需要我展开吗？";
    assert_eq!(chosen_option(fields, "没问题再发布", true), None);
    // Option A/B as headings, their text the line below
    let headed = "### Option A\nKeep the cron job hourly.\n\n### Option B\nRun it on every push.\n\nWhich do you prefer?";
    assert_eq!(
        chosen_option(headed, "B please", true).as_deref(),
        Some("Option B: Run it on every push.")
    );
    assert_eq!(
        chosen_option(headed, "b", false).as_deref(),
        Some("Option B: Run it on every push.")
    );
    // "I" is a pronoun unless the agent offered an option I
    assert_eq!(
        chosen_option(headed, "I think A", true).as_deref(),
        Some("Option A: Keep the cron job hourly.")
    );
    // 方案一/二 and 方案A/B, picked by label or letter
    let zh = "**方案一：** 每小时运行一次定时任务\n**方案二：** 每次推送时运行\n\n你选哪个？";
    assert_eq!(
        chosen_option(zh, "选方案二", true).as_deref(),
        Some("方案二： 每次推送时运行")
    );
    let zh_ab = "- 方案A：使用cron\n- 方案B：使用systemd timer\n\n选哪个？";
    assert_eq!(
        chosen_option(zh_ab, "方案B", true).as_deref(),
        Some("方案B：使用systemd timer")
    );
    // `方案1` with its own numbered or bulleted steps: the label, not a step, is picked
    let steps = "**方案1**：删除并重新创建任务\n- 删除当前任务\n1. 创建新任务\n\n**方案2**：等待修复\n1. 关注更新\n\n你希望我执行哪个方案？";
    assert_eq!(
        chosen_option(steps, "方案1", true).as_deref(),
        Some("方案1：删除并重新创建任务")
    );
    assert_eq!(
        chosen_option(steps, "方案1", false).as_deref(),
        Some("方案1：删除并重新创建任务")
    );
    // lettered items
    let lettered = "A) keep it\nB) drop it\n\nOK?";
    assert_eq!(
        chosen_option(lettered, "A", true).as_deref(),
        Some("keep it")
    );
    assert_eq!(chosen_option(lettered, "OK", true), None);
}

#[test]
fn proposals_are_prose_with_letters() {
    // options listed before the question, the last of them ending with a question mark, are
    // what it proposes; a paragraph that asks is not
    let options = "| Tier | Apps |\n|---|---|\n| 0 | no |\n\nOptions:\n- A) Tier 1 can use some apps\n- B) Tier 1 cannot use apps\n- C) Something else?\n\nWhat should Tier 1 be able to do?";
    assert_eq!(
        proposal(options).and_then(|(_, p)| p).as_deref(),
        Some("Options: - A) Tier 1 can use some apps - B) Tier 1 cannot use apps - C) Something else?")
    );
    let asked =
        "We keep the cache in memory.\n\nOr should it live in Redis?\n\nWhich one do you want?";
    assert_eq!(
        proposal(asked).and_then(|(_, p)| p).as_deref(),
        Some("We keep the cache in memory.")
    );
    // a horizontal rule, a table rule, an emoji line or a code block before the question is
    // never the proposal: the nearest paragraph with letters is
    for sep in [
        "---",
        "***",
        "|---|---|",
        "🎉🎉🎉",
        "```bash\ncrontab -e\n\n0 * * * * run\n```",
    ] {
        let text = format!(
            "## 推广方案\n\n**每天发布一篇技能介绍**，周末汇总。\n\n{sep}\n\n是否需要我配置这些推广任务到定时任务中？"
        );
        let (q, p) = proposal(&text).unwrap();
        assert_eq!(q, "是否需要我配置这些推广任务到定时任务中？", "{sep}");
        assert_eq!(
            p.as_deref(),
            Some("每天发布一篇技能介绍，周末汇总。"),
            "{sep}"
        );
    }
    // a table is one part of a proposal: the headings of the section the question closes say
    // what is proposed (the cells of its last table did not)
    let sections = "## 📊 现状分析\n\n| 平台 | 粉丝 |\n|---|---|\n| InStreet | 29 |\n\n## 🎯 推广策略方案\n\n### 方式一：InStreet社区推广\n\n| 时段 | 内容 |\n|---|---|\n| 早8点 | 点赞 |\n\n```md\n# not a heading\n```\n\n### 方式二：互动引流\n\n| 动作 | 操作 |\n|---|---|\n| 评论高Karma帖子 | 每周3-5条 |\n\n---\n\n是否需要我配置这些推广任务到定时任务中？";
    assert_eq!(
        proposal(sections).and_then(|(_, p)| p).as_deref(),
        Some("🎯 推广策略方案: 方式一：InStreet社区推广; 方式二：互动引流")
    );
    // no heading under it: its heading and the table's cells
    let (_, p) =
        proposal("## Plan\n\n| step | owner |\n|---|---|\n| migrate | me |\n\nGo ahead?").unwrap();
    assert_eq!(p.as_deref(), Some("Plan: step, owner; migrate, me"));
    // no heading: the table's cells
    let (_, p) = proposal("| step | owner |\n|---|---|\n| migrate | me |\n\nGo ahead?").unwrap();
    assert_eq!(p.as_deref(), Some("step, owner; migrate, me"));
    // a heading's marks are not part of the gist
    let (_, p) = proposal("# Plan: move the store to SQLite\n\n---\n\nShall I?").unwrap();
    assert_eq!(p.as_deref(), Some("Plan: move the store to SQLite"));
    // nothing with letters before the question: the question alone
    let (_, p) = proposal("---\n\n🎉\n\nOK?").unwrap();
    assert_eq!(p, None);
    assert_eq!(
        prose_paragraphs("a b\n\n```\nx\n\ny\n```\n\n---\n\nDone."),
        ["a b", "Done."]
    );
    // a table is its cells
    assert_eq!(
        plain("| 动作 | 频率 |\n|------|------|\n| 打卡 | 每天 |"),
        "动作, 频率; 打卡, 每天"
    );
    assert!(asks("任务处理完了吗") && asks("開發結束了嗎？") && asks("done?"));
    assert!(!asks("用PostgreSQL，不要SQLite") && !asks("好的"));
    // without a mark: a particle, a question piece, an English question's opening
    for q in [
        "你是什么模型",
        "这个怎么样呢",
        "テレグラムのリストはわかりますか",
        "did you surf anywhere",
        "what about Redis",
        "why does the job fail every night",
    ] {
        assert!(asks(q), "{q}");
    }
    for not in [
        "do it now",
        "do this first, then the tests",
        "what i mean is two nodes at least",
        "is fine, keep it",
        "ok, use h4 heading then",
        "没什么问题，继续",
    ] {
        assert!(!asks(not), "{not}");
    }
    assert_eq!(
        report_gist("Migrated the store.\n\nAll 42 tests pass.\n\n---\n").as_deref(),
        Some("All 42 tests pass.")
    );
}

#[test]
fn names_and_pasted_text() {
    for named in [
        "用PostgreSQL，不要SQLite",
        "use SQLite",
        "换成redis吧",
        "GitHub Actions",
    ] {
        assert!(names_something(named), "{named}");
    }
    for not in [
        "ok",
        "Thanks",
        "Ok, Thanks!",
        "好的",
        "谢谢",
        "OK",
        "好的OK",
        "LGTM",
    ] {
        assert!(!names_something(not), "{not}");
    }
    assert!(mostly_pasted("https://example.com/a/very/long/path?x=1"));
    assert!(mostly_pasted("`npm run build --workspace web`"));
    assert!(mostly_pasted("see ```x```"));
    assert!(!mostly_pasted("use `setModel` in the loader"));
    assert!(!mostly_pasted("用PostgreSQL，不要SQLite"));
}

#[test]
fn call_subjects_and_commands() {
    assert_eq!(
        call_subject(
            &json!({"command": "cd /x/y && npm run check 2>&1 | tail -30"}),
            80
        )
        .as_deref(),
        Some("npm run check")
    );
    assert_eq!(
        call_subject(&json!({"path": "src/a.ts", "oldText": "x"}), 80).as_deref(),
        Some("src/a.ts")
    );
    assert_eq!(
        call_subject(&json!({"q": 1}), 80).as_deref(),
        Some(r#"{"q":1}"#)
    );
    // a call without a command or a path: what it was about, its text values, longest first
    assert_eq!(
        call_subject(&json!({"url": "http://127.0.0.1:9/tenants"}), 80).as_deref(),
        Some("http://127.0.0.1:9/tenants")
    );
    assert_eq!(
        call_subject(
            &json!({"query": "openclaw  release notes", "count": 5, "freshness": "pw"}),
            80
        )
        .as_deref(),
        Some("openclaw release notes pw")
    );
    assert_eq!(call_subject(&json!({}), 80), None);
    assert_eq!(
        call_subject(&json!({"command": "test -s  out.txt"}), 80).as_deref(),
        Some("test -s out.txt"),
        "no working command: as written"
    );
    assert_eq!(
        command_parts("cd a; git add -A && git commit -m x > /dev/null || true"),
        ["git add -A", "git commit -m x", "true"]
    );
    // here-document bodies and list lines are not commands
    assert_eq!(
        command_parts(
            "cat > /tmp/a.py <<'EOF'\nimport os\nprint(os.getcwd())\nEOF\npython3 /tmp/a.py"
        ),
        ["python3 /tmp/a.py"]
    );
    assert_eq!(
        command_parts("python3 - <<EOF\nfor x in y:\n    run(x)\nEOF"),
        ["python3 -"]
    );
    assert_eq!(
        command_parts("1. Go to: https://example.com\n- then click"),
        Vec::<String>::new()
    );
    assert_eq!(command_parts("FOO=1 ./run.sh"), ["FOO=1 ./run.sh"]);
    // operators inside quotes are text
    assert_eq!(
        command_parts(r#"grep -n "a\|b && c" f.ts | head; echo 'x;y'"#),
        [r#"grep -n "a\|b && c" f.ts"#, "echo 'x;y'"]
    );
}

#[test]
fn fold_keys_ignore_case_markup_and_spacing() {
    assert_eq!(fold_key("Fix the bug"), fold_key("- fix the bug"));
    assert_eq!(fold_key("**Fix** the `bug`."), fold_key("  fix   the bug "));
    assert_eq!(fold_key("1. Fix the bug"), "fix the bug");
    assert_ne!(fold_key("Fix the bug"), fold_key("Fix the bugs"));
    assert_eq!(fold_key("Ärger beheben"), fold_key("ärger BEHEBEN"));
}

#[test]
fn code_spans_outside_fences() {
    let t = "Use `AgentSession` and `setModel()`.\n```ts\nconst `x` = 1\n```\nthen ` ` and `npm run check`";
    assert_eq!(
        code_spans(t),
        ["AgentSession", "setModel()", "npm run check"]
    );
    // markdown inside a template literal escapes its backticks
    let t = r"Include \`outputType\` and the path (e.g., \`packages/api/AGENTS.md\`).";
    assert_eq!(code_spans(t), ["outputType", "packages/api/AGENTS.md"]);
}

#[test]
fn a_commits_message_is_its_body_in_paragraphs_without_its_signature() {
    // Claude Code's form: a here-document in a substitution, wrapped at 72 columns, signed
    let heredoc = "git add -A && git commit -m \"$(cat <<'EOF'\nfix(e2e): increase timeouts\n\nThe helper had a 15s timeout which is too\ntight for cold IPNS resolution in CI.\n\n- Bumped to 30s\n- Added a 90s test timeout\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"";
    assert_eq!(
        command_messages(heredoc),
        ["The helper had a 15s timeout which is too tight for cold IPNS resolution in CI.\n\n- Bumped to 30s\n- Added a 90s test timeout"]
    );
    // flags written together (`-am`); `-m` twice: the second is a paragraph of the body;
    // `--message=`; the address redacted
    assert_eq!(
        command_messages("git commit -am \"fix: tiers\n\nThe fourth tier.\""),
        ["The fourth tier."]
    );
    assert_eq!(
        command_messages(
            "git commit -m \"feat: tiers\" -m \"Adds the fourth tier, as the parents asked.\""
        ),
        ["Adds the fourth tier, as the parents asked."]
    );
    assert_eq!(
        command_messages("git tag -a v1.2 --message='Release with the importer'"),
        ["Release with the importer"]
    );
    assert_eq!(
        command_messages("git commit -m 'wip' -m 'Co-Authored-By: [redacted] <[REDACTED_EMAIL]>'"),
        Vec::<String>::new()
    );
    // a body's own line that says it was generated is no credit line
    assert_eq!(
        command_messages("git commit -m 'perf: report' -m 'Generated with the new parser, the report is a third smaller.'"),
        ["Generated with the new parser, the report is a third smaller."]
    );
    // a subject alone says nothing more than the commit's own line; no message, none
    assert!(command_messages("git commit -m \"fix: the parser\"").is_empty());
    // a flag's name, not a text: a module (`python3 -m pytest`)
    assert!(command_messages("python3 -m pytest -q").is_empty());
    assert!(command_messages("ls -la").is_empty());
}
