//! A generator of random well-scoped *staged* DeepCPS programs, for the
//! equivalence test of the two machines (`tests/equivalence.rs`).
//!
//! Unlike [`crate::Gen`], which aims at printing, this one aims at running:
//! it keeps a typed environment (integers, booleans, tuples, rest tuples,
//! staging values, functions in CPS with their signatures) and mostly writes
//! code that uses each variable as what it is, so that most programs run many
//! steps before they end. It covers natural, `always`, `never`, variable and
//! compound stages; named staging parameters passed on as arguments; tuples,
//! splices (of known tuples and of symbolic ones onto rest parameters) and
//! rest parameters; `if` (with a join continuation, or duplicating the rest);
//! bounded `fix` loops (counting, and walking a rest tuple by splicing it;
//! a counting loop is also a value the rest may call, pass on, or leave
//! twice in a residual body, where it prints as a `fix`); staged
//! recursion: a divide-and-conquer whose halves are closures with bodies
//! staged on the split point, reduced under their lambdas once it is known
//! and left stuck on their continuations until the join releases them;
//! expressions; staged "program" lambdas as exit values (their `@always:`
//! bodies run while their parameters are symbolic, so they get stuck or
//! build residual code); and, with small probabilities, every runtime error
//! kind the generator can provoke and an endless loop (the step limit).
//!
//! Recursion only happens through the `fix` templates, whose bounds are
//! small, and through the rare endless loop, so a run ends quickly or hits
//! the step limit.

use std::rc::Rc;

/// Marks, in generated source, a body that splices a tuple exactly onto the
/// callee's rest parameter. The comment sits right before the body, so a
/// step whose span starts at the byte after it executed such a body.
pub const REST_SPLICE_MARK: &str = "/*rest-splice*/";

/// Marks, in generated source, a half of a staged divide-and-conquer: a
/// body staged on the split point, under a closure's lambda. A step whose
/// span starts at the byte after it executed such a body.
pub const STAGED_HALF_MARK: &str = "/*staged-half*/";

/// Sentinel a statement returns in front of its text to ask for the mark
/// (moved in front of the stage by [`StagedGen::body`]).
const MARK: char = '\u{1}';

/// The types the generator tracks.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Int,
    Bool,
    /// A tuple with elements of these types.
    Tup(Vec<Ty>),
    /// A tuple of integers of unknown length (what a rest parameter holds).
    Ints,
    /// A staging value (`always`, `never`, or a staging parameter).
    Stage,
    /// A function in CPS.
    Fun(Rc<Sig>),
}

/// A function's parameters: value parameters, where the rest parameter (of
/// type `Ints`) sits among them, and the type its continuation (the last
/// parameter) receives; `ret: None` means no continuation.
#[derive(Debug, PartialEq)]
struct Sig {
    params: Vec<Ty>,
    rest: Option<usize>,
    ret: Option<Ty>,
}

impl Sig {
    /// The type of a continuation receiving one `t`.
    fn cont(t: Ty) -> Ty {
        Ty::Fun(Rc::new(Sig {
            params: vec![t],
            rest: None,
            ret: None,
        }))
    }
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
}

/// How a body ends: with `$exit` (or any continuation in scope), or by
/// calling continuation `name` with a value of the type.
#[derive(Clone, Debug)]
enum Ret {
    Exit,
    Cont(String, Ty),
}

/// One generated program.
pub struct Generated {
    /// The source text.
    pub src: String,
}

impl Generated {
    /// Byte offsets of the bodies that splice a tuple onto a rest parameter
    /// (where a step's span starts when it executes one).
    pub fn rest_splice_sites(&self) -> Vec<usize> {
        self.src.match_indices(REST_SPLICE_MARK).map(|(i, m)| i + m.len()).collect()
    }

    /// Byte offsets of the staged halves of divide-and-conquer templates
    /// (where a step's span starts when it executes one).
    pub fn staged_half_sites(&self) -> Vec<usize> {
        self.src.match_indices(STAGED_HALF_MARK).map(|(i, m)| i + m.len()).collect()
    }
}

/// The generator: a small deterministic random source and a name counter.
pub struct StagedGen {
    state: u64,
    /// Choices read from bytes instead of the random source (the fuzzer's
    /// input, `tests/fuzz/fuzz_targets/machines.rs`), and the next to read.
    choices: Option<(Vec<u8>, usize)>,
    fresh: u32,
    vars: Vec<Var>,
    /// How many lambdas that may never be called enclose the code being
    /// written (function definitions, lambda arguments, program lambdas).
    lambdas: u32,
}

impl StagedGen {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> StagedGen {
        StagedGen {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03,
            choices: None,
            fresh: 0,
            vars: Vec::new(),
            lambdas: 0,
        }
    }

