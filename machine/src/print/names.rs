//! Printed names of binders (LANGUAGE.md §8): binders keep their source
//! names; where a name would capture another variable of the same name
//! referenced in its scope, the inner binder becomes `name_k` with the lowest
//! `k ≥ 1` that is not the printed name of a variable referenced in its scope.
//! The choice depends only on the term's shape and names, never on ids.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::term::{Lambda, VarId, Vars};

/// The printed names of the binders in scope.
pub struct Names<'v> {
    vars: &'v Vars,
    env: HashMap<VarId, String>,
}

impl<'v> Names<'v> {
    /// Whether two variables have the same source name (copies of one
    /// binder do).
    pub fn same_source(&self, a: VarId, b: VarId) -> bool {
        self.vars.name(a) == self.vars.name(b)
    }

    /// No binder in scope yet.
    pub fn new(vars: &'v Vars) -> Names<'v> {
        Names {
            vars,
            env: HashMap::default(),
        }
    }

    /// The printed name of `v`.
    pub fn name(&self, v: VarId) -> String {
        self.name_str(v).to_string()
    }

    /// The printed name of `v`, borrowed.
    pub fn name_str(&self, v: VarId) -> &str {
        match self.env.get(&v) {
            Some(n) => n.as_str(),
            None => self.vars.name(v).unwrap_or("_"),
        }
    }

    /// Whether `v` is an anonymous staging parameter.
    pub fn anonymous(&self, v: VarId) -> bool {
        self.vars.name(v).is_none()
    }

    /// The table of variables.
    pub fn vars(&self) -> &'v Vars {
        self.vars
    }

    /// Enters the scope of `binders`, in which the variables `referenced` are
    /// free (see [`super::free::FreeVars`]);
    /// returns what to restore with [`Names::leave`].
    pub fn enter(&mut self, binders: &[VarId], referenced: &HashSet<VarId>) -> Vec<(VarId, Option<String>)> {
        // The names are chosen first, against the printed names of the
        // referenced variables as they stand (borrowed, not copied), and
        // put in the table after.
        let mut chosen: Vec<(VarId, Option<String>)> = Vec::with_capacity(binders.len());
        {
            let (env, vars) = (&self.env, self.vars);
            let printed = |w: &VarId| -> &str {
                match env.get(w) {
                    Some(n) => n.as_str(),
                    None => vars.name(*w).unwrap_or("_"),
                }
            };
            // Mostly no binder is renamed: no two share a source name and
            // none is the printed name of a variable referenced. Then each
            // keeps its source name, and no set of names is built.
            let source = |b: &VarId| vars.name(*b);
            let twins = binders
                .iter()
                .enumerate()
                .any(|(i, b)| source(b).is_some() && binders[..i].iter().any(|c| source(c) == source(b)));
            let captures = || {
                referenced
                    .iter()
                    .filter(|w| !binders.contains(w))
                    .any(|w| binders.iter().any(|b| source(b) == Some(printed(w))))
            };
            if !twins && !captures() {
                return binders
                    .iter()
                    .map(|&b| match source(&b) {
                        Some(name) => (b, self.env.insert(b, name.to_string())),
                        None => (b, self.env.remove(&b)),
                    })
                    .collect();
            }
            let outer: HashSet<&str> = referenced.iter().filter(|w| !binders.contains(w)).map(printed).collect();
            for &b in binders {
                let Some(src) = vars.name(b) else {
                    chosen.push((b, None));
                    continue;
                };
                let taken = |name: &str| outer.contains(name) || chosen.iter().any(|(_, n)| n.as_deref() == Some(name));
                let name = if taken(src) {
                    let mut k = 1;
                    loop {
                        let name = format!("{src}_{k}");
                        if !taken(&name) {
                            break name;
                        }
                        k += 1;
                    }
                } else {
                    src.to_string()
                };
                chosen.push((b, Some(name)));
            }
        }
        chosen
            .into_iter()
            .map(|(b, name)| match name {
                Some(name) => (b, self.env.insert(b, name)),
                None => (b, self.env.remove(&b)),
            })
            .collect()
    }

    /// Leaves a scope entered with [`Names::enter`].
    pub fn leave(&mut self, saved: Vec<(VarId, Option<String>)>) {
        for (v, old) in saved.into_iter().rev() {
            match old {
                Some(n) => {
                    self.env.insert(v, n);
                }
                None => {
                    self.env.remove(&v);
                }
            }
        }
    }
}

/// The binders of a lambda: staging parameter, then parameters.
pub fn lambda_binders(l: &Lambda) -> Vec<VarId> {
    std::iter::once(l.sparam).chain(l.params.iter().map(|p| p.var)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;
    use crate::term::{VarInfo, VarKind};

    fn var(vars: &mut Vars, name: Option<&str>) -> VarId {
        vars.fresh(VarInfo {
            name: name.map(Into::into),
            kind: VarKind::Param,
            span: Span::default(),
        })
    }

    /// The printed names of `binders` entered in a scope referencing `refs`.
    fn entered(names: &mut Names, binders: &[VarId], refs: &[VarId]) -> Vec<String> {
        let refs: HashSet<VarId> = refs.iter().copied().collect();
        names.enter(binders, &refs);
        binders.iter().map(|&b| names.name(b)).collect()
    }

    #[test]
    fn binders_are_renamed_only_where_they_would_capture() {
        let mut vars = Vars::default();
        let x = var(&mut vars, Some("x"));
        let x1 = var(&mut vars, Some("x_1"));
        let y = var(&mut vars, Some("y"));
        let inner_x = var(&mut vars, Some("x"));
        let other_x = var(&mut vars, Some("x"));
        let anon = var(&mut vars, None);
        let cases: [(&[VarId], &[VarId], &[&str]); 6] = [
            // Nothing captured: source names (and `_` for an anonymous one).
            (&[inner_x, anon], &[y, x1], &["x", "_"]),
            // The binder itself referenced in its scope: no capture.
            (&[inner_x], &[inner_x, y], &["x"]),
            // An outer `x` referenced: the binder becomes `x_1` ...
            (&[inner_x], &[x], &["x_1"]),
            // ... or `x_2` when `x_1` is referenced too.
            (&[inner_x], &[x, x1], &["x_2"]),
            // Two binders of one name: the second is renamed ...
            (&[inner_x, other_x], &[], &["x", "x_1"]),
            // ... past the names referenced.
            (&[inner_x, other_x], &[x1], &["x", "x_2"]),
        ];
        for (binders, refs, expect) in cases {
            let mut names = Names::new(&vars);
            assert_eq!(entered(&mut names, binders, refs), expect, "binders {binders:?}, refs {refs:?}");
        }
    }
}
