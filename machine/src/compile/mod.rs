//! `deepcps compile`: the part of a program that runs in call order, as C.
//!
//! A program is compiled in one of two ways:
//! - **runtime code**: a program whose every body is staged as natural
//!   staging stages it (on its own lambda's staging parameter, the top
//!   level on `always`) has no staging to do; it is translated as it is.
//! - **a built program**: any other program is reduced first, as `run`
//!   reduces it; it must end with `$exit p`, `p` a lambda in runtime code
//!   (the residual program the builders made). The executable calls `p`
//!   with the exit continuation.
//!
//! [`is_runtime_code`] tells the two apart, [`call_with_exit`] makes the
//! call of a built program, and [`to_c`] translates. The translation
//! refuses a body staged otherwise (it would need staging at run time) and
//! a free variable, each with a diagnostic at its place.
//!
//! The C is the runtime (`runtime/`: values and the collector, printing,
//! error reports, calls and the trampoline, operators, data) followed by
//! the program:
//! one function per lifted lambda, named after it and marked with its
//! source place, and the tables of lambdas and error sites.
//!
//! A large program is several C files ([`to_c_units`]), which the C
//! compiler takes at once on several cores: the first holds the runtime's
//! state, the tables and the functions that loop or are small; the others
//! the *light* functions, long straight-line code that runs once per call
//! (a builder's residual), compiled with less optimisation and no inlining
//! (a C compiler's time grows with the code it is given, and at -O2 with
//! the runtime's operations inlined at every step, a program of 10^5
//! steps took a minute). Every file repeats the runtime, whose state the
//! first defines and the others declare.
//!
//! # At run time
//!
//! Every call sets the argument registers and returns to the trampoline
//! in `run_program`, so the C stack stays flat (`emit.rs` says which calls
//! are jumps instead). The collector runs only at a lambda's entry, where
//! the closure and the arguments are all that is live, so C locals never
//! hold a moved value. Allocation never fails: a full chunk is followed by
//! another, and the next entry collects.
//!
//! A compiled program prints what `run` prints. When it fails, it runs
//! again from its start, traced, as the machine does
//! ([`crate::graph::calls`]): the report needs the site of every β, and
//! the count of the machine's steps (β, `if`, `fix`, `$exit`), since past
//! the machine's limit of traced steps the report has no call sites. Steps
//! inside a function are not recorded one by one: every body of the
//! generic code stores its number when it runs, and the generator knows
//! the body before it in the same call and the steps between them
//! ([`image::Via`]), so a call leaves one entry, its last body; what
//! crosses functions (a call's β, a loop's jump back) is recorded as it
//! happens. The runtime library renders the report from the program's
//! image ([`native`]). A closure names its lambda by its number in a walk
//! of the term the program runs ([`numbered`]); to print a value holding
//! one, the library gets that term back from the image, checks its
//! fingerprint, and substitutes the captured values into the lambda, as a
//! β of the machine does.

mod emit;
mod expr;
mod free;
pub mod image;
pub mod native;
mod sites;

use std::fmt::Write as _;

use crate::diag::Diagnostic;
use crate::print::Printer;
use crate::span::SourceMap;
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, Lambda, SExp, Sugar, VarId, Vars};
use image::{fingerprint, Image};

/// The runtime written before every compiled program, its parts in the
/// order C needs them.
const RUNTIME: &str = concat!(
    include_str!("runtime/values.c"),
    "\n",
    include_str!("runtime/print.c"),
    "\n",
    include_str!("runtime/serial.c"),
    "\n",
    include_str!("runtime/trace.c"),
    "\n",
    include_str!("runtime/errors.c"),
    "\n",
    include_str!("runtime/calls.c"),
    "\n",
    include_str!("runtime/ops.c"),
    "\n",
    include_str!("runtime/data.c"),
);

/// Whether a body staged on `stage` runs in call order: staged on the
/// staging parameter `own` of its lambda, or at the top (no lambda) on
/// `always`.
fn natural(stage: &SExp, own: Option<VarId>) -> bool {
    match (stage, own) {
        (SExp::Var(v), Some(o)) => *v == o,
        (SExp::Const(true), None) => true,
        _ => false,
    }
}