    /// A generator whose every choice is the next byte of `bytes` (zero once
    /// they run out), for the fuzzer: changing one byte changes one decision,
    /// and every byte string gives a program (the templates' fuel bounds its
    /// size whatever the choices).
    pub fn from_bytes(bytes: &[u8]) -> StagedGen {
        StagedGen {
            choices: Some((bytes.to_vec(), 0)),
            ..StagedGen::new(0)
        }
    }

    fn next(&mut self) -> u64 {
        if let Some((bytes, at)) = &mut self.choices {
            let b = bytes.get(*at).copied().unwrap_or(0);
            *at += 1;
            return u64::from(b);
        }
        // splitmix64
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> Option<T> {
        if xs.is_empty() {
            None
        } else {
            Some(xs[self.below(xs.len() as u64) as usize].clone())
        }
    }

    /// The variables in scope that are not shadowed by a later one.
    fn visible(&self) -> Vec<Var> {
        let mut out: Vec<Var> = Vec::new();
        for (i, v) in self.vars.iter().enumerate() {
            if !self.vars[i + 1..].iter().any(|w| w.name == v.name) {
                out.push(v.clone());
            }
        }
        out
    }

    fn visible_where(&self, f: impl Fn(&Ty) -> bool) -> Vec<String> {
        self.visible().into_iter().filter(|v| f(&v.ty)).map(|v| v.name).collect()
    }

    fn of_ty(&self, ty: &Ty) -> Vec<String> {
        self.visible_where(|t| t == ty)
    }

    /// A fresh name, or now and then the name of a variable in scope (so
    /// that shadowing, and the printer's renaming, happen), avoiding `taken`.
    fn name(&mut self, prefix: &str, taken: &[String]) -> String {
        if self.chance(10) {
            let names: Vec<String> = self.visible().into_iter().map(|v| v.name).collect();
            if let Some(n) = self.pick(&names) {
                if !taken.contains(&n) {
                    return n;
                }
            }
        }
        self.fresh_name(prefix)
    }

    /// A name never used before (for the inner names of the templates).
    fn fresh_name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn bind(&mut self, name: &str, ty: Ty) {
        self.vars.push(Var {
            name: name.to_string(),
            ty,
        });
    }

    /// A whole program.
    pub fn program(&mut self) -> Generated {
        self.vars.clear();
        self.lambdas = 0;
        let fuel = 5 + self.below(10) as u32;
        let src = self.body(fuel, 3, &Ret::Exit);
        Generated { src }
    }

    // ----- stages ---------------------------------------------------------

    fn stage(&mut self) -> String {
        let stages = self.of_ty(&Ty::Stage);
        let ints = self.of_ty(&Ty::Int);
        // The main chain runs in order: mostly natural staging there, so
        // that most programs run; inside lambdas, every kind of stage.
        let roll = if self.lambdas == 0 && self.chance(75) { 0 } else { self.below(100) };
        match roll {
            0..=59 => String::new(),
            60..=67 => "@always: ".into(),
            68..=69 => "@never: ".into(),
            70..=86 => match self.pick(&stages) {
                Some(s) => format!("@{s}: "),
                None => String::new(),
            },
            87..=88 => match self.pick(&ints) {
                // Any concrete value other than `never` counts as `always`.
                Some(s) => format!("@{s}: "),
                None => "@always: ".into(),
            },
            _ => {
                let s = self.pick(&stages).unwrap_or_else(|| "never".into());
                let t = self.pick(&stages).unwrap_or_else(|| "always".into());
                match self.below(6) {
                    0 => format!("@!{s}: "),
                    1 => format!("@{s} & {t}: "),
                    2 => format!("@{s} | never: "),
                    3 => format!("@({s} | {t}) & always: "),
                    4 => format!("@!({s} & {t}): "),
                    _ => format!("@!never & {s}: "),
                }
            }
        }
    }

    /// A stage that is never active before its lambda is called: natural,
    /// or now and then `never`.
    fn inert_stage(&mut self) -> String {
        if self.chance(5) {
            "@never: ".into()
        } else {
            String::new()
        }
    }

    // ----- types and values -----------------------------------------------

    fn rand_ty(&mut self, depth: u32) -> Ty {
        match self.below(100) {
            0..=44 => Ty::Int,
            45..=56 => Ty::Bool,
            57..=66 => match self.below(3) {
                0 => Ty::Tup(vec![Ty::Int, Ty::Int]),
                1 => Ty::Tup(vec![Ty::Int, Ty::Bool]),
                _ => Ty::Tup(vec![Ty::Int]),
            },
            67..=74 => Ty::Ints,
            75..=86 => Ty::Stage,
            _ if depth > 0 => Ty::Fun(Rc::new(self.rand_sig(depth - 1))),
            _ => Ty::Int,
        }
    }

    fn rand_sig(&mut self, depth: u32) -> Sig {
        let n = self.below(4) as usize;
        let params: Vec<Ty> = (0..n).map(|_| self.rand_ty(depth)).collect();
        let rest = if self.chance(25) {
            Some(self.below(n as u64 + 1) as usize)
        } else {
            None
        };
        let ret = if self.chance(92) {
            Some(match self.below(10) {
                0..=5 => Ty::Int,
                6 => Ty::Bool,
                7 => Ty::Ints,
                8 => Ty::Stage,
                _ => Ty::Tup(vec![Ty::Int, Ty::Int]),
            })
        } else {
            None
        };
        Sig { params, rest, ret }
    }

    fn int_lit(&mut self) -> String {
        format!("{}", self.below(12) as i64 - 2)
    }

    fn int_leaf(&mut self) -> String {
        let ints = self.of_ty(&Ty::Int);
        if self.chance(65) {
            if let Some(v) = self.pick(&ints) {
                return v;
            }
        }
        self.int_lit()
    }

    /// An integer expression (without quotes).
    fn int_expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.chance(35) {
            return self.int_leaf();
        }
        let a = self.int_expr(depth - 1);
        match self.below(10) {
            0..=3 => format!("{a}+{}", self.int_expr(depth - 1)),
            4..=5 => format!("{a}-{}", self.int_expr(depth - 1)),
            6..=7 => format!("({a})*{}", self.int_leaf()),
            8 => {
                // Mostly a safe divisor; sometimes one that may be zero.
                let d = if self.chance(8) {
                    self.int_leaf()
                } else {
                    format!("{}", 1 + self.below(4))
                };
                format!("({a})/{d}")
            }
            _ => {
                let ints = self.of_ty(&Ty::Ints);
                match self.pick(&ints) {
                    Some(r) => format!("{a}+len({r})"),
                    None => format!("({a})%{}", 1 + self.below(3)),
                }
            }
        }
    }

