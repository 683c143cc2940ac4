//! The named Rust functions that generated code calls.
//!
//! Owns the boundary between machine code and the mechanisms that stay in Rust: random draws
//! and their distributions, the operations whose failure is a fault (floor division,
//! remainder, rounding a real to an integer), reals' `min` and `max` with Rust's NaN rules,
//! and the card and deck builtins. Each helper calls the definition in
//! [`crate::expr::tree`], so an operation still has one meaning; a fault is recorded in the
//! environment exactly as the interpreter records it, and the helper yields 0.

use crate::expr::tree::{self, Num, Ty};
use crate::expr::{BinOp, Env, FaultKind, Func, RandFn};
use crate::ids::ReasonId;

/// Every binary operator, indexed by the code generated code passes.
pub(super) const BIN_OPS: [BinOp; 14] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::FloorDiv,
    BinOp::Mod,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::And,
    BinOp::Or,
];

/// Every random function, indexed by code.
pub(super) const RAND_FNS: [RandFn; 9] = [
    RandFn::Uniform,
    RandFn::Random,
    RandFn::Bernoulli,
    RandFn::Binomial,
    RandFn::Poisson,
    RandFn::Normal,
    RandFn::Roll,
    RandFn::Choice,
    RandFn::Weighted,
];

/// The rounding functions, indexed by code.
pub(super) const ROUND_FNS: [Func; 3] = [Func::Floor, Func::Ceil, Func::Round];

/// The code of a value in one of the tables above.
pub(super) fn code_of<T: PartialEq>(table: &[T], v: T) -> u32 {
    table.iter().position(|x| *x == v).unwrap_or(0) as u32
}

fn ok<T: Default>(env: &mut Env<'_>, r: Result<T, FaultKind>, loc: u32) -> T {
    match r {
        Ok(v) => v,
        Err(k) => {
            env.fault_at(k, loc);
            T::default()
        }
    }
}

/// `a op b` on integers through the reference operation (used for `//`, `%`, and for the
/// overflow path of `+ - *`, where it records the fault).
pub(super) extern "C" fn int_bin(env: &mut Env<'_>, op: u32, a: i64, b: i64, loc: u32) -> i64 {
    let r = tree::int_bin(BIN_OPS[op as usize % BIN_OPS.len()], a, b);
    ok(env, r, loc)
}

/// `a op b` on reals for `/`, `//` and `%` (a zero divisor is a fault).
pub(super) extern "C" fn real_bin(env: &mut Env<'_>, op: u32, a: f64, b: f64, loc: u32) -> f64 {
    let r = tree::real_bin(BIN_OPS[op as usize % BIN_OPS.len()], a, b);
    ok(env, r, loc)
}

/// `floor`, `ceil` or `round` of a real, which must have a 64-bit integer value.
pub(super) extern "C" fn round(env: &mut Env<'_>, f: u32, x: f64, loc: u32) -> i64 {
    let r = tree::round_fn(ROUND_FNS[f as usize % ROUND_FNS.len()], x);
    ok(env, r, loc)
}

/// `abs` of an integer (`abs(-2^63)` overflows).
pub(super) extern "C" fn abs(env: &mut Env<'_>, a: i64, loc: u32) -> i64 {
    let r = tree::int_func(Func::Abs, &[a]);
    ok(env, r, loc)
}

/// Records the fault of a computed subscript `i` outside a set of `n` elements; yields 0.
pub(super) extern "C" fn subscript(env: &mut Env<'_>, i: i64, n: u32, loc: u32) -> i64 {
    env.fault_at(FaultKind::Subscript(i, n as u16), loc);
    0
}

/// A real to store in variable `var`, floored: it must have a 64-bit integer value (else the
/// engine's store fault).
pub(super) extern "C" fn store_real(env: &mut Env<'_>, r: f64, var: u32, loc: u32) -> i64 {
    match tree::to_int(r.floor()) {
        Ok(k) => k,
        Err(_) => {
            env.fault_at(FaultKind::NotStorable(r, var as u16), loc);
            0
        }
    }
}

/// Records the engine's overflow fault of `old += k` (`op` 0) or `old -= k` (`op` 1).
pub(super) extern "C" fn store_overflow(env: &mut Env<'_>, op: u32, old: i64, k: i64, loc: u32) {
    let op = if op == 0 { BinOp::Add } else { BinOp::Sub };
    env.fault_at(FaultKind::Overflow(op, old, k), loc);
}

/// `bernoulli(p)`: the reference's check of `p`, then the same single draw.
pub(super) extern "C" fn bernoulli(env: &mut Env<'_>, p: f64, loc: u32) -> i64 {
    if (0.0..=1.0).contains(&p) {
        rand::RngExt::random_bool(&mut env.rng, p) as i64
    } else {
        env.fault_at(FaultKind::Probability(p), loc);
        0
    }
}

