//! Worker-thread memory instructions: vector unit-stride, constant-stride and indexed
//! loads and stores (with segments), scalar loads and stores, vector AMOs and predicate
//! spill/fill.
//!
//! Every access of an instruction is planned and checked (alignment to its width, inside
//! memory) before any of them happens, so an instruction that raises a misaligned or
//! access-fault exception leaves registers and memory untouched. Segment k of element i
//! lives `k * width` bytes after the element's address; a unit-stride segment access
//! strides by the whole segment.
//!
//! A vector AMO's elements are applied in element order, or in memory-order mode in the
//! order the design's memory performed them ([`AmoOrder`]).

use super::decode::{AmoOp, Insn, MemOp, Mode, Width};
use super::error::HwachaError;
use super::exec::{sext32, Worker};
use super::trace::Effect;
use crate::hwacha::encoding::Field;
use crate::tb::memory::{amo as code, AmoRecord};
use std::collections::VecDeque;

/// One access: element, segment and address.
struct Access {
    elem: u64,
    seg: u32,
    addr: u64,
}

impl Worker<'_> {
    pub(super) fn load_insn(&mut self, insn: &Insn, m: MemOp) -> Result<(), HwachaError> {
        let plan = self.plan(insn, m);
        self.check(&plan, m.width.bytes(), false)?;
        for a in plan {
            let raw = self.load(a.addr, m.width);
            let v = if m.unsigned {
                raw
            } else {
                sign_extend(raw, m.width)
            };
            self.write_reg(insn, a.seg, a.elem, v);
        }
        Ok(())
    }

    pub(super) fn store_insn(&mut self, insn: &Insn, m: MemOp) -> Result<(), HwachaError> {
        let plan = self.plan(insn, m);
        self.check(&plan, m.width.bytes(), true)?;
        for a in plan {
            // Vector stores take their data from vd's registers, scalar ones from ss2's.
            let v = if m.mode.is_vector() {
                self.state.vv(insn.rd() + a.seg, a.elem)
            } else {
                self.state.vs(insn.rs2() + a.seg)
            };
            self.store(a.addr, m.width.bytes(), v);
        }
        Ok(())
    }

    /// Vector AMO: per active element, the old memory value goes to vd and the result of
    /// the operation with rs2 to memory, one element after the other: in element order,
    /// or in memory-order mode in the memory's order. With a shared address every
    /// element hits the same word.
    pub(super) fn amo_insn(
        &mut self,
        insn: &Insn,
        op: AmoOp,
        width: Width,
    ) -> Result<(), HwachaError> {
        let plan: Vec<Access> = (0..self.state.vlen)
            .filter(|&i| self.active(insn, i))
            .map(|i| Access {
                elem: i,
                seg: 0,
                addr: self.read(insn, Field::Vrs1, i),
            })
            .collect();
        // As RISC-V AMOs, a misaligned or faulting AMO is a store exception.
        self.check(&plan, width.bytes(), true)?;
        let srcs: Vec<u64> = plan
            .iter()
            .map(|a| self.read(insn, Field::Vrs2, a.elem))
            .collect();
        let order = match self.amo_order.as_deref_mut() {
            Some(performed) => {
                let keys: Vec<AmoKey> = plan
                    .iter()
                    .zip(&srcs)
                    .map(|(a, &src)| AmoKey::new(a.addr, op, width, src, performed.lane_of(a.elem)))
                    .collect();
                performed.arrange(&keys)
            }
            None => (0..plan.len()).collect(),
        };
        for i in order {
            let (a, src) = (&plan[i], srcs[i]);
            let old = self.load(a.addr, width);
            self.store(a.addr, width.bytes(), amo(op, width, old, src));
            let ret = if width == Width::W { sext32(old) } else { old };
            self.write_reg(insn, 0, a.elem, ret);
        }
        Ok(())
    }

    /// Predicate spill (vps) and fill (vpl): one byte per element, 0xff or 0x00 out, bit
    /// 0 in (thesis Table 7.11), always under a full mask.
    pub(super) fn predicate_insn(&mut self, insn: &Insn, store: bool) -> Result<(), HwachaError> {
        let base = self.state.va[insn.get(Field::Vars1) as usize];
        let plan: Vec<Access> = (0..self.state.vlen)
            .map(|i| Access {
                elem: i,
                seg: 0,
                addr: base.wrapping_add(i),
            })
            .collect();
        self.check(&plan, 1, store)?;
        for a in plan {
            if store {
                let p = self.state.vp(insn.get(Field::Vprs2), a.elem);
                self.store(a.addr, 1, if p { 0xff } else { 0 });
            } else {
                let byte = self.load(a.addr, Width::B);
                self.write_vp(insn.get(Field::Vprd), a.elem, byte & 1 != 0);
            }
        }
        Ok(())
    }

    /// Addresses of a load or store's accesses, active elements only, in element order.
    fn plan(&self, insn: &Insn, m: MemOp) -> Vec<Access> {
        let bytes = m.width.bytes() as u64;
        let segs = insn.segments();
        let va = |f: Field| self.state.va[insn.get(f) as usize];
        let mut plan = Vec::new();
        let mut push = |elem: u64, base: u64| {
            for seg in 0..segs {
                plan.push(Access {
                    elem,
                    seg,
                    addr: base.wrapping_add(seg as u64 * bytes),
                });
            }
        };
        match m.mode {
            Mode::Shared => push(0, self.state.vs(insn.rs1())),
            Mode::Address => push(0, va(Field::Vars1)),
            Mode::Unit | Mode::Strided | Mode::Indexed => {
                for i in 0..self.state.vlen {
                    if !self.active(insn, i) {
                        continue;
                    }
                    let base = match m.mode {
                        Mode::Unit => va(Field::Vars1).wrapping_add(i * segs as u64 * bytes),
                        Mode::Strided => {
                            va(Field::Vars1).wrapping_add(i.wrapping_mul(va(Field::Vars2)))
                        }
                        _ => self
                            .state
                            .vs(insn.rs1())
                            .wrapping_add(self.state.vv(insn.rs2(), i)),
                    };
                    push(i, base);
                }
            }
        }
        plan
    }

    /// The first access that is misaligned or outside memory (RAM for stores) is the
    /// instruction's exception.
    fn check(&self, plan: &[Access], size: u8, store: bool) -> Result<(), HwachaError> {
        let pc = self.pc;
        for a in plan {
            let addr = a.addr;
            if addr % size as u64 != 0 {
                return Err(HwachaError::MisalignedAccess {
                    pc,
                    addr,
                    size,
                    store,
                });
            }
            let inside = if store {
                self.mem.slice(addr, size as usize).is_some()
            } else {
                self.mem.read(addr, size as usize).is_some()
            };
            if !inside {
                return Err(HwachaError::AccessFault {
                    pc,
                    addr,
                    size,
                    store,
                });
            }
        }
        Ok(())
    }

    /// A checked load (zero-extended).
    fn load(&self, addr: u64, width: Width) -> u64 {
        self.mem.read(addr, width.bytes() as usize).unwrap_or(0)
    }

    /// A checked store of the low `size` bytes of `value`.
    fn store(&mut self, addr: u64, size: u8, value: u64) {
        self.mem.write(addr, size as usize, value);
        if self.tracing {
            let mask = u64::MAX >> (64 - 8 * size as u32);
            self.effects.push(Effect::Mem {
                addr,
                size,
                value: value & mask,
            });
        }
    }
}