    /// A boolean expression (without quotes).
    fn bool_expr(&mut self) -> String {
        let bools = self.of_ty(&Ty::Bool);
        match self.below(6) {
            0 | 1 => format!("{}<{}", self.int_expr(1), self.int_expr(1)),
            2 => format!("{}=={}", self.int_leaf(), self.int_leaf()),
            3 => match self.pick(&bools) {
                Some(b) => format!("!{b}"),
                None => "true".into(),
            },
            4 => match self.pick(&bools) {
                Some(b) => format!("{b} && {}<3", self.int_leaf()),
                None => format!("{}>=0", self.int_leaf()),
            },
            _ => {
                let ints = self.of_ty(&Ty::Ints);
                match self.pick(&ints) {
                    Some(r) => format!("len({r})>1"),
                    None => format!("{}!=1", self.int_leaf()),
                }
            }
        }
    }

    /// An argument of type `ty`: a variable of that type, a literal, an
    /// expression string, or a lambda.
    fn value(&mut self, ty: &Ty, depth: u32) -> String {
        let vars = self.of_ty(ty);
        if !vars.is_empty() && self.chance(60) {
            return self.pick(&vars).unwrap_or_default();
        }
        match ty {
            Ty::Int => {
                if self.chance(20) {
                    format!("\"{}\"", self.int_expr(1))
                } else {
                    self.int_leaf()
                }
            }
            Ty::Bool => match self.below(3) {
                0 => format!("\"{}\"", self.bool_expr()),
                1 => "true".into(),
                _ => "false".into(),
            },
            Ty::Stage => (if self.chance(60) { "always" } else { "never" }).into(),
            Ty::Tup(tys) => {
                let xs: Vec<String> = tys.iter().map(|t| self.value(t, depth)).collect();
                format!("[{}]", xs.join(", "))
            }
            Ty::Ints => {
                let tups = self.visible_where(|t| matches!(t, Ty::Tup(x) if x.iter().all(|e| *e == Ty::Int)));
                if let (true, Some(t)) = (self.chance(30), self.pick(&tups)) {
                    return t;
                }
                let n = self.below(4);
                let mut xs: Vec<String> = (0..n).map(|_| self.int_leaf()).collect();
                let ints = self.of_ty(&Ty::Ints);
                if let (true, Some(r)) = (self.chance(25), self.pick(&ints)) {
                    xs.push(format!("!{r}"));
                }
                format!("[{}]", xs.join(", "))
            }
            Ty::Fun(sig) => {
                let sig = sig.clone();
                let fuel = if depth > 0 { self.below(3) as u32 } else { 0 };
                self.lambda(&sig, depth.saturating_sub(1), fuel)
            }
        }
    }

