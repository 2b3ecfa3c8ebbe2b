//! Lambdas and bodies to C: closure conversion, lambda lifting and the
//! rules of LANGUAGE.md §5 as code that runs in call order.
//!
//! Each lambda that is a value (passed, returned, stored) becomes a C
//! function of its own, its *lifted* form, and a closure where it stands:
//! the function and the values of its free variables. A lambda applied
//! where it stands (`let`, `"e" (x) {..}`, the branches of an `if`) is
//! not lifted: its parameters become locals of the function that holds
//! it, and its body continues that function. A recursive lambda calling
//! itself with the right number of arguments jumps to its own start, so
//! a loop is a C loop. Every other call sets the argument registers and
//! returns to the trampoline.
//!
//! Bodies are emitted as blocks from a work list, and the chain of
//! continuations in a body is followed by a loop: a deeply nested term
//! does not deepen the generator's stack. Past [`MAX_TEMPS`] temporaries
//! in one C function, a lambda applied in place is lifted and called
//! instead.
//!
//! A function that loops, and computes on its parameters or captured
//! values, has a second copy of its body that assumes those are small
//! integers: entered when they are, it computes without tag checks, and an
//! overflow jumps to the same operation in the generic copy, whose locals
//! are the same. A traced run does not enter the integer copy, so it
//! numbers no body.

use std::fmt::Write as _;

use rustc_hash::{FxHashMap, FxHashSet};

use super::free::FreeIndex;
use super::image::Via;
use super::sites::{Place, Sites};
use crate::diag::Diagnostic;
use crate::error::Operand;
use crate::print::short_atom;
use crate::span::{FileId, SourceMap, Span};
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, Lambda, VarId, VarKind, Vars};

/// Arguments the registers hold before they must grow.
pub(super) const INITIAL_ARGS: usize = 64;

/// Temporaries of one C function past which a lambda applied in place is
/// lifted and called instead of continuing the function.
const MAX_TEMPS: usize = 128;

/// A lambda waiting for its lifted form.
struct Lift<'a> {
    id: usize,
    lam: &'a Lambda,
    rec: Option<VarId>,
    free: Vec<VarId>,
    /// The lambda as errors show it, `(x, k) { … }` (also its comment).
    shown: String,
}

/// Past this many bytes of C, a function that does not loop is *light*:
/// it is straight-line code that runs once per call (a long chain of
/// continuations, the residual of a builder), for which a C compiler's
/// full optimisation costs far more time than it saves.
const LIGHT_BYTES: usize = 8 << 10;

/// A C function of the program.
pub(super) struct Function {
    /// Its C name.
    pub(super) name: String,
    /// Its definition (a comment, then `static void NAME(void) {..}`).
    pub(super) text: String,
    /// Whether it is light ([`LIGHT_BYTES`]).
    pub(super) light: bool,
}

/// A constant object of the program.
pub(super) struct Static {
    /// Its C name.
    pub(super) name: String,
    /// Its definition without a storage class (`uint64_t NAME[n] = {..};`).
    pub(super) def: String,
}

/// The generator of one program.
pub(super) struct Gen<'a> {
    /// What every C name of the program begins with.
    prefix: &'a str,
    pub(super) vars: &'a Vars,
    pub(super) sources: &'a SourceMap,
    pub(super) sites: Sites,
    /// Initializers of the `FUNS` table, one per lifted lambda.
    infos: Vec<String>,
    /// C names of the lifted functions, by id.
    names: Vec<String>,
    /// Lifted functions, as emitted.
    pub(super) functions: Vec<Function>,
    /// Constant objects (floats, wide integers, closures with nothing to
    /// capture).
    pub(super) statics: Vec<Static>,
    /// What `main` does before the first call (code pointers of static
    /// closures).
    pub(super) init: Vec<String>,
    queue: Vec<Lift<'a>>,
    /// The free variables of the program's lambdas.
    free: Option<FreeIndex>,
    /// Where each line of a source file starts (for the functions'
    /// comments).
    line_starts: FxHashMap<FileId, Vec<usize>>,
    /// The lambdas lifted so far (by address), with their number and free
    /// variables: a body emitted twice lifts its lambdas once.
    lifted_ids: FxHashMap<*const Lambda, (usize, Vec<VarId>)>,
    /// Every lambda of the program (by address), numbered in the order of
    /// [`super::numbered`].
    order: FxHashMap<*const Lambda, u32>,
    /// Every tuple head holding expressions (by address), numbered in the
    /// order of [`super::numbered`].
    head_order: FxHashMap<*const Atom, usize>,
    /// For each lifted lambda: its number in `order`.
    pub(super) lambda_numbers: Vec<u32>,
    /// For each lifted lambda: its source.
    pub(super) lambda_spans: Vec<Span>,
    /// Every body of the generic code, by number (the `PC` a traced run
    /// reads): the body before it in the same call, if any, and the steps
    /// that led from that one to it.
    pub(super) bodies: Vec<(Option<u32>, Via)>,
    /// Why the program cannot be compiled, if it cannot.
    pub(super) refusals: Vec<Diagnostic>,
}