/// Whether every body of the program is staged as natural staging stages
/// it, so that the program runs in call order and has no staging to do.
pub fn is_runtime_code(body: &Body) -> bool {
    // (body, the staging parameter of the lambda it belongs to)
    let mut stack = vec![(body, None)];
    while let Some((b, own)) = stack.pop() {
        if !natural(&b.stage, own) {
            return false;
        }
        match &b.cmd {
            Cmd::Fix(fx) => {
                stack.push((&fx.lam.body, Some(fx.lam.sparam)));
                stack.push((&fx.body, Some(fx.sparam)));
            }
            Cmd::App(app) => {
                let mut atoms: Vec<&Atom> = vec![&app.head];
                atoms.extend(app.args.iter().map(Arg::atom));
                while let Some(a) = atoms.pop() {
                    match a {
                        Atom::Lambda(l) => stack.push((&l.body, Some(l.sparam))),
                        Atom::Rec(r) => stack.push((&r.lam.body, Some(r.lam.sparam))),
                        Atom::Tuple(xs) => atoms.extend(xs.iter().map(Arg::atom)),
                        Atom::Expr(e) => atoms.extend(e.vals()),
                        _ => {}
                    }
                }
            }
        }
    }
    true
}

/// What a compiled program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The program as written: it is runtime code ([`is_runtime_code`]).
    Whole,
    /// `p $exit`, `p` the program that staging built ([`call_with_exit`]).
    Built,
}

/// What compiled values name by number in the term a program runs.
pub struct Numbered<'a> {
    /// Every lambda, with the name a recursive one has for itself.
    /// Compiled closures name their lambdas by their place here.
    pub lambdas: Vec<(&'a Lambda, Option<VarId>)>,
    /// Every tuple written as the head of an application with expressions
    /// in it (an error, reported with the values of its variables).
    pub heads: Vec<&'a Atom>,
}

/// The lambdas and tuple heads of the term `body`, in one fixed order (a
/// walk of the term, each lambda before what it holds).
pub fn numbered(body: &Body) -> Numbered<'_> {
    enum Item<'a> {
        Body(&'a Body),
        Atom(&'a Atom),
    }
    let mut out = Numbered {
        lambdas: Vec::new(),
        heads: Vec::new(),
    };
    let mut stack = vec![Item::Body(body)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Body(b) => match &b.cmd {
                Cmd::Fix(fx) => {
                    out.lambdas.push((&fx.lam, Some(fx.name)));
                    stack.push(Item::Body(&fx.body));
                    stack.push(Item::Body(&fx.lam.body));
                }
                Cmd::App(app) => {
                    if matches!(app.head, Atom::Tuple(_)) && emit::holds_expr(&app.head) {
                        out.heads.push(&app.head);
                    }
                    stack.extend(app.args.iter().rev().map(|a| Item::Atom(a.atom())));
                    stack.push(Item::Atom(&app.head));
                }
            },
            Item::Atom(a) => match a {
                Atom::Lambda(l) => {
                    out.lambdas.push((&**l, None));
                    stack.push(Item::Body(&l.body));
                }
                Atom::Rec(r) => {
                    out.lambdas.push((&r.lam, Some(r.name)));
                    stack.push(Item::Body(&r.lam.body));
                }
                Atom::Tuple(xs) => stack.extend(xs.iter().rev().map(|x| Item::Atom(x.atom()))),
                Atom::Record(fs) => stack.extend(fs.iter().rev().map(|(_, x)| Item::Atom(x))),
                Atom::Map(kvs) => stack.extend(kvs.iter().rev().flat_map(|(k, v)| [Item::Atom(v), Item::Atom(k)])),
                Atom::Expr(e) => stack.extend(e.vals().into_iter().rev().map(Item::Atom)),
                _ => {}
            },
        }
    }
    out
}

/// The top-level body `p $exit` that runs the program `p` a staging run
/// exited with (over `vars`, the exit value's variables), or why `v` is
/// no program to run: it is no lambda (staging ran the program to its
/// end), or it takes other than one argument.
pub fn call_with_exit(v: Atom, vars: &Vars) -> Result<Body, String> {
    let (params, span) = match &v {
        Atom::Lambda(l) => (&l.params, l.span),
        Atom::Rec(r) => (&r.lam.params, r.lam.span),
        other => {
            let text = Printer::new(vars).atom_text(other);
            let shown: String = text.trim_end().chars().take(60).collect();
            return Err(format!(
                "staging ran it to its end, with the exit value {shown}: there is nothing left to run"
            ));
        }
    };
    let fixed = params.iter().filter(|p| !p.rest).count();
    let takes_one = if params.iter().any(|p| p.rest) { fixed <= 1 } else { fixed == 1 };
    if !takes_one {
        return Err(format!(
            "the program it built takes {fixed} argument{}; compile calls it with the exit continuation alone",
            if fixed == 1 { "" } else { "s" }
        ));
    }
    Ok(Body {
        stage: SExp::Const(true),
        cmd: Cmd::App(Application {
            head: v,
            args: vec![Arg::Atom(Atom::Builtin(Builtin::Exit))],
            sugar: Sugar::None,
        }),
        span,
    })
}

