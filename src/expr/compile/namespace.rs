//! What a name refers to: the faction an owner names ([`Compiler::who`]), what a name
//! already names in the scenario or the language ([`Compiler::name_kind`]), and an element's
//! name read as a value ([`Compiler::element_position`]).

use super::*;

impl Compiler<'_> {
    /// The faction an owner names (`B.x`, `me.x`, `target.x`), or the faction in scope for
    /// none.
    pub(super) fn who(
        &self,
        owner: &Option<(String, usize)>,
        ctx: Ctx,
        pos: usize,
    ) -> Result<Who, ParseError> {
        match owner {
            None if ctx.bound => Ok(Who::Bound),
            None => err(
                pos,
                "this refers to a faction variable but no faction is in scope here: name one \
                 (`Faction.var`) or use an aggregate such as max_all(...)",
            ),
            Some((o, p)) if o == "me" => {
                if ctx.me {
                    Ok(Who::Me)
                } else {
                    err(
                        *p,
                        "`me` is only defined where a faction acts (faction phases, actions, ranking)",
                    )
                }
            }
            Some((o, p)) if o == "target" => {
                if ctx.target {
                    Ok(Who::Target)
                } else {
                    err(
                        *p,
                        "`target` is only defined in an action with `target = \"other\"`",
                    )
                }
            }
            Some((o, p)) => match self.syms.factions.get(o) {
                Some(&f) => Ok(Who::Fixed(f)),
                None => err(
                    *p,
                    format!(
                        "`{o}` is not a faction{}",
                        suggest(o, self.syms.factions.keys())
                    ),
                ),
            },
        }
    }

    /// The 1-based position of element `name` in the sets that have it (`None` when none
    /// does); refused when two sets have it at different positions.
    pub(super) fn element_position(
        &self,
        name: &str,
        pos: usize,
    ) -> Result<Option<i64>, ParseError> {
        let mut found: Vec<(&str, i64)> = Vec::new();
        for (set, s) in &self.syms.sets {
            if let Some(i) = s.elements.iter().position(|e| e == name) {
                found.push((set.as_str(), i as i64 + 1));
            }
        }
        found.sort_unstable();
        match found.as_slice() {
            [] => Ok(None),
            [(_, p), rest @ ..] if rest.iter().all(|(_, q)| q == p) => Ok(Some(*p)),
            _ => {
                let at: Vec<String> = found.iter().map(|(s, p)| format!("{p} in `{s}`")).collect();
                err(
                    pos,
                    format!(
                        "`{name}` is an element at different positions ({}): write the position \
                         you mean as a number or a setting",
                        at.join(", ")
                    ),
                )
            }
        }
    }

    /// What `name` already names in the scenario or the language ("a variable", "a
    /// faction", "a builtin"...), or `None` for a new name.
    pub(super) fn name_kind(&self, name: &str) -> Option<&'static str> {
        let s = self.syms;
        [
            (s.vars.contains_key(name), "a variable"),
            (s.settings.contains_key(name), "a setting"),
            (s.derived.contains_key(name), "a derived value"),
            (s.factions.contains_key(name), "a faction"),
            (s.sides.contains_key(name), "a side"),
            (s.sets.contains_key(name), "a set"),
            (s.decks.contains_key(name), "a deck"),
            (names::is_builtin(name), "a builtin"),
            (names::KEYWORDS.contains(&name), "a reserved word"),
        ]
        .into_iter()
        .find_map(|(taken, kind)| taken.then_some(kind))
    }
}
