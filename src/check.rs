//! Balance assertions: formulas over a run's metrics, judged on the estimate or the interval.
//!
//! Owns the metric language of `vpsim check`. It reuses the expression parser; names resolve
//! to metrics of a [`Summary`], each carried as an estimate with its 95% interval. Arithmetic
//! carries intervals along (interval arithmetic, which is conservative: the intervals of
//! separate rates are not simultaneous). A comparison is judged either on the estimates, or,
//! with [`Judge::Interval`], only passes when it holds for every value in the intervals.

use crate::expr::compile::{edit_distance, suggest};
use crate::expr::parse::{Ast, BinOp, ParseError, parse_expr};
use crate::report::Summary;
use crate::stats::{Val, z_for};

/// How a comparison is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Judge {
    /// On the point estimates.
    Estimate,
    /// Only when it holds over the whole 95% intervals (a failure is then beyond noise... and
    /// a pass is too).
    Interval,
}

/// The outcome of one assertion.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The assertion as written.
    pub expr: String,
    /// Whether it holds.
    pub passed: bool,
    /// For a comparison: the measured side (the left) with its interval, and the other side.
    pub measured: Option<(Val, Val)>,
    /// For `and`, `or` and `not` of comparisons: each comparison's left side as written, its
    /// value and the value it is compared with, so every metric the assertion read shows.
    pub parts: Vec<(String, Val, Val)>,
}

const METRICS: [&str; 16] = [
    "win_rate",
    "shared_rate",
    "loss_rate",
    "draw_rate",
    "nobody_rate",
    "mean_score",
    "mean_rank",
    "rank_rate",
    "end_rate",
    "mean_length",
    "seat_advantage",
    "games",
    "max",
    "min",
    "abs",
    "fair_share",
];

fn faction(s: &Summary, a: &Ast) -> Result<usize, ParseError> {
    match a {
        Ast::Name {
            owner: None,
            name,
            index: None,
            pos,
        } => s
            .factions
            .iter()
            .position(|f| &f.name == name)
            .ok_or_else(|| ParseError {
                pos: *pos,
                msg: format!(
                    "`{name}` is not a faction{}",
                    suggest(name, s.factions.iter().map(|f| &f.name))
                ),
            }),
        other => Err(ParseError {
            pos: other.pos(),
            msg: "expected a faction name".into(),
        }),
    }
}

fn per_faction(s: &Summary, metric: &str, f: usize) -> Option<Val> {
    let fs = &s.factions[f];
    let n = s.games.max(1) as f64;
    let z = z_for(s.confidence);
    Some(match metric {
        "win_rate" => Val::rate(&fs.win),
        "shared_rate" => Val::rate(&fs.shared_win),
        "loss_rate" => Val::rate(&fs.loss),
        "mean_score" => {
            let Some(sp) = fs.score else {
                return Some(Val::point(f64::NAN));
            };
            let half = z * sp.sd / n.sqrt();
            Val {
                est: sp.mean,
                lo: sp.mean - half,
                hi: sp.mean + half,
            }
        }
        "mean_rank" => {
            let m = fs.mean_rank;
            let var = fs
                .ranks
                .iter()
                .map(|r| r.rate.rate * (r.rank as f64 - m).powi(2))
                .sum::<f64>();
            let half = z * (var * n / (n - 1.0).max(1.0)).sqrt() / n.sqrt();
            Val {
                est: m,
                lo: m - half,
                hi: m + half,
            }
        }
        _ => return None,
    })
}

fn err<T>(pos: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        pos,
        msg: msg.into(),
    })
}

