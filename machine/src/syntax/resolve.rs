//! Desugaring and name resolution: surface syntax to core terms.
//!
//! Resolves every name to its binder, gives every body without `@e:` its
//! natural staging (the staging parameter of the nearest enclosing lambda,
//! `always` at top level), rewrites `let`, `"e" (x) b` and tail lambdas to
//! plain applications, and performs the static checks of LANGUAGE.md §3.3:
//! unbound names, unknown built-ins, duplicate parameters and two rest
//! parameters in one list.

use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::expr::{Expr, ExprKind};
use crate::span::Span;
use crate::syntax::{ast, suggest};
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, Fix, Lambda, Param, SExp, Sugar, VarId, VarInfo, VarKind, Vars};

/// How many errors are reported in full; the others are counted
/// ([`Resolver::take_errors`]).
const MAX_ERRORS: usize = 20;

/// The resolver's state: the variable table and the scopes.
pub struct Resolver {
    /// The variables made so far.
    pub vars: Vars,
    scopes: HashMap<Arc<str>, Vec<VarId>>,
    /// Names with no binder become free variables instead of errors (fmt).
    allow_free: bool,
    free: HashMap<Arc<str>, VarId>,
    /// Errors found so far (the first `MAX_ERRORS`, 20).
    pub errors: Vec<Diagnostic>,
    /// Errors found past the first [`MAX_ERRORS`], not kept.
    more_errors: usize,
}

/// A chain link waiting for the body that follows it.
enum Frame {
    Let {
        stage: SExp,
        span: Span,
        sparam: VarId,
        var: VarId,
        value: Arg,
        lam_span: Span,
    },
    Fix {
        stage: SExp,
        span: Span,
        sparam: VarId,
        name: VarId,
        lam: Lambda,
    },
    Tail {
        stage: SExp,
        span: Span,
        head: Atom,
        args: Vec<Arg>,
        sparam: VarId,
        params: Vec<Param>,
        lam_span: Span,
        expr_sugar: bool,
        /// Whether the staging parameter is anonymous: its binder's span is
        /// the lambda's, known only once the chain after it is.
        anonymous: bool,
    },
}

impl Resolver {
    /// A resolver; with `allow_free`, unbound names are not errors.
    pub fn new(allow_free: bool) -> Resolver {
        Resolver {
            vars: Vars::default(),
            scopes: HashMap::default(),
            allow_free,
            free: HashMap::default(),
            errors: Vec::new(),
            more_errors: 0,
        }
    }

    fn bind(&mut self, name: Option<&ast::Ident>, kind: VarKind, span: Span) -> VarId {
        let v = self.vars.fresh(VarInfo {
            name: name.map(|i| i.name.clone()),
            kind,
            span: name.map_or(span, |i| i.span),
        });
        if let Some(i) = name {
            self.scopes.entry(i.name.clone()).or_default().push(v);
        }
        v
    }

    fn unbind(&mut self, v: VarId) {
        if let Some(name) = self.vars.info(v).name.clone() {
            if let Some(stack) = self.scopes.get_mut(&name) {
                stack.pop();
            }
        }
    }

