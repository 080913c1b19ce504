//! A design: the module hierarchy under a top, deduplicated. Structurally identical
//! modules (equal bodies, whatever their names or where they were built) become one
//! definition; definitions that share a name but differ get numbered suffixes.

use crate::ir::Module;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

pub struct Design {
    /// Unique definitions, children before parents; the top is last.
    modules: Vec<Rc<Module>>,
    names: Vec<String>,
    class_of: HashMap<*const Module, usize>,
}

impl Design {
    pub fn new(top: &Rc<Module>) -> Design {
        let mut d = Design {
            modules: vec![],
            names: vec![],
            class_of: HashMap::new(),
        };
        let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
        d.visit(top, &mut by_hash);
        // Name from the top down so the top and the outer modules keep their names.
        let mut taken: HashMap<String, u32> = HashMap::new();
        let mut names = vec![String::new(); d.modules.len()];
        for i in (0..d.modules.len()).rev() {
            let base = &d.modules[i].name;
            let n = taken.entry(base.clone()).or_insert(0);
            names[i] = if *n == 0 {
                base.clone()
            } else {
                format!("{base}_{n}")
            };
            *n += 1;
        }
        d.names = names;
        d
    }

    fn visit(&mut self, m: &Rc<Module>, by_hash: &mut HashMap<u64, Vec<usize>>) {
        if self.class_of.contains_key(&Rc::as_ptr(m)) {
            return;
        }
        for inst in &m.body.instances {
            self.visit(&inst.module, by_hash);
        }
        let mut h = DefaultHasher::new();
        m.body.hash(&mut h);
        let bucket = by_hash.entry(h.finish()).or_default();
        let class = match bucket.iter().find(|&&c| self.modules[c].body == m.body) {
            Some(&c) => c,
            None => {
                self.modules.push(m.clone());
                bucket.push(self.modules.len() - 1);
                self.modules.len() - 1
            }
        };
        self.class_of.insert(Rc::as_ptr(m), class);
    }

    /// Unique module definitions, children first.
    pub fn modules(&self) -> impl Iterator<Item = (&str, &Rc<Module>)> {
        self.names.iter().map(String::as_str).zip(&self.modules)
    }

    pub fn top(&self) -> &Rc<Module> {
        self.modules.last().expect("a design has a top")
    }

    pub fn top_name(&self) -> &str {
        self.names.last().expect("a design has a top")
    }

    /// The emitted name of (the definition of) `m`.
    pub fn name_of(&self, m: &Rc<Module>) -> &str {
        &self.names[self.class_of[&Rc::as_ptr(m)]]
    }
}
