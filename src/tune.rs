//! Auto-balance: the searches behind `vpsim tune`.
//!
//! Owns the goal (a metric expression that should equal a value, or be as small as it can),
//! the parameters with their bounds, and the two searches over them. Every candidate is
//! scored by a caller-supplied evaluator that plays the same games (common random numbers),
//! so two candidates differ only by the parameters, and the objective seen by a search is a
//! deterministic function of them for a given seed.
//!
//! - One parameter and `EXPR = VALUE`: bisection on the sign of `EXPR - VALUE` between the
//!   bounds, then the root by the secant of the last bracket. The local slope turns the
//!   confirmation run's interval for the metric into an interval for the parameter's value.
//!   It comes from the narrowest bracket whose ends differ by more than twice the sum of
//!   their half-widths: narrower brackets measure noise (and, on common random numbers, the
//!   small steps a metric takes as one game flips), not the slope.
//! - Otherwise (several parameters, or `minimize EXPR`): a compass (pattern) search inside
//!   the bounds, on `|EXPR - VALUE|` or on `EXPR`: poll each parameter one step up and down,
//!   move to the first strict improvement, halve the steps when none improves.
//!
//! After either, [`within_noise`] names the trials that the search's games cannot tell from
//! the best, and for one whole-number parameter, [`whole_sides`] and [`Whole`] judge the whole
//! values on each side of the crossing, since no value between them can be set.
//!
//! Both are written here rather than taken from a crate: the searches of `argmin` (the
//! well-kept Rust optimisation crate) are unbounded and continuous, while these need bounds,
//! whole-number parameters and a fixed budget of evaluations; each is some forty lines.

use crate::stats::Val;

mod tuned;
pub use tuned::{
    Budget, Measured, Refined, Sides, Tuned, Whole, tune, value_interval, whole_sides,
};

/// A parameter to tune: a dotted scenario path and its bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Dotted path, as `--set` takes it.
    pub path: String,
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
    /// Whether only whole numbers are tried.
    pub integer: bool,
}

impl Param {
    /// Parses `PATH=LO:HI`. Whole-number bounds (no `.` or exponent, as in `2:6`) make a
    /// whole-number parameter; `0.0:1.0` makes a real one.
    pub fn parse(s: &str) -> Result<Param, String> {
        let (path, spec) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not PATH=LO:HI (for example settings.q=0.2:0.6)"))?;
        let (lo_s, hi_s) = spec
            .split_once(':')
            .ok_or_else(|| format!("`{spec}` is not LO:HI (for example 0.2:0.6)"))?;
        let num = |v: &str| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("`{v}` in `{s}` is not a number"))
        };
        let (lo, hi) = (num(lo_s)?, num(hi_s)?);
        if lo >= hi {
            return Err(format!("`{spec}`: LO must be below HI"));
        }
        let whole = |v: &str| !v.contains(['.', 'e', 'E']);
        let path = path.trim().to_string();
        if path.is_empty() {
            return Err(format!("`{s}` names no parameter"));
        }
        Ok(Param {
            path,
            lo,
            hi,
            integer: whole(lo_s) && whole(hi_s),
        })
    }

    /// `x` as a value this parameter takes: inside the bounds, a whole number for a
    /// whole-number parameter, and otherwise rounded to 6 decimals (what `--set` is given).
    pub fn snap(&self, x: f64) -> f64 {
        let x = x.clamp(self.lo, self.hi);
        if self.integer {
            x.round().clamp(self.lo.ceil(), self.hi.floor())
        } else {
            (x * 1e6).round() / 1e6
        }
    }

    /// A value as `--set` takes it.
    pub fn show(&self, x: f64) -> String {
        if self.integer {
            format!("{}", x as i64)
        } else {
            let s = format!("{x:.6}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s == "-0" { "0".into() } else { s.into() }
        }
    }
}

/// What a tune aims for.
#[derive(Debug, Clone, PartialEq)]
pub enum Goal {
    /// `EXPR = VALUE`.
    Equal {
        /// The metric expression.
        expr: String,
        /// The value it should take.
        value: f64,
    },
    /// `minimize EXPR`.
    Minimize {
        /// The metric expression.
        expr: String,
    },
}