    /// A braced lambda of signature `sig` whose body has `fuel` statements.
    fn lambda(&mut self, sig: &Sig, depth: u32, fuel: u32) -> String {
        let mark = self.vars.len();
        let mut names: Vec<String> = Vec::new();
        let mut params: Vec<String> = Vec::new();
        let mut tys: Vec<(String, Ty)> = Vec::new();
        for i in 0..=sig.params.len() {
            if sig.rest == Some(i) {
                let r = self.name("r", &names);
                names.push(r.clone());
                params.push(format!("!{r}"));
                tys.push((r, Ty::Ints));
            }
            if let Some(t) = sig.params.get(i) {
                let prefix = match t {
                    Ty::Int => "i",
                    Ty::Bool => "b",
                    Ty::Tup(_) | Ty::Ints => "t",
                    Ty::Stage => "s",
                    Ty::Fun(_) => "f",
                };
                let p = self.name(prefix, &names);
                names.push(p.clone());
                params.push(p.clone());
                tys.push((p, t.clone()));
            }
        }
        let ret = match &sig.ret {
            Some(t) => {
                let k = self.name("k", &names);
                names.push(k.clone());
                params.push(k.clone());
                tys.push((k.clone(), Sig::cont(t.clone())));
                Ret::Cont(k, t.clone())
            }
            None => Ret::Exit,
        };
        let sname = if self.chance(40) {
            let s = self.name("s", &names);
            tys.push((s.clone(), Ty::Stage));
            format!("[{s}]")
        } else {
            String::new()
        };
        for (n, t) in tys {
            self.bind(&n, t);
        }
        self.lambdas += 1;
        let body = self.body(fuel, depth, &ret);
        self.lambdas -= 1;
        self.vars.truncate(mark);
        format!("({}){sname} {{\n{body}\n}}", params.join(", "))
    }

    // ----- bodies -----------------------------------------------------------

    /// A chain of about `fuel` statements, ending as `ret` says.
    fn body(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let stage = self.stage();
        let stmt = if fuel == 0 {
            self.finish(depth, ret)
        } else {
            self.statement(fuel - 1, depth, ret)
        };
        // A statement that brings its own stage keeps it.
        let stage = if stmt.trim_start_matches(MARK).starts_with('@') {
            String::new()
        } else {
            stage
        };
        match stmt.strip_prefix(MARK) {
            Some(s) => format!("{REST_SPLICE_MARK}{stage}{s}"),
            None => format!("{stage}{stmt}"),
        }
    }

    /// The rest of the chain, with `binds` in scope.
    fn rest_with(&mut self, binds: &[(String, Ty)], fuel: u32, depth: u32, ret: &Ret) -> String {
        let mark = self.vars.len();
        for (n, t) in binds {
            self.bind(n, t.clone());
        }
        let b = self.body(fuel, depth, ret);
        self.vars.truncate(mark);
        b
    }

    /// An optional named staging parameter for a tail lambda.
    fn tail_stage(&mut self, binds: &mut Vec<(String, Ty)>) -> String {
        if self.chance(25) {
            let taken: Vec<String> = binds.iter().map(|b| b.0.clone()).collect();
            let s = self.name("s", &taken);
            binds.push((s.clone(), Ty::Stage));
            format!("[{s}]")
        } else {
            String::new()
        }
    }

    fn statement(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        match self.below(100) {
            0..=15 => {
                let x = self.name("i", &[]);
                let e = self.int_expr(2);
                let mut binds = vec![(x.clone(), Ty::Int)];
                let s = self.tail_stage(&mut binds);
                let rest = self.rest_with(&binds, fuel, depth, ret);
                format!("\"{e}\" ({x}){s}\n{rest}")
            }
            16..=21 => {
                let x = self.name("b", &[]);
                let e = self.bool_expr();
                let rest = self.rest_with(&[(x.clone(), Ty::Bool)], fuel, depth, ret);
                format!("\"{e}\" ({x})\n{rest}")
            }
            22..=28 => self.tuple_stmt(fuel, depth, ret),
            29..=40 if depth > 0 => {
                let f = self.name("f", &[]);
                let sig = self.rand_sig(depth - 1);
                let lam_fuel = 1 + self.below(4) as u32;
                let lam = self.lambda(&sig, depth - 1, lam_fuel);
                let rest = self.rest_with(&[(f.clone(), Ty::Fun(Rc::new(sig)))], fuel, depth, ret);
                format!("let {f} = {lam}\n{rest}")
            }
            41..=56 => self.call_stmt(fuel, depth, ret),
            57..=62 => self.if_join(fuel, depth, ret),
            63..=66 => {
                let c = self.value(&Ty::Bool, 0);
                let half = fuel / 2;
                let t = self.body(half, depth, ret);
                let f = self.body(fuel - half, depth, ret);
                format!("if {c} () {{\n{t}\n}} () {{\n{f}\n}}")
            }
            67..=73 => self.count_loop(fuel, depth, ret),
            74..=77 => self.walk_loop(fuel, depth, ret),
            78..=81 => self.destructure(fuel, depth, ret),
            82..=84 => {
                // A staging value bound by `let`, or a named `let` stage.
                if self.chance(50) {
                    let s = self.name("s", &[]);
                    let v = if self.chance(60) { "always" } else { "never" };
                    let rest = self.rest_with(&[(s.clone(), Ty::Stage)], fuel, depth, ret);
                    format!("let {s} = {v}\n{rest}")
                } else {
                    let x = self.name("i", &[]);
                    let s = self.name("s", std::slice::from_ref(&x));
                    let v = self.value(&Ty::Int, 0);
                    let rest = self.rest_with(&[(x.clone(), Ty::Int), (s.clone(), Ty::Stage)], fuel, depth, ret);
                    format!("let [{s}] {x} = {v}\n{rest}")
                }
            }
            85..=88 if self.lambdas > 0 => self.finish(depth, ret),
            89..=90 => self.error_stmt(fuel, depth, ret),
            93..=95 => self.staged_split(fuel, depth, ret),
            92 if self.chance(50) => {
                // An endless loop: the step limit.
                let f = self.name("spin", &[]);
                let n = self.name("i", std::slice::from_ref(&f));
                let m = self.name("i", &[f.clone(), n.clone()]);
                format!("fix {f}({n}) {{ \"{n}+1\" ({m}) {f} {m} }} in\n{f} 0")
            }
            _ => {
                let x = self.name("i", &[]);
                let e = self.int_expr(1);
                let rest = self.rest_with(&[(x.clone(), Ty::Int)], fuel, depth, ret);
                format!("\"{e}\" ({x})\n{rest}")
            }
        }
    }

