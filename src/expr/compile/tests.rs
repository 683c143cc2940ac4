//! Tests of name resolution, code generation and the closures against the reference.

use super::*;
use crate::expr::Env;
use crate::state::{State, Tables};

fn syms() -> Symbols {
    let mut s = Symbols::default();
    s.settings.insert("target".into(), Num::Int(10));
    s.vars.insert(
        "vp".into(),
        VarSym {
            id: 0,
            base: 0,
            faction: true,
            set: None,
            fstride: 1,
        },
    );
    s.vars.insert(
        "pool".into(),
        VarSym {
            id: 1,
            base: 2,
            faction: false,
            set: None,
            fstride: 0,
        },
    );
    // A global variable over a grid of one row and three columns, at slots 3 to 5.
    s.sets.insert(
        "line".into(),
        SetSym {
            id: 0,
            elements: vec!["r1c1".into(), "r1c2".into(), "r1c3".into()],
            grid: Some((1, 3)),
        },
    );
    s.vars.insert(
        "pile".into(),
        VarSym {
            id: 2,
            base: 3,
            faction: false,
            set: Some(0),
            fstride: 0,
        },
    );
    s.factions.insert("A".into(), 0);
    s.factions.insert("B".into(), 1);
    s
}

/// The test state: `vp` 4 and 9, `pool` 2, `pile` 5, -1, 7.
fn vals() -> Vec<i64> {
    vec![4, 9, 2, 5, -1, 7]
}

fn eval(src: &str, ctx: Ctx) -> Result<Num, ParseError> {
    let s = syms();
    let c = Compiler::new(&s, vec![]);
    let e = c.expr(src, ctx, 0)?;
    let st = State {
        vals: vals(),
        round: 3,
        ..State::empty()
    };
    let t = Tables {
        nfactions: 2,
        side: vec![0; 2],
        player: vec![1; 2],
        ..Tables::default()
    };
    let mut env = Env::new(st, &t, crate::rng::game_rng(0, 0));
    Ok(e.eval_num(&mut env))
}

#[test]
fn resolves_names() {
    assert_eq!(
        eval("target - max_all(vp)", Ctx::global()).unwrap(),
        Num::Int(1)
    );
    assert_eq!(eval("vp + B.vp", Ctx::faction()).unwrap(), Num::Int(13));
    assert_eq!(eval("max_others(vp)", Ctx::faction()).unwrap(), Num::Int(9));
    assert_eq!(
        eval("count_all(vp > 5) + pool * round", Ctx::global()).unwrap(),
        Num::Int(7)
    );
    assert_eq!(
        eval("if(vp > 3 and not (pool == 1), 10, 20)", Ctx::faction()).unwrap(),
        Num::Int(10)
    );
    assert_eq!(eval("0 or 0", Ctx::global()).unwrap(), Num::Int(0));
    assert_eq!(eval("0 or 5", Ctx::global()).unwrap(), Num::Int(1));
    assert_eq!(eval("seat + A", Ctx::faction()).unwrap(), Num::Int(2));
    // Integers are exact; `/` and real literals make reals.
    let big = eval("9007199254740993 + vp - vp", Ctx::faction()).unwrap();
    assert!(matches!(big, Num::Int(9_007_199_254_740_993)), "{big:?}");
    assert!(matches!(eval("vp / 8", Ctx::faction()).unwrap(), Num::Real(r) if r == 0.5));
    assert!(matches!(
        eval("vp * 0.5", Ctx::faction()).unwrap(),
        Num::Real(_)
    ));
    assert!(matches!(
        eval("vp // 3", Ctx::faction()).unwrap(),
        Num::Int(1)
    ));
    assert!(matches!(
        eval("floor(vp / 3)", Ctx::faction()).unwrap(),
        Num::Int(1)
    ));
}

#[test]
fn reports_mistakes() {
    let e = eval("vp", Ctx::global()).unwrap_err();
    assert!(e.msg.contains("no faction is in scope"), "{}", e.msg);
    let e = eval("1 + vpp", Ctx::faction()).unwrap_err();
    assert_eq!(e.pos, 4);
    assert!(e.msg.contains("did you mean `vp`"), "{}", e.msg);
    let e = eval("bernoulli(1.7)", Ctx::global()).unwrap_err();
    assert!(e.msg.contains("outside 0..1"));
    assert_eq!(e.pos, 10);
    assert!(
        eval("target.vp", Ctx::faction())
            .unwrap_err()
            .msg
            .contains("target")
    );
    assert!(
        eval("max(vp)", Ctx::faction())
            .unwrap_err()
            .msg
            .contains("max_all")
    );
}