    fn error(&mut self, d: Diagnostic) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(d);
        } else {
            self.more_errors += 1;
        }
    }

    /// The errors found, the last one noting how many more were found
    /// and not reported.
    pub fn take_errors(&mut self) -> Vec<Diagnostic> {
        let mut errors = std::mem::take(&mut self.errors);
        let more = std::mem::take(&mut self.more_errors);
        if more > 0 {
            if let Some(last) = errors.pop() {
                let what = if more == 1 { "error" } else { "errors" };
                errors.push(last.with_note(format!("and {more} more {what}, not shown")));
            }
        }
        errors
    }

    fn lookup(&mut self, id: &ast::Ident) -> VarId {
        if let Some(v) = self.scopes.get(&id.name).and_then(|s| s.last()) {
            return *v;
        }
        if let Some(v) = self.free.get(&id.name) {
            return *v;
        }
        if !self.allow_free {
            if self.errors.len() < MAX_ERRORS {
                let d = self.unbound(id);
                self.error(d);
            } else {
                self.more_errors += 1;
            }
        }
        let v = self.vars.fresh(VarInfo {
            name: Some(id.name.clone()),
            kind: VarKind::Free,
            span: id.span,
        });
        self.free.insert(id.name.clone(), v);
        v
    }

    /// The error of an unbound name, suggesting the nearest name in scope
    /// (and where it is bound) or else the nearest keyword.
    fn unbound(&self, id: &ast::Ident) -> Diagnostic {
        let d = Diagnostic::error(
            "unbound",
            format!("unbound name `{}`", id.name),
            id.span,
            "not bound by any enclosing lambda, `let` or `fix`",
        );
        let in_scope = self.scopes.iter().filter(|(_, s)| !s.is_empty()).map(|(n, _)| &**n);
        if let Some(near) = suggest::nearest(&id.name, in_scope) {
            let binder = self.scopes.get(near).and_then(|s| s.last()).map(|v| self.vars.info(*v).span);
            let d = d.with_note(format!("did you mean `{near}`?"));
            return match binder {
                Some(at) => d.with_secondary(at, format!("`{near}` is bound here")),
                None => d,
            };
        }
        let keywords = suggest::STATEMENT_KEYWORDS.into_iter().chain(suggest::OPERAND_KEYWORDS);
        match suggest::nearest(&id.name, keywords) {
            Some(k) => d.with_note(format!("did you mean the keyword `{k}`?")),
            None => d,
        }
    }

    /// Binds the parameters of a lambda (checking duplicates and rest
    /// parameters) and its staging parameter.
    fn bind_params(&mut self, params: &[ast::SurfaceParam], sname: Option<&ast::Ident>, span: Span) -> (VarId, Vec<Param>) {
        // The names bound so far: a list for the usual few parameters (no
        // allocation), a map for long lists.
        let mut few: SmallVec<[(&str, Span); 8]> = SmallVec::new();
        let mut many: HashMap<&str, Span> = HashMap::default();
        let mut rest: Option<Span> = None;
        for p in params.iter().map(|p| (&p.name, p.rest)).chain(sname.map(|s| (s, false))) {
            let name: &str = &p.0.name;
            let again = if params.len() < 8 {
                let first = few.iter().rev().find(|(n, _)| *n == name).map(|(_, s)| *s);
                few.push((name, p.0.span));
                first
            } else {
                many.insert(name, p.0.span)
            };
            if let Some(first) = again {
                self.error(
                    Diagnostic::error(
                        "duplicate",
                        format!("duplicate parameter name `{}`", p.0.name),
                        p.0.span,
                        "bound again here",
                    )
                    .with_secondary(first, "first bound here"),
                );
            }
            if p.1 {
                if let Some(first) = rest {
                    self.error(
                        Diagnostic::error(
                            "rest",
                            "a parameter list may have only one rest parameter",
                            p.0.span,
                            "second rest parameter",
                        )
                        .with_secondary(first, "first rest parameter"),
                    );
                }
                rest = Some(p.0.span);
            }
        }
        let sparam = self.bind(sname, VarKind::Stage, span);
        let ps = params
            .iter()
            .map(|p| Param {
                var: self.bind(Some(&p.name), if p.rest { VarKind::Rest } else { VarKind::Param }, p.name.span),
                rest: p.rest,
            })
            .collect();
        (sparam, ps)
    }

    fn unbind_lambda(&mut self, sparam: VarId, params: &[Param]) {
        for p in params.iter().rev() {
            self.unbind(p.var);
        }
        self.unbind(sparam);
    }

    fn sexp(&mut self, e: &ast::SurfaceSExp) -> SExp {
        match e {
            ast::SurfaceSExp::Const(b, _) => SExp::Const(*b),
            ast::SurfaceSExp::Name(i) => SExp::Var(self.lookup(i)),
            ast::SurfaceSExp::Not(a, _) => SExp::Not(Box::new(self.sexp(a))),
            ast::SurfaceSExp::And(a, b) => SExp::And(Box::new(self.sexp(a)), Box::new(self.sexp(b))),
            ast::SurfaceSExp::Or(a, b) => SExp::Or(Box::new(self.sexp(a)), Box::new(self.sexp(b))),
        }
    }

    fn expr(&mut self, e: &Expr) -> Expr {
        e.map_leaves(&mut |leaf| match &leaf.kind {
            ExprKind::Name(n) => {
                let id = ast::Ident {
                    name: n.clone(),
                    span: leaf.span,
                };
                ExprKind::Val(Atom::Var(self.lookup(&id)))
            }
            other => other.clone(),
        })
    }

    fn operand(&mut self, o: &mut ast::SurfaceOperand) -> Atom {
        match o {
            ast::SurfaceOperand::Name(i) => Atom::Var(self.lookup(i)),
            ast::SurfaceOperand::Builtin(i) => match Builtin::from_dollar_name(&i.name) {
                Some(b) => Atom::Builtin(b),
                None => {
                    self.error(Diagnostic::error(
                        "builtin",
                        format!("unknown built-in `${}`", i.name),
                        i.span,
                        "the built-ins are `$exit` and `$if`",
                    ));
                    Atom::Builtin(Builtin::Exit)
                }
            },
            ast::SurfaceOperand::If(_) => Atom::Builtin(Builtin::If),
            ast::SurfaceOperand::Int(v, _) => Atom::Int(*v),
            ast::SurfaceOperand::Float(v, _) => Atom::Float(*v),
            ast::SurfaceOperand::Bool(v, _) => Atom::Bool(*v),
            ast::SurfaceOperand::Stage(v, _) => Atom::Stage(*v),
            ast::SurfaceOperand::Expr(e) => Atom::Expr(Box::new(self.expr(e))),
            ast::SurfaceOperand::Tuple(xs, _) => Atom::Tuple(self.args(xs, 0)),
            ast::SurfaceOperand::Lambda(l) => Atom::Lambda(Box::new(self.lambda(l))),
        }
    }

    fn arg(&mut self, a: &mut ast::SurfaceArg) -> Arg {
        match a {
            ast::SurfaceArg::Operand(o) => Arg::Atom(self.operand(o)),
            ast::SurfaceArg::Splice(o) => Arg::Splice(self.operand(o)),
        }
    }

    /// Resolves arguments; a splice of a literal tuple is its elements.
    /// The list has room for `extra` more (a tail lambda's).
    fn args(&mut self, args: &mut [ast::SurfaceArg], extra: usize) -> Vec<Arg> {
        let mut out = Vec::with_capacity(args.len() + extra);
        for a in args {
            match self.arg(a) {
                Arg::Splice(x @ Atom::Tuple(_)) => out.extend(x.into_tuple().unwrap_or_default()),
                other => out.push(other),
            }
        }
        out
    }

    /// Resolves a lambda, taking its body out of the surface tree.
    fn lambda(&mut self, l: &mut ast::SurfaceLambda) -> Lambda {
        let (sparam, params) = self.bind_params(&l.params, l.sname.as_ref(), l.span);
        let body = self.body(std::mem::replace(&mut l.body, ast::SurfaceBody::hole()), SExp::Var(sparam));
        self.unbind_lambda(sparam, &params);
        Lambda {
            sparam,
            params,
            body,
            span: l.span,
        }
    }

    /// Resolves one file's leading definitions and then `rest`, which resolves
    /// the remainder of the program in their scope.
    pub fn defs(&mut self, defs: &mut [ast::Def], natural: SExp, rest: &mut dyn FnMut(&mut Resolver, SExp) -> Body) -> Body {
        let mut frames = Vec::new();
        let mut natural = natural;
        for d in defs.iter_mut() {
            let f = self.def_frame(d, natural.clone());
            natural = SExp::Var(Self::frame_sparam(&f));
            frames.push(f);
        }
        let mut body = rest(self, natural);
        while let Some(f) = frames.pop() {
            body = self.close(f, body);
        }
        body
    }

    fn def_frame(&mut self, d: &mut ast::Def, natural: SExp) -> Frame {
        match d {
            ast::Def::Let {
                stage,
                sname,
                name,
                value,
                span,
            } => {
                let stage = stage.as_ref().map_or(natural, |s| self.sexp(s));
                let value = self.arg(value);
                let sparam = self.bind(sname.as_ref(), VarKind::Stage, *span);
                let var = self.bind(Some(name), VarKind::Param, name.span);
                Frame::Let {
                    stage,
                    span: *span,
                    sparam,
                    var,
                    value,
                    lam_span: *span,
                }
            }
            ast::Def::Fix {
                stage,
                sname,
                name,
                lam,
                span,
            } => {
                let stage = stage.as_ref().map_or(natural, |s| self.sexp(s));
                let sparam = self.bind(sname.as_ref(), VarKind::Stage, *span);
                let fname = self.bind(Some(name), VarKind::Fix, name.span);
                let lam = self.lambda(lam);
                Frame::Fix {
                    stage,
                    span: *span,
                    sparam,
                    name: fname,
                    lam,
                }
            }
        }
    }

    /// The natural staging of the body that follows a frame.
    fn frame_sparam(f: &Frame) -> VarId {
        match f {
            Frame::Let { sparam, .. } | Frame::Fix { sparam, .. } | Frame::Tail { sparam, .. } => *sparam,
        }
    }

    /// Wraps `body`, the continuation of frame `f`, and closes its scope.
    fn close(&mut self, f: Frame, body: Body) -> Body {
        match f {
            Frame::Let {
                stage,
                span,
                sparam,
                var,
                value,
                lam_span,
            } => {
                self.unbind(var);
                self.unbind(sparam);
                let whole = span.to(body.span);
                let lam = Lambda {
                    sparam,
                    params: vec![Param { var, rest: false }],
                    body,
                    span: lam_span.to(whole),
                };
                Body {
                    stage,
                    cmd: Cmd::App(Application {
                        head: Atom::Lambda(Box::new(lam)),
                        args: vec![value],
                        sugar: Sugar::Let,
                    }),
                    span: whole,
                }
            }
            Frame::Fix {
                stage,
                span,
                sparam,
                name,
                lam,
            } => {
                self.unbind(name);
                self.unbind(sparam);
                let whole = span.to(body.span);
                Body {
                    stage,
                    cmd: Cmd::Fix(Box::new(Fix { sparam, name, lam, body })),
                    span: whole,
                }
            }
            Frame::Tail {
                stage,
                span,
                head,
                mut args,
                sparam,
                params,
                lam_span,
                expr_sugar,
                anonymous,
            } => {
                self.unbind_lambda(sparam, &params);
                let whole = span.to(body.span);
                if anonymous && lam_span.file == whole.file {
                    // From the lambda's `(` to the end of the chain.
                    let end = whole.end.max(lam_span.end);
                    self.vars.set_span(sparam, Span { end, ..lam_span });
                }
                let lam = Atom::Lambda(Box::new(Lambda {
                    sparam,
                    params,
                    body,
                    span: lam_span.to(whole),
                }));
                let (head, args) = if expr_sugar {
                    (lam, vec![Arg::Atom(head)])
                } else {
                    args.push(Arg::Atom(lam));
                    (head, args)
                };
                Body {
                    stage,
                    cmd: Cmd::App(Application {
                        head,
                        args,
                        sugar: Sugar::None,
                    }),
                    span: whole,
                }
            }
        }
    }

    /// Resolves a body whose natural staging is `natural`, taking it apart
    /// as it goes (a long program is never held twice).
    pub fn body(&mut self, b: ast::SurfaceBody, natural: SExp) -> Body {
        let mut rest = Some(b);
        let mut next = || {
            let (link, after) = rest.take()?.split_link();
            rest = after;
            Some(link)
        };
        self.chain(&mut next, natural).unwrap_or_else(|| Body::hollow(Span::default()))
    }

    /// Resolves a chain of statements whose links `next` hands over in
    /// order (from a surface body, or read from the source as they come:
    /// `syntax::parser::Chain`). Chains of `let`, `fix` and tail lambdas are
    /// walked by a loop, and each link is freed once resolved. `None` if
    /// `next` ran dry before the last statement (its source failed).
    pub fn chain(&mut self, next: &mut dyn FnMut() -> Option<ast::Link>, natural: SExp) -> Option<Body> {
        // Boxed: the list of a long chain grows by doubling.
        let mut frames: Vec<Box<Frame>> = Vec::new();
        let mut natural = natural;
        let innermost = loop {
            crate::memory::tick();
            match next()? {
                ast::Link::Def(mut d) => {
                    let f = self.def_frame(&mut d, natural.clone());
                    natural = SExp::Var(Self::frame_sparam(&f));
                    frames.push(Box::new(f));
                }
                ast::Link::Tail {
                    stage,
                    mut head,
                    mut args,
                    params,
                    sname,
                    start,
                    lam_start,
                } => {
                    let stage = stage.as_ref().map_or_else(|| natural.clone(), |s| self.sexp(s));
                    let head_is_expr = matches!(head, ast::SurfaceOperand::Expr(_));
                    let h = self.operand(&mut head);
                    let rargs = self.args(&mut args, 1);
                    let (sparam, params) = self.bind_params(&params, sname.as_ref(), lam_start);
                    natural = SExp::Var(sparam);
                    frames.push(Box::new(Frame::Tail {
                        stage,
                        span: start,
                        head: h,
                        args: rargs,
                        sparam,
                        params,
                        lam_span: lam_start,
                        expr_sugar: head_is_expr && args.is_empty(),
                        anonymous: sname.is_none(),
                    }));
                }
                ast::Link::Last {
                    stage,
                    mut head,
                    mut args,
                    span,
                } => {
                    let stage = stage.as_ref().map_or_else(|| natural.clone(), |s| self.sexp(s));
                    let head_is_expr = matches!(head, ast::SurfaceOperand::Expr(_));
                    let h = self.operand(&mut head);
                    let mut rargs = self.args(&mut args, 0);
                    // `"e" (x) { b }`, braced: the lambda is applied to `e`.
                    let (head, args) = match rargs.as_mut_slice() {
                        [Arg::Atom(lam @ Atom::Lambda(_))] if head_is_expr => {
                            let lam = std::mem::replace(lam, Atom::Int(0));
                            (lam, vec![Arg::Atom(h)])
                        }
                        _ => (h, rargs),
                    };
                    break Body {
                        stage,
                        cmd: Cmd::App(Application {
                            head,
                            args,
                            sugar: Sugar::None,
                        }),
                        span,
                    };
                }
            }
        };
        let mut body = innermost;
        while let Some(f) = frames.pop() {
            body = self.close(*f, body);
        }
        Some(body)
    }
}
