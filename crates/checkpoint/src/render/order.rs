//! The budgeted selection: what the restore drops first when the full text is too long.

use super::*;

/// Content the budget may drop, least important first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Piece {
    Learning(usize),
    /// A file, by its rank in [`ranked_files`].
    File(usize),
    Tool(usize),
    Identifier(usize),
    Command(usize),
    Exchange(usize),
    Summary,
    Decision(usize),
    Constraint(usize),
}

/// One draft of the text: the pieces the budget drops in it (the first `dropped` of the drop
/// order).
pub(super) struct Draft {
    gone: std::collections::HashSet<Piece>,
}

impl Draft {
    pub(super) fn new(order: &[Piece], dropped: usize) -> Draft {
        Draft {
            gone: order[..dropped.min(order.len())].iter().copied().collect(),
        }
    }

    /// Whether the draft shows `piece`.
    pub(super) fn keeps(&self, piece: Piece) -> bool {
        !self.gone.contains(&piece)
    }

    /// The items of `list` the draft shows: neither `hidden` (said elsewhere; an index past its
    /// end is not) nor dropped, the item at index `i` being the piece `piece(i)`.
    pub(super) fn shown<'a, T>(
        &'a self,
        list: &'a [T],
        hidden: &'a [bool],
        piece: fn(usize) -> Piece,
    ) -> impl Iterator<Item = &'a T> + 'a {
        list.iter()
            .enumerate()
            .filter(move |(i, _)| hidden.get(*i) != Some(&true) && self.keeps(piece(*i)))
            .map(|(_, item)| item)
    }
}

/// Constraints (the newest) kept until every decision is gone; the older go before the names.
pub(super) const NEWEST_CONSTRAINTS: usize = 1;
/// Decisions (the newest) kept until the names are gone; the older go with the older
/// constraints, before the names: a long chat records a decision at many replies.
pub(super) const NEWEST_DECISIONS: usize = 2;
/// Items of a list (files, identifiers, commands) whose rank is weighed against the other lists'
/// in proportion; the items after them are dropped first.
pub(super) const PROPORTION_ITEMS: usize = 100;
/// How much faster than the files and identifiers the commands drop (by rank, in proportion):
/// a command line takes many tokens for the names it holds (measured over the bundled and
/// validation restores: 2.9 of a real summary's items per 100 tokens, identifiers 6.9, files 11).
pub(super) const COMMAND_PACE: f64 = 2.0;