/// Each faction's hand as bits (`State::hands`): `for held` walks it in machine code. The
/// buffer never changes length during a game.
pub(super) extern "C" fn hands(env: &mut Env<'_>) -> *const u64 {
    env.st.hands.as_ptr()
}

/// Each card's owner code (`State::owner`): `has_completed` reads it in machine code. The
/// buffer never changes length during a game.
pub(super) extern "C" fn owners(env: &mut Env<'_>) -> *const u8 {
    env.st.owner.as_ptr()
}

/// The kept counts of each deck's cards by owner (`State::owned`, at
/// [`crate::state::owned_slot`]): `held(deck)` and `completed(deck)` read them in machine
/// code. A game's state has a count for every deck and hand; any other state gets zero
/// counts first, so that every slot machine code reads is in the buffer.
pub(super) extern "C" fn owned_counts(env: &mut Env<'_>) -> *const u32 {
    let need = env.t.deck_start.len() * 2 * crate::state::MAX_FACTIONS;
    if env.st.owned.len() < need {
        env.st.owned.resize(need, 0);
    }
    env.st.owned.as_ptr()
}

/// The decks' pools (`State::pool`, a card index each): a take's test reads it in machine
/// code. The buffer never changes length during a game.
pub(super) extern "C" fn pools(env: &mut Env<'_>) -> *const u16 {
    env.st.pool.as_ptr()
}

/// A store tagged `as SOURCE` into faction `f`'s variable changed it from `old` to `new`:
/// the change is credited to `f`'s points from source `src`.
pub(super) extern "C" fn credit(env: &mut Env<'_>, f: i64, src: u32, old: i64, new: i64) {
    env.credit(f as usize, src as u8, old, new);
}

/// `complete`: the bound faction completes the current card.
pub(super) extern "C" fn complete(env: &mut Env<'_>) {
    if let Some(c) = env.st.card() {
        env.st.complete_card(env.t, c as usize, env.cx.bound);
    }
}

/// The end of a take with a condition ([`crate::runtime::hands::take_eligible`]): one of the
/// `eligible` cards marked in `env.eligible` among the first `left` of deck `d`'s pool is
/// taken for owner code `owner`.
pub(super) extern "C" fn take_eligible(
    env: &mut Env<'_>,
    d: u32,
    left: i64,
    eligible: i64,
    owner: u32,
) {
    crate::runtime::hands::take_eligible(
        env,
        d as usize,
        left as usize,
        eligible as usize,
        owner as u8,
    );
}

/// A `draw` or `take` with no condition ([`crate::runtime::hands::take_any`]) from deck `d`
/// for owner code `owner`.
pub(super) extern "C" fn take_any(env: &mut Env<'_>, d: u32, owner: u32) {
    crate::runtime::hands::take_any(env, d as usize, owner as u8);
}

/// Sorts the first `k` completers of a race in `env.race`
/// ([`crate::runtime::order::sort_completers`]); `real` says the keys are reals' bits.
pub(super) extern "C" fn sort_completers(env: &mut Env<'_>, k: i64, real: u32) {
    crate::runtime::order::sort_completers(env, k as usize, real != 0);
}

/// Who holds a title after a change ([`crate::runtime::titles::next_holder`]): the `n`
/// factions' metrics are in `env.race.keys` (reals' bits when `real` is not 0), the title's
/// minimum is `min` (a real's bits when `min_real` is not 0), `holder` the faction holding
/// it (-1: none). Returns the faction that holds it next (-1: none).
pub(super) extern "C" fn title(
    env: &mut Env<'_>,
    n: i64,
    real: u32,
    min: i64,
    min_real: u32,
    holder: i64,
    nobody: u32,
) -> i64 {
    let num = |bits: u64, real: bool| match real {
        true => Num::Real(f64::from_bits(bits)),
        false => Num::Int(bits as i64),
    };
    let mut key = [Num::Int(0); crate::state::MAX_FACTIONS];
    let n = (n as usize).min(key.len());
    for (k, &bits) in key.iter_mut().zip(&env.race.keys).take(n) {
        *k = num(bits, real != 0);
    }
    let next = crate::runtime::titles::next_holder(
        &key[..n],
        num(min as u64, min_real != 0),
        usize::try_from(holder).ok(),
        env.st.out,
        nobody != 0,
    );
    next.map_or(-1, |f| f as i64)
}