    /// Ends a chain: return a value to the continuation, `$exit`, or exit
    /// with a staged program lambda.
    fn finish(&mut self, depth: u32, ret: &Ret) -> String {
        let conts = self.visible_where(|t| matches!(t, Ty::Fun(s) if s.params.len() == 1 && s.ret.is_none()));
        match ret {
            Ret::Cont(k, t) if self.chance(96) => {
                let v = self.value(t, depth);
                format!("{k} {v}")
            }
            Ret::Cont(..) if self.chance(50) => {
                if let Some(k) = self.pick(&conts) {
                    let ty = self
                        .visible()
                        .into_iter()
                        .find(|v| v.name == k)
                        .and_then(|v| match v.ty {
                            Ty::Fun(s) => s.params.first().cloned(),
                            _ => None,
                        })
                        .unwrap_or(Ty::Int);
                    let v = self.value(&ty, depth);
                    format!("{k} {v}")
                } else {
                    format!("$exit {}", self.int_leaf())
                }
            }
            Ret::Cont(..) => format!("$exit {}", self.int_leaf()),
            Ret::Exit => match self.below(10) {
                0..=4 => {
                    let ty = self.rand_ty(depth.min(1));
                    let v = self.value(&ty, depth.min(1));
                    format!("$exit {v}")
                }
                5..=7 if depth > 0 => self.program_lambda(depth),
                8 => {
                    // Functions held twice by a residual body: recursive
                    // values print as a `fix` there, once per value.
                    let funs = self.visible_where(|t| matches!(t, Ty::Fun(_)));
                    match (self.pick(&funs), self.pick(&funs)) {
                        (Some(f), Some(g)) if self.chance(60) => format!("@never: $exit [{f}, {g}] {f}"),
                        _ => format!("@never: $exit {}", self.int_leaf()),
                    }
                }
                _ => {
                    let vars = self.visible();
                    match self.pick(&vars) {
                        Some(v) => format!("$exit {}", v.name),
                        None => format!("$exit {}", self.int_leaf()),
                    }
                }
            },
        }
    }

    /// `$exit (k, a, ..)[pt] { .. }`: a program generator in the paper's
    /// style. Nothing calls the lambda, so only its `@always:`-like bodies
    /// run, with its parameters symbolic.
    fn program_lambda(&mut self, depth: u32) -> String {
        let mark = self.vars.len();
        let k = self.name("exit", &[]);
        let a = self.name("x", std::slice::from_ref(&k));
        let taken = [k.clone(), a.clone()];
        let t = self.name("t", &taken);
        let taken = [k.clone(), a.clone(), t.clone()];
        let pt = self.name("pt", &taken);
        self.bind(&k, Sig::cont(Ty::Int));
        self.bind(&a, Ty::Int);
        let rest_param = self.chance(50);
        if rest_param {
            self.bind(&t, Ty::Ints);
        }
        self.bind(&pt, Ty::Stage);
        let fuel = 2 + self.below(5) as u32;
        self.lambdas += 1;
        let body = self.body(fuel, depth - 1, &Ret::Cont(k.clone(), Ty::Int));
        self.lambdas -= 1;
        self.vars.truncate(mark);
        let params = if rest_param {
            format!("{k}, {a}, !{t}")
        } else {
            format!("{k}, {a}")
        };
        format!("$exit ({params})[{pt}] {{\n{body}\n}}")
    }