/// The C program that runs `body` (a top-level body over `vars`, the
/// program's `part`, loaded into `sources`), or the diagnostics of why it
/// cannot be compiled.
pub fn to_c(body: &Body, vars: &Vars, sources: &SourceMap, part: Part) -> Result<String, Vec<Diagnostic>> {
    let program = program_c(body, vars, sources, part, "p_")?;
    let mut out = String::with_capacity(RUNTIME.len() + program.len() + 64);
    out.push_str(RUNTIME);
    out.push_str(&program);
    out.push_str(MAIN);
    Ok(out)
}

/// The `main` of a compiled program.
const MAIN: &str = "\nint main(void) { return run_program(p_start); }\n";

/// The runtime that [`program_c`]'s programs follow in a C file.
pub fn runtime_c() -> &'static str {
    RUNTIME
}

/// The program part of [`to_c`]: its names begin with `prefix`, so that
/// several programs can follow one runtime in one C file; its start
/// function is `{prefix}start`, to be given to `run_program`.
pub fn program_c(body: &Body, vars: &Vars, sources: &SourceMap, part: Part, prefix: &str) -> Result<String, Vec<Diagnostic>> {
    Ok(program_of(Parts::new(body, vars, sources, part, prefix)?))
}

/// A program's C, before it is laid out in one file or several.
struct Parts {
    statics: Vec<emit::Static>,
    functions: Vec<emit::Function>,
    /// The tables of lambdas and sites, the image and the steps of paths.
    tables: String,
    /// The start function.
    start: String,
}

impl Parts {
    fn new(body: &Body, vars: &Vars, sources: &SourceMap, part: Part, prefix: &str) -> Result<Parts, Vec<Diagnostic>> {
        let mut g = emit::Gen::new(vars, sources, prefix);
        g.program(body);
        if !g.refusals.is_empty() {
            return Err(g.refusals);
        }
        let image = Image {
            files: sources.files().to_vec(),
            built: part == Part::Built,
            fingerprint: fingerprint(body, vars),
            lambdas: std::mem::take(&mut g.lambda_numbers),
            lambda_spans: std::mem::take(&mut g.lambda_spans),
            sites: std::mem::take(&mut g.sites.table),
            bodies: std::mem::take(&mut g.bodies),
        };
        let mut tables = g.infos_c();
        let _ = writeln!(
            tables,
            "/* The program's image (its sources and sites, see machine/src/compile/image.rs). */\nstatic const char {prefix}IMAGE[] = {};",
            sites::c_bytes(&image.encode())
        );
        // The steps from the first body of a call to each body (trace.c).
        let _ = write!(tables, "static const uint32_t {prefix}PATH_STEPS[] = {{");
        let mut to: Vec<u32> = Vec::with_capacity(image.bodies.len());
        for (k, &(before, via)) in image.bodies.iter().enumerate() {
            let steps = before.and_then(|b| to.get(b as usize)).copied().unwrap_or(0) + via.steps();
            to.push(steps);
            tables.push_str(if k % 16 == 0 { "\n    " } else { " " });
            let _ = write!(tables, "{steps},");
        }
        tables.push_str("\n};\n");
        let mut start = format!(
            "\nstatic void {prefix}start(void) {{\n    FUNS = {prefix}FUNS;\n    IMAGE = {prefix}IMAGE;\n    IMAGE_LEN = sizeof {prefix}IMAGE - 1;\n    PATH_STEPS = {prefix}PATH_STEPS;\n"
        );
        for i in &g.init {
            start.push_str("    ");
            start.push_str(i);
            start.push('\n');
        }
        let _ = writeln!(start, "    {prefix}main_body();\n}}");
        Ok(Parts {
            statics: std::mem::take(&mut g.statics),
            functions: std::mem::take(&mut g.functions),
            tables,
            start,
        })
    }
}

/// One C file of a compiled program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CUnit {
    /// Its text.
    pub text: String,
    /// Whether it holds only light code (long straight-line functions that
    /// run once per call), which a C compiler optimises lightly.
    pub light: bool,
}

impl CUnit {
    /// The optimisation flags to compile it with: `-O2`, or for light
    /// code `-Og -fno-inline`: the optimisations that cost the C compiler
    /// little, and a call of the runtime's operation at every step instead
    /// of its code (the compiler's time grows with the code it is given;
    /// that of a run through straight-line code hardly changes). On a
    /// chain of 10^4 additions, gcc 12 takes about 4.5 s at `-O2`, 1.2 s
    /// at `-O1 -fno-inline`, 0.9 s at `-Og -fno-inline`, 0.7 s at `-O0`.
    pub fn flags(&self) -> &'static [&'static str] {
        if self.light {
            &["-Og", "-fno-inline"]
        } else {
            &["-O2"]
        }
    }
}

