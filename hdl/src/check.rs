//! Module checks run by `finish`: undriven signals, unconnected instance inputs and
//! combinational loops (through submodules via their input-to-output summaries).

use crate::builder::State;
use crate::error::{ErrorKind, HdlErrors};
use crate::ir::{Dir, Module, Op, SigKind};
use std::rc::Rc;

/// Graph vertices: nodes first, then signals.
struct Graph<'a> {
    st: &'a State,
    n_nodes: usize,
}

impl Graph<'_> {
    fn len(&self) -> usize {
        self.n_nodes + self.st.body.signals.len()
    }

    /// Combinational dependencies of vertex `v`.
    fn deps(&self, v: usize, out: &mut Vec<usize>) {
        out.clear();
        let body = &self.st.body;
        if v < self.n_nodes {
            match &body.nodes[v].op {
                Op::Sig(s) => out.push(self.n_nodes + *s as usize),
                Op::Const(_) => {}
                Op::Not(a) | Op::Reduce(_, a) | Op::Repeat(a, _) => out.push(*a as usize),
                Op::Slice { value, .. } => out.push(*value as usize),
                Op::Bin(_, a, b) | Op::Cmp(_, _, a, b) | Op::Shl(a, b) => {
                    out.extend([*a as usize, *b as usize])
                }
                Op::Shr { value, amount, .. } => out.extend([*value as usize, *amount as usize]),
                Op::Concat(parts) => out.extend(parts.iter().map(|p| *p as usize)),
                Op::Mux {
                    cond,
                    then,
                    otherwise,
                } => out.extend([*cond, *then, *otherwise].map(|n| n as usize)),
                Op::MemRead { mem, port } => {
                    out.push(body.mems[*mem as usize].reads[*port as usize].addr as usize)
                }
            }
            return;
        }
        let s = v - self.n_nodes;
        match &body.signals[s].kind {
            SigKind::Output | SigKind::Wire | SigKind::InstIn { .. } => {
                if let Some(d) = body.drivers[s] {
                    out.push(d as usize);
                }
            }
            SigKind::InstOut { inst, port } => {
                let instance = &body.instances[*inst as usize];
                if let Some((_, inputs)) = instance.module.comb_deps.iter().find(|(p, _)| p == port)
                {
                    out.extend(
                        inputs
                            .iter()
                            .map(|i| self.n_nodes + instance.ports[*i as usize] as usize),
                    );
                }
            }
            SigKind::Input | SigKind::Reg { .. } | SigKind::MemData { .. } => {}
        }
    }

    /// A cycle of vertices if the graph has one.
    fn find_cycle(&self) -> Option<Vec<usize>> {
        const WHITE: u8 = 0;
        const GREY: u8 = 1;
        const BLACK: u8 = 2;
        let mut color = vec![WHITE; self.len()];
        let mut scratch = Vec::new();
        for root in 0..self.len() {
            if color[root] != WHITE {
                continue;
            }
            // Stack of (vertex, its dependencies, next index).
            let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
            self.deps(root, &mut scratch);
            stack.push((root, scratch.clone(), 0));
            color[root] = GREY;
            while let Some((v, deps, i)) = stack.last_mut() {
                if *i == deps.len() {
                    color[*v] = BLACK;
                    stack.pop();
                    continue;
                }
                let w = deps[*i];
                *i += 1;
                match color[w] {
                    WHITE => {
                        color[w] = GREY;
                        self.deps(w, &mut scratch);
                        stack.push((w, scratch.clone(), 0));
                    }
                    GREY => {
                        let start = stack
                            .iter()
                            .position(|(x, ..)| *x == w)
                            .expect("grey vertex on stack");
                        return Some(stack[start..].iter().map(|(x, ..)| *x).collect());
                    }
                    _ => {}
                }
            }
        }
        None
    }

    /// Input ports (indices into `ports`) reachable combinationally from vertex `v`.
    fn inputs_reached(&self, v: usize) -> Vec<u32> {
        let mut seen = vec![false; self.len()];
        let mut todo = vec![v];
        let mut scratch = Vec::new();
        let mut found = Vec::new();
        while let Some(x) = todo.pop() {
            if std::mem::replace(&mut seen[x], true) {
                continue;
            }
            if x >= self.n_nodes {
                let sig = (x - self.n_nodes) as u32;
                if let Some(p) = self
                    .st
                    .body
                    .ports
                    .iter()
                    .position(|p| p.dir == Dir::In && p.sig == sig)
                {
                    found.push(p as u32);
                }
            }
            self.deps(x, &mut scratch);
            todo.extend_from_slice(&scratch);
        }
        found.sort_unstable();
        found
    }
}

