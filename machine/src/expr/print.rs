//! Canonical printing of expressions and of values in expression syntax.
//!
//! Binary operators are printed without surrounding spaces and with the
//! fewest parentheses that make the text parse back to the same tree
//! (respecting precedence and left-associativity). An operand whose text
//! starts with `-` (a negative number or a negation) is parenthesized when it
//! is the right operand of a binary operator or the operand of a unary minus,
//! so that `x-(-7)` and `-(-1)` never print as `x--7` or `--1`.
//!
//! Chains of binary and of postfix operators are printed by loops, so a long
//! chain such as `1+1+...+1` does not deepen the recursion.

use std::fmt::Write as _;

use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::term::{Arg, Atom, VarId};

/// Precedence of a range `a..b` (only valid as an index or an argument).
const P_RANGE: u8 = 0;
/// Precedence of unary operators.
const P_UNARY: u8 = 6;
/// Precedence of postfix operators (index, field, method).
const P_POSTFIX: u8 = 7;
/// Precedence of atoms (literals, names, brackets, calls).
const P_ATOM: u8 = 8;

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => 3,
        BinOp::Add | BinOp::Sub => 4,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 5,
    }
}

/// The precedence of the printed form of `e`.
fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Val(a) => value_prec(a),
        ExprKind::Name(_) | ExprKind::Tuple(_) | ExprKind::Record(_) | ExprKind::Call(..) => P_ATOM,
        ExprKind::Unary(..) => P_UNARY,
        ExprKind::Binary(op, ..) => binop_prec(*op),
        ExprKind::Index(..) | ExprKind::Field(..) | ExprKind::Method(..) => P_POSTFIX,
        ExprKind::Range(..) => P_RANGE,
    }
}

/// The precedence of the printed form of the value `a`.
fn value_prec(a: &Atom) -> u8 {
    match a {
        Atom::Int(n) if *n < 0 => P_UNARY,
        Atom::Float(f) if f.is_sign_negative() => P_UNARY,
        Atom::Map(entries) if !entries.is_empty() => P_POSTFIX,
        Atom::Expr(e) => prec(e),
        _ => P_ATOM,
    }
}

/// Prints `e` with minimal parentheses; `name` gives the printed name of a
/// (symbolic) variable.
pub fn print_expr(e: &Expr, name: &dyn Fn(VarId) -> String) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, name);
    out
}

/// Prints the value `a` in expression syntax (`'x'`, `{dim: [2, 3], data: M}`,
/// `map().insert('a', 5)`, `matrix([[1, 2], [3, 4]])`).
pub fn print_value(a: &Atom, name: &dyn Fn(VarId) -> String) -> String {
    let mut out = String::new();
    write_value(&mut out, a, name);
    out
}

/// Writes `e`, parenthesized if its precedence is below `min` or if
/// `no_minus` and its text starts with `-`.
fn write_child(out: &mut String, e: &Expr, min: u8, no_minus: bool, name: &dyn Fn(VarId) -> String) {
    let mut text = String::new();
    write_expr(&mut text, e, name);
    if prec(e) < min || (no_minus && text.starts_with('-')) {
        out.push('(');
        out.push_str(&text);
        out.push(')');
    } else {
        out.push_str(&text);
    }
}

fn write_list(out: &mut String, xs: &[Expr], min: u8, name: &dyn Fn(VarId) -> String) {
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_child(out, x, min, false, name);
    }
}

