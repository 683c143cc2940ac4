//! The names the formula language reserves, and "did you mean" hints for a name that is
//! none of the known ones.
//!
//! Owns the lists of builtins, keywords and function names, and the closeness measure the
//! hints use (here and in the scenario compiler, `check` and overrides).

/// A builtin name of the formula language and what it is.
pub struct Builtin {
    /// The name.
    pub name: &'static str,
    /// Reserved: never a variable's, setting's or faction's name (`rounds` is not: a
    /// variable or setting of that name, allowed before the builtin existed, comes first).
    pub reserved: bool,
    /// A whole number, so that a set-indexed variable may take it as its position
    /// (`track[round]`, `track[table_seat]`).
    pub number: bool,
    /// Read of a faction (`seat`, `B.seat`): in a faction's derived value, the faction it
    /// is read for.
    pub faction: bool,
}

/// Every builtin name, in one table: the compiler's lookups, the reserved names, the
/// positions a set-indexed variable takes and the faction builtins all read it.
pub const BUILTIN_TABLE: [Builtin; 12] = [
    builtin("round", true, true, false),
    builtin("rounds", false, true, false),
    builtin("age", true, true, false),
    builtin("age_round", true, true, false),
    builtin("nfactions", true, true, false),
    builtin("drawn", true, true, false),
    builtin("card", true, false, false),
    builtin("seat", true, true, true),
    builtin("table_seat", true, true, true),
    builtin("side", true, true, true),
    builtin("player", true, true, true),
    builtin("eliminated", true, true, true),
];

const fn builtin(name: &'static str, reserved: bool, number: bool, faction: bool) -> Builtin {
    Builtin {
        name,
        reserved,
        number,
        faction,
    }
}

/// The builtin named `name`, if it is one.
fn builtin_named(name: &str) -> Option<&'static Builtin> {
    BUILTIN_TABLE.iter().find(|b| b.name == name)
}

/// Whether `name` is a reserved builtin, never a variable's, setting's or faction's.
pub fn is_builtin(name: &str) -> bool {
    builtin_named(name).is_some_and(|b| b.reserved)
}

/// Whether `name` is a builtin that is a whole number (a set-indexed variable's position).
pub(super) fn is_number_builtin(name: &str) -> bool {
    builtin_named(name).is_some_and(|b| b.number)
}

/// Whether `name` is a builtin that reads a faction.
pub(super) fn is_faction_builtin(name: &str) -> bool {
    builtin_named(name).is_some_and(|b| b.faction)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_names_each_builtin_once_and_its_kinds_agree() {
        for (i, b) in BUILTIN_TABLE.iter().enumerate() {
            assert!(
                BUILTIN_TABLE[..i].iter().all(|o| o.name != b.name),
                "{} twice",
                b.name
            );
            // A faction's builtin is a number (its seat, side, flag), and no builtin is also
            // a keyword.
            assert!(!b.faction || b.number, "{}", b.name);
            assert!(!KEYWORDS.contains(&b.name), "{}", b.name);
        }
        assert!(is_builtin("table_seat") && is_number_builtin("table_seat"));
        assert!(is_faction_builtin("eliminated") && !is_faction_builtin("round"));
        // `rounds` is a number a position may take, but a variable may still be named so.
        assert!(is_number_builtin("rounds") && !is_builtin("rounds"));
        assert!(is_builtin("card") && !is_number_builtin("card"));
    }
}