/// The function being emitted.
pub(super) struct Func<'a> {
    /// What each variable in scope is in C.
    pub(super) env: FxHashMap<VarId, String>,
    /// Number of temporaries `tN` used.
    pub(super) temps: usize,
    /// The statements emitted so far.
    pub(super) code: String,
    /// Blocks still to emit: label, body, the staging parameter of the
    /// lambda the body belongs to, and how the body is reached.
    blocks: Vec<(usize, &'a Body, VarId, Reached)>,
    /// How the next body emitted is reached.
    reached: Reached,
    labels: usize,
    /// The name a recursive lambda has for itself, and its parameters'
    /// locals: a call of that name with as many arguments jumps to `top`.
    self_call: Option<(VarId, Vec<String>)>,
    /// Whether a jump to `top` was emitted.
    pub(super) loops: bool,
    /// Numeric operations emitted so far: the generic copy of a looping
    /// function labels each `G{n}`, where the integer copy falls back.
    pub(super) ops: usize,
    /// The integer copy being emitted, if it is.
    pub(super) spec: Option<Spec>,
    /// Generic copy: the parameters and captured variables that are
    /// operands of numeric operations (what the integer copy assumes).
    pub(super) candidates: Vec<String>,
    /// What labels of blocks begin with (`L`, `SL` in the integer copy).
    label_prefix: &'static str,
}

/// How a body is reached in a call of its function: from the body before
/// it (by number) and the steps between them; `None` for the first body.
type Reached = Option<(u32, Via)>;

/// The integer copy of a looping function: what is known to be a small
/// integer (and a boolean) in it.
pub(super) struct Spec {
    /// C expressions known to hold small integers.
    pub(super) ints: FxHashSet<String>,
    /// C expressions known to hold booleans.
    pub(super) bools: FxHashSet<String>,
    /// The parameters whose integer values let a self-call stay in the copy.
    assumed: Vec<String>,
}

impl Spec {
    /// Whether `c` is known to be a small integer here.
    pub(super) fn int(&self, c: &str) -> bool {
        self.ints.contains(c) || c.starts_with("MK_INT(")
    }
}

impl<'a> Func<'a> {
    fn new() -> Func<'a> {
        Func {
            env: FxHashMap::default(),
            temps: 0,
            code: String::new(),
            blocks: Vec::new(),
            reached: None,
            labels: 0,
            self_call: None,
            loops: false,
            ops: 0,
            spec: None,
            candidates: Vec::new(),
            label_prefix: "L",
        }
    }

    /// A fresh temporary.
    pub(super) fn temp(&mut self) -> String {
        self.temps += 1;
        format!("t{}", self.temps - 1)
    }

    /// Appends a statement.
    pub(super) fn line(&mut self, s: &str) {
        self.code.push_str("    ");
        self.code.push_str(s);
        self.code.push('\n');
    }

    fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels - 1
    }
}

