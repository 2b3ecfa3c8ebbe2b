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
//! [`is_runtime_code`] tells the two apart; [`to_c`] translates. The
//! translation refuses a body staged otherwise (it would need staging at
//! run time), a free variable, and the values it does not translate yet
//! (strings, records, maps, matrices), each with a diagnostic at its place.
//!
//! The C is the runtime (`runtime.c`: values, collector, trampoline,
//! checked arithmetic, printing, error reports) followed by the program:
//! one function per lifted lambda, named after it and marked with its
//! source place, and the tables of lambdas and error sites.

mod emit;
mod expr;
mod free;
mod sites;

use crate::diag::Diagnostic;
use crate::span::SourceMap;
use crate::term::{Body, Cmd, SExp, Vars};

/// The runtime written before every compiled program.
const RUNTIME: &str = include_str!("runtime.c");

/// Whether every body of the program is staged as natural staging stages
/// it, so that the program runs in call order and has no staging to do.
pub fn is_runtime_code(body: &Body) -> bool {
    // (body, the staging parameter of the lambda it belongs to)
    let mut stack = vec![(body, None)];
    while let Some((b, own)) = stack.pop() {
        let natural = match (&b.stage, own) {
            (SExp::Var(v), Some(o)) => *v == o,
            (SExp::Const(true), None) => true,
            _ => false,
        };
        if !natural {
            return false;
        }
        match &b.cmd {
            Cmd::Fix(fx) => {
                stack.push((&fx.lam.body, Some(fx.lam.sparam)));
                stack.push((&fx.body, Some(fx.sparam)));
            }
            Cmd::App(app) => {
                let mut atoms: Vec<&crate::term::Atom> = vec![&app.head];
                atoms.extend(app.args.iter().map(|a| match a {
                    crate::term::Arg::Atom(x) | crate::term::Arg::Splice(x) => x,
                }));
                while let Some(a) = atoms.pop() {
                    match a {
                        crate::term::Atom::Lambda(l) => stack.push((&l.body, Some(l.sparam))),
                        crate::term::Atom::Rec(r) => stack.push((&r.lam.body, Some(r.lam.sparam))),
                        crate::term::Atom::Tuple(xs) => atoms.extend(xs.iter().map(|a| match a {
                            crate::term::Arg::Atom(x) | crate::term::Arg::Splice(x) => x,
                        })),
                        crate::term::Atom::Expr(e) => atoms.extend(e.vals()),
                        _ => {}
                    }
                }
            }
        }
    }
    true
}

/// The C program that runs `body` (a top-level body over `vars`), or the
/// diagnostics of why it cannot be compiled.
pub fn to_c(body: &Body, vars: &Vars, sources: &SourceMap) -> Result<String, Vec<Diagnostic>> {
    let mut g = emit::Gen::new(vars, sources);
    g.program(body);
    if !g.refusals.is_empty() {
        return Err(g.refusals);
    }
    let mut out = String::with_capacity(RUNTIME.len() + 4096);
    out.push_str(RUNTIME);
    out.push_str("\n/* ---- the program ---- */\n");
    for s in &g.statics {
        out.push_str(s);
        out.push('\n');
    }
    out.push_str(&g.protos_c());
    out.push_str(&g.infos_c());
    out.push_str(&g.sites.to_c());
    for f in &g.functions {
        out.push('\n');
        out.push_str(f);
    }
    out.push_str("\nint main(void) {\n");
    out.push_str("    EXIT_OBJ[1] = (uint64_t)(uintptr_t)exit_code;\n");
    out.push_str("    IF_OBJ[1] = (uint64_t)(uintptr_t)if_code;\n");
    for i in &g.init {
        out.push_str("    ");
        out.push_str(i);
        out.push('\n');
    }
    out.push_str(&format!("    grow_args({});\n", emit::INITIAL_ARGS));
    out.push_str("    main_body();\n    for (;;) CLO_CODE(SELF)();\n}\n");
    Ok(out)
}