#[test]
fn computed_subscripts_and_grid_positions() {
    let v = |src: &str| eval(src, Ctx::faction()).unwrap();
    assert_eq!(v("pile[1 + 1]"), Num::Int(-1));
    assert_eq!(v("pile[pool]"), Num::Int(-1), "a variable as the subscript");
    assert_eq!(v("pile[r1c3] + pile[3]"), Num::Int(14));
    assert_eq!(
        v("if(pool < 3, 0, pile[pool + 2])"),
        Num::Int(0),
        "the branch not taken"
    );
    assert_eq!(v("row(3) * 10 + col(3)"), Num::Int(13));
    assert_eq!(
        v("cell(1, 2) + cell(2, 1) + cell(1, 4) + row(0) + col(4)"),
        Num::Int(2)
    );
    assert_eq!(v("row(line, 2) + cell(line, 1, 3)"), Num::Int(4));
    let e = eval("pile[vp / 2]", Ctx::faction()).unwrap_err();
    assert!(e.msg.contains("a whole number"), "{}", e.msg);
    assert_eq!(e.pos, 8, "at the formula's operator");
    let e = eval("row(1, 2, 3)", Ctx::faction()).unwrap_err();
    assert!(e.msg.contains("takes a position"), "{}", e.msg);
    let e = eval("vp[1]", Ctx::faction()).unwrap_err();
    assert!(e.msg.contains("not indexed"), "{}", e.msg);
}

#[test]
fn constant_folding() {
    let s = syms();
    let c = Compiler::new(&s, vec![]);
    assert_eq!(
        c.expr("target * 2 + 1", Ctx::global(), 0)
            .unwrap()
            .as_const(),
        Some(21.0)
    );
    assert!(matches!(
        c.expr("target * 2 + 1", Ctx::global(), 0)
            .unwrap()
            .as_const_num(),
        Some(Num::Int(21))
    ));
    assert_eq!(c.expr("d6", Ctx::global(), 0).unwrap().as_const(), None);
}

