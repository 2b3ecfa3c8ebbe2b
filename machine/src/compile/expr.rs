//! Atoms and expression strings (LANGUAGE.md §6) to C.
//!
//! Each operator becomes a call of the runtime's checked operation, given
//! the number of its error site, so a failure is worded and placed as the
//! machine words and places it. Operands are evaluated left to right, as
//! the evaluator does; `&&` and `||` skip their right operand as it does.
//! Left-nested chains of binary operators are followed by a loop.
//!
//! Strings, records, maps and matrices are objects of the runtime, with
//! the evaluator's operations on them; constants of them are static.

use std::fmt::Write as _;

use super::emit::{Func, Gen};
use super::sites::Place;
use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::span::Span;
use crate::term::{Arg, Atom, Builtin};

/// The functions of the expression language and the numbers of arguments
/// they take (as the evaluator checks them).
const FUNCTIONS: &[(&str, &[usize])] = &[
    ("len", &[1]),
    ("count", &[1]),
    ("concat", &[2]),
    ("insert", &[3]),
    ("delete", &[2]),
    ("map", &[0]),
    ("lookup", &[2]),
    ("pluck", &[2]),
    ("min", &[2]),
    ("max", &[2]),
    ("abs", &[1]),
    ("int", &[1]),
    ("float", &[1]),
    ("matrix", &[1, 3]),
    ("dims", &[1]),
    ("matrix_chain_order", &[1]),
];

/// Smallest and one past the largest integer of a one-word value.
const SMALL: std::ops::Range<i64> = -(1 << 62)..(1 << 62);

impl<'a> Gen<'a> {
    /// An atom's value as C (a constant, a variable or a temporary).
    pub(super) fn value(&mut self, f: &mut Func<'a>, a: &'a Atom, body: Span, hint: &str) -> String {
        match a {
            Atom::Var(v) => self.var(f, *v),
            Atom::Int(n) => self.int(*n),
            Atom::Float(x) => {
                let name = self.constant("T_FLOAT", x.to_bits());
                format!("((V)(uintptr_t){name})")
            }
            Atom::Bool(b) => if *b { "V_TRUE" } else { "V_FALSE" }.into(),
            Atom::Stage(b) => if *b { "V_ALWAYS" } else { "V_NEVER" }.into(),
            Atom::Builtin(Builtin::Exit) => "V_EXIT".into(),
            Atom::Builtin(Builtin::If) => "V_IF".into(),
            Atom::Tuple(xs) => {
                let parts: Vec<(String, bool)> = xs
                    .iter()
                    .map(|x| match x {
                        Arg::Atom(y) => (self.value(f, y, body, "lambda"), false),
                        Arg::Splice(y) => (self.value(f, y, body, "lambda"), true),
                    })
                    .collect();
                self.tuple(f, &parts, body, None)
            }
            Atom::Expr(e) => self.expr(f, e, body),
            Atom::Lambda(l) => self.closure(f, l, None, hint),
            Atom::Rec(r) => {
                let name = self.vars.name(r.name).unwrap_or("lambda").to_string();
                self.closure(f, &r.lam, Some(r.name), &name)
            }
            Atom::Str(text) => self.string(text),
            Atom::Record(fs) => {
                let names: Vec<String> = fs.iter().map(|(n, _)| self.string(n)).collect();
                let vals: Vec<String> = fs.iter().map(|(_, x)| self.value(f, x, body, "lambda")).collect();
                let t = f.temp();
                let mut s = format!("{t} = new_pairs(T_RECORD, {});", fs.len());
                for (i, (n, v)) in names.iter().zip(&vals).enumerate() {
                    let _ = write!(s, " FIELDS({t})[{}] = {n}; FIELDS({t})[{}] = {v};", 2 * i, 2 * i + 1);
                }
                f.line(&s);
                t
            }
            Atom::Map(kvs) => {
                let pairs: Vec<(String, String)> = kvs
                    .iter()
                    .map(|(k, v)| (self.value(f, k, body, "lambda"), self.value(f, v, body, "lambda")))
                    .collect();
                let t = f.temp();
                let mut s = format!("{t} = new_pairs(T_MAP, {});", kvs.len());
                for (i, (k, v)) in pairs.iter().enumerate() {
                    let _ = write!(s, " FIELDS({t})[{}] = {k}; FIELDS({t})[{}] = {v};", 2 * i, 2 * i + 1);
                }
                f.line(&s);
                t
            }
            Atom::Matrix(m) => {
                let mut words = vec![m.rows as u64, m.cols as u64];
                words.extend(m.data.iter().map(|x| *x as u64));
                let name = self.object("T_MATRIX", &words);
                format!("((V)(uintptr_t){name})")
            }
        }
    }