impl Goal {
    /// Parses `EXPR = VALUE` or `minimize EXPR` (`maximize EXPR` minimizes `-(EXPR)`).
    pub fn parse(s: &str) -> Result<Goal, String> {
        let t = s.trim();
        let word = |w: &str| {
            t.strip_prefix(w)
                .filter(|r| r.starts_with(char::is_whitespace))
                .map(str::trim)
        };
        if let Some(e) = word("minimize") {
            return Ok(Goal::Minimize { expr: e.into() });
        }
        if let Some(e) = word("maximize") {
            return Ok(Goal::Minimize {
                expr: format!("-({e})"),
            });
        }
        // The one `=` that is not part of `==`, `<=`, `>=` or `!=`.
        let b = t.as_bytes();
        let at: Vec<usize> = (0..b.len())
            .filter(|&i| {
                b[i] == b'='
                    && !(i > 0 && matches!(b[i - 1], b'=' | b'<' | b'>' | b'!'))
                    && b.get(i + 1) != Some(&b'=')
            })
            .collect();
        let [i] = at[..] else {
            return Err(format!(
                "`{s}` is not a goal: write EXPR = VALUE (for example `win_rate(A) - \
                 win_rate(B) = 0`) or `minimize EXPR` (for example `minimize \
                 max(win_rate) - min(win_rate)`)"
            ));
        };
        let (expr, value) = (t[..i].trim(), t[i + 1..].trim());
        let value = value
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                // A formula on the right (`= fair_share`) moves to the left, against 0.
                let hint = if value.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (to aim at a formula, move it to the left: `{} - ({value}) = 0`)",
                        t[..i].trim()
                    )
                };
                format!("`{value}` in `{s}` is not a number: write EXPR = VALUE{hint}")
            })?;
        if expr.is_empty() {
            return Err(format!("`{s}` has no expression before `=`"));
        }
        Ok(Goal::Equal {
            expr: expr.into(),
            value,
        })
    }

    /// The value the metric should take (`None` for `minimize`).
    pub fn target(&self) -> Option<f64> {
        match self {
            Goal::Equal { value, .. } => Some(*value),
            Goal::Minimize { .. } => None,
        }
    }

    /// The metric expression.
    pub fn expr(&self) -> &str {
        match self {
            Goal::Equal { expr, .. } | Goal::Minimize { expr } => expr,
        }
    }

    /// What a search minimizes, from a metric's estimate.
    pub fn loss(&self, v: &Val) -> f64 {
        let x = match self {
            Goal::Equal { value, .. } => (v.est - value).abs(),
            Goal::Minimize { .. } => v.est,
        };
        if x.is_nan() { f64::INFINITY } else { x }
    }

    /// What [`Goal::loss`] is, in short lines for a chart's color bar.
    pub fn loss_words(&self) -> Vec<String> {
        match self {
            Goal::Equal { value, .. } => vec![
                "distance from".into(),
                "the goal:".into(),
                format!("|metric \u{2212} {value}|"),
            ],
            Goal::Minimize { .. } => vec!["goal metric".into(), "(lower is better)".into()],
        }
    }

    /// The interval of [`Goal::loss`] over a metric's interval: for `EXPR = VALUE` the
    /// distances `|EXPR - VALUE|` it spans (from 0 when it holds VALUE), for `minimize` the
    /// metric's own interval.
    pub fn loss_interval(&self, v: &Val) -> (f64, f64) {
        match self {
            Goal::Equal { value, .. } => {
                let (a, b) = (v.lo - value, v.hi - value);
                if a <= 0.0 && 0.0 <= b {
                    (0.0, b.max(-a))
                } else {
                    (a.abs().min(b.abs()), a.abs().max(b.abs()))
                }
            }
            Goal::Minimize { .. } => (v.lo, v.hi),
        }
    }
}

/// One candidate the search played.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// The parameters' values, in the order given.
    pub values: Vec<f64>,
    /// The goal metric there.
    pub metric: Val,
}

/// Which search ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Bisection on the sign of `EXPR - VALUE` (one parameter).
    Bisection,
    /// Compass search.
    Compass,
}

impl Method {
    /// In words, for tables and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Method::Bisection => "bisection on the sign of EXPR - VALUE, root by the secant",
            Method::Compass => {
                "compass search (one step up and down per parameter, halved when nothing improves)"
            }
        }
    }
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The method.
    pub method: Method,
    /// Every candidate played, in order.
    pub trials: Vec<Trial>,
    /// The chosen values.
    pub best: Vec<f64>,
    /// For bisection: the goal metric's change per unit of the parameter near the root.
    pub slope: Option<f64>,
    /// For bisection: whether the bounds bracket the goal (the metric crosses VALUE).
    pub bracketed: bool,
}

