//! Tests of the lexer and parser: precedence, names, statements and located errors.

use super::*;

#[test]
fn precedence_and_dice() {
    let e = parse_expr("1 + 2 * 3 >= 2d6 and not x").unwrap();
    match e {
        Ast::Bin(BinOp::And, l, r, _) => {
            assert!(matches!(*l, Ast::Bin(BinOp::Ge, _, _, _)));
            assert!(matches!(*r, Ast::Not(_, _)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(parse_expr("d6").unwrap(), Ast::Dice(1, 6, 0));
}

#[test]
fn names_with_owner_and_index() {
    let e = parse_expr("Alpha.control[north]").unwrap();
    match e {
        Ast::Name {
            owner, name, index, ..
        } => {
            assert_eq!(owner.unwrap().0, "Alpha");
            assert_eq!(name, "control");
            assert_eq!(index.unwrap().0, "north");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn statements() {
    assert!(matches!(
        parse_stmt("if vp >= 3: end done").unwrap(),
        StmtAst::If(_, _, None)
    ));
    assert!(matches!(
        parse_stmt("each others: vp -= 1").unwrap(),
        StmtAst::Each { others: true, .. }
    ));
    assert!(matches!(
        parse_stmt("order ini by random(), seat").unwrap(),
        StmtAst::Order { .. }
    ));
    assert!(matches!(
        parse_stmt("target.vp += d6").unwrap(),
        StmtAst::Assign {
            op: AssignOp::Add,
            ..
        }
    ));
}

#[test]
fn an_exponent_says_how_to_write_the_number() {
    let e = parse_expr("x < 1e-5").unwrap_err();
    assert_eq!(e.pos, 4);
    assert!(e.msg.contains("write `1e-5` as 0.00001"), "{}", e.msg);
    let e = parse_expr("2.5E3 + 1").unwrap_err();
    assert!(e.msg.contains("as 2500.0"), "{}", e.msg);
    // Not an exponent: a number next to a name starting with e is another error.
    assert!(parse_expr("2 elves").is_err());
}

#[test]
fn a_mark_before_else_has_no_reason() {
    match parse_stmt("if vp >= 3: win else: lose broke").unwrap() {
        StmtAst::If(_, then, Some(els)) => {
            assert!(matches!(*then, StmtAst::Outcome { reason: None, .. }));
            assert!(matches!(
                *els,
                StmtAst::Outcome {
                    reason: Some(_),
                    ..
                }
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_point_at_the_column() {
    let e = parse_expr("1 + * 2").unwrap_err();
    assert_eq!(e.pos, 4);
    let e = parse_expr("a < b < c").unwrap_err();
    assert!(e.msg.contains("chain"));
    let e = parse_stmt("vp + 1").unwrap_err();
    assert_eq!(e.pos, 3);
    let e = parse_expr("A.vp = 3").unwrap_err();
    assert_eq!(e.pos, 5);
    assert!(e.msg.contains("`==`"), "{}", e.msg);
    let e = parse_stmt("vp += 1; vp += 2").unwrap_err();
    assert_eq!(e.pos, 7);
    assert!(e.msg.contains("{a; b}"), "{}", e.msg);
}

#[test]
fn else_belongs_to_the_nearest_if() {
    match parse_stmt("if a: if b: x = 1 else: x = 2").unwrap() {
        StmtAst::If(_, inner, None) => {
            assert!(matches!(*inner, StmtAst::If(_, _, Some(_))));
        }
        other => panic!("{other:?}"),
    }
    match parse_stmt("if a: {x = 1} else: {x = 2; y = 3}").unwrap() {
        StmtAst::If(_, _, Some(els)) => {
            assert!(matches!(*els, StmtAst::Block(ref b) if b.len() == 2))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn nesting_and_size_have_located_limits() {
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = parse_expr(&deep).unwrap_err();
    assert!(e.msg.contains("nested too deeply"), "{}", e.msg);
    assert!(e.pos < 200, "{}", e.pos);
    let neg = format!("{}1", "-".repeat(10_000));
    assert!(
        parse_expr(&neg)
            .unwrap_err()
            .msg
            .contains("nested too deeply")
    );
    let ifs = format!("{}x = 1", "if a: ".repeat(5_000));
    assert!(
        parse_stmt(&ifs)
            .unwrap_err()
            .msg
            .contains("nested too deeply")
    );
    let sum = vec!["1"; 30_000].join(" + ");
    let e = parse_expr(&sum).unwrap_err();
    assert!(e.msg.contains("at most 1000 operators"), "{}", e.msg);
    // Well within the limits, nothing changes.
    let ok = format!("{}1{}", "(".repeat(40), ")".repeat(40));
    assert!(parse_expr(&ok).is_ok());
    assert!(parse_expr(&vec!["1"; 900].join(" + ")).is_ok());
}