fn eval(s: &Summary, a: &Ast, judge: Judge) -> Result<Val, ParseError> {
    Ok(match a {
        Ast::Num(v, _) => Val::point(*v),
        Ast::Int(v, _) => Val::point(*v as f64),
        Ast::Name {
            owner: None,
            name,
            index: None,
            pos,
        } => match name.as_str() {
            "draw_rate" => Val::rate(&s.draws),
            "nobody_rate" => Val::rate(&s.nobody_wins),
            "shared_rate" => Val::rate(&s.shared_wins),
            "games" => Val::point(s.games as f64),
            "fair_share" => Val::point(1.0 / s.factions.len().max(1) as f64),
            "mean_length" => {
                let Some(sp) = s.length.spread else {
                    return Ok(Val::point(f64::NAN));
                };
                let half = z_for(s.confidence) * sp.sd / (s.games.max(1) as f64).sqrt();
                Val {
                    est: sp.mean,
                    lo: sp.mean - half,
                    hi: sp.mean + half,
                }
            }
            "seat_advantage" => {
                // The first seat's win rate above the fair share: whoever sat there when
                // the seats rotated, else the first faction (which always did).
                let fair = 1.0 / s.factions.len().max(1) as f64;
                let w = Val::rate(s.seats.first().map_or(&s.factions[0].win, |r| &r.win));
                Val {
                    est: w.est - fair,
                    lo: w.lo - fair,
                    hi: w.hi - fair,
                }
            }
            "true" => Val::truth(true),
            "false" => Val::truth(false),
            _ if METRICS.contains(&name.as_str()) => {
                return err(
                    *pos,
                    format!(
                        "`{name}` takes arguments: write `{name}(...)` (the README section on \
                         `vpsim check` lists each metric with its arguments)"
                    ),
                );
            }
            _ => {
                let hint = suggest(name, METRICS.iter());
                return err(
                    *pos,
                    format!(
                        "`{name}` is not a metric{hint}; metrics: {}",
                        METRICS.join(", ")
                    ),
                );
            }
        },
        Ast::Name { pos, .. } | Ast::Index(_, _, pos) => {
            return err(*pos, "metrics take factions as arguments: win_rate(First)");
        }
        Ast::Call(name, args, pos) => call(s, name, args, *pos, judge)?,
        Ast::Neg(e, _) => {
            let v = eval(s, e, judge)?;
            Val {
                est: -v.est,
                lo: -v.hi,
                hi: -v.lo,
            }
        }
        Ast::Not(e, _) => Val::truth(eval(s, e, judge)?.est == 0.0),
        Ast::Dice(_, _, p) => return err(*p, "dice have no place in an assertion"),
        Ast::Bin(op, l, r, p) => {
            let (x, y) = (eval(s, l, judge)?, eval(s, r, judge)?);
            let compares = !matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod
            );
            // A summary of no games (the names' check before the run) has no means yet:
            // their NaN is no verdict.
            if compares && s.games > 0 && !(x.est.is_finite() && y.est.is_finite()) {
                return err(
                    *p,
                    format!(
                        "this compares {} with {}: a value that is not a finite number (a \
                         division by zero?) passes or fails nothing",
                        x.est, y.est
                    ),
                );
            }
            match op {
                BinOp::Add => Val {
                    est: x.est + y.est,
                    lo: x.lo + y.lo,
                    hi: x.hi + y.hi,
                },
                BinOp::Sub => Val {
                    est: x.est - y.est,
                    // A spread (`max(m) - min(m)`) cannot be negative, whatever its ends'
                    // intervals allow.
                    lo: if spread_of(l, r) {
                        (x.lo - y.hi).max(0.0)
                    } else {
                        x.lo - y.hi
                    },
                    hi: x.hi - y.lo,
                },
                BinOp::Mul | BinOp::Div => {
                    let f = |a: f64, b: f64| if *op == BinOp::Mul { a * b } else { a / b };
                    let c = [f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)];
                    Val {
                        est: f(x.est, y.est),
                        lo: c.iter().copied().fold(f64::INFINITY, f64::min),
                        hi: c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    }
                }
                BinOp::FloorDiv | BinOp::Mod => return err(a.pos(), "use / for ratios of metrics"),
                BinOp::And => Val::truth(x.est != 0.0 && y.est != 0.0),
                BinOp::Or => Val::truth(x.est != 0.0 || y.est != 0.0),
                cmp => Val::truth(compare(*cmp, x, y, judge)),
            }
        }
    })
}

/// Whether `l - r` is `max(m) - min(m)` over factions of one metric `m`: never negative.
fn spread_of(l: &Ast, r: &Ast) -> bool {
    let agg = |a: &Ast, f: &str| match a {
        Ast::Call(name, args, _) if name == f => match &args[..] {
            [
                Ast::Name {
                    owner: None,
                    name,
                    index: None,
                    ..
                },
            ] => Some(name.clone()),
            _ => None,
        },
        _ => None,
    };
    matches!((agg(l, "max"), agg(r, "min")), (Some(a), Some(b)) if a == b)
}

fn compare(op: BinOp, x: Val, y: Val, judge: Judge) -> bool {
    match judge {
        Judge::Estimate => match op {
            BinOp::Lt => x.est < y.est,
            BinOp::Le => x.est <= y.est,
            BinOp::Gt => x.est > y.est,
            BinOp::Ge => x.est >= y.est,
            BinOp::Eq => x.est == y.est,
            _ => x.est != y.est,
        },
        // Holds for every value in the intervals.
        Judge::Interval => match op {
            BinOp::Lt => x.hi < y.lo,
            BinOp::Le => x.hi <= y.lo,
            BinOp::Gt => x.lo > y.hi,
            BinOp::Ge => x.lo >= y.hi,
            // Equal: the intervals cannot tell them apart; different: they are disjoint.
            BinOp::Eq => x.lo <= y.hi && y.lo <= x.hi,
            _ => x.hi < y.lo || y.hi < x.lo,
        },
    }
}