pub(crate) fn check_and_package(
    mut st: State,
    partly_driven: &[bool],
) -> Result<Rc<Module>, HdlErrors> {
    #[allow(clippy::needless_range_loop)] // `st` is mutated inside
    for s in 0..st.body.signals.len() {
        let sig = &st.body.signals[s];
        if st.body.drivers[s].is_some() {
            continue;
        }
        let (name, loc) = (sig.name.clone(), st.locs.signals[s]);
        match sig.kind {
            // Partly driven signals were reported by lowering.
            SigKind::Output | SigKind::Wire if !partly_driven[s] => {
                let what = if sig.kind == SigKind::Output {
                    "output"
                } else {
                    "wire"
                };
                st.error(
                    ErrorKind::Undriven,
                    &name,
                    loc,
                    format!("{what} `{name}` is never driven"),
                );
            }
            SigKind::InstIn { inst, port } => {
                let i = &st.body.instances[inst as usize];
                let msg = format!(
                    "input `{}` of instance `{}` (module `{}`) is not connected",
                    i.module.body.ports[port as usize].name, i.name, i.module.name
                );
                st.error(ErrorKind::UnconnectedInput, &name, loc, msg);
            }
            _ => {}
        }
    }

    // Without initial contents, a memory nobody writes has no defined value (and Yosys
    // rejects its undriven words).
    for (i, mem) in st.body.mems.iter().enumerate() {
        if mem.writes.is_empty() && mem.init.is_none() {
            let (name, loc) = (mem.name.clone(), st.locs.mems[i]);
            let msg = format!("memory `{name}` is never written");
            st.errors.push(crate::error::HdlError {
                kind: ErrorKind::Undriven,
                path: format!("{}.{name}", st.name),
                loc,
                message: msg,
            });
        }
    }
    let graph = Graph {
        st: &st,
        n_nodes: st.body.nodes.len(),
    };
    let cycle = graph.find_cycle();
    let comb_deps: Vec<(u32, Vec<u32>)> = if cycle.is_none() {
        st.body
            .ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.dir == Dir::Out)
            .map(|(i, p)| {
                (
                    i as u32,
                    graph.inputs_reached(graph.n_nodes + p.sig as usize),
                )
            })
            .collect()
    } else {
        vec![]
    };
    if let Some(cycle) = cycle {
        let n_nodes = st.body.nodes.len();
        let sigs: Vec<usize> = cycle
            .iter()
            .filter(|&&v| v >= n_nodes)
            .map(|&v| v - n_nodes)
            .collect();
        let mut names: Vec<String> = sigs
            .iter()
            .map(|&s| st.body.signals[s].name.clone())
            .collect();
        names.push(names[0].clone());
        let first = sigs[0];
        let (name, loc) = (st.body.signals[first].name.clone(), st.locs.signals[first]);
        st.error(ErrorKind::CombinationalLoop, &name, loc, names.join(" -> "));
    }

    if !st.errors.is_empty() {
        return Err(HdlErrors(st.errors));
    }
    let b = &st.body;
    let has_regs = b
        .signals
        .iter()
        .any(|s| matches!(s.kind, SigKind::Reg { .. } | SigKind::MemData { .. }));
    let has_writes = b.mems.iter().any(|m| !m.writes.is_empty());
    st.body.clocked = has_regs || has_writes || b.instances.iter().any(|i| i.module.body.clocked);
    Ok(Rc::new(Module {
        name: st.name,
        body: st.body,
        locs: st.locs,
        comb_deps,
    }))
}