/// What identifies an AMO element among those the memory performed: address, size,
/// operation (the memory's code), operand (the access's bytes) and, when known, lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AmoKey {
    addr: u64,
    bytes: u32,
    op: u64,
    operand: u64,
    lane: Option<u64>,
}

impl AmoKey {
    fn new(addr: u64, op: AmoOp, width: Width, src: u64, lane: Option<u64>) -> AmoKey {
        AmoKey {
            lane,
            addr,
            bytes: width.bytes() as u32,
            op: match op {
                AmoOp::Swap => code::SWAP,
                AmoOp::Add => code::ADD,
                AmoOp::Xor => code::XOR,
                AmoOp::And => code::AND,
                AmoOp::Or => code::OR,
                AmoOp::Min => code::MIN,
                AmoOp::Max => code::MAX,
                AmoOp::Minu => code::MINU,
                AmoOp::Maxu => code::MAXU,
            },
            operand: src & mask(width),
        }
    }

    /// Whether an element with this key may be the performed AMO `other`: the same in
    /// everything, the lane too if both are known.
    fn matches(&self, other: &AmoKey) -> bool {
        let lanes = match (self.lane, other.lane) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        lanes
            && (self.addr, self.bytes, self.op, self.operand)
                == (other.addr, other.bytes, other.op, other.operand)
    }
}

