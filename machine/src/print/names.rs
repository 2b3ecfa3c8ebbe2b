//! Printed names of binders (LANGUAGE.md §6): binders keep their source
//! names; where a name would capture another variable of the same name
//! referenced in its scope, the inner binder becomes `name_k` with the lowest
//! `k ≥ 1` that is not the printed name of a variable referenced in its scope.
//! The choice depends only on the term's shape and names, never on ids.

use std::collections::{HashMap, HashSet};

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
        Names { vars, env: HashMap::new() }
    }

    /// The printed name of `v`.
    pub fn name(&self, v: VarId) -> String {
        if let Some(n) = self.env.get(&v) {
            return n.clone();
        }
        self.vars.name(v).unwrap_or("_").to_string()
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
        let own: HashSet<VarId> = binders.iter().copied().collect();
        let outer: HashSet<String> = referenced.iter().filter(|w| !own.contains(w)).map(|w| self.name(*w)).collect();
        let mut taken: HashSet<String> = HashSet::new();
        let mut saved = Vec::with_capacity(binders.len());
        for &b in binders {
            let Some(src) = self.vars.name(b) else {
                saved.push((b, self.env.remove(&b)));
                continue;
            };
            let mut name = src.to_string();
            if outer.contains(&name) || taken.contains(&name) {
                let mut k = 1;
                loop {
                    name = format!("{src}_{k}");
                    if !outer.contains(&name) && !taken.contains(&name) {
                        break;
                    }
                    k += 1;
                }
            }
            taken.insert(name.clone());
            saved.push((b, self.env.insert(b, name)));
        }
        saved
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