fn write_expr(out: &mut String, e: &Expr, name: &dyn Fn(VarId) -> String) {
    match &e.kind {
        ExprKind::Val(a) => write_value(out, a, name),
        ExprKind::Name(n) => out.push_str(n),
        ExprKind::Tuple(xs) => {
            out.push('[');
            write_list(out, xs, P_RANGE + 1, name);
            out.push(']');
        }
        ExprKind::Record(fs) => {
            out.push('{');
            for (i, (f, x)) in fs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(f);
                out.push_str(": ");
                write_child(out, x, P_RANGE + 1, false, name);
            }
            out.push('}');
        }
        // `-0` would parse back as the literal `0` (the parser folds a minus
        // into the number after it, and `-0` is `0`), which prints without
        // the minus: the zero is parenthesised so that printing round-trips
        // (found by the `roundtrip` fuzz target, `"--0"`).
        ExprKind::Unary(UnOp::Neg, x) if matches!(x.kind, ExprKind::Val(Atom::Int(0))) => out.push_str("-(0)"),
        ExprKind::Unary(op, x) => {
            out.push(match op {
                UnOp::Neg => '-',
                UnOp::Not => '!',
            });
            write_child(out, x, P_UNARY, *op == UnOp::Neg, name);
        }
        ExprKind::Binary(..) => write_binary_chain(out, e, name),
        ExprKind::Index(..) | ExprKind::Field(..) | ExprKind::Method(..) => write_postfix_chain(out, e, name),
        ExprKind::Range(a, b) => {
            write_child(out, a, P_RANGE + 1, false, name);
            out.push_str("..");
            write_child(out, b, P_RANGE + 1, false, name);
        }
        ExprKind::Call(f, xs) => {
            out.push_str(f);
            out.push('(');
            write_list(out, xs, P_RANGE, name);
            out.push(')');
        }
    }
}

/// Writes a left-nested chain of binary operators iteratively.
fn write_binary_chain(out: &mut String, e: &Expr, name: &dyn Fn(VarId) -> String) {
    let mut spine: Vec<(BinOp, &Expr)> = Vec::new();
    let mut cur = e;
    while let ExprKind::Binary(op, l, r) = &cur.kind {
        spine.push((*op, r));
        cur = l;
    }
    spine.reverse();
    // needs[i]: whether the left operand of the i-th operator (from the
    // innermost) needs parentheses. All those parentheses open before the
    // innermost left operand.
    let needs: Vec<bool> = spine
        .iter()
        .enumerate()
        .map(|(i, (op, _))| {
            let left = if i == 0 { prec(cur) } else { binop_prec(spine[i - 1].0) };
            left < binop_prec(*op)
        })
        .collect();
    for _ in needs.iter().filter(|n| **n) {
        out.push('(');
    }
    write_expr(out, cur, name);
    for ((op, r), need) in spine.iter().zip(&needs) {
        if *need {
            out.push(')');
        }
        out.push_str(op.symbol());
        write_child(out, r, binop_prec(*op) + 1, true, name);
    }
}

enum Suffix<'a> {
    Index(&'a Expr),
    Field(&'a str),
    Method(&'a str, &'a [Expr]),
}

/// Writes a chain of postfix operators iteratively.
fn write_postfix_chain(out: &mut String, e: &Expr, name: &dyn Fn(VarId) -> String) {
    let mut suffixes = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Index(b, i) => {
                suffixes.push(Suffix::Index(i));
                cur = b;
            }
            ExprKind::Field(b, f) => {
                suffixes.push(Suffix::Field(f));
                cur = b;
            }
            ExprKind::Method(b, f, xs) => {
                suffixes.push(Suffix::Method(f, xs));
                cur = b;
            }
            _ => break,
        }
    }
    write_child(out, cur, P_POSTFIX, false, name);
    for s in suffixes.iter().rev() {
        match s {
            Suffix::Index(i) => {
                out.push('[');
                write_child(out, i, P_RANGE, false, name);
                out.push(']');
            }
            Suffix::Field(f) => {
                out.push('.');
                out.push_str(f);
            }
            Suffix::Method(f, xs) => {
                out.push('.');
                out.push_str(f);
                out.push('(');
                write_list(out, xs, P_RANGE, name);
                out.push(')');
            }
        }
    }
}