/// The AMOs a design's memory performed, in its order, that no AMO element of the model
/// has claimed yet (memory-order mode).
#[derive(Debug)]
pub(super) struct AmoOrder {
    /// Each with its position in the memory's order.
    performed: VecDeque<(u64, AmoKey)>,
    next: u64,
    /// The memory port of each lane (empty: lanes unknown).
    lane_ports: Vec<usize>,
    /// Element e is in lane (e / strip) % lanes (the machine's striping).
    strip: u64,
    lanes: u64,
}

impl AmoOrder {
    pub fn new(lane_ports: &[usize], lanes: u32, strip: u64) -> AmoOrder {
        AmoOrder {
            performed: VecDeque::new(),
            next: 0,
            lane_ports: lane_ports.to_vec(),
            strip: strip.max(1),
            lanes: lanes.max(1) as u64,
        }
    }

    /// The lane of element `elem`, if the lanes' ports are known.
    fn lane_of(&self, elem: u64) -> Option<u64> {
        (!self.lane_ports.is_empty()).then(|| (elem / self.strip) % self.lanes)
    }

    /// Appends AMOs the memory performed after those recorded so far.
    pub fn record(&mut self, performed: &[AmoRecord]) {
        for r in performed {
            let lane = self.lane_ports.iter().position(|&p| p == r.port);
            let key = AmoKey {
                addr: r.addr,
                bytes: r.bytes,
                op: r.op,
                operand: r.operand,
                lane: lane.map(|l| l as u64),
            };
            self.performed.push_back((self.next, key));
            self.next += 1;
        }
    }

    /// The order to apply elements `keys` (given in element order) in: each claims the
    /// first unclaimed performed AMO it matches, and they go in the memory's order;
    /// elements with none go last, in element order.
    fn arrange(&mut self, keys: &[AmoKey]) -> Vec<usize> {
        let mut ranked: Vec<(u64, usize)> = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let claimed = self.performed.iter().position(|(_, k)| key.matches(k));
                let at = claimed.and_then(|p| self.performed.remove(p));
                (at.map_or(u64::MAX, |(seq, _)| seq), i)
            })
            .collect();
        ranked.sort_unstable();
        ranked.into_iter().map(|(_, i)| i).collect()
    }
}

fn sign_extend(raw: u64, width: Width) -> u64 {
    let shift = 64 - width.bits();
    (((raw << shift) as i64) >> shift) as u64
}

/// The value an AMO stores, from the old memory value and the register operand (RV64A).
fn amo(op: AmoOp, width: Width, old: u64, src: u64) -> u64 {
    // Compare as the access width: words are compared as 32-bit values.
    let (o, s) = match width {
        Width::W => (sext32(old), sext32(src)),
        _ => (old, src),
    };
    match op {
        AmoOp::Swap => src,
        AmoOp::Add => old.wrapping_add(src),
        AmoOp::Xor => old ^ src,
        AmoOp::And => old & src,
        AmoOp::Or => old | src,
        AmoOp::Min => {
            if (o as i64) <= (s as i64) {
                old
            } else {
                src
            }
        }
        AmoOp::Max => {
            if (o as i64) >= (s as i64) {
                old
            } else {
                src
            }
        }
        AmoOp::Minu => {
            if (o & mask(width)) <= (s & mask(width)) {
                old
            } else {
                src
            }
        }
        AmoOp::Maxu => {
            if (o & mask(width)) >= (s & mask(width)) {
                old
            } else {
                src
            }
        }
    }
}

fn mask(width: Width) -> u64 {
    u64::MAX >> (64 - width.bits())
}
