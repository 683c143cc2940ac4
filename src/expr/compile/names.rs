//! The names the formula language reserves, and "did you mean" hints for a name that is
//! none of the known ones.
//!
//! Owns the lists of builtins, keywords and function names, and the closeness measure the
//! hints use (here and in the scenario compiler, `check` and overrides).

/// Builtin names that are never variables.
pub const BUILTINS: [&str; 11] = [
    "round",
    "age",
    "age_round",
    "nfactions",
    "seat",
    "table_seat",
    "side",
    "player",
    "drawn",
    "card",
    "eliminated",
];

/// The builtins that are whole numbers, so that a set-indexed variable may take one as its
/// position (`track[round]`, `track[table_seat]`): every numeric builtin, `rounds` included.
pub(super) const NUMBER_BUILTINS: [&str; 11] = [
    "round",
    "rounds",
    "age",
    "age_round",
    "nfactions",
    "drawn",
    "seat",
    "table_seat",
    "side",
    "player",
    "eliminated",
];

/// Reserved words of the statement and expression syntax.
pub const KEYWORDS: [&str; 27] = [
    "and", "or", "not", "if", "else", "each", "others", "end", "draw", "order", "by", "true",
    "false", "me", "award", "scale", "ties", "as", "race", "win", "lose", "split", "zero", "take",
    "for", "discard", "complete",
];

/// The function names offered as hints after an unknown one.
pub(super) const FUNCTIONS: [&str; 33] = [
    "held",
    "completed",
    "has_completed",
    "min",
    "max",
    "abs",
    "floor",
    "ceil",
    "round",
    "clamp",
    "row",
    "col",
    "cell",
    "if",
    "uniform",
    "random",
    "bernoulli",
    "binomial",
    "poisson",
    "normal",
    "roll",
    "choice",
    "weighted",
    "left",
    "sum_all",
    "max_all",
    "min_all",
    "count_all",
    "sum_others",
    "max_others",
    "min_others",
    "count_others",
    "sum_in",
];

/// " (did you mean `x`?)" for the closest known name, or nothing.
pub fn suggest<'a>(
    name: &str,
    known: impl Iterator<Item = &'a (impl AsRef<str> + 'a + ?Sized)>,
) -> String {
    // Case is ignored when measuring (`vP` finds `Vp`), then breaks ties.
    let lower = name.to_lowercase();
    let best = known
        .map(|k| k.as_ref())
        .filter(|k| *k != name)
        .map(|k| {
            let d = edit_distance(&lower, &k.to_lowercase());
            ((d, edit_distance(name, k)), k)
        })
        .filter(|((d, _), k)| *d <= 2.max(k.len() / 3))
        .min();
    match best {
        Some((_, k)) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    }
}

/// Levenshtein distance, for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