fn call(
    s: &Summary,
    name: &str,
    args: &[Ast],
    pos: usize,
    judge: Judge,
) -> Result<Val, ParseError> {
    match (name, args) {
        (
            "max" | "min",
            [
                Ast::Name {
                    owner: None,
                    name: m,
                    index: None,
                    pos: mp,
                },
            ],
        ) => {
            // An aggregate over factions: max(win_rate).
            let vals: Vec<Val> = (0..s.factions.len())
                .map(|f| {
                    per_faction(s, m, f).ok_or(ParseError {
                        pos: *mp,
                        msg: format!("`{m}` is not a per-faction metric"),
                    })
                })
                .collect::<Result<_, _>>()?;
            let pick = |g: fn(f64, f64) -> f64, sel: fn(&Val) -> f64| {
                vals.iter().map(sel).fold(
                    if name == "max" {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    },
                    g,
                )
            };
            Ok(if name == "max" {
                Val {
                    est: pick(f64::max, |v| v.est),
                    lo: pick(f64::max, |v| v.lo),
                    hi: pick(f64::max, |v| v.hi),
                }
            } else {
                Val {
                    est: pick(f64::min, |v| v.est),
                    lo: pick(f64::min, |v| v.lo),
                    hi: pick(f64::min, |v| v.hi),
                }
            })
        }
        ("max" | "min", args) if args.len() >= 2 => {
            let vals = args
                .iter()
                .map(|a| eval(s, a, judge))
                .collect::<Result<Vec<_>, _>>()?;
            let f = if name == "max" { f64::max } else { f64::min };
            let start = if name == "max" {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            Ok(Val {
                est: vals.iter().map(|v| v.est).fold(start, f),
                lo: vals.iter().map(|v| v.lo).fold(start, f),
                hi: vals.iter().map(|v| v.hi).fold(start, f),
            })
        }
        ("abs", [a]) => {
            let v = eval(s, a, judge)?;
            let lo = if v.lo <= 0.0 && v.hi >= 0.0 {
                0.0
            } else {
                v.lo.abs().min(v.hi.abs())
            };
            Ok(Val {
                est: v.est.abs(),
                lo,
                hi: v.lo.abs().max(v.hi.abs()),
            })
        }
        ("rank_rate", [f, k]) => {
            let f = faction(s, f)?;
            let k = match k {
                Ast::Int(k, _) if *k >= 1 && (*k as usize) <= s.factions.len() => *k as usize,
                other => {
                    return err(
                        other.pos(),
                        format!("a rank between 1 and {}", s.factions.len()),
                    );
                }
            };
            Ok(Val::rate(&s.factions[f].ranks[k - 1].rate))
        }
        (
            "end_rate",
            [
                Ast::Name {
                    name: r, pos: rp, ..
                },
            ],
        ) => match s.end_reasons.iter().find(|x| &x.name == r) {
            Some(x) => Ok(Val::rate(&x.rate)),
            None => err(
                *rp,
                format!(
                    "`{r}` is not an end reason{}",
                    suggest(r, s.end_reasons.iter().map(|x| &x.name))
                ),
            ),
        },
        (m, [f]) if per_faction(s, m, 0).is_some() || matches!(m, "win_rate" | "mean_score") => {
            let f = faction(s, f)?;
            per_faction(s, m, f).ok_or(ParseError {
                pos,
                msg: format!("`{m}` has no value: no games were played"),
            })
        }
        _ if METRICS.contains(&name) => err(
            pos,
            format!(
                "`{name}` does not take {} argument{} here (the README section on `vpsim check` lists each metric with its arguments)",
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            ),
        ),
        _ => {
            let near = METRICS
                .iter()
                .min_by_key(|m| edit_distance(name, m))
                .copied()
                .unwrap_or("win_rate");
            err(
                pos,
                format!(
                    "`{name}` is not a metric (did you mean `{near}`?); metrics: {}",
                    METRICS.join(", ")
                ),
            )
        }
    }
}

/// Whether `a` is a judgement: a comparison, or `and`, `or`, `not` of judgements.
fn is_judgement(a: &Ast) -> bool {
    match a {
        Ast::Bin(BinOp::And | BinOp::Or, l, r, _) => is_judgement(l) && is_judgement(r),
        Ast::Bin(op, ..) => matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        ),
        Ast::Not(e, _) => is_judgement(e),
        _ => false,
    }
}

/// Parses a metric expression; a percentage written as one (`< 40%`, which reads as a
/// remainder with nothing after it) gets the fraction to write instead.
fn parse_metric(expr: &str) -> Result<Ast, ParseError> {
    parse_expr(expr).map_err(|mut e| {
        if let Some((pos, number)) = percent_literal(expr) {
            let fraction = number
                .parse::<f64>()
                .map_or(0.0, |x| (x * 1e4).round() / 1e6);
            e.pos = pos;
            e.msg = format!(
                "`{number}%` is not a number here: rates are fractions, so write {fraction} for \
                 {number}%"
            );
        }
        e
    })
}