/// Random formulas over the test symbols.
fn formula() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        (-3i32..12).prop_map(|n| n.to_string()),
        Just("0.5".to_string()),
        Just("vp".to_string()),
        Just("pool".to_string()),
        Just("A.vp".to_string()),
        Just("B.vp".to_string()),
        Just("round".to_string()),
        Just("seat".to_string()),
        Just("target".to_string()),
        Just("random()".to_string()),
        Just("uniform(1, 6)".to_string()),
        Just("2d6".to_string()),
        Just("max_all(vp)".to_string()),
        // Near the 64-bit edge, so that overflow faults are compared too.
        Just("9223372036854775807".to_string()),
        Just("(-9223372036854775807 - 1)".to_string()),
        Just("4611686018427387904".to_string()),
        Just("9007199254740993".to_string()),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let ops = prop_oneof![
            Just("+"),
            Just("-"),
            Just("*"),
            Just("/"),
            Just("//"),
            Just("%"),
            Just("=="),
            Just("!="),
            Just("<"),
            Just("<="),
            Just(">"),
            Just(">="),
            Just("and"),
            Just("or"),
        ];
        prop_oneof![
            (inner.clone(), ops, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            inner.clone().prop_map(|a| format!("(not {a})")),
            inner.clone().prop_map(|a| format!("(-{a})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("if({a}, {b}, {c})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("clamp({a}, {b}, {c})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("min({a}, {b})")),
            inner.clone().prop_map(|a| format!("floor({a} / 3)")),
            inner.clone().prop_map(|a| format!("bernoulli({a} / 10)")),
            inner.clone().prop_map(|a| format!("sum_others(vp * {a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("choice({a}, {b}, 7)")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("weighted(1, {a}, 2, {b})")),
            inner.clone().prop_map(|a| format!("abs({a})")),
            inner.clone().prop_map(|a| format!("round({a} * 0.7)")),
            inner.clone().prop_map(|a| format!("ceil({a} / 2)")),
            inner.clone().prop_map(|a| format!("max({a}, 0.25)")),
            inner.clone().prop_map(|a| format!("count_all(vp > {a})")),
            inner.clone().prop_map(|a| format!("min_others(vp - {a})")),
            inner
                .clone()
                .prop_map(|a| format!("max_all(vp * 0.5 + {a})")),
            inner.clone().prop_map(|a| format!("roll({a} % 4, 6)")),
            inner
                .clone()
                .prop_map(|a| format!("binomial({a} % 5, 0.3)")),
            inner.clone().prop_map(|a| format!("poisson(abs({a}) % 3)")),
            inner.clone().prop_map(|a| format!("normal({a}, 1)")),
            // Computed subscripts (a position outside 1..3 is a fault) and grid positions.
            inner.clone().prop_map(|a| format!("pile[{a}]")),
            inner
                .clone()
                .prop_map(|a| format!("pile[row({a}) + col({a})]")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("cell({a}, {b})")),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(256))]

    /// The closures that run are the reference tree walker's semantics: the same type and
    /// value, the same fault (overflow and division by zero included) and the same random
    /// draws, for any formula.
    #[test]
    fn closures_agree_with_the_reference(src in formula(), seed in 0u64..1000) {
        let s = syms();
        let c = Compiler::new(&s, vec![]);
        // A constant probability outside 0..1 is a compile error, not a case to compare.
        let Ok(e) = c.expr(&src, Ctx::faction(), 7) else {
            return Ok(());
        };
        let t = Tables {
            nfactions: 2,
            side: vec![0; 2],
            player: vec![1; 2],
            ..Tables::default()
        };
        let state = || State {
            vals: vals(),
            round: 3,
            ..State::empty()
        };
        let mut fast = Env::new(state(), &t, crate::rng::game_rng(seed, 0));
        let mut slow = Env::new(state(), &t, crate::rng::game_rng(seed, 0));
        fast.cx.bound = 1;
        slow.cx.bound = 1;
        let (a, b) = (e.eval_num(&mut fast), e.eval_reference(&mut slow));
        let nan = |x: Num| x.real().is_nan();
        // The native engine's machine code for the same formula.
        let mut n = e.clone();
        crate::native::compile_with(&t, 6, &mut |f| f(&mut n)).unwrap();
        let mut native = Env::new(state(), &t, crate::rng::game_rng(seed, 0));
        native.cx.bound = 1;
        let m = n.eval_num(&mut native);
        proptest::prop_assert_eq!(m.ty(), b.ty(), "{}", src);
        proptest::prop_assert!(m == b || (nan(m) && nan(b)), "native {src}: {m} vs {b}");
        proptest::prop_assert_eq!(native.cx.fault, slow.cx.fault, "native {}", src);
        proptest::prop_assert_eq!(native.rng.position(), slow.rng.position());
        proptest::prop_assert_eq!(native.cx.bound, 1);
        proptest::prop_assert_eq!(a.ty(), e.ty(), "{}", src);
        proptest::prop_assert_eq!(a.ty(), b.ty(), "{}", src);
        proptest::prop_assert!(a == b || (nan(a) && nan(b)), "{src}: {a} vs {b}");
        proptest::prop_assert_eq!(fast.cx.fault, slow.cx.fault, "{}", src);
        proptest::prop_assert_eq!(fast.rng.position(), slow.rng.position());
    }
}

/// Dice that machine code throws inline take the reference's draws and values, the rare
/// draws in the biased zone (where a second draw decides whether the die carries, which
/// random games almost never reach) included: the stream is set so that its first draw is
/// such a draw.
#[test]
fn inline_dice_match_the_reference_in_the_biased_zone() {
    let s = syms();
    let c = Compiler::new(&s, vec![]);
    let t = Tables {
        nfactions: 2,
        side: vec![0; 2],
        player: vec![1; 2],
        ..Tables::default()
    };
    let mut biased_seen = 0;
    for sides in [1u32, 2, 3, 6, 7, 1000, u32::MAX] {
        for n in 1..=4u32 {
            let src = format!("{n}d{sides}");
            let e = c.expr(&src, Ctx::faction(), 7).unwrap();
            let mut native = e.clone();
            crate::native::compile_with(&t, 6, &mut |f| f(&mut native)).unwrap();
            assert!(native.native.is_some(), "{src} runs as machine code");
            for m in 1..=6u128 {
                // `w * sides` just below `m * 2^64`: its low word is in the biased zone.
                let w = (((m << 64) - 1) / sides as u128) as u64;
                let zone = (w as u128 * sides as u128) as u64 > (sides as u64).wrapping_neg();
                biased_seen += zone as u32;
                // The first draw is `w` (the state set just before it: SplitMix64's
                // output function is a bijection), the later ones the stream's own.
                let env = || {
                    let mut env = Env::new(State::empty(), &t, crate::rng::game_rng(1, 0));
                    env.rng.state = unmix64(w).wrapping_sub(crate::rng::GAMMA);
                    env
                };
                let (mut a, mut b) = (env(), env());
                let (x, y) = (native.eval_num(&mut a), e.eval_reference(&mut b));
                assert_eq!(x, y, "{src}, first draw {w:#x}");
                assert_eq!(a.rng.position(), b.rng.position(), "{src}: draws made");
            }
        }
    }
    assert!(biased_seen > 100, "the draws reach the biased zone");
}

/// The state `x` whose [`crate::rng::mix64`] is `z`: each step of the output function
/// undone (an odd multiply by its inverse, a right xor-shift by repeating it).
fn unmix64(z: u64) -> u64 {
    let unshift = |z: u64, s: u32| {
        let mut x = z;
        for _ in 0..64 / s {
            x = z ^ (x >> s);
        }
        x
    };
    let inverse = |a: u64| {
        // Newton's iteration for the inverse of an odd number modulo 2^64.
        let mut x = a;
        for _ in 0..6 {
            x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
        }
        x
    };
    let mut x = unshift(z, 31);
    x = x.wrapping_mul(inverse(0x94d0_49bb_1331_11eb));
    x = unshift(x, 27);
    x = x.wrapping_mul(inverse(0xbf58_476d_1ce4_e5b9));
    unshift(x, 30)
}

#[test]
fn unmix64_inverts_mix64() {
    for x in [0, 1, 0x1234_5678_9abc_def0, u64::MAX, crate::rng::GAMMA] {
        assert_eq!(unmix64(crate::rng::mix64(x)), x);
    }
}