    fn int(&mut self, n: i64) -> String {
        if SMALL.contains(&n) {
            return format!("MK_INT({n}LL)");
        }
        let name = self.constant("T_BIGINT", n as u64);
        format!("((V)(uintptr_t){name})")
    }

    /// A string constant.
    fn string(&mut self, text: &str) -> String {
        let bytes = text.as_bytes();
        let mut words = vec![bytes.len() as u64];
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            words.push(u64::from_le_bytes(w));
        }
        if bytes.len().is_multiple_of(8) {
            // The runtime's strings keep a zero byte after their text.
            words.push(0);
        }
        let name = self.object("T_STR", &words);
        format!("((V)(uintptr_t){name})")
    }

    /// A tuple of `parts`, of which the marked ones are spliced. `site`
    /// is where a bad splice fails (an expression's place), or the body.
    fn tuple(&mut self, f: &mut Func<'a>, parts: &[(String, bool)], body: Span, at: Option<Span>) -> String {
        let t = f.temp();
        if parts.iter().any(|(_, s)| *s) {
            let site = self.sites.site(body, at.map_or(Place::Body, Place::At));
            let vals: Vec<&str> = parts.iter().map(|(v, _)| v.as_str()).collect();
            let marks: Vec<&str> = parts.iter().map(|(_, s)| if *s { "1" } else { "0" }).collect();
            f.line(&format!(
                "{{ const V p_[] = {{{}}}; const char s_[] = {{{}}}; {t} = splice_tuple({site}, p_, s_, {}); }}",
                vals.join(", "),
                marks.join(", "),
                parts.len()
            ));
            return t;
        }
        let mut s = format!("{t} = new_tuple({});", parts.len());
        for (i, (v, _)) in parts.iter().enumerate() {
            let _ = write!(s, " FIELDS({t})[{i}] = {v};");
        }
        f.line(&s);
        t
    }

    /// An expression string's value.
    pub(super) fn expr(&mut self, f: &mut Func<'a>, e: &'a Expr, body: Span) -> String {
        let site = |g: &mut Gen<'a>, span: Span| g.sites.site(body, Place::At(span));
        match &e.kind {
            ExprKind::Val(a) => self.value(f, a, body, "lambda"),
            ExprKind::Name(_) => {
                let s = site(self, e.span);
                f.line(&format!("FAILF({s}, K_TYPE, \"unresolved name\");"));
                "V_FALSE".into()
            }
            ExprKind::Tuple(xs) => {
                let parts: Vec<(String, bool)> = xs.iter().map(|x| (self.expr(f, x, body), false)).collect();
                self.tuple(f, &parts, body, Some(e.span))
            }
            ExprKind::Record(fs) => {
                let vals: Vec<String> = fs.iter().map(|(_, x)| self.expr(f, x, body)).collect();
                let names: Vec<String> = fs.iter().map(|(n, _)| self.string(n)).collect();
                let s = site(self, e.span);
                let t = f.temp();
                f.line(&format!(
                    "{{ const V n_[] = {{{}}}; const V v_[] = {{{}}}; {t} = rt_record({s}, n_, v_, {}); }}",
                    if names.is_empty() { "0".to_string() } else { names.join(", ") },
                    if vals.is_empty() { "0".to_string() } else { vals.join(", ") },
                    fs.len()
                ));
                t
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(f, x, body);
                let s = site(self, e.span);
                let t = f.temp();
                let fun = match op {
                    UnOp::Neg => "rt_neg",
                    UnOp::Not => "rt_not",
                };
                f.line(&format!("{t} = {fun}({s}, {v});"));
                t
            }
            ExprKind::Binary(..) => self.binary_chain(f, e, body),
            ExprKind::Index(x, i) => {
                let t = self.expr(f, x, body);
                let r = f.temp();
                match &i.kind {
                    ExprKind::Range(lo, hi) => {
                        let (a, b) = (self.expr(f, lo, body), self.expr(f, hi, body));
                        let s = site(self, e.span);
                        f.line(&format!("{r} = rt_slice({s}, {t}, {a}, {b});"));
                    }
                    _ => {
                        let k = self.expr(f, i, body);
                        let s = site(self, e.span);
                        f.line(&format!("{r} = rt_index({s}, {t}, {k});"));
                    }
                }
                r
            }
            ExprKind::Range(..) => {
                let s = site(self, e.span);
                f.line(&format!(
                    "FAILF({s}, K_TYPE, \"a range `i..j` is only allowed as an index or a function argument\");"
                ));
                "V_FALSE".into()
            }
            ExprKind::Field(x, name) => {
                let r = self.expr(f, x, body);
                let n = self.string(name);
                let s = site(self, e.span);
                let t = f.temp();
                f.line(&format!("{t} = rt_field({s}, {r}, {n});"));
                t
            }
            ExprKind::Call(name, xs) => {
                let args: Vec<&'a Expr> = xs.iter().collect();
                self.call(f, name, &args, e.span, body)
            }
            ExprKind::Method(x, name, xs) => {
                let mut args: Vec<&'a Expr> = vec![&**x];
                args.extend(xs.iter());
                self.call(f, name, &args, e.span, body)
            }
        }
    }

    /// A left-nested chain of binary operators, evaluated by a loop.
    fn binary_chain(&mut self, f: &mut Func<'a>, e: &'a Expr, body: Span) -> String {
        let mut spine: Vec<(BinOp, &'a Expr, Span)> = Vec::new();
        let mut cur = e;
        while let ExprKind::Binary(op, l, r) = &cur.kind {
            spine.push((*op, r, cur.span));
            cur = l;
        }
        let mut acc = self.expr(f, cur, body);
        for (op, r, span) in spine.into_iter().rev() {
            let s = self.sites.site(body, Place::At(span));
            let t = f.temp();
            match op {
                BinOp::And | BinOp::Or => {
                    let sym = op.symbol();
                    let test = if op == BinOp::And { "" } else { "!" };
                    f.line(&format!("if ({test}want_bool({s}, {acc}, \"{sym}\")) {{"));
                    let v = self.expr(f, r, body);
                    f.line(&format!("want_bool({s}, {v}, \"{sym}\"); {t} = {v}; }} else {t} = {acc};"));
                }
                _ => {
                    let v = self.expr(f, r, body);
                    let n = f.ops;
                    f.ops += 1;
                    if let Some(line) = spec_op(f, op, &acc, &v, &t, n) {
                        f.line(&line);
                        acc = t;
                        continue;
                    }
                    if f.spec.is_none() && in_integer_copy(op) {
                        f.line(&format!("G{n}:;"));
                        for x in [&acc, &v] {
                            if is_param_or_captured(x) {
                                f.candidates.push(x.clone());
                            }
                        }
                    }
                    let call = match op {
                        BinOp::Add => format!("rt_add({s}, {acc}, {v})"),
                        BinOp::Sub => format!("rt_sub({s}, {acc}, {v})"),
                        BinOp::Mul => format!("rt_mul({s}, {acc}, {v})"),
                        BinOp::Div => format!("rt_div({s}, {acc}, {v})"),
                        BinOp::Rem => format!("rt_rem({s}, {acc}, {v})"),
                        BinOp::Lt => format!("rt_lt({s}, {acc}, {v})"),
                        BinOp::Le => format!("rt_le({s}, {acc}, {v})"),
                        BinOp::Gt => format!("rt_gt({s}, {acc}, {v})"),
                        BinOp::Ge => format!("rt_ge({s}, {acc}, {v})"),
                        BinOp::Eq => format!("rt_eq({s}, {acc}, {v}, 1)"),
                        BinOp::Ne => format!("rt_eq({s}, {acc}, {v}, 0)"),
                        BinOp::And | BinOp::Or => unreachable!("`&&` and `||` are emitted above"),
                    };
                    f.line(&format!("{t} = {call};"));
                }
            }
            acc = t;
        }
        acc
    }

    /// A call of a function of the expression language.
    fn call(&mut self, f: &mut Func<'a>, name: &str, args: &[&'a Expr], span: Span, body: Span) -> String {
        // Arguments first, left to right; a range is an argument of its own
        // kind, which only `delete` takes (as its second).
        let mut vals = Vec::with_capacity(args.len());
        let mut ranges: Vec<Option<(String, String)>> = Vec::with_capacity(args.len());
        for a in args {
            if let ExprKind::Range(lo, hi) = &a.kind {
                let (l, h) = (self.expr(f, lo, body), self.expr(f, hi, body));
                ranges.push(Some((l, h)));
                vals.push("V_FALSE".to_string());
            } else {
                ranges.push(None);
                vals.push(self.expr(f, a, body));
            }
        }
        let s = self.sites.site(body, Place::At(span));
        let n = args.len();
        let Some((_, arities)) = FUNCTIONS.iter().find(|(f, _)| *f == name) else {
            f.line(&format!(
                "FAILF({s}, K_UNKNOWN_FN, \"unknown function `%s`\", \"{}\");",
                c_text(name)
            ));
            return "V_FALSE".into();
        };
        if !arities.contains(&n) {
            let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
            let expected = match arities {
                [k] => format!("{k} {}", plural(*k)),
                _ => arities.iter().map(ToString::to_string).collect::<Vec<_>>().join(" or ") + " arguments",
            };
            let msg = format!(
                "`{name}` takes {expected} (a method's receiver counts), but {n} {} given",
                if n == 1 { "was" } else { "were" }
            );
            f.line(&format!("FAILF({s}, K_ARITY, \"%s\", \"{}\");", c_text(&msg)));
            return "V_FALSE".into();
        }
        let range_ok = |k: usize| name == "delete" && k == 1;
        if let Some(k) = ranges.iter().enumerate().position(|(k, r)| r.is_some() && !range_ok(k)) {
            f.line(&format!(
                "FAILF({s}, K_TYPE, \"argument {} of `%s` cannot be a range\", \"{}\");",
                k + 1,
                c_text(name)
            ));
            return "V_FALSE".into();
        }
        let t = f.temp();
        let a = |i: usize| vals[i].as_str();
        let call = match name {
            "len" | "count" => format!("rt_len({s}, \"{name}\", {})", a(0)),
            "concat" => format!("rt_concat({s}, {}, {})", a(0), a(1)),
            "min" => format!("rt_minmax({s}, \"min\", {}, {}, 1)", a(0), a(1)),
            "max" => format!("rt_minmax({s}, \"max\", {}, {}, 0)", a(0), a(1)),
            "abs" => format!("rt_abs({s}, {})", a(0)),
            "int" => format!("rt_to_int({s}, {})", a(0)),
            "float" => format!("rt_to_float({s}, {})", a(0)),
            "insert" => format!("rt_insert({s}, {}, {}, {})", a(0), a(1), a(2)),
            "delete" => match &ranges[1] {
                Some((lo, hi)) => format!("rt_delete({s}, {}, {lo}, {hi}, 1)", a(0)),
                None => format!("rt_delete({s}, {}, {}, V_FALSE, 0)", a(0), a(1)),
            },
            "map" => "rt_map_new()".to_string(),
            "lookup" => format!("rt_lookup({s}, {}, {})", a(0), a(1)),
            "pluck" => format!("rt_pluck({s}, {}, {})", a(0), a(1)),
            "matrix" if n == 3 => format!("rt_matrix_random({s}, {}, {}, {})", a(0), a(1), a(2)),
            "matrix" => format!("rt_matrix_rows({s}, {})", a(0)),
            "dims" => format!("rt_dims({s}, {})", a(0)),
            _ => format!("rt_chain_order({s}, {})", a(0)),
        };
        f.line(&format!("{t} = {call};"));
        t
    }
}