/// The end of a turn in a phase with actions while final turns may be under way
/// (`Env::final_turns`): one counted when they are. Returns -1 when one was counted and more
/// are to come, the reason the game ends with when that was the last, and when none is under
/// way -2, or -3 if the final round is (whose conditions are then not tested again).
pub(super) extern "C" fn final_turn(env: &mut Env<'_>) -> i64 {
    match env.progress.final_turns {
        Some((reason, left)) => {
            env.progress.final_turns = (left > 1).then_some((reason, left - 1));
            if left <= 1 { i64::from(reason.0) } else { -1 }
        }
        None if env.progress.final_round.is_some() => -3,
        None => -2,
    }
}

/// A final-turns condition (`turns` not 0) or a final-round one that held for a faction,
/// with `reason`: every faction still in the game takes one more turn, or the round is the
/// game's last.
pub(super) extern "C" fn begin_final(env: &mut Env<'_>, reason: u32, turns: u32, n: u32) {
    if turns != 0 {
        env.progress.final_turns = Some((ReasonId(reason as u16), n - env.st.out.count_ones()));
    } else {
        env.progress.final_round = Some(ReasonId(reason as u16));
    }
}

/// The reason a final round under way ends the game with at the round's end (-1: none).
pub(super) extern "C" fn final_round(env: &mut Env<'_>) -> i64 {
    env.progress.final_round.map_or(-1, |r| i64::from(r.0))
}

/// Sorts the first `n` factions of `env.race` by their rows of `nk` keys
/// ([`crate::runtime::order::sort_race_rows`]); bit `j` of `real` says key `j` is a real's bits.
pub(super) extern "C" fn sort_rows(env: &mut Env<'_>, n: i64, nk: i64, real: u32) {
    crate::runtime::order::sort_race_rows(env, n as usize, nk as usize, real);
}

/// The option buffer agents' turns write to (`Env::opts`): a round in machine code passes it
/// to every turn. The buffer keeps its length for the whole game.
pub(super) extern "C" fn opts(env: &mut Env<'_>) -> *mut crate::runtime::abi::Opt {
    env.opts.as_mut_ptr()
}

/// Settles the pending `win`/`lose` marks ([`Env::settle`]): the reason the game ends with
/// when they end it, else `ended` (the reason already given, or none).
pub(super) extern "C" fn settle(env: &mut Env<'_>, ended: i64) -> i64 {
    match env.settle() {
        Some(r) => r as i64,
        None => ended,
    }
}

/// Records that a decision went past the step budget `max`, at the phase's action count.
pub(super) extern "C" fn step_budget(env: &mut Env<'_>, max: i64, loc: u32) {
    env.fault_at(FaultKind::StepBudget(max as u64), loc);
}

/// `regions KEY into SIZE [label LABEL]` with KEY, SIZE and LABEL (-1: none) at first slots
/// `key`, `size` and `label`, over a grid of `shape` (rows << 16 | columns); SIZE is
/// variable `vars & 0xffff`, LABEL `vars >> 16 & 0xffff`, and bit 32 of `vars` says
/// whether a change is watched. Returns 1 when a watched SIZE or LABEL changed.
pub(super) extern "C" fn regions(
    env: &mut Env<'_>,
    key: i64,
    size: i64,
    label: i64,
    shape: i64,
    vars: i64,
) -> i64 {
    let t = env.t;
    let bounds = |v: i64| (t.var_min[v as usize], t.var_max[v as usize]);
    let g = crate::runtime::regions::Grid {
        key: key as usize,
        size: size as usize,
        label: (label >= 0).then_some(label as usize),
        rows: (shape >> 16) as usize,
        cols: (shape & 0xffff) as usize,
        size_bounds: bounds(vars & 0xffff),
        label_bounds: bounds(vars >> 16 & 0xffff),
        watch: vars >> 32 & 1 == 1,
    };
    crate::runtime::regions::measure(&mut env.st.vals, &g) as i64
}

/// `pass DECK left` (`dir` 1) or `right` (-1), as the engine passes hands.
pub(super) extern "C" fn pass(env: &mut Env<'_>, deck: u32, dir: i32) {
    crate::runtime::hands::pass_hands(env, deck as u16, dir as i8);
}

/// `discard`: the current card goes back to its deck.
pub(super) extern "C" fn discard(env: &mut Env<'_>) {
    if let Some(c) = env.st.card() {
        env.st.return_card(env.t, c as usize);
    }
}

/// `win` (`kind` 0) or `lose` (1) with `reason` for the bound faction: a mark the engine
/// settles at the end of the statement list.
pub(super) extern "C" fn mark(env: &mut Env<'_>, kind: u32, reason: u32) {
    let kind = if kind == 0 {
        crate::expr::OutcomeKind::Win
    } else {
        crate::expr::OutcomeKind::Lose
    };
    let f = env.cx.bound;
    env.progress.marks.mark(kind, reason as u16, f);
}

