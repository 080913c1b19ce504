//! Flattening: the module hierarchy becomes one list of value slots and a topologically
//! ordered list of instructions. Instance ports alias the parent's signals, so crossing
//! a module boundary costs nothing at simulation time.

use super::eval::{Instr, Slot};
use crate::bits::{words_for, Bits};
use crate::ir::*;
use std::collections::HashMap;

pub(crate) struct RegDef {
    pub slot: Slot,
    pub next: Slot,
    /// None: a register without reset keeps its value while reset is high.
    pub reset: Option<Bits>,
    pub enable: Option<Slot>,
}

pub(crate) struct SyncReadDef {
    pub addr: Slot,
    pub en: Slot,
    pub data: Slot,
}

pub(crate) struct WriteDef {
    pub addr: Slot,
    pub data: Slot,
    pub en: Slot,
    pub mask: Option<Slot>,
    pub gran: u32,
}

pub(crate) struct MemDef {
    pub depth: u64,
    pub width: u32,
    pub init: Option<std::rc::Rc<Vec<u64>>>,
    pub sync_reads: Vec<SyncReadDef>,
    pub writes: Vec<WriteDef>,
}

pub(crate) struct Flat {
    pub n_words: usize,
    pub consts: Vec<(Slot, Bits)>,
    pub instrs: Vec<Instr>,
    pub regs: Vec<RegDef>,
    pub mems: Vec<MemDef>,
    pub inputs: HashMap<String, Slot>,
    pub outputs: HashMap<String, Slot>,
    pub reset: Option<Slot>,
    /// Named signals for waveforms: (scope path, name, slot), in hierarchy order.
    pub named: Vec<(Vec<String>, String, Slot)>,
}

struct Builder {
    n_words: usize,
    consts: Vec<(Slot, Bits)>,
    /// Instructions with the slot they produce, in no particular order yet.
    instrs: Vec<Instr>,
    regs: Vec<RegDef>,
    mems: Vec<MemDef>,
    named: Vec<(Vec<String>, String, Slot)>,
    reset: Option<Slot>,
}

impl Builder {
    fn slot(&mut self, width: u32) -> Slot {
        let s = Slot {
            off: self.n_words as u32,
            w: width,
        };
        self.n_words += words_for(width);
        s
    }

    /// Flattens `m` whose port signals are already bound to `port_slots`.
    fn module(&mut self, m: &Module, scope: &[String], port_slots: &[Slot]) {
        let b = &m.body;
        let mut sig_slots: Vec<Option<Slot>> = vec![None; b.signals.len()];
        for (p, &s) in b.ports.iter().zip(port_slots) {
            sig_slots[p.sig as usize] = Some(s);
        }
        let sig_slots: Vec<Slot> = sig_slots
            .into_iter()
            .zip(&b.signals)
            .map(|(s, sig)| s.unwrap_or_else(|| self.slot(sig.width)))
            .collect();
        for (sig, &slot) in b.signals.iter().zip(&sig_slots) {
            self.named.push((scope.to_vec(), sig.name.clone(), slot));
        }
        let mem_base = self.mems.len();
        for mem in &b.mems {
            self.mems.push(MemDef {
                depth: mem.depth,
                width: mem.width,
                init: mem.init.as_ref().map(|i| i.words.clone()),
                sync_reads: vec![],
                writes: vec![],
            });
        }
        // Nodes: signal reads alias the signal's slot; constants are preloaded.
        let mut node_slots: Vec<Slot> = Vec::with_capacity(b.nodes.len());
        for node in &b.nodes {
            let slot = match &node.op {
                Op::Sig(s) => sig_slots[*s as usize],
                _ => self.slot(node.width),
            };
            node_slots.push(slot);
        }
        for (n, node) in b.nodes.iter().enumerate() {
            let dst = node_slots[n];
            if let Op::Const(bits) = &node.op {
                self.consts.push((dst, bits.clone()));
            }
            let s = |x: &NodeId| node_slots[*x as usize];
            if let Some(instr) = node_instr(&node.op, dst, s, b, mem_base) {
                self.instrs.push(instr);
            }
        }
        for (i, sig) in b.signals.iter().enumerate() {
            let slot = sig_slots[i];
            match &sig.kind {
                SigKind::Output | SigKind::Wire | SigKind::InstIn { .. } => {
                    let d = b.drivers[i].expect("checked: combinational signals are driven");
                    self.instrs.push(Instr::Copy {
                        dst: slot,
                        src: node_slots[d as usize],
                    });
                }
                SigKind::Reg { reset, enable } => {
                    let next =
                        node_slots[b.drivers[i].expect("registers have a next state") as usize];
                    let enable = enable.map(|e| node_slots[e as usize]);
                    self.regs.push(RegDef {
                        slot,
                        next,
                        reset: reset.clone(),
                        enable,
                    });
                }
                SigKind::Input | SigKind::InstOut { .. } | SigKind::MemData { .. } => {}
            }
        }
        for (mi, mem) in b.mems.iter().enumerate() {
            let def = &mut self.mems[mem_base + mi];
            for r in &mem.reads {
                if let Some(sync) = &r.sync {
                    def.sync_reads.push(SyncReadDef {
                        addr: node_slots[r.addr as usize],
                        en: node_slots[sync.en as usize],
                        data: sig_slots[sync.data as usize],
                    });
                }
            }
            for w in &mem.writes {
                def.writes.push(WriteDef {
                    addr: node_slots[w.addr as usize],
                    data: node_slots[w.data as usize],
                    en: node_slots[w.en as usize],
                    mask: w.mask.map(|m| node_slots[m as usize]),
                    gran: w.mask_gran,
                });
            }
        }
        for inst in &b.instances {
            let ports: Vec<Slot> = inst.ports.iter().map(|&s| sig_slots[s as usize]).collect();
            let mut child_scope = scope.to_vec();
            child_scope.push(inst.name.clone());
            self.module(&inst.module, &child_scope, &ports);
        }
    }
}