impl<'a> Gen<'a> {
    pub(super) fn new(vars: &'a Vars, sources: &'a SourceMap, prefix: &'a str) -> Gen<'a> {
        Gen {
            prefix,
            vars,
            sources,
            sites: Sites::default(),
            infos: Vec::new(),
            names: Vec::new(),
            functions: Vec::new(),
            statics: Vec::new(),
            init: Vec::new(),
            queue: Vec::new(),
            free: None,
            line_starts: FxHashMap::default(),
            lifted_ids: FxHashMap::default(),
            order: FxHashMap::default(),
            head_order: FxHashMap::default(),
            lambda_numbers: Vec::new(),
            lambda_spans: Vec::new(),
            bodies: Vec::new(),
            refusals: Vec::new(),
        }
    }

    /// A static object of one raw word (a float, a wide integer), named.
    pub(super) fn constant(&mut self, ty: &str, bits: u64) -> String {
        self.object(ty, &[bits])
    }

    /// A static object of raw words (a float, a wide integer, a string, a
    /// matrix), named.
    pub(super) fn object(&mut self, ty: &str, words: &[u64]) -> String {
        let name = format!("{}K{}", self.prefix, self.statics.len());
        let mut s = format!("uint64_t {name}[{}] = {{HDR({ty}, {}, 0, 1)", words.len() + 1, words.len());
        for w in words {
            let _ = write!(s, ", {w:#x}ULL");
        }
        s.push_str("};");
        self.statics.push(Static {
            name: name.clone(),
            def: s,
        });
        name
    }

    /// The C definition of the `FUNS` table.
    pub(super) fn infos_c(&self) -> String {
        let mut out = format!("static const FunInfo {}FUNS[] = {{\n", self.prefix);
        for i in &self.infos {
            let _ = writeln!(out, "    {i},");
        }
        out.push_str("    {0, 0, 0, -1},\n};\n");
        out
    }

    /// Emits the program's top-level body as `main_body`, then every lambda
    /// it lifts.
    pub(super) fn program(&mut self, body: &'a Body) {
        self.free = Some(FreeIndex::new(body));
        let numbered = super::numbered(body);
        for (i, (lam, _)) in numbered.lambdas.into_iter().enumerate() {
            self.order.insert(lam as *const Lambda, u32::try_from(i).unwrap_or(u32::MAX));
        }
        for (i, h) in numbered.heads.into_iter().enumerate() {
            self.head_order.insert(h as *const Atom, i);
        }
        let mut f = Func::new();
        self.chain(&mut f, body, None);
        self.drain_blocks(&mut f);
        let mut text = format!(
            "/* the program's top-level body */\nstatic void {}main_body(void) {{\n",
            self.prefix
        );
        declare_temps(&mut text, f.temps);
        text.push_str(&without_fallbacks(&f.code));
        text.push_str("}\n");
        self.functions.push(Function {
            name: format!("{}main_body", self.prefix),
            light: text.len() >= LIGHT_BYTES,
            text,
        });
        while let Some(l) = self.queue.pop() {
            self.lifted(l);
        }
    }

    fn drain_blocks(&mut self, f: &mut Func<'a>) {
        while let Some((label, body, own, reached)) = f.blocks.pop() {
            let _ = writeln!(f.code, "{}{label}:;", f.label_prefix);
            f.reached = reached;
            self.chain(f, body, Some(own));
        }
    }

    /// The line and column of the start of `span`, as
    /// [`SourceMap::line_col`] counts them, from an index of each file's
    /// lines (the functions of a long program are many).
    fn line_col(&mut self, span: Span) -> (usize, usize) {
        let text = &self.sources.get(span.file).text;
        let starts = self
            .line_starts
            .entry(span.file)
            .or_insert_with(|| std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect());
        let mut offset = (span.start as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = starts.partition_point(|&s| s <= offset);
        let start = starts[line - 1];
        let col = text.get(start..offset).map_or(0, |t| t.chars().count());
        (line, col + 1)
    }

    /// Refuses the program: `span` shows why.
    pub(super) fn refuse(&mut self, span: Span, message: String, label: &str, note: &str) {
        let mut d = Diagnostic::error("compile", message, span, label);
        if !note.is_empty() {
            d = d.with_note(note);
        }
        self.refusals.push(d);
    }

    fn name_of(&self, v: VarId) -> String {
        self.vars.name(v).unwrap_or("_").to_string()
    }

    /// A lambda as a closure value: queues its lifted form and emits the
    /// closure's construction (or names a constant closure).
    pub(super) fn closure(&mut self, f: &mut Func<'a>, lam: &'a Lambda, rec: Option<VarId>, hint: &str) -> String {
        if let Some((id, free)) = self.lifted_ids.get(&(lam as *const Lambda)).cloned() {
            return self.closure_value(f, id, &free);
        }
        let free = self.free.as_ref().and_then(|ix| ix.free_vars(lam, rec, self.vars));
        debug_assert!(free.is_some(), "every lambda compiled is one of the program's");
        let free = free.unwrap_or_default();
        let id = self.infos.len();
        let cname = format!("{}f{id}_{}", self.prefix, c_ident(hint));
        let shown = short_atom(&Atom::Lambda(Box::new(lam.shell())), self.vars);
        // As the machine's arity errors show them: source names, no staging
        // parameter.
        let params: Vec<String> = lam
            .params
            .iter()
            .map(|p| format!("{}{}", if p.rest { "!" } else { "" }, self.vars.name(p.var).unwrap_or("_")))
            .collect();
        let params = format!("({})", params.join(", "));
        let fixed = lam.params.iter().filter(|p| !p.rest).count();
        let rest = lam.params.iter().position(|p| p.rest).map_or(-1, |r| r as i64);
        self.infos.push(format!(
            "{{{}, {}, {fixed}, {rest}}}",
            super::sites::c_string(&shown),
            super::sites::c_string(&params)
        ));
        self.names.push(cname.clone());
        let number = self.order.get(&(lam as *const Lambda)).copied();
        debug_assert!(number.is_some(), "every lambda compiled is one of the program's");
        self.lambda_numbers.push(number.unwrap_or(u32::MAX));
        self.lambda_spans.push(lam.span);
        if free.is_empty() {
            let name = format!("{}C{id}", self.prefix);
            let def = format!("uint64_t {name}[3] = {{HDR(T_CLOS, 2, 0, 1), 0, {id}}};");
            self.statics.push(Static { name, def });
            self.init.push(format!("{}C{id}[1] = (uint64_t)(uintptr_t){cname};", self.prefix));
        }
        self.lifted_ids.insert(lam as *const Lambda, (id, free.clone()));
        let value = self.closure_value(f, id, &free);
        self.queue.push(Lift { id, lam, rec, free, shown });
        value
    }

    /// The closure of the lifted lambda `id` capturing `free`, here.
    fn closure_value(&mut self, f: &mut Func<'a>, id: usize, free: &[VarId]) -> String {
        if free.is_empty() {
            return format!("((V)(uintptr_t){}C{id})", self.prefix);
        }
        let t = f.temp();
        let mut s = format!("{t} = new_clos({}, {id}, {});", self.names[id], free.len());
        for (k, v) in free.iter().enumerate() {
            let val = self.var(f, *v);
            let _ = write!(s, " ENV({t})[{k}] = {val};");
        }
        f.line(&s);
        t
    }

    /// A variable as C: its local, its slot in the closure, or `always`
    /// for a staging parameter.
    pub(super) fn var(&mut self, f: &Func<'a>, v: VarId) -> String {
        if let Some(c) = f.env.get(&v) {
            return c.clone();
        }
        let info = self.vars.info(v);
        if info.kind == VarKind::Stage {
            return "V_ALWAYS".into();
        }
        self.refuse(
            info.span,
            format!("`{}` is free in the program: compile needs a closed program", self.name_of(v)),
            "bound outside the program",
            "",
        );
        "V_FALSE".into()
    }

    /// The lifted form of a lambda.
    fn lifted(&mut self, l: Lift<'a>) {
        let Lift { id, lam, rec, free, shown } = l;
        let mut f = Func::new();
        for (k, v) in free.iter().enumerate() {
            f.env.insert(*v, format!("ENV(self)[{k}]"));
        }
        if let Some(r) = rec {
            f.env.insert(r, "self".into());
        }
        f.env.insert(lam.sparam, "V_ALWAYS".into());
        let params: Vec<String> = (0..lam.params.len()).map(|i| format!("p{i}")).collect();
        for (p, c) in lam.params.iter().zip(&params) {
            f.env.insert(p.var, c.clone());
        }
        let has_rest = lam.params.iter().any(|p| p.rest);
        if let (Some(r), false) = (rec, has_rest) {
            f.self_call = Some((r, params.clone()));
        }
        let start_env = f.env.clone();
        self.chain(&mut f, &lam.body, Some(lam.sparam));
        self.drain_blocks(&mut f);
        // A loop whose numbers are small integers runs in a copy of the body
        // that knows it: no tag checks, no calls, only overflow checks that
        // fall back to the generic copy at the same operation.
        let mut assumed: Vec<String> = Vec::new();
        for c in &f.candidates {
            if !assumed.contains(c) {
                assumed.push(c.clone());
            }
        }
        let spec_code = if f.loops && !assumed.is_empty() && self.refusals.is_empty() {
            let mut g = Func::new();
            g.env = start_env;
            g.self_call = f.self_call.clone();
            g.label_prefix = "SL";
            g.spec = Some(Spec {
                ints: assumed.iter().cloned().collect(),
                bools: FxHashSet::default(),
                assumed: assumed.iter().filter(|c| params.contains(c)).cloned().collect(),
            });
            self.chain(&mut g, &lam.body, Some(lam.sparam));
            self.drain_blocks(&mut g);
            debug_assert_eq!(g.ops, f.ops, "the two copies number their operations alike");
            f.temps = f.temps.max(g.temps);
            Some(g.code)
        } else {
            None
        };
        let (line, col) = self.line_col(lam.span);
        let name = self.names[id].clone();
        let file = &self.sources.get(lam.span.file).name;
        let mut text = format!(
            "/* {} at {}:{line}:{col} */\nstatic void {name}(void) {{\n    V self = SELF;\n",
            comment_safe(&shown),
            comment_safe(file)
        );
        if !params.is_empty() {
            let _ = writeln!(text, "    V {};", params.join(", "));
        }
        declare_temps(&mut text, f.temps);
        let n = params.len();
        if has_rest {
            let _ = writeln!(text, "    collect_rest({id});");
        } else {
            let _ = writeln!(text, "    if (UNLIKELY(NA != {n})) call_arity_error({id});");
        }
        // The β of the call that entered it, in a traced run.
        text.push_str("    TRACE_CALL(CALL_SITE);\n");
        for (i, p) in params.iter().enumerate() {
            let _ = writeln!(text, "    {p} = A[{i}];");
        }
        if f.loops {
            text.push_str("top:\n");
        }
        {
            let _ = write!(text, "    if (UNLIKELY(gc_pending)) {{ ");
            for (i, p) in params.iter().enumerate() {
                let _ = write!(text, "A[{i}] = {p}; ");
            }
            let _ = write!(text, "NA = {n}; SELF = self; gc(); self = SELF; ");
            for (i, p) in params.iter().enumerate() {
                let _ = write!(text, "{p} = A[{i}]; ");
            }
            text.push_str("}\n");
        }
        if spec_code.is_some() {
            let test: Vec<String> = assumed.iter().map(|c| format!("IS_INT({c})")).collect();
            let _ = writeln!(text, "    if (!tracing && {}) goto S_top;", test.join(" && "));
        }
        if spec_code.is_some() {
            text.push_str(&f.code);
        } else {
            text.push_str(&without_fallbacks(&f.code));
        }
        if let Some(code) = &spec_code {
            text.push_str("S_top:\n");
            text.push_str("    if (UNLIKELY(gc_pending)) goto top;\n");
            text.push_str(code);
        }
        text.push_str("}\n");
        self.functions.push(Function {
            name: name.clone(),
            light: !f.loops && text.len() >= LIGHT_BYTES,
            text,
        });
    }

    /// Emits a body and the bodies it continues with in place.
    fn chain(&mut self, f: &mut Func<'a>, mut b: &'a Body, mut own: Option<VarId>) {
        loop {
            if !self.natural(b, own) {
                f.line("abort();");
                return;
            }
            // The generic code numbers its bodies: a traced run reads the
            // number of the body running to learn the steps its call took
            // (the integer copy is not entered in a traced run).
            let number = match f.spec {
                Some(_) => 0,
                None => {
                    let k = u32::try_from(self.bodies.len()).unwrap_or(u32::MAX);
                    self.bodies
                        .push((f.reached.map(|(p, _)| p), f.reached.map_or(Via::First, |(_, v)| v)));
                    f.line(&format!("PC = {k};"));
                    k
                }
            };
            let app = match &b.cmd {
                Cmd::Fix(fx) => {
                    f.env.insert(fx.sparam, "V_ALWAYS".into());
                    let hint = self.name_of(fx.name);
                    let value = self.closure(f, &fx.lam, Some(fx.name), &hint);
                    f.env.insert(fx.name, value);
                    f.reached = Some((number, Via::Fix));
                    b = &fx.body;
                    own = Some(fx.sparam);
                    continue;
                }
                Cmd::App(app) => app,
            };
            if let Some((t, e)) = inline_if(app) {
                let c = self.value(f, app.args[0].atom(), b.span, "lambda");
                self.branch(f, &app.args[0], &c, (t, e), b.span, number);
                return;
            }
            // The arguments, left to right (LANGUAGE.md §4.3).
            let mut args: Vec<(String, bool)> = Vec::with_capacity(app.args.len());
            for (i, a) in app.args.iter().enumerate() {
                let (x, splice) = match a {
                    Arg::Atom(x) => (x, false),
                    Arg::Splice(x) => (x, true),
                };
                let hint = match (&app.head, x) {
                    (Atom::Lambda(l), Atom::Lambda(_)) => l.params.get(i).map(|p| self.name_of(p.var)),
                    _ => None,
                };
                let v = self.value(f, x, b.span, hint.as_deref().unwrap_or("lambda"));
                if splice {
                    let site = self.sites.site(b.span, Place::Body);
                    f.line(&format!("want_splice({site}, {v});"));
                }
                args.push((v, splice));
            }
            let spliced = args.iter().any(|(_, s)| *s);
            match &app.head {
                // A long chain of continuations is cut into functions of
                // bounded size: C compilers take time superlinear in the
                // size of one function.
                Atom::Lambda(lam) if !spliced && f.temps < MAX_TEMPS => {
                    if self.bind_in_place(f, lam, &args, b.span) {
                        let site = self.sites.site(b.span, Place::Body);
                        f.reached = Some((number, Via::Beta(site)));
                        b = &lam.body;
                        own = Some(lam.sparam);
                        continue;
                    }
                    return;
                }
                Atom::Builtin(Builtin::Exit) => {
                    self.set_args(f, &args);
                    let site = self.sites.site(b.span, Place::Body);
                    f.line(&format!("do_exit({site});"));
                    return;
                }
                Atom::Var(v) if !spliced && self.is_self_call(f, *v, args.len()) => {
                    let Some((_, params)) = f.self_call.clone() else { return };
                    let site = self.sites.site(b.span, Place::Body);
                    trace(f, &format!("TRACE_LEAVE(); TRACE_CALL({site});"));
                    let mut s = String::from("{ ");
                    for (i, (a, _)) in args.iter().enumerate() {
                        let _ = write!(s, "V n{i} = {a}; ");
                    }
                    for (i, p) in params.iter().enumerate() {
                        let _ = write!(s, "{p} = n{i}; ");
                    }
                    // The integer copy stays in itself when the integers it
                    // assumes stay integers.
                    let stays = f
                        .spec
                        .as_ref()
                        .is_some_and(|sp| params.iter().zip(&args).all(|(p, (a, _))| !sp.assumed.contains(p) || sp.int(a)));
                    s.push_str(if stays { "goto S_top; }" } else { "goto top; }" });
                    f.line(&s);
                    f.loops = true;
                    return;
                }
                _ => {}
            }
            // A call through the trampoline.
            let head = match &app.head {
                Atom::Builtin(Builtin::If) => {
                    self.set_args(f, &args);
                    let site = self.sites.site(b.span, Place::Body);
                    let cond = self.sites.site(b.span, cond_place(&app.args));
                    trace(f, "TRACE_LEAVE();");
                    f.line(&format!("do_if({site}, {cond}); return;"));
                    return;
                }
                // A tuple written as the head is no function, and the run
                // does not evaluate the expressions in it.
                h @ Atom::Tuple(_) if holds_expr(h) => {
                    // The message shows it with the values of its
                    // variables in place (the runtime library substitutes
                    // them); as written if the library cannot.
                    let site = self.sites.site(b.span, Place::Operand(Operand::Head));
                    let number = self.head_order.get(&(h as *const Atom)).copied();
                    debug_assert!(number.is_some(), "every head compiled is one of the program's");
                    let free = super::free::atom_free_vars(h);
                    let t = f.temp();
                    let mut s = format!("{t} = new_tuple({});", free.len());
                    for (k, v) in free.iter().enumerate() {
                        let val = self.var(f, *v);
                        let _ = write!(s, " FIELDS({t})[{k}] = {val};");
                    }
                    f.line(&s);
                    f.line(&format!(
                        "tuple_head_error({site}, {}, {t}, {});",
                        number.unwrap_or(usize::MAX),
                        super::sites::c_string(&short_atom(h, self.vars))
                    ));
                    return;
                }
                h => self.value(f, h, b.span, "lambda"),
            };
            let head_site = self.sites.site(b.span, Place::Operand(Operand::Head));
            f.line(&format!("want_fun({head_site}, {head});"));
            self.set_args(f, &args);
            let site = self.sites.site(b.span, Place::Body);
            trace(f, "TRACE_LEAVE();");
            f.line(&format!("SELF = {head}; CALL_SITE = {site}; return;"));
            return;
        }
    }

    fn is_self_call(&self, f: &Func<'a>, v: VarId, n: usize) -> bool {
        matches!(&f.self_call, Some((r, ps)) if *r == v && ps.len() == n)
    }

    /// Whether the body runs in call order: staged on its own lambda's
    /// staging parameter (or, at the top, on `always`). Refuses it if not.
    fn natural(&mut self, b: &Body, own: Option<VarId>) -> bool {
        let ok = super::natural(&b.stage, own);
        if !ok {
            let shown = crate::print::sexp_text(&b.stage, &crate::print::names::Names::new(self.vars));
            self.refuse(
                b.span,
                format!("this body is staged on `{shown}`: it would still need staging when the program runs"),
                "staged here",
                "compile takes code that runs in call order: each body staged on its own lambda's staging parameter (what a body without `@..:` gets)",
            );
        }
        ok
    }

    /// Sets the argument registers to `args`, expanding splices.
    fn set_args(&mut self, f: &mut Func<'a>, args: &[(String, bool)]) {
        if args.iter().any(|(_, s)| *s) {
            f.line("NA = 0;");
            for (a, splice) in args {
                if *splice {
                    f.line(&format!("splice_args({a});"));
                } else {
                    f.line(&format!("grow_args(NA + 1); A[NA++] = {a};"));
                }
            }
            return;
        }
        if args.len() > INITIAL_ARGS {
            f.line(&format!("grow_args({});", args.len()));
        }
        let mut s = String::new();
        for (i, (a, _)) in args.iter().enumerate() {
            let _ = write!(s, "A[{i}] = {a}; ");
        }
        let _ = write!(s, "NA = {};", args.len());
        f.line(&s);
    }

    /// β of a lambda written where it is applied: its parameters become
    /// locals. False if the arity does not match (the error is emitted).
    fn bind_in_place(&mut self, f: &mut Func<'a>, lam: &'a Lambda, args: &[(String, bool)], body: Span) -> bool {
        f.env.insert(lam.sparam, "V_ALWAYS".into());
        let k = lam.params.len();
        let (fits, rest) = match lam.params.iter().position(|p| p.rest) {
            None => (args.len() == k, None),
            Some(r) => (args.len() + 1 >= k, Some(r)),
        };
        if !fits {
            // The error names the lambda and the arguments as the run does.
            let hint = "lambda";
            let _ = self.closure(f, lam, None, hint);
            let id = self.infos.len() - 1;
            self.set_args(f, args);
            let site = self.sites.site(body, Place::At(lam.span));
            let label = match rest {
                None => format!("this lambda takes {k} argument{}", if k == 1 { "" } else { "s" }),
                Some(_) => format!("this lambda takes at least {} argument{}", k - 1, if k == 2 { "" } else { "s" }),
            };
            f.line(&format!("arity_error({id}, {site}, {});", super::sites::c_string(&label)));
            return false;
        }
        match rest {
            None => {
                for (p, (a, _)) in lam.params.iter().zip(args) {
                    f.env.insert(p.var, a.clone());
                }
            }
            Some(r) => {
                let after = k - r - 1;
                let middle = &args[r..args.len() - after];
                let t = f.temp();
                let mut s = format!("{t} = new_tuple({});", middle.len());
                for (i, (a, _)) in middle.iter().enumerate() {
                    let _ = write!(s, " FIELDS({t})[{i}] = {a};");
                }
                f.line(&s);
                for (i, p) in lam.params.iter().enumerate() {
                    let v = if i < r {
                        args[i].0.clone()
                    } else if i == r {
                        t.clone()
                    } else {
                        args[args.len() - (k - i)].0.clone()
                    };
                    f.env.insert(p.var, v);
                }
            }
        }
        true
    }

    /// `if c t e` with both branches written in place: they continue this
    /// function.
    fn branch(&mut self, f: &mut Func<'a>, cond: &Arg, c: &str, (t, e): (&'a Lambda, &'a Lambda), body: Span, number: u32) {
        let cond_site = self.sites.site(body, cond_place(std::slice::from_ref(cond)));
        let (lt, le) = (f.label(), f.label());
        let l = f.label_prefix;
        if f.spec.as_ref().is_some_and(|sp| sp.bools.contains(c)) {
            f.line(&format!("if ({c} == V_TRUE) goto {l}{lt}; goto {l}{le};"));
        } else {
            // `if` and then the β of the branch chosen, in a traced run.
            f.line(&format!(
                "if ({c} == V_TRUE) goto {l}{lt}; if ({c} != V_FALSE) if_condition({cond_site}, {c}); goto {l}{le};"
            ));
        }
        // `if`, then the β of the branch chosen.
        let reached = f.spec.is_none().then(|| (number, Via::If(self.sites.site(body, Place::Body))));
        f.blocks.push((le, &e.body, e.sparam, reached));
        f.blocks.push((lt, &t.body, t.sparam, reached));
    }
}

/// Appends `hook`, a step of the traced run, unless `f` is the integer
/// copy (which a traced run does not enter).
fn trace(f: &mut Func<'_>, hook: &str) {
    if f.spec.is_none() {
        f.line(hook);
    }
}

/// Whether a tuple holds an expression string, at any depth.
pub(super) fn holds_expr(a: &Atom) -> bool {
    let mut stack = vec![a];
    while let Some(a) = stack.pop() {
        match a {
            Atom::Expr(_) => return true,
            Atom::Tuple(xs) => stack.extend(xs.iter().map(Arg::atom)),
            _ => {}
        }
    }
    false
}

/// Where the run points when the condition of an `if` is not a boolean.
fn cond_place(args: &[Arg]) -> Place {
    match args.first() {
        Some(Arg::Atom(Atom::Expr(e))) => Place::At(e.span),
        _ => Place::Operand(Operand::Arg(0)),
    }
}

/// The branches of an `if` written in place: three arguments without
/// splices, the last two lambdas of no parameters.
fn inline_if(app: &Application) -> Option<(&Lambda, &Lambda)> {
    if !matches!(app.head, Atom::Builtin(Builtin::If)) {
        return None;
    }
    match app.args.as_slice() {
        [Arg::Atom(_), Arg::Atom(Atom::Lambda(t)), Arg::Atom(Atom::Lambda(e))] if t.params.is_empty() && e.params.is_empty() => {
            Some((t, e))
        }
        _ => None,
    }
}

fn declare_temps(text: &mut String, n: usize) {
    let mut i = 0;
    while i < n {
        let end = (i + 16).min(n);
        let names: Vec<String> = (i..end).map(|k| format!("t{k}")).collect();
        let _ = writeln!(text, "    V {};", names.join(", "));
        i = end;
    }
}

/// The generic code `code` without the labels `G{n}:;` where an integer
/// copy falls back to it: with no integer copy, nothing jumps to them (and
/// a C compiler's time grows with the labels of a long function).
fn without_fallbacks(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.split_inclusive('\n') {
        let label = line
            .trim()
            .strip_prefix('G')
            .and_then(|l| l.strip_suffix(":;"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !label {
            out.push_str(line);
        }
    }
    out
}

/// A C identifier made of `name`'s letters and digits.
fn c_ident(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect();
    if s.is_empty() {
        "lambda".into()
    } else {
        s
    }
}

/// Text that cannot end a C comment.
fn comment_safe(s: &str) -> String {
    s.replace("*/", "* /")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::load::add_source;
    use crate::syntax::{load_from, MemFs};

    fn functions_of(text: &str) -> Vec<Function> {
        let mut sources = SourceMap::new();
        let file = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("source");
        let p = load_from(&MemFs::default(), file, &mut sources, false).expect("loads");
        let mut g = Gen::new(&p.vars, &sources, "p_");
        g.program(&p.body);
        assert!(g.refusals.is_empty());
        g.functions
    }

    #[test]
    fn only_a_function_with_an_integer_copy_has_labels_to_fall_back_to() {
        let looping =
            "fix loop(i, acc, k) {\n  if \"i > 10\" () { k acc } () { \"acc+i\" (a) { loop \"i+1\" a k } }\n} in loop 1 0 $exit\n";
        let f = functions_of(looping);
        let lp = f.iter().find(|f| f.name.ends_with("_loop")).expect("the loop");
        assert!(
            lp.text.contains("S_top:") && lp.text.contains("goto G1;") && lp.text.contains("G1:;"),
            "{}",
            lp.text
        );
        let straight = "let x0 = 0\n\"x0 + 1\" (x1)\n\"x1 * 2\" (x2)\n$exit x2\n";
        let f = functions_of(straight);
        assert!(f.iter().all(|f| !f.text.contains(":;")), "{}", f[0].text);
        assert!(f[0].text.contains("rt_add(") && f[0].text.contains("rt_mul("), "{}", f[0].text);
    }

    #[test]
    fn functions_are_placed_where_their_lambdas_are() {
        // Lambdas on several lines, after characters of several bytes.
        let text = "// «ünïcödé» ✓\nlet f = (x, k) { \"x + 1\" (y) { k y } } // ✓\nlet g = (e, k) { // «»\n  f e (z) { k [z, 2] }\n}\ng 1 (r) { $exit r }\n";
        let mut sources = SourceMap::new();
        let file = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("source");
        let p = load_from(&MemFs::default(), file, &mut sources, false).expect("loads");
        let mut g = Gen::new(&p.vars, &sources, "p_");
        g.program(&p.body);
        assert!(g.refusals.is_empty());
        let mut want: Vec<String> = g.lambda_spans.iter().map(|s| sources.describe(*s)).collect();
        let mut got: Vec<String> = g
            .functions
            .iter()
            .filter_map(|f| {
                f.text
                    .split_once(" at ")
                    .and_then(|(_, rest)| rest.split_once(" */"))
                    .map(|(at, _)| at.to_string())
            })
            .collect();
        want.sort();
        got.sort();
        assert!(want.len() >= 3, "{want:?}");
        assert_eq!(got, want);
    }
}
