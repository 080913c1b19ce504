//! Lowering of conditional connections: each signal's statements become one driver
//! expression (a mux tree following the `when` structure, last connection winning).

use crate::builder::{State, Stmt};
use crate::error::{ErrorKind, HdlErrors, SrcLoc};
use crate::ir::{Module, Node, NodeId, Op, SigId, SigKind};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What drives a signal at a point of the statement list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Driver {
    None,
    /// Driven on some paths only.
    Partial,
    Node(NodeId),
}

struct Arena<'a> {
    nodes: &'a mut Vec<Node>,
    locs: &'a mut Vec<SrcLoc>,
}

impl Arena<'_> {
    fn mux(&mut self, cond: NodeId, then: NodeId, otherwise: NodeId) -> NodeId {
        let width = self.nodes[then as usize].width;
        let loc = self.locs[cond as usize];
        self.nodes.push(Node {
            op: Op::Mux {
                cond,
                then,
                otherwise,
            },
            width,
        });
        self.locs.push(loc);
        (self.nodes.len() - 1) as NodeId
    }
}

/// Lowers, checks and packages a builder's state.
pub(crate) fn finish(mut st: State) -> Result<Rc<Module>, HdlErrors> {
    let stmts = std::mem::take(&mut st.blocks[0]);
    let base: Vec<Driver> = (0..st.body.signals.len())
        .map(|s| match st.body.signals[s].kind {
            // Registers hold their value unless connected.
            SigKind::Reg { .. } => Driver::Node(st.sig_nodes[s]),
            _ => Driver::None,
        })
        .collect();
    let mut arena = Arena {
        nodes: &mut st.body.nodes,
        locs: &mut st.locs.nodes,
    };
    let assigned = lower_block(&stmts, &|s| base[s as usize], &mut arena);
    let mut partly_driven = vec![false; base.len()];
    for (s, &b) in base.iter().enumerate() {
        st.body.drivers[s] = match assigned.get(&(s as SigId)).copied().unwrap_or(b) {
            Driver::Node(n) => Some(n),
            Driver::None => None,
            Driver::Partial => {
                partly_driven[s] = true;
                let sig = &st.body.signals[s];
                if matches!(
                    sig.kind,
                    SigKind::Output | SigKind::Wire | SigKind::InstIn { .. }
                ) {
                    let (name, loc) = (sig.name.clone(), st.locs.signals[s]);
                    st.error(
                        ErrorKind::Undriven,
                        &name,
                        loc,
                        format!("`{name}` is driven only under some conditions"),
                    );
                }
                None
            }
        };
    }
    never_written(&mut st);
    crate::check::check_and_package(st, &partly_driven)
}

/// A register whose next state is always itself: without reset it would hold garbage
/// forever, with one its reset value (a constant, or a generator bug: a register built
/// after the logic meant to write it).
fn never_written(st: &mut State) {
    for s in 0..st.body.signals.len() {
        let sig = &st.body.signals[s];
        let SigKind::Reg { reset, .. } = &sig.kind else {
            continue;
        };
        if st.body.drivers[s] == Some(st.sig_nodes[s]) {
            let (name, loc) = (sig.name.clone(), st.locs.signals[s]);
            let msg = match reset {
                None => format!("register `{name}` has no reset and is never written"),
                Some(_) => format!(
                    "register `{name}` is never written: it holds its reset value forever \
                     (a constant, or logic that looks for it before it exists)"
                ),
            };
            st.error(ErrorKind::Undriven, &name, loc, msg);
        }
    }
}

/// Lowers `stmts` given the drivers before them (`before`); returns the signals whose
/// driver they change, with the new drivers.
fn lower_block(
    stmts: &[Stmt],
    before: &dyn Fn(SigId) -> Driver,
    arena: &mut Arena,
) -> BTreeMap<SigId, Driver> {
    let mut local: BTreeMap<SigId, Driver> = BTreeMap::new();
    for stmt in stmts {
        match stmt {
            Stmt::Connect { sig, node } => {
                local.insert(*sig, Driver::Node(*node));
            }
            Stmt::When {
                cond,
                then,
                otherwise,
            } => {
                let merged: Vec<(SigId, Driver)> = {
                    let current = |s: SigId| local.get(&s).copied().unwrap_or_else(|| before(s));
                    let t = lower_block(then, &current, arena);
                    let o = lower_block(otherwise, &current, arena);
                    let mut changed: Vec<SigId> = t.keys().chain(o.keys()).copied().collect();
                    changed.sort_unstable();
                    changed.dedup();
                    changed
                        .into_iter()
                        .map(|s| {
                            let a = t.get(&s).copied().unwrap_or_else(|| current(s));
                            let b = o.get(&s).copied().unwrap_or_else(|| current(s));
                            let d = match (a, b) {
                                (x, y) if x == y => x,
                                (Driver::Node(x), Driver::Node(y)) => {
                                    Driver::Node(arena.mux(*cond, x, y))
                                }
                                _ => Driver::Partial,
                            };
                            (s, d)
                        })
                        .collect()
                };
                local.extend(merged);
            }
        }
    }
    local
}