/// The instruction computing node `op` into `dst` (`s` maps a node to its slot); `None`
/// for signal reads (aliases of their signal's slot) and constants (preloaded).
fn node_instr(
    op: &Op,
    dst: Slot,
    s: impl Fn(&NodeId) -> Slot,
    b: &Body,
    mem_base: usize,
) -> Option<Instr> {
    Some(match op {
        Op::Sig(_) | Op::Const(_) => return None,
        Op::Not(a) => Instr::Not { dst, a: s(a) },
        Op::Reduce(op, a) => Instr::Reduce {
            op: *op,
            dst,
            a: s(a),
        },
        Op::Bin(op, a, c) => Instr::Bin {
            op: *op,
            dst,
            a: s(a),
            b: s(c),
        },
        Op::Cmp(op, signed, a, c) => Instr::Cmp {
            op: *op,
            signed: *signed,
            dst,
            a: s(a),
            b: s(c),
        },
        Op::Shl(a, c) => Instr::Shl {
            dst,
            a: s(a),
            amount: s(c),
        },
        Op::Shr {
            arith,
            value,
            amount,
        } => Instr::Shr {
            arith: *arith,
            dst,
            a: s(value),
            amount: s(amount),
        },
        Op::Slice { value, lo, .. } => Instr::Slice {
            dst,
            a: s(value),
            lo: *lo,
        },
        Op::Concat(parts) => Instr::Concat {
            dst,
            parts: parts.iter().map(s).collect(),
        },
        Op::Repeat(a, k) => Instr::Repeat {
            dst,
            a: s(a),
            n: *k,
        },
        Op::Mux {
            cond,
            then,
            otherwise,
        } => Instr::Mux {
            dst,
            c: s(cond),
            a: s(then),
            b: s(otherwise),
        },
        Op::MemRead { mem, port } => Instr::MemRead {
            dst,
            mem: mem_base + *mem as usize,
            addr: s(&b.mems[*mem as usize].reads[*port as usize].addr),
        },
    })
}

/// Orders instructions so each runs after the producers of its operands.
fn schedule(instrs: Vec<Instr>) -> Vec<Instr> {
    let producer: HashMap<u32, usize> = instrs
        .iter()
        .enumerate()
        .map(|(i, ins)| (ins.dst().off, i))
        .collect();
    let mut state = vec![0u8; instrs.len()]; // 0 new, 1 on stack, 2 done
    let mut order = Vec::with_capacity(instrs.len());
    let mut operands = Vec::new();
    for root in 0..instrs.len() {
        if state[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, false)];
        while let Some((i, expanded)) = stack.pop() {
            if expanded {
                state[i] = 2;
                order.push(i);
                continue;
            }
            if state[i] != 0 {
                continue;
            }
            state[i] = 1;
            stack.push((i, true));
            instrs[i].operands(&mut operands);
            for op in &operands {
                if let Some(&p) = producer.get(&op.off) {
                    if state[p] == 0 {
                        stack.push((p, false));
                    }
                }
            }
        }
    }
    let mut slots: Vec<Option<Instr>> = instrs.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|i| slots[i].take().expect("scheduled once"))
        .collect()
}

pub(crate) fn flatten(top: &Module) -> Flat {
    let mut b = Builder {
        n_words: 0,
        consts: vec![],
        instrs: vec![],
        regs: vec![],
        mems: vec![],
        named: vec![],
        reset: None,
    };
    if top.body.clocked {
        let r = b.slot(1);
        b.named.push((vec![top.name.clone()], "reset".into(), r));
        b.reset = Some(r);
    }
    let port_slots: Vec<Slot> = top
        .body
        .ports
        .iter()
        .map(|p| b.slot(top.signal(p.sig).width))
        .collect();
    let scope = vec![top.name.clone()];
    b.module(top, &scope, &port_slots);
    let mut inputs = HashMap::new();
    let mut outputs = HashMap::new();
    for (p, &s) in top.body.ports.iter().zip(&port_slots) {
        let map = if p.dir == Dir::In {
            &mut inputs
        } else {
            &mut outputs
        };
        map.insert(p.name.clone(), s);
    }
    if let Some(r) = b.reset {
        inputs.insert("reset".to_string(), r);
    }
    Flat {
        n_words: b.n_words,
        consts: b.consts,
        instrs: schedule(b.instrs),
        regs: b.regs,
        mems: b.mems,
        inputs,
        outputs,
        reset: b.reset,
        named: b.named,
    }
}