/// Whether `c` names a parameter (`pN`) or a captured variable of the
/// function being emitted.
fn is_param_or_captured(c: &str) -> bool {
    c.starts_with("ENV(self)[") || (c.len() > 1 && c.starts_with('p') && c[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the integer copy of a loop computes `op` in place on small
/// integers (and the generic copy labels it, to fall back to).
fn in_integer_copy(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// In the integer copy of a loop, `acc op v` on known small integers: the
/// line computing it into `t` (falling back to the generic copy's
/// operation `n` on overflow), and what `t` is then known to be.
fn spec_op(f: &mut Func<'_>, op: BinOp, acc: &str, v: &str, t: &str, n: usize) -> Option<String> {
    let spec = f.spec.as_mut()?;
    if !(in_integer_copy(op) && spec.int(acc) && spec.int(v)) {
        return None;
    }
    let (line, int) = match op {
        BinOp::Add => (
            format!("if (UNLIKELY(__builtin_add_overflow((int64_t){acc}, (int64_t){v} - 1, (int64_t *)&{t}))) goto G{n};"),
            true,
        ),
        BinOp::Sub => (
            format!("if (UNLIKELY(__builtin_sub_overflow((int64_t){acc}, (int64_t){v} - 1, (int64_t *)&{t}))) goto G{n};"),
            true,
        ),
        BinOp::Mul => (
            format!(
                "{{ int64_t r_; if (UNLIKELY(__builtin_mul_overflow(INT_OF({acc}), (int64_t){v} - 1, &r_))) goto G{n}; {t} = (V)r_ | 1; }}"
            ),
            true,
        ),
        BinOp::Lt => (format!("{t} = MK_BOOL((int64_t){acc} < (int64_t){v});"), false),
        BinOp::Le => (format!("{t} = MK_BOOL((int64_t){acc} <= (int64_t){v});"), false),
        BinOp::Gt => (format!("{t} = MK_BOOL((int64_t){acc} > (int64_t){v});"), false),
        BinOp::Ge => (format!("{t} = MK_BOOL((int64_t){acc} >= (int64_t){v});"), false),
        BinOp::Eq => (format!("{t} = MK_BOOL({acc} == {v});"), false),
        BinOp::Ne => (format!("{t} = MK_BOOL({acc} != {v});"), false),
        _ => return None,
    };
    if int {
        spec.ints.insert(t.to_string());
    } else {
        spec.bools.insert(t.to_string());
    }
    Some(line)
}

/// Text for the inside of a C string literal.
fn c_text(s: &str) -> String {
    let lit = super::sites::c_string(s);
    lit[1..lit.len() - 1].to_string()
}