    fn tuple_stmt(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let t = self.name("t", &[]);
        match self.below(4) {
            0 => {
                let a = self.int_leaf();
                let b = self.int_leaf();
                let rest = self.rest_with(&[(t.clone(), Ty::Tup(vec![Ty::Int, Ty::Int]))], fuel, depth, ret);
                format!("\"[{a}, {b}]\" ({t})\n{rest}")
            }
            1 => {
                let ints = self.of_ty(&Ty::Ints);
                let r = self.pick(&ints).unwrap_or_else(|| "[]".into());
                let a = self.int_leaf();
                let rest = self.rest_with(&[(t.clone(), Ty::Ints)], fuel, depth, ret);
                format!("\"concat({r}, [{a}])\" ({t})\n{rest}")
            }
            2 => {
                let ty = self.rand_ty(depth.min(1));
                let u = self.rand_ty(0);
                let tup = Ty::Tup(vec![ty, u]);
                let v = self.value(&tup, depth.min(1));
                let rest = self.rest_with(&[(t.clone(), tup)], fuel, depth, ret);
                format!("let {t} = {v}\n{rest}")
            }
            _ => {
                // Read a tuple: an element or a length.
                let tups = self.visible_where(|t| matches!(t, Ty::Tup(x) if x.first() == Some(&Ty::Int)));
                let x = self.name("i", &[]);
                let e = match self.pick(&tups) {
                    Some(u) => format!("{u}[0]"),
                    None => {
                        let ints = self.of_ty(&Ty::Ints);
                        match self.pick(&ints) {
                            Some(r) => format!("len({r})"),
                            None => "[4, 5][1]".into(),
                        }
                    }
                };
                let rest = self.rest_with(&[(x.clone(), Ty::Int)], fuel, depth, ret);
                format!("\"{e}\" ({x})\n{rest}")
            }
        }
    }

    /// Calls a function in scope with arguments of the right types; the
    /// continuation is a tail lambda holding the rest of the chain, or a
    /// continuation in scope.
    fn call_stmt(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let funs: Vec<(String, Rc<Sig>)> = self
            .visible()
            .into_iter()
            .filter_map(|v| match v.ty {
                Ty::Fun(s) => Some((v.name, s)),
                _ => None,
            })
            .collect();
        let Some((f, sig)) = self.pick(&funs) else {
            let x = self.name("i", &[]);
            let e = self.int_expr(2);
            let rest = self.rest_with(&[(x.clone(), Ty::Int)], fuel, depth, ret);
            return format!("\"{e}\" ({x})\n{rest}");
        };
        let mut args: Vec<String> = Vec::new();
        let mut marked = false;
        let mut i = 0;
        while i <= sig.params.len() {
            if sig.rest == Some(i) {
                let rests = self.visible_where(|t| *t == Ty::Ints || matches!(t, Ty::Tup(x) if x.iter().all(|e| *e == Ty::Int)));
                match self.below(10) {
                    0..=4 => {
                        if let Some(r) = self.pick(&rests) {
                            args.push(format!("!{r}"));
                            marked = true;
                        }
                    }
                    _ => {
                        for _ in 0..self.below(3) {
                            let v = self.value(&Ty::Int, 0);
                            args.push(v);
                        }
                    }
                }
            }
            if i < sig.params.len() {
                // A known pair spliced onto two parameters of the same types.
                let here = sig.params[i..].to_vec();
                let pairs = self.visible_where(|t| matches!(t, Ty::Tup(x) if x.len() == 2 && here.len() >= 2 && x[..] == here[..2]));
                let rest_inside = sig.rest.is_some_and(|r| r == i + 1);
                if !rest_inside && self.chance(15) {
                    if let Some(p) = self.pick(&pairs) {
                        args.push(format!("!{p}"));
                        i += 2;
                        continue;
                    }
                }
                let v = self.value(&sig.params[i], depth.saturating_sub(1));
                args.push(v);
            }
            i += 1;
        }
        let args = if args.is_empty() {
            String::new()
        } else {
            format!(" {}", args.join(" "))
        };
        let mark = if marked { MARK.to_string() } else { String::new() };
        match &sig.ret {
            None => format!("{mark}{f}{args}"),
            Some(t) => {
                let conts = self.of_ty(&Sig::cont(t.clone()));
                if let (true, Some(k)) = (self.chance(15), self.pick(&conts)) {
                    return format!("{mark}{f}{args} {k}");
                }
                let x = self.name("v", &[]);
                let mut binds = vec![(x.clone(), t.clone())];
                let s = self.tail_stage(&mut binds);
                let rest = self.rest_with(&binds, fuel, depth, ret);
                format!("{mark}{f}{args} ({x}){s}\n{rest}")
            }
        }
    }