/// Picks the search for `params` and `goal` and runs it with at most `evals` evaluations,
/// starting (compass search) from `start`.
pub fn search<E>(
    params: &[Param],
    goal: &Goal,
    evals: usize,
    start: &[f64],
    eval: &mut dyn FnMut(&[f64]) -> Result<Val, E>,
) -> Result<Search, E> {
    match (params, goal) {
        ([p], Goal::Equal { value, .. }) => bisect(p, *value, evals, eval),
        _ => compass(params, goal, evals, start, eval),
    }
}

fn half_width(v: &Val) -> f64 {
    ((v.hi - v.lo) / 2.0).max(0.0)
}

/// Bisection for `metric(x) = target` on `p`'s range.
fn bisect<E>(
    p: &Param,
    target: f64,
    evals: usize,
    eval: &mut dyn FnMut(&[f64]) -> Result<Val, E>,
) -> Result<Search, E> {
    let mut trials = Vec::new();
    let mut play = |x: f64, trials: &mut Vec<Trial>| -> Result<Val, E> {
        let v = eval(&[x])?;
        trials.push(Trial {
            values: vec![x],
            metric: v,
        });
        Ok(v)
    };
    let (mut a, mut b) = (p.snap(p.lo), p.snap(p.hi));
    let (mut va, mut vb) = (play(a, &mut trials)?, play(b, &mut trials)?);
    let g = |v: &Val| v.est - target;
    let done = |t: &[Trial]| t.len() >= evals.max(2);
    let bracketed = g(&va).signum() != g(&vb).signum() || g(&va) == 0.0 || g(&vb) == 0.0;
    if !bracketed {
        // The goal is not reached inside the bounds: the nearer end is the best there is.
        let best = if g(&va).abs() <= g(&vb).abs() { a } else { b };
        let slope = Some((g(&vb) - g(&va)) / (b - a)).filter(|s| *s != 0.0 && s.is_finite());
        return Ok(Search {
            method: Method::Bisection,
            trials,
            best: vec![best],
            slope,
            bracketed,
        });
    }
    // The brackets, widest first: the slope comes from the narrowest that is beyond noise.
    let mut brackets = vec![(a, va, b, vb)];
    while !done(&trials) && g(&va) != 0.0 && g(&vb) != 0.0 {
        let m = p.snap(a + (b - a) / 2.0);
        if m <= a || m >= b {
            break;
        }
        let vm = play(m, &mut trials)?;
        if g(&vm).signum() == g(&va).signum() {
            (a, va) = (m, vm);
        } else {
            (b, vb) = (m, vm);
        }
        brackets.push((a, va, b, vb));
    }
    let best = if g(&va) == 0.0 {
        a
    } else if g(&vb) == 0.0 {
        b
    } else if p.integer {
        if g(&va).abs() <= g(&vb).abs() { a } else { b }
    } else {
        p.snap(a - g(&va) * (b - a) / (g(&vb) - g(&va)))
    };
    let slope = brackets
        .iter()
        .rev()
        .find(|(_, va, _, vb)| (vb.est - va.est).abs() > 2.0 * (half_width(va) + half_width(vb)))
        .or(brackets.first())
        .map(|(a, va, b, vb)| (vb.est - va.est) / (b - a))
        .filter(|s| *s != 0.0 && s.is_finite());
    Ok(Search {
        method: Method::Bisection,
        trials,
        best: vec![best],
        slope,
        bracketed,
    })
}