/// `uniform(a, b)` of two integers.
pub(super) extern "C" fn uniform(env: &mut Env<'_>, a: i64, b: i64, loc: u32) -> i64 {
    draw(
        env,
        RandFn::Uniform,
        &[Num::Int(a), Num::Int(b)],
        Ty::Int,
        loc,
    )
}

/// Any random draw: its `n` arguments are in `env.args`, bit `i` of `reals` set when
/// argument `i` is a real; `real` says the result's type. Returns the value's bits.
pub(super) extern "C" fn rand(
    env: &mut Env<'_>,
    f: u32,
    n: u32,
    reals: u64,
    real: u32,
    loc: u32,
) -> u64 {
    let mut args = [Num::Int(0); crate::expr::STACK];
    let n = (n as usize).min(args.len());
    for (i, a) in args.iter_mut().enumerate().take(n) {
        let bits = env.args[i];
        *a = if reals >> i & 1 == 1 {
            Num::Real(f64::from_bits(bits))
        } else {
            Num::Int(bits as i64)
        };
    }
    let ty = if real != 0 { Ty::Real } else { Ty::Int };
    let f = RAND_FNS[f as usize % RAND_FNS.len()];
    draw(env, f, &args[..n], ty, loc) as u64
}

/// A draw through the reference `rand_fn`, as bits of the result's type.
fn draw(env: &mut Env<'_>, f: RandFn, args: &[Num], ty: Ty, loc: u32) -> i64 {
    let zero = match ty {
        Ty::Int => Num::Int(0),
        Ty::Real => Num::Real(0.0),
    };
    let v = match tree::rand_fn(f, args, ty, &mut env.rng) {
        Ok(v) => v,
        Err(k) => {
            env.fault_at(k, loc);
            zero
        }
    };
    match (v, ty) {
        (Num::Int(i), Ty::Int) => i,
        (v, _) => v.real().to_bits() as i64,
    }
}

/// `NdS` dice.
pub(super) extern "C" fn dice(env: &mut Env<'_>, n: u32, s: u32) -> i64 {
    tree::dice(n, s, &mut env.rng)
}

/// A faction's side id.
pub(super) extern "C" fn side(env: &mut Env<'_>, f: i64) -> i64 {
    env.t.side.get(f as usize).copied().unwrap_or(0)
}

/// Whether a faction is a player.
pub(super) extern "C" fn player(env: &mut Env<'_>, f: i64) -> i64 {
    env.t.player.get(f as usize).copied().unwrap_or(0)
}

/// `drawn`: whether the last `draw` succeeded.
pub(super) extern "C" fn drawn(env: &mut Env<'_>) -> i64 {
    env.st.card().is_some() as i64
}

/// `card.ATTR` of the card most recently drawn (0 when none is).
pub(super) extern "C" fn card_attr(env: &mut Env<'_>, a: u32) -> i64 {
    match env.st.card() {
        Some(c) => env
            .t
            .card_attrs
            .get(c as usize * env.t.n_attrs + a as usize)
            .copied()
            .unwrap_or(0),
        None => 0,
    }
}

/// `left(deck)`: the cards left in a deck's pool.
pub(super) extern "C" fn deck_left(env: &mut Env<'_>, d: u32) -> i64 {
    env.st.deck_left.get(d as usize).copied().unwrap_or(0) as i64
}

/// `has_completed(deck, id)` for the bound faction, over a deck machine code has no id
/// table for (its ids repeat or spread too wide).
pub(super) extern "C" fn has_completed(env: &mut Env<'_>, deck: u32, id: i64) -> i64 {
    tree::has_completed(env, deck as u16, id) as i64
}

/// Counts a decision of machine code's turn: `i` is `faction * actions + action` (see
/// `Env::used`).
pub(super) extern "C" fn used(env: &mut Env<'_>, i: u64) {
    env.used(i as usize);
}

/// An agent's choice among the first `n` options of `env.opts`, as the engine makes it
/// ([`crate::runtime::search::decide`]): weighted (`priority == 0`) or among the top
/// priority, or a lookahead decision (the acting faction is bound).
/// Returns the chosen option's index.
pub(super) extern "C" fn pick(env: &mut Env<'_>, n: u64, priority: u64) -> u64 {
    let policy = if priority == 0 {
        crate::ir::Policy::Weighted
    } else {
        crate::ir::Policy::Priority
    };
    // The buffer is lent out for the choice, which may search (nothing reallocates it).
    let opts = std::mem::take(&mut env.opts);
    let k = (n as usize).min(opts.len());
    let f = env.cx.me;
    let i = crate::runtime::search::decide(env, policy, f, &opts[..k]).unwrap_or(0);
    env.opts = opts;
    i as u64
}