    /// `let j = (x) { rest }` and an `if` whose branches both call `j`.
    fn if_join(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let j = self.name("j", &[]);
        let x = self.name("i", std::slice::from_ref(&j));
        let mut binds = vec![(x.clone(), Ty::Int)];
        let s = self.tail_stage(&mut binds);
        let rest = self.rest_with(&binds, fuel, depth, ret);
        let mark = self.vars.len();
        self.bind(&j, Sig::cont(Ty::Int));
        let c = if self.chance(4) {
            self.int_leaf() // a type error when it runs
        } else {
            self.value(&Ty::Bool, 0)
        };
        let jr = Ret::Cont(j.clone(), Ty::Int);
        let f1 = self.below(2) as u32;
        let t = self.body(f1, depth, &jr);
        let f2 = self.below(2) as u32;
        let f = self.body(f2, depth, &jr);
        let stage = self.stage();
        self.vars.truncate(mark);
        format!("let {j} = ({x}){s} {{\n{rest}\n}}\n{stage}if {c} () {{\n{t}\n}} () {{\n{f}\n}}")
    }

    /// A counting loop: `fix loop(i, acc, k) { .. }` run from 0 to a small
    /// bound.
    fn count_loop(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let lp = self.fresh_name("loop");
        let i = self.name("i", std::slice::from_ref(&lp));
        let acc = self.name("acc", &[lp.clone(), i.clone()]);
        let k = self.name("k", &[lp.clone(), i.clone(), acc.clone()]);
        let bound = match self.below(4) {
            0 => format!("min({}, 4)", self.int_leaf()),
            _ => format!("{}", self.below(5)),
        };
        let mark = self.vars.len();
        self.bind(&i, Ty::Int);
        self.bind(&acc, Ty::Int);
        self.bind(&k, Sig::cont(Ty::Int));
        let d = self.fresh_name("b");
        let a2 = self.fresh_name("acc");
        let e = self.int_expr(1);
        // Inside a loop's branches a body must not be active before the
        // branch is chosen: `@always:` there would unfold the loop forever
        // (innermost first), the term growing at every step.
        let st = self.inert_stage();
        let st2 = self.inert_stage();
        let j = self.fresh_name("i");
        self.vars.truncate(mark);
        let init = self.value(&Ty::Int, 0);
        let x = self.name("i", &[]);
        let mut binds = vec![(x.clone(), Ty::Int)];
        if self.chance(50) {
            // The loop as a value in the rest: called, passed on or held in
            // tuples, so that a recursive value stands in several places
            // (and the reference's β names its copies apart).
            let sig = Sig {
                params: vec![Ty::Int, Ty::Int],
                rest: None,
                ret: Some(Ty::Int),
            };
            binds.insert(0, (lp.clone(), Ty::Fun(Rc::new(sig))));
        }
        let s = self.tail_stage(&mut binds);
        let rest = self.rest_with(&binds, fuel, depth, ret);
        format!(
            "fix {lp}({i}, {acc}, {k}) {{\n\"{i} >= {bound}\" ({d})\nif {d} () {{ {k} {acc} }} () {{\n{st}\"{acc}+{e}\" ({a2})\n\"{i}+1\" ({j})\n{st2}{lp} {j} {a2} {k}\n}}\n}} in\n{lp} 0 {init} ({x}){s}\n{rest}"
        )
    }

    /// A divide-and-conquer over `[lo, hi)` whose halves are closures with
    /// bodies staged on the split point (`corpus/bench/psum.dcps`): once
    /// `mid` is known, both closures' bodies are active under their
    /// lambdas and unfold their subtrees while their continuations are
    /// still symbolic, ending in stuck bodies that the join releases. Each
    /// staged half is marked with [`STAGED_HALF_MARK`].
    fn staged_split(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let ps = self.fresh_name("split");
        let [lo, hi, k, d, mid, a, b, kk, x, y, ka, kb] =
            ["lo", "hi", "k", "b", "mid", "a", "b", "k", "x", "y", "k", "k"].map(|p| self.fresh_name(p));
        let c = self.below(5);
        let lo0 = self.int_leaf();
        let width = match self.below(4) {
            0 => format!("min({}, 6)", self.int_leaf()),
            _ => format!("{}", self.below(7)),
        };
        let res = self.name("i", &[]);
        let mut binds = vec![(res.clone(), Ty::Int)];
        let s = self.tail_stage(&mut binds);
        let rest = self.rest_with(&binds, fuel, depth, ret);
        format!(
            "fix {ps}({lo}, {hi}, {k}) {{\n\"{hi}-{lo} <= 1\" ({d})\nif {d} () {{ {k} \"{lo}*{c}\" }} () {{\n\"({lo}+{hi})/2\" ({mid})\n\
             ({a}, {b}, {kk}) {{ {a} ({x}) {b} ({y}) {kk} \"{x}+{y}\" }}\n\
             ({ka}) {{ {STAGED_HALF_MARK}@{mid}: {ps} {lo} {mid} {ka} }}\n\
             ({kb}) {{ {STAGED_HALF_MARK}@{mid}: {ps} {mid} {hi} {kb} }}\n\
             {k}\n}}\n}} in\n{ps} {lo0} \"{lo0}+{width}\" ({res}){s}\n{rest}"
        )
    }