/// Compass search on `goal.loss` inside the bounds.
fn compass<E>(
    params: &[Param],
    goal: &Goal,
    evals: usize,
    start: &[f64],
    eval: &mut dyn FnMut(&[f64]) -> Result<Val, E>,
) -> Result<Search, E> {
    let mut trials: Vec<Trial> = Vec::new();
    // A point already played is looked up, not played again.
    let mut play = |x: &[f64], trials: &mut Vec<Trial>| -> Result<f64, E> {
        if let Some(t) = trials.iter().find(|t| t.values == x) {
            return Ok(goal.loss(&t.metric));
        }
        let v = eval(x)?;
        trials.push(Trial {
            values: x.to_vec(),
            metric: v,
        });
        Ok(goal.loss(&v))
    };
    let mut x: Vec<f64> = params.iter().zip(start).map(|(p, s)| p.snap(*s)).collect();
    let mut fx = play(&x, &mut trials)?;
    let mut step: Vec<f64> = params
        .iter()
        .map(|p| {
            let s = (p.hi - p.lo) / 4.0;
            if p.integer { s.round().max(1.0) } else { s }
        })
        .collect();
    let smallest = |p: &Param| if p.integer { 1.0 } else { (p.hi - p.lo) * 1e-5 };
    'search: while trials.len() < evals {
        let mut moved = false;
        'poll: for i in 0..params.len() {
            for dir in [1.0, -1.0] {
                let mut y = x.clone();
                y[i] = params[i].snap(x[i] + dir * step[i]);
                if y[i] == x[i] {
                    continue;
                }
                let fy = play(&y, &mut trials)?;
                if fy < fx {
                    (x, fx, moved) = (y, fy, true);
                    break 'poll;
                }
                if trials.len() >= evals {
                    break 'search;
                }
            }
        }
        if !moved {
            let mut any = false;
            for (s, p) in step.iter_mut().zip(params) {
                let half = if p.integer {
                    (*s / 2.0).floor()
                } else {
                    *s / 2.0
                };
                if half >= smallest(p) {
                    *s = half;
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
    }
    Ok(Search {
        method: Method::Compass,
        trials,
        best: x,
        slope: None,
        bracketed: true,
    })
}

/// The trials a search's games cannot tell from its best one.
#[derive(Debug, Clone, PartialEq)]
pub struct Noise {
    /// The best trial (an index into the trials): the one at the chosen values when the search
    /// played them, else the one with the smallest loss (first of equals).
    pub best: usize,
    /// The other trials within noise of it, in the order played.
    pub within: Vec<usize>,
}

/// Which trials are within noise of the best one (`None` when nothing was played).
///
/// The criterion: a trial is within noise of the best when their 95% intervals of the loss
/// (`|EXPR - VALUE|`, or `EXPR` for `minimize`; see [`Goal::loss_interval`]) overlap.
/// Overlapping intervals are a conservative test of a difference: two estimates can differ
/// beyond noise while their intervals overlap, all the more on common random numbers, where
/// trials share their games and so differ by less noise than each interval carries. The list
/// may therefore name a trial that a paired test would tell apart, and never leaves out one
/// that the intervals cannot: it errs towards claiming less for the best.
pub fn within_noise(s: &Search, goal: &Goal) -> Option<Noise> {
    let t = &s.trials;
    let loss = |i: usize| goal.loss(&t[i].metric);
    let best = t
        .iter()
        .position(|tr| tr.values == s.best)
        .or_else(|| (0..t.len()).min_by(|&i, &j| loss(i).total_cmp(&loss(j))))?;
    let (lo, hi) = goal.loss_interval(&t[best].metric);
    let within = (0..t.len())
        .filter(|&i| i != best)
        .filter(|&i| {
            let (a, b) = goal.loss_interval(&t[i].metric);
            a <= hi && lo <= b
        })
        .collect();
    Some(Noise { best, within })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(est: f64, hw: f64) -> Val {
        Val {
            est,
            lo: est - hw,
            hi: est + hw,
        }
    }

    fn real(lo: f64, hi: f64) -> Param {
        Param {
            path: "settings.x".into(),
            lo,
            hi,
            integer: false,
        }
    }

    #[test]
    fn goals_parse() {
        assert_eq!(
            Goal::parse("win_rate(A) - win_rate(B) = 0").unwrap(),
            Goal::Equal {
                expr: "win_rate(A) - win_rate(B)".into(),
                value: 0.0
            }
        );
        assert_eq!(
            Goal::parse("minimize max(win_rate) - min(win_rate)").unwrap(),
            Goal::Minimize {
                expr: "max(win_rate) - min(win_rate)".into()
            }
        );
        assert!(Goal::parse("win_rate(A) <= 0.5").is_err());
        assert!(Goal::parse("win_rate(A) = x").is_err());
        // A formula on the right is refused with the goal that aims at it.
        let e = Goal::parse("win_rate(A) = fair_share").unwrap_err();
        assert!(e.contains("`win_rate(A) - (fair_share) = 0`"), "{e}");
        assert!(Goal::parse("a = 1 = 2").is_err());
    }

    #[test]
    fn params_parse_and_snap() {
        let p = Param::parse("settings.k=8:14").unwrap();
        assert!(p.integer);
        assert_eq!(p.snap(10.6), 11.0);
        assert_eq!(p.snap(99.0), 14.0);
        let q = Param::parse("settings.q=0.2:0.6").unwrap();
        assert!(!q.integer);
        assert_eq!(q.show(q.snap(0.123_456_789)), "0.2");
        assert_eq!(q.show(q.snap(0.345_678_91)), "0.345679");
        assert_eq!(q.show(0.4213), "0.4213");
        assert!(Param::parse("settings.q=0.6:0.2").is_err());
        assert!(Param::parse("settings.q").is_err());
    }

    #[test]
    fn bisection_finds_a_root_and_its_slope() {
        // metric = 2 (x - 0.3), noiseless: root 0.3, slope 2.
        let mut f = |x: &[f64]| Ok::<_, ()>(val(2.0 * (x[0] - 0.3), 0.001));
        let g = Goal::Equal {
            expr: "m".into(),
            value: 0.0,
        };
        let s = search(&[real(0.0, 1.0)], &g, 20, &[0.5], &mut f).unwrap();
        assert_eq!(s.method, Method::Bisection);
        assert!((s.best[0] - 0.3).abs() < 1e-6, "{:?}", s.best);
        assert!((s.slope.unwrap() - 2.0).abs() < 1e-9);
        assert!(s.trials.len() <= 20);
        let (lo, hi) = value_interval(s.best[0], &val(0.0, 0.01), 0.0, 2.0);
        assert!((lo - (s.best[0] - 0.005)).abs() < 1e-12 && hi > lo);
    }

    #[test]
    fn bisection_without_a_bracket_takes_the_nearer_end() {
        let mut f = |x: &[f64]| Ok::<_, ()>(val(x[0] + 1.0, 0.0));
        let g = Goal::Equal {
            expr: "m".into(),
            value: 0.0,
        };
        let s = search(&[real(0.0, 1.0)], &g, 20, &[0.5], &mut f).unwrap();
        assert!(!s.bracketed);
        assert_eq!(s.best, vec![0.0]);
        assert_eq!(s.trials.len(), 2);
    }

    #[test]
    fn compass_search_minimizes_within_bounds_and_budget() {
        // (x - 0.7)^2 + (k - 3)^2 with k whole in 0..10.
        let mut f = |x: &[f64]| Ok::<_, ()>(val((x[0] - 0.7).powi(2) + (x[1] - 3.0).powi(2), 0.0));
        let params = [
            real(0.0, 1.0),
            Param {
                path: "k".into(),
                lo: 0.0,
                hi: 10.0,
                integer: true,
            },
        ];
        let g = Goal::Minimize { expr: "m".into() };
        let s = search(&params, &g, 200, &[0.5, 9.0], &mut f).unwrap();
        assert_eq!(s.method, Method::Compass);
        assert!((s.best[0] - 0.7).abs() < 1e-3, "{:?}", s.best);
        assert_eq!(s.best[1], 3.0);
        assert!(s.trials.len() <= 200);
        let s = search(&params, &g, 5, &[0.5, 9.0], &mut f).unwrap();
        assert_eq!(s.trials.len(), 5);
    }

    #[test]
    fn trials_whose_loss_intervals_overlap_the_best_are_within_noise() {
        let g = Goal::Equal {
            expr: "m".into(),
            value: 0.0,
        };
        // Losses: [0, 0.25], [0.125, 0.625], [0.375, 0.625] (the other side), [1.5, 2.5].
        let metrics = [
            val(0.0, 0.25),
            val(0.375, 0.25),
            val(-0.5, 0.125),
            val(2.0, 0.5),
        ];
        let trials = metrics
            .iter()
            .enumerate()
            .map(|(i, m)| Trial {
                values: vec![i as f64],
                metric: *m,
            })
            .collect::<Vec<_>>();
        let mut s = Search {
            method: Method::Compass,
            trials,
            best: vec![0.0],
            slope: None,
            bracketed: true,
        };
        let n = within_noise(&s, &g).unwrap();
        assert_eq!((n.best, n.within), (0, vec![1]));
        // A chosen value the search never played: the smallest loss is the best trial.
        s.best = vec![0.5];
        assert_eq!(within_noise(&s, &g).unwrap().best, 0);
        assert_eq!(g.loss_interval(&val(-0.5, 0.125)), (0.375, 0.625));
    }

    #[test]
    fn whole_values_beside_a_crossing_are_judged() {
        let k = Param::parse("settings.k=0:6").unwrap();
        assert_eq!(whole_sides(&k, 2.5), vec![2.0, 3.0]);
        assert_eq!(whole_sides(&k, 3.0), vec![3.0]);
        assert_eq!(whole_sides(&k, 6.4), vec![6.0]);
        assert_eq!(
            Whole::judge(&[val(2.0, 0.0), val(3.0, 0.0)], 2.5),
            Whole::Between
        );
        assert_eq!(
            Whole::judge(&[val(2.0, 0.6), val(3.0, 0.0)], 2.5),
            Whole::Met
        );
        assert_eq!(
            Whole::judge(&[val(3.0, 0.1), val(4.0, 0.1)], 2.5),
            Whole::Missed
        );
    }
}