/// Least valuable first: tools, the thread summary, the learnings, the user's older constraints
/// and all but the [`NEWEST_DECISIONS`] newest decisions; then files, identifiers, commands and
/// key exchanges together, each list from its least valuable up (files, identifiers and
/// commands from the least active, the key exchanges from the least salient by the briefing's
/// ranking, [`exchange_order`]), each dropped in proportion to its length (up to
/// [`PROPORTION_ITEMS`]; the items after those go first), a file the work changed at
/// [`MODIFIED_PACE`], the commands [`COMMAND_PACE`] times as fast and the
/// key exchanges [`EXCHANGE_PACE`] times; then the newest decisions and the
/// newest constraint. The task, working state, next action and open items are never in it.
pub(super) fn drop_order(
    cp: &Checkpoint,
    file_list: &[(String, bool)],
    as_summary: bool,
) -> Vec<Piece> {
    let mut v = Vec::new();
    v.extend((0..cp.resources.tools_used.len()).map(Piece::Tool));
    if cp.thread.summary.is_some() {
        v.push(Piece::Summary);
    }
    // the key exchanges, least salient first: in a restore appended to OpenClaw's summary
    // (default mode, 800 tokens) before everything else, the names being what it adds to that
    // summary; in a summary of its own (replace mode) beside the names, below
    let exchanges = exchange_order(cp);
    if !as_summary {
        v.extend(exchanges.iter().rev().map(|&i| Piece::Exchange(i)));
    }
    v.extend((0..cp.learnings.len()).map(Piece::Learning));
    // the user's older constraints before the names; the newest last of all
    let nc = cp.constraints.len();
    let newest = nc.saturating_sub(NEWEST_CONSTRAINTS);
    v.extend((0..newest).map(Piece::Constraint));
    let nd = cp.decisions.len();
    let newest_decision = nd.saturating_sub(NEWEST_DECISIONS);
    v.extend((0..newest_decision).map(Piece::Decision));
    // rank r of a list of n: key (r + 1) / n; the highest key (the least valuable) goes first
    let mut ranked: Vec<(f64, u8, Piece)> = Vec::new();
    // (rank r of a list of n, at the pace `pace(r)`)
    let mut add =
        |n: usize, class: u8, pace: &dyn Fn(usize) -> f64, piece: &dyn Fn(usize) -> Piece| {
            // beyond the first PROPORTION_ITEMS of a list, items go before any of another list's
            // first ones: a long tail of identifiers does not push out the most active files
            let scale = n.min(PROPORTION_ITEMS) as f64;
            for r in 0..n {
                ranked.push((pace(r) * (r + 1) as f64 / scale, class, piece(r)));
            }
        };
    // one list of files, most active first, a file the work changed at its own pace
    let file_pace = |r: usize| if file_list[r].1 { MODIFIED_PACE } else { 1.0 };
    add(file_list.len(), 0, &file_pace, &Piece::File);
    add(
        cp.resources.identifiers.len(),
        1,
        &|_| 1.0,
        &Piece::Identifier,
    );
    add(
        cp.resources.commands.len(),
        2,
        &|_| COMMAND_PACE,
        &Piece::Command,
    );
    if as_summary {
        add(exchanges.len(), 3, &|_| EXCHANGE_PACE, &|r| {
            Piece::Exchange(exchanges[r])
        });
    }
    ranked.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    v.extend(ranked.into_iter().map(|(_, _, p)| p));
    v.extend((newest_decision..nd).map(Piece::Decision));
    v.extend((newest..nc).map(Piece::Constraint));
    v
}

/// How fast the files the work changed are dropped beside the names and the files read (a
/// name's pace is 1): what the agent changed is the fact it most needs as written. Measured on the
/// bundled and validation checkpoints at 800 tokens: at 1, 86.6 % of the files modified were in
/// the restore as written; at 0.5, 92.1 % (at the real compactions, eval:restore: 91.1 -> 96.8 %),
/// for 0.4 points of summary recall (68.6 -> 68.1 %).
pub(super) const MODIFIED_PACE: f64 = 0.5;

/// How fast the key exchanges are dropped beside the names in a summary of its own (a name's
/// pace is 1). Measured at 2,000 tokens once the lines carried no speaker but the user's
/// (eval:restore, bundled; validation): at 2, ROUGE-2 F1 54.1 % of the oracle (58.6 %), 1.46x the
/// naive text (1.48x), summary recall 79.1 % (75.0 %), names needed next 77.8 % (90.3 %); at 1.5,
/// 54.7 % (61.9 %), 1.47x (1.56x), 78.7 % (74.5 %), 76.6 % (90.3 %): the summary says more of
/// what a summary says on both sets, for a few of the names on the bundled one.
pub(super) const EXCHANGE_PACE: f64 = 1.5;

/// The key exchanges, most salient first ([`crate::briefing::salience`] over their text, the
/// later ones weighing more: what the agent was doing last is where the work stands).
pub(super) fn exchange_order(cp: &Checkpoint) -> Vec<usize> {
    let ex = &cp.thread.key_exchanges;
    let n = ex.len() as f64;
    let texts: Vec<&str> = ex.iter().map(|e| e.gist.as_str()).collect();
    let prior: Vec<f64> = (0..ex.len()).map(|i| 0.5 + (i + 1) as f64 / n).collect();
    let (_, scores) = crate::briefing::salience(&texts, &prior);
    let mut order: Vec<usize> = (0..ex.len()).collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .partial_cmp(&scores[a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.cmp(&a))
    });
    order
}