/// Writes a float so that it parses back to the same value and contains `.`
/// or `e`.
fn write_float(out: &mut String, f: f64) {
    let s = format!("{f:?}");
    out.push_str(&s);
    if f.is_finite() && !s.contains(['.', 'e', 'E']) {
        out.push_str(".0");
    }
}

fn write_str(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        if c == '\'' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('\'');
}

/// Writes a value that stands where any expression but a range may stand.
fn write_element(out: &mut String, a: &Atom, name: &dyn Fn(VarId) -> String) {
    if value_prec(a) == P_RANGE {
        out.push('(');
        write_value(out, a, name);
        out.push(')');
    } else {
        write_value(out, a, name);
    }
}

fn write_value(out: &mut String, a: &Atom, name: &dyn Fn(VarId) -> String) {
    match a {
        Atom::Var(v) => out.push_str(&name(*v)),
        Atom::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Atom::Float(f) => write_float(out, *f),
        Atom::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Atom::Stage(b) => out.push_str(if *b { "always" } else { "never" }),
        Atom::Str(s) => write_str(out, s),
        Atom::Builtin(_) => out.push_str("<builtin>"),
        Atom::Lambda(_) | Atom::Rec(_) => out.push_str("<lambda>"),
        Atom::Expr(e) => write_expr(out, e, name),
        Atom::Tuple(args) => {
            out.push('[');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match arg {
                    Arg::Atom(x) => write_element(out, x, name),
                    Arg::Splice(x) => {
                        out.push('!');
                        write_element(out, x, name);
                    }
                }
            }
            out.push(']');
        }
        Atom::Record(fs) => {
            out.push('{');
            for (i, (f, x)) in fs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(f);
                out.push_str(": ");
                write_element(out, x, name);
            }
            out.push('}');
        }
        Atom::Map(entries) => {
            out.push_str("map()");
            for (k, v) in entries {
                out.push_str(".insert(");
                write_element(out, k, name);
                out.push_str(", ");
                write_element(out, v, name);
                out.push(')');
            }
        }
        Atom::Matrix(m) => {
            if m.rows == 0 && m.cols > 0 {
                // `matrix([])` would lose the number of columns.
                let _ = write!(out, "matrix(0, {}, 0)", m.cols);
                return;
            }
            out.push_str("matrix([");
            for r in 0..m.rows {
                if r > 0 {
                    out.push_str(", ");
                }
                out.push('[');
                let row = m.data.get(r * m.cols..(r + 1) * m.cols).unwrap_or(&[]);
                for (c, x) in row.iter().enumerate() {
                    if c > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{x}");
                }
                out.push(']');
            }
            out.push_str("])");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::expr::parse::{dismantle, parse_expr};
    use crate::span::{FileId, Span};
    use crate::term::{Builtin, Matrix};

    fn var_name(v: VarId) -> String {
        format!("v{}", v.0)
    }

    fn parse(text: &str) -> Expr {
        match parse_expr(text, FileId(0), 0) {
            Ok(e) => e,
            Err(d) => panic!("parse of {text:?} failed: {d:?}"),
        }
    }

    fn pr(e: &Expr) -> String {
        print_expr(e, &var_name)
    }

    fn pv(a: &Atom) -> String {
        print_value(a, &var_name)
    }

    /// Parses `input`, prints it, expects `expected`, and checks that the
    /// printed text prints back to itself.
    fn check(input: &str, expected: &str) {
        let printed = pr(&parse(input));
        assert_eq!(printed, expected, "printing {input:?}");
        let again = pr(&parse(&printed));
        assert_eq!(again, printed, "reprinting {printed:?}");
    }

    fn mk(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Span::default(),
        }
    }

    fn val(a: Atom) -> Expr {
        mk(ExprKind::Val(a))
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        mk(ExprKind::Binary(op, Box::new(a), Box::new(b)))
    }

    fn nm(n: &str) -> Expr {
        mk(ExprKind::Name(Arc::from(n)))
    }

    #[test]
    fn minimal_parentheses() {
        check("a - (b - c)", "a-(b-c)");
        check("(a - b) - c", "a-b-c");
        check("(a * b) + c", "a*b+c");
        check("a * (b + c)", "a*(b+c)");
        check("(a + b) * c", "(a+b)*c");
        check("((a + b) * c + d) * e", "((a+b)*c+d)*e");
        check("(a+b)*(c+d)", "(a+b)*(c+d)");
        check("a + (b * c)", "a+b*c");
        check("a || (b && c)", "a||b&&c");
        check("(a || b) && c", "(a||b)&&c");
        check("(a < b) == c", "a<b==c");
        check("a < (b == c)", "a<(b==c)");
        check("a / (b * c)", "a/(b*c)");
        check("(a / b) * c", "a/b*c");
        check("-(a + b)", "-(a+b)");
        check("-a + b", "-a+b");
        check("!(a && b)", "!(a&&b)");
        check("(-a)[0]", "(-a)[0]");
        check("-(a[0])", "-a[0]");
        check("(a + b).f", "(a+b).f");
        check("(x.f).g", "x.f.g");
        check("((t))[((1))]", "t[1]");
        check("x - (-7)", "x-(-7)");
        check("x--7", "x-(-7)");
        check("-(-1)", "-(-1)");
        check("--x", "-(-x)");
        check("x - -y", "x-(-y)");
        check("x * -7", "x*(-7)");
        check("-7 * x", "-7*x");
        check("(-7)[0]", "(-7)[0]");
        check("(-1.5).f", "(-1.5).f");
        check("!-x", "!-x");
        check("-!x", "-!x");
        check("!!x", "!!x");
        check("a<-1", "a<(-1)");
        check("1 . e3", "1.e3");
        check("t[0..-1]", "t[0..-1]");
        check("t[-1..-2]", "t[-1..-2]");
    }

    #[test]
    fn shapes() {
        check("concat( T , [ x ] )", "concat(T, [x])");
        check("{dim:[2,3],data:M}", "{dim: [2, 3], data: M}");
        check("M . insert ( name , arg )", "M.insert(name, arg)");
        check("t[ i .. j ]", "t[i..j]");
        check("delete(t, i .. j)", "delete(t, i..j)");
        check("t [ i ]", "t[i]");
        check("x . f", "x.f");
        check("f()", "f()");
        check("[]", "[]");
        check("{}", "{}");
        check("'it\\'s'", "'it\\'s'");
        check("'a\\\\b'", "'a\\\\b'");
        check("2e3", "2000.0");
        check("1e300", "1e300");
        check("0.1", "0.1");
        check("-0.0", "-0.0");
        check("always && never", "always&&never");
        check("true||false", "true||false");
        check("-9223372036854775808", "-9223372036854775808");
        check("x-(-9223372036854775808)", "x-(-9223372036854775808)");
        check("map().insert('a', 5).lookup('a')", "map().insert('a', 5).lookup('a')");
    }

    #[test]
    fn values() {
        assert_eq!(pv(&Atom::Int(-3)), "-3");
        assert_eq!(pv(&Atom::Float(1.0)), "1.0");
        assert_eq!(pv(&Atom::Float(2.5)), "2.5");
        assert_eq!(pv(&Atom::Float(1e300)), "1e300");
        assert_eq!(pv(&Atom::Float(1e-7)), "1e-7");
        assert_eq!(pv(&Atom::Float(1e16)), "1e16");
        assert_eq!(pv(&Atom::Bool(true)), "true");
        assert_eq!(pv(&Atom::Stage(true)), "always");
        assert_eq!(pv(&Atom::Stage(false)), "never");
        assert_eq!(pv(&Atom::Str(Arc::from("a'b\\c"))), "'a\\'b\\\\c'");
        assert_eq!(pv(&Atom::Var(VarId(4))), "v4");
        assert_eq!(pv(&Atom::Builtin(Builtin::Exit)), "<builtin>");
        let t = Atom::Tuple(vec![
            Arg::Atom(Atom::Int(1)),
            Arg::Atom(Atom::Int(2)),
            Arg::Splice(Atom::Var(VarId(7))),
        ]);
        assert_eq!(pv(&t), "[1, 2, !v7]");
        let r = Atom::Record(vec![
            (
                Arc::from("dim"),
                Atom::Tuple(vec![Arg::Atom(Atom::Int(2)), Arg::Atom(Atom::Int(3))]),
            ),
            (Arc::from("data"), Atom::Var(VarId(1))),
        ]);
        assert_eq!(pv(&r), "{dim: [2, 3], data: v1}");
        assert_eq!(pv(&Atom::Map(vec![])), "map()");
        let m = Atom::Map(vec![
            (Atom::Str(Arc::from("a")), Atom::Int(5)),
            (Atom::Str(Arc::from("b")), Atom::Int(6)),
        ]);
        assert_eq!(pv(&m), "map().insert('a', 5).insert('b', 6)");
        let mx = Atom::Matrix(Arc::new(Matrix {
            rows: 2,
            cols: 2,
            data: vec![1, 2, 3, 4],
        }));
        assert_eq!(pv(&mx), "matrix([[1, 2], [3, 4]])");
        let empty = Atom::Matrix(Arc::new(Matrix {
            rows: 0,
            cols: 0,
            data: vec![],
        }));
        assert_eq!(pv(&empty), "matrix([])");
        let wide = Atom::Matrix(Arc::new(Matrix {
            rows: 0,
            cols: 3,
            data: vec![],
        }));
        assert_eq!(pv(&wide), "matrix(0, 3, 0)");
        let e = Atom::Expr(Box::new(parse("a+b")));
        assert_eq!(pv(&e), "a+b");
    }

    #[test]
    fn substituted_values() {
        // (a+b) substituted as an expression atom under `*` keeps its parens.
        let inner = Atom::Expr(Box::new(parse("a+b")));
        let e = bin(BinOp::Mul, val(inner), nm("c"));
        assert_eq!(pr(&e), "(a+b)*c");
        let e = bin(BinOp::Sub, nm("x"), val(Atom::Int(-7)));
        assert_eq!(pr(&e), "x-(-7)");
        let e = bin(BinOp::Sub, val(Atom::Int(-7)), nm("x"));
        assert_eq!(pr(&e), "-7-x");
        let e = mk(ExprKind::Unary(UnOp::Neg, Box::new(val(Atom::Float(-1.5)))));
        assert_eq!(pr(&e), "-(-1.5)");
        let e = mk(ExprKind::Unary(UnOp::Neg, Box::new(val(Atom::Int(7)))));
        assert_eq!(pr(&e), "-7");
        // `-0` would reparse as the literal 0, printed `0`.
        let e = mk(ExprKind::Unary(UnOp::Neg, Box::new(val(Atom::Int(0)))));
        assert_eq!(pr(&e), "-(0)");
        assert_eq!(pr(&parse("--0")), "-(0)");
        assert_eq!(pr(&parse("-(0)")), "-(0)");
        assert_eq!(pr(&parse("-0")), "0");
        let e = mk(ExprKind::Field(Box::new(val(Atom::Int(-7))), Arc::from("f")));
        assert_eq!(pr(&e), "(-7).f");
        let m = Atom::Map(vec![(Atom::Int(1), Atom::Int(2))]);
        let e = mk(ExprKind::Method(Box::new(val(m)), Arc::from("lookup"), vec![val(Atom::Int(1))]));
        assert_eq!(pr(&e), "map().insert(1, 2).lookup(1)");
        let e = mk(ExprKind::Call(Arc::from("concat"), vec![val(Atom::Var(VarId(0))), nm("x")]));
        assert_eq!(pr(&e), "concat(v0, x)");
        let e = bin(BinOp::Add, val(Atom::Var(VarId(3))), val(Atom::Var(VarId(9))));
        assert_eq!(print_expr(&e, &|v| format!("arg{}", v.0)), "arg3+arg9");
    }

    #[test]
    fn long_chain_prints() {
        for text in [
            vec!["1"; 100_000].join("+"),
            format!("x{}", ".f".repeat(100_000)),
            vec!["a*b"; 50_000].join("-"),
            format!("{}1", "(1+1)*".repeat(50_000)),
        ] {
            let e = parse(&text);
            assert_eq!(pr(&e), text);
            dismantle(e);
        }
    }

    fn gen_value(rng: &mut StdRng, depth: u32) -> Atom {
        match rng.random_range(0..if depth == 0 { 7 } else { 10 }) {
            0 => Atom::Int(rng.random::<i64>() % 1000),
            1 => Atom::Int(rng.random::<i64>()),
            2 => Atom::Float((rng.random::<i64>() % 10_000) as f64 / 64.0),
            3 => Atom::Bool(rng.random_range(0..2) == 0),
            4 => Atom::Stage(rng.random_range(0..2) == 0),
            5 => Atom::Str(Arc::from(["", "a", "it's", "\\", "é"][rng.random_range(0..5)])),
            6 => Atom::Var(VarId(rng.random_range(0..5) as u32)),
            7 => Atom::Tuple((0..rng.random_range(0..3)).map(|_| Arg::Atom(gen_value(rng, depth - 1))).collect()),
            8 => Atom::Record(
                (0..rng.random_range(0..3))
                    .map(|i| (Arc::from(["a", "b", "c"][i]), gen_value(rng, depth - 1)))
                    .collect(),
            ),
            _ => Atom::Map(
                (0..rng.random_range(0..3))
                    .map(|i| (Atom::Int(i as i64), gen_value(rng, depth - 1)))
                    .collect(),
            ),
        }
    }

    fn gen_expr(rng: &mut StdRng, depth: u32) -> Expr {
        let leaf = depth == 0;
        match rng.random_range(0..if leaf { 2 } else { 11 }) {
            0 => val(gen_value(rng, 2)),
            1 => nm(["x", "y", "t", "f1"][rng.random_range(0..4)]),
            2..=4 => {
                let ops = [
                    BinOp::Mul,
                    BinOp::Div,
                    BinOp::Rem,
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                    BinOp::Eq,
                    BinOp::Ne,
                    BinOp::And,
                    BinOp::Or,
                ];
                let op = ops[rng.random_range(0..ops.len())];
                bin(op, gen_expr(rng, depth - 1), gen_expr(rng, depth - 1))
            }
            5 => {
                let op = if rng.random_range(0..2) == 0 { UnOp::Neg } else { UnOp::Not };
                mk(ExprKind::Unary(op, Box::new(gen_expr(rng, depth - 1))))
            }
            6 => mk(ExprKind::Tuple(
                (0..rng.random_range(0..3)).map(|_| gen_expr(rng, depth - 1)).collect(),
            )),
            7 => {
                let idx = if rng.random_range(0..2) == 0 {
                    gen_expr(rng, depth - 1)
                } else {
                    mk(ExprKind::Range(
                        Box::new(gen_expr(rng, depth - 1)),
                        Box::new(gen_expr(rng, depth - 1)),
                    ))
                };
                mk(ExprKind::Index(Box::new(gen_expr(rng, depth - 1)), Box::new(idx)))
            }
            8 => mk(ExprKind::Field(Box::new(gen_expr(rng, depth - 1)), Arc::from("fld"))),
            9 => mk(ExprKind::Call(
                Arc::from("g"),
                (0..rng.random_range(0..3)).map(|_| gen_expr(rng, depth - 1)).collect(),
            )),
            _ => mk(ExprKind::Method(
                Box::new(gen_expr(rng, depth - 1)),
                Arc::from("m"),
                (0..rng.random_range(0..3)).map(|_| gen_expr(rng, depth - 1)).collect(),
            )),
        }
    }

    /// Structural equality of expressions up to spans (values compared by
    /// their printed form).
    fn same(a: &Expr, b: &Expr) -> bool {
        pr(a) == pr(b) && format!("{:?}", strip(a)) == format!("{:?}", strip(b))
    }

    fn strip(e: &Expr) -> String {
        // Debug of the tree without spans.
        let s = format!("{:?}", e.kind);
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find("span: Span {") {
            out.push_str(&rest[..i]);
            match rest[i..].find('}') {
                Some(j) => rest = &rest[i + j + 1..],
                None => break,
            }
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn random_round_trips() {
        let mut rng = StdRng::seed_from_u64(0x2545_f491_4f6c_dd1d);
        for _ in 0..3_000 {
            let e = gen_expr(&mut rng, 4);
            let printed = pr(&e);
            let parsed = match parse_expr(&printed, FileId(0), 0) {
                Ok(p) => p,
                Err(d) => panic!("printed {printed:?} of {e:?} does not parse: {d:?}"),
            };
            let again = pr(&parsed);
            assert_eq!(again, printed, "round trip of {e:?}");
            // Parsing the reprint gives the same tree as parsing the print.
            let parsed2 = parse(&again);
            assert!(same(&parsed, &parsed2));
        }
    }

    /// Makes a tree print-parse stable: values are non-negative integers or
    /// booleans, and no minus sits directly on a number (it would fold).
    fn simplify(mut e: Expr) -> Expr {
        let kind = match std::mem::replace(&mut e.kind, ExprKind::Val(Atom::Int(0))) {
            ExprKind::Val(Atom::Int(n)) => ExprKind::Val(Atom::Int(n.checked_abs().unwrap_or(0))),
            ExprKind::Val(Atom::Bool(b)) => ExprKind::Val(Atom::Bool(b)),
            ExprKind::Val(_) => ExprKind::Name(Arc::from("z")),
            ExprKind::Unary(op, x) => {
                let x = simplify(*x);
                let op = if matches!(x.kind, ExprKind::Val(Atom::Int(_))) {
                    UnOp::Not
                } else {
                    op
                };
                ExprKind::Unary(op, Box::new(x))
            }
            ExprKind::Binary(op, a, b) => ExprKind::Binary(op, Box::new(simplify(*a)), Box::new(simplify(*b))),
            ExprKind::Tuple(xs) => ExprKind::Tuple(xs.into_iter().map(simplify).collect()),
            ExprKind::Record(fs) => ExprKind::Record(fs.into_iter().map(|(f, x)| (f, simplify(x))).collect()),
            ExprKind::Index(a, b) => ExprKind::Index(Box::new(simplify(*a)), Box::new(simplify(*b))),
            ExprKind::Range(a, b) => ExprKind::Range(Box::new(simplify(*a)), Box::new(simplify(*b))),
            ExprKind::Field(a, f) => ExprKind::Field(Box::new(simplify(*a)), f),
            ExprKind::Call(f, xs) => ExprKind::Call(f, xs.into_iter().map(simplify).collect()),
            ExprKind::Method(a, f, xs) => ExprKind::Method(Box::new(simplify(*a)), f, xs.into_iter().map(simplify).collect()),
            k => k,
        };
        Expr { kind, span: e.span }
    }

    #[test]
    fn print_then_parse_is_identity_on_plain_trees() {
        let mut rng = StdRng::seed_from_u64(0x1234_5678_9abc_def1);
        for _ in 0..3_000 {
            let e = simplify(gen_expr(&mut rng, 4));
            let printed = pr(&e);
            let parsed = parse(&printed);
            assert_eq!(strip(&parsed), strip(&e), "{printed}");
        }
    }
}
