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

mod emit;
mod expr;
mod free;
mod sites;

use crate::diag::Diagnostic;
use crate::print::Printer;
use crate::span::SourceMap;
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, SExp, Sugar, VarId, Vars};

/// The runtime written before every compiled program, its parts in the
/// order C needs them.
const RUNTIME: &str = concat!(
    include_str!("runtime/values.c"),
    "\n",
    include_str!("runtime/print.c"),
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

/// The C program that runs `body` (a top-level body over `vars`), or the
/// diagnostics of why it cannot be compiled.
pub fn to_c(body: &Body, vars: &Vars, sources: &SourceMap) -> Result<String, Vec<Diagnostic>> {
    let program = program_c(body, vars, sources, "p_")?;
    let mut out = String::with_capacity(RUNTIME.len() + program.len() + 64);
    out.push_str(RUNTIME);
    out.push_str(&program);
    out.push_str("\nint main(void) { return run_program(p_start); }\n");
    Ok(out)
}

/// The runtime that [`program_c`]'s programs follow in a C file.
pub fn runtime_c() -> &'static str {
    RUNTIME
}

/// The program part of [`to_c`]: its names begin with `prefix`, so that
/// several programs can follow one runtime in one C file; its start
/// function is `{prefix}start`, to be given to `run_program`.
pub fn program_c(body: &Body, vars: &Vars, sources: &SourceMap, prefix: &str) -> Result<String, Vec<Diagnostic>> {
    let mut g = emit::Gen::new(vars, sources, prefix);
    g.program(body);
    if !g.refusals.is_empty() {
        return Err(g.refusals);
    }
    let mut out = String::from("\n/* ---- the program ---- */\n");
    for s in &g.statics {
        out.push_str(s);
        out.push('\n');
    }
    out.push_str(&g.protos_c());
    out.push_str(&g.infos_c());
    out.push_str(&g.sites.to_c(prefix));
    for f in &g.functions {
        out.push('\n');
        out.push_str(f);
    }
    out.push_str(&format!(
        "\nstatic void {prefix}start(void) {{\n    FUNS = {prefix}FUNS;\n    SITES = {prefix}SITES;\n    SITES_COLOR = {prefix}SITES_COLOR;\n"
    ));
    for i in &g.init {
        out.push_str("    ");
        out.push_str(i);
        out.push('\n');
    }
    out.push_str(&format!("    {prefix}main_body();\n}}\n"));
    Ok(out)
}