/// The most bytes of light code in one C file of a split program.
const UNIT_BYTES: usize = 4 << 20;

/// The fewest bytes of light code worth a C file of its own: below it,
/// what a file costs by itself (the runtime, compiled again) outweighs what
/// lighter optimisation saves.
pub const MIN_UNIT_BYTES: usize = 64 << 10;

/// [`to_c`] as C files to compile apart (and at once, `jobs` of them)
/// and link: one file if the program has less light code than
/// [`MIN_UNIT_BYTES`], else a first file with the runtime's state, the
/// program's tables, its constants and the functions that are not light,
/// then the light functions in files of their own, at least `jobs` of them
/// where there is enough light code, at most `UNIT_BYTES` (4 MiB) each (apart
/// from a single function larger than that). The runtime's state is
/// defined in the first file and declared in the others (`RT_SHARED`,
/// runtime/values.c).
pub fn to_c_units(body: &Body, vars: &Vars, sources: &SourceMap, part: Part, jobs: usize) -> Result<Vec<CUnit>, Vec<Diagnostic>> {
    let prefix = "p_";
    let p = Parts::new(body, vars, sources, part, prefix)?;
    let size: usize = p.functions.iter().map(|f| f.text.len()).sum::<usize>() + p.tables.len();
    let light: usize = p.functions.iter().filter(|f| f.light).map(|f| f.text.len()).sum();
    if light < MIN_UNIT_BYTES {
        let mut text = String::with_capacity(RUNTIME.len() + size + 4096);
        text.push_str(RUNTIME);
        text.push_str(&program_of(p));
        text.push_str(MAIN);
        return Ok(vec![CUnit { text, light: false }]);
    }
    // What every file declares: the functions and the constants, shared.
    let mut shared = String::from("\n/* ---- the program ---- */\n");
    for f in &p.functions {
        let _ = writeln!(shared, "void {}(void);", f.name);
    }
    let mut first = String::from("#define RT_SHARED\n#define RT_INIT(...) = __VA_ARGS__\n");
    first.push_str(RUNTIME);
    first.push_str(&shared);
    let mut others = String::from("#define RT_SHARED extern\n#define RT_INIT(...)\n");
    others.push_str(RUNTIME);
    others.push_str(&shared);
    for s in &p.statics {
        first.push_str(&s.def);
        first.push('\n');
        let _ = writeln!(others, "extern uint64_t {}[];", s.name);
    }
    first.push_str(&p.tables);
    let external = |f: &emit::Function| {
        f.text.replacen(
            &format!("\nstatic void {}(void) {{", f.name),
            &format!("\nvoid {}(void) {{", f.name),
            1,
        )
    };
    // The light code in files of about equal size.
    let files = light.div_ceil(UNIT_BYTES).max(jobs.min(light / MIN_UNIT_BYTES)).max(1);
    let per_file = light.div_ceil(files);
    let mut units: Vec<CUnit> = Vec::with_capacity(files + 1);
    let mut current = String::new();
    let mut current_bytes = 0;
    for f in p.functions.iter().filter(|f| f.light) {
        if current_bytes >= per_file {
            units.push(CUnit {
                text: std::mem::take(&mut current),
                light: true,
            });
            current_bytes = 0;
        }
        if current.is_empty() {
            current.push_str(&others);
        }
        current.push('\n');
        current.push_str(&external(f));
        current_bytes += f.text.len();
    }
    if !current.is_empty() {
        units.push(CUnit {
            text: current,
            light: true,
        });
    }
    for f in p.functions.iter().filter(|f| !f.light) {
        first.push('\n');
        first.push_str(&external(f));
    }
    first.push_str(&p.start);
    first.push_str(MAIN);
    units.insert(0, CUnit { text: first, light: false });
    Ok(units)
}

/// [`program_c`]'s text of parts already made.
fn program_of(p: Parts) -> String {
    let mut out = String::from("\n/* ---- the program ---- */\n");
    for s in &p.statics {
        out.push_str("static ");
        out.push_str(&s.def);
        out.push('\n');
    }
    for f in &p.functions {
        let _ = writeln!(out, "static void {}(void);", f.name);
    }
    out.push_str(&p.tables);
    for f in &p.functions {
        out.push('\n');
        out.push_str(&f.text);
    }
    out.push_str(&p.start);
    out
}