    /// Sums a rest tuple by taking it apart with splices:
    /// `fix walk(acc, !r, k) { .. (h, !t) { walk "acc+h" !t k } !r }`.
    fn walk_loop(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let w = self.fresh_name("walk");
        let acc = self.name("acc", std::slice::from_ref(&w));
        let r = self.name("r", &[w.clone(), acc.clone()]);
        let k = self.name("k", &[w.clone(), acc.clone(), r.clone()]);
        let h = self.fresh_name("h");
        let t = self.fresh_name("t");
        let d = self.fresh_name("b");
        let a2 = self.fresh_name("acc");
        let src = self.value(&Ty::Ints, 0);
        let src = if src.starts_with('[') { src } else { format!("!{src}") };
        let spliced = src.starts_with('!');
        let st = self.inert_stage();
        let x = self.name("i", &[]);
        let mut binds = vec![(x.clone(), Ty::Int)];
        let s = self.tail_stage(&mut binds);
        let rest = self.rest_with(&binds, fuel, depth, ret);
        // A tuple literal is passed as one element, not spliced.
        let (src, mark) = if spliced {
            (src, MARK.to_string())
        } else {
            (src.trim_start_matches('[').trim_end_matches(']').replace(',', ""), String::new())
        };
        format!(
            "{mark}fix {w}({acc}, !{r}, {k}) {{\n\"len({r}) == 0\" ({d})\nif {d} () {{ {k} {acc} }} () {{\n({h}, !{t}) {{\n{st}\"{acc}+{h}\" ({a2})\n{w} {a2} !{t} {k}\n}} !{r}\n}}\n}} in\n{w} 0 {src} ({x}){s}\n{rest}"
        )
    }

    /// Takes a tuple apart by splicing it into a lambda.
    fn destructure(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let tups: Vec<(String, Vec<Ty>)> = self
            .visible()
            .into_iter()
            .filter_map(|v| match v.ty {
                Ty::Tup(x) => Some((v.name, x)),
                _ => None,
            })
            .collect();
        if let Some((t, tys)) = self.pick(&tups) {
            let mut names: Vec<String> = Vec::new();
            let mut binds = Vec::new();
            for ty in &tys {
                let n = self.name("e", &names);
                names.push(n.clone());
                binds.push((n, ty.clone()));
            }
            let rest = self.rest_with(&binds, fuel, depth, ret);
            return format!("({}) {{\n{rest}\n}} !{t}", names.join(", "));
        }
        let ints = self.of_ty(&Ty::Ints);
        // A spliced tuple, or its elements written out.
        let r = match self.pick(&ints) {
            Some(r) => format!("!{r}"),
            None => ["1", "1 2", "3 4 5", "2 3", "", "1 1", "4"][self.below(7) as usize].to_string(),
        };
        let h = self.name("h", &[]);
        let t = self.name("t", std::slice::from_ref(&h));
        // An empty tuple makes this an arity error.
        let rest = self.rest_with(&[(h.clone(), Ty::Int), (t.clone(), Ty::Ints)], fuel, depth, ret);
        format!("({h}, !{t}) {{\n{rest}\n}} {r}")
    }

    /// A statement that fails when it runs (if it is reached and active).
    fn error_stmt(&mut self, fuel: u32, depth: u32, ret: &Ret) -> String {
        let x = self.name("i", &[]);
        let e = match self.below(7) {
            0 => format!("{}/0", self.int_leaf()),
            1 => format!("{}%(1-1)", self.int_leaf()),
            2 => format!("[1, 2][{}]", 5 + self.below(3)),
            3 => format!("nosuch({})", self.int_leaf()),
            4 => format!("9223372036854775807+{}", 1 + self.below(3)),
            5 => format!("1+true && {}", self.int_leaf()),
            _ => {
                // Not a function, or the wrong number of arguments.
                let funs = self.visible_where(|t| matches!(t, Ty::Fun(s) if s.rest.is_none()));
                let head = self.pick(&funs).unwrap_or_else(|| "7".into());
                let rest = self.rest_with(&[(x.clone(), Ty::Int)], fuel, depth, ret);
                return format!("{head} 1 2 3 4 5 ({x})\n{rest}");
            }
        };
        let rest = self.rest_with(&[(x.clone(), Ty::Int)], fuel, depth, ret);
        format!("\"{e}\" ({x})\n{rest}")
    }
}