/// The first `NUMBER%` followed by nothing an operand could start (the end, `)`, `,`, a
/// comparison, `and`, `or`): its byte offset and the number.
fn percent_literal(expr: &str) -> Option<(usize, &str)> {
    let b = expr.as_bytes();
    for (i, _) in expr.match_indices('%') {
        let mut j = i;
        while j > 0 && (b[j - 1].is_ascii_digit() || b[j - 1] == b'.') {
            j -= 1;
        }
        let rest = expr[i + 1..].trim_start();
        let ends = rest.is_empty()
            || rest.starts_with([')', ',', '<', '>', '=', '!'])
            || rest.starts_with("and ")
            || rest.starts_with("or ");
        if j < i && ends {
            return Some((j, &expr[j..i]));
        }
    }
    None
}

/// Checks that an assertion is well formed against a summary's names (before any game).
pub fn validate(s: &Summary, expr: &str) -> Result<(), ParseError> {
    let ast = parse_metric(expr)?;
    if !is_judgement(&ast) {
        return err(
            0,
            format!(
                "`{expr}` compares nothing, so it would always pass: write a comparison such \
                 as `{expr} < 0.1`"
            ),
        );
    }
    eval(s, &ast, Judge::Estimate).map(|_| ())
}

/// The value of a metric expression (not a comparison) on a summary, with its interval: what
/// `vpsim tune` aims at.
pub fn metric(s: &Summary, expr: &str) -> Result<Val, ParseError> {
    let ast = parse_metric(expr)?;
    if is_judgement(&ast) {
        return err(
            0,
            format!(
                "`{expr}` is a comparison: give the metric alone, e.g. \
                 `win_rate(First) - win_rate(Second)`"
            ),
        );
    }
    eval(s, &ast, Judge::Estimate)
}

/// Judges an assertion against a summary.
pub fn judge(s: &Summary, expr: &str, judge: Judge) -> Result<Verdict, ParseError> {
    let ast = parse_metric(expr)?;
    if !is_judgement(&ast) {
        return err(0, format!("`{expr}` compares nothing: write a comparison"));
    }
    let v = eval(s, &ast, judge)?;
    let measured = match &ast {
        Ast::Bin(
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne,
            l,
            r,
            _,
        ) => Some((eval(s, l, judge)?, eval(s, r, judge)?)),
        _ => None,
    };
    let mut parts = Vec::new();
    if measured.is_none() {
        let mut found = Vec::new();
        comparisons(&ast, &mut found);
        for (l, r) in found {
            // The left side's text: from its start to the right side's, less the operator.
            let text = expr.get(l.pos()..r.pos()).unwrap_or("").trim_end();
            let text = text
                .trim_end_matches(['<', '>', '=', '!'])
                .trim()
                .to_string();
            parts.push((text, eval(s, l, judge)?, eval(s, r, judge)?));
        }
    }
    Ok(Verdict {
        expr: expr.to_string(),
        passed: v.est != 0.0,
        measured,
        parts,
    })
}

/// The comparisons inside `and`, `or` and `not`, left to right: each one's two sides.
fn comparisons<'a>(a: &'a Ast, out: &mut Vec<(&'a Ast, &'a Ast)>) {
    match a {
        Ast::Bin(BinOp::And | BinOp::Or, l, r, _) => {
            comparisons(l, out);
            comparisons(r, out);
        }
        Ast::Not(e, _) => comparisons(e, out),
        Ast::Bin(_, l, r, _) => out.push((l, r)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_gets_the_fraction_to_write() {
        let e = parse_metric("win_rate(A) < 40%").unwrap_err();
        assert_eq!(e.pos, 14);
        assert!(e.msg.contains("write 0.4 for 40%"), "{}", e.msg);
        assert!(parse_metric("score_mean(A) % 2 == 1").is_ok());
        // A remainder with its operand stays a remainder (and its own error, if any).
        assert_eq!(percent_literal("5 % 2 < 1"), None);
        assert_eq!(percent_literal("(x < 12.5%)"), Some((5, "12.5")));
    }

    #[test]
    fn a_spread_of_one_metric_is_never_negative() {
        let p = |t: &str| parse_expr(t).unwrap();
        let (Ast::Bin(_, l, r, _), Ast::Bin(_, l2, r2, _)) = (
            p("max(win_rate) - min(win_rate)"),
            p("max(win_rate) - min(score_mean)"),
        ) else {
            panic!("a difference parses as one")
        };
        assert!(spread_of(&l, &r));
        assert!(!spread_of(&l2, &r2));
    }
}
