//! The SIMT issue unit (seed 000, section 1.5 and Figure 3: "SIU"; docs/fgsimt-engine.md,
//! SIU): the SIQ of warp instructions, decode (the Rocket core's, `rocket/decode.rs`, at
//! RV32 with F, plus `tidx`), a scoreboard over the SRF's 64 registers (x1-x31, then
//! f0-f31 as 32-63), in-order single issue to the SAU0, SAU1, memory (SGU + SSU) and SLU
//! sequencers, and the SLWQ of loads waiting for their data.
//!
//! Timing: an instruction issued in cycle t is read by its unit's lanes in cycles
//! t + 1 + c (slot c, `*_r`) and executed in t + 2 + c (`*_x`); a unit takes one every
//! T = warp_size / lanes cycles. A producer of latency P (ALU and SLU 1, multiply
//! `mul_latency`, divide `div_latency`, SAU0's FP operations `fp_latency`, fdiv.s and
//! fsqrt.s `fdiv_latency`) writes slot c in cycle t + 1 + P + c, so a consumer may issue
//! at t' >= t + P and reads in the write's cycle through the lanes' forwarding. Per
//! register, `wait` counts down the cycles until a consumer may issue; a load's `rd`
//! stays `loading` until its writeback starts. A producer writes after the register's
//! last producer (`wait` < P), so writes stay in program order, and a unit's write port
//! serves one instruction's T writes at a time (`port_wait`). Simple operations go to
//! SAU0 if free, else SAU1; multiplies and the FP operations of the lane FP unit
//! (`lane/sfpu.rs`: fused multiply-adds, conversions, compares, sign injections, moves,
//! fclass) to SAU0; integer divides, fdiv.s and fsqrt.s to SAU1, whose dividers (one of
//! each kind per slot) take a new divide of either kind once the last one's have
//! answered (`div_wait`). The fused operations' rs3 is read by SAU0's own third SRF read
//! port, in the same read cycle as rs1 and rs2 (no extra cycle). Rounding: the
//! instruction's mode, 0 (RNE) for dyn (the kernels' `frm` is 0; README, "SPMD
//! kernels"); the reserved modes 5 and 6 are illegal.
//!
//! Memory instructions (flw and fsw too: an f register as destination or data) issue
//! while the SMU has `space` (and loads while the SLWQ has room) and, at T <= 2, no
//! memory instruction issued in the last two cycles (the SMU counts one from t + 3);
//! their slots leave the lanes in the execute cycles. A load's writeback starts when the SMU's `load_ready`
//! says every slot's data is in, the SLU idle: the SLU pops a slot a cycle (`pop`) and
//! writes each the cycle after. Fences issue to no unit (the SMU keeps each thread's
//! accesses in order). An illegal instruction (CSR and system instructions, custom
//! opcodes but `tidx`) waits until everything before it is done, then is reported
//! (`illegal`); `stop` (a fault) ends issue.
//!
//! With `warps` > 1 every warp instruction carries its context, and its registers are
//! numbered `ctx * 64 + r` in the scoreboard, the micro-ops and the SRF, so contexts never
//! wait on each other's registers; the SIQ stays in order across contexts. `ctx_idle`
//! says which contexts have nothing queued, loading or still reading or writing the SRF
//! (the kernel state starts a context's next warp then), and `load_done`/`load_ctx`
//! which context's load starts its writeback (the front end's suspension ends); with
//! the DWS sequencer `load_mask` says which threads (their fills).
//!
//! With hit masks (the sequencer splitting on memory divergence, `smu/hit_mask.rs`) a
//! load is written back in up to two passes: the SMU offers each (`load_pass`, its
//! threads; `load_fill`, those of them that were not hits; `load_whole`, the last;
//! `load_first`), the SLU starts one (`load_take`) writing only its threads, the SLWQ
//! entry leaves at the last, and the load's `rd` stops `loading` at the first (a
//! run-ahead group may load it again before the second).

use crate::examples::queue::{queue, QueueParams};
use crate::fgsimt::bundles::COMPACT_SOURCES;
use crate::fgsimt::l1::op;
use crate::fgsimt::lane::lane::{compact_fields, r_uop, source_fields};
use crate::fgsimt::lane::sau::{b_sel, slot_bits, x_uop};
use crate::fgsimt::lane::{sgu, slu};
use crate::fgsimt::params::{Affine, FgsimtParams};
use crate::rocket::decode::decode;
use crate::rocket::fpu::unit;
use hdl::helpers::{onehot_decode, onehot_mux, priority_mux};
use hdl::{
    cat, mux, Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value,
};
use std::rc::Rc;

fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

fn k(like: &Value, value: u64, width: u32) -> Value {
    like.konst(Bits::from_u64(width, value))
}

fn is(v: &Value, value: u64) -> Value {
    v.eq(&k(v, value, v.width()))
}

fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}

/// The memory instruction in its execute stage, for the SMU slot and faults: `valid`,
/// the L1 `op`, `last` (the last slot), `store` (faults as a store: stores, SC, AMOs),
/// and the instruction's `pc` and `tid_base`; with `ctx_bits` > 0, its context `ctx`
/// (the private-stack check's, `stack_check.rs`).
pub fn mem_info(ctx_bits: u32) -> Shape {
    let mut fields = vec![
        uint("valid", 1),
        uint("op", op::BITS),
        uint("last", 1),
        uint("store", 1),
        uint("pc", 32),
        uint("tid_base", 32),
    ];
    if ctx_bits > 0 {
        fields.push(uint("ctx", ctx_bits));
    }
    Shape::bundle(fields)
}

/// The context bits the memory micro-ops carry: with `avc` and contexts, for the
/// private-stack check.
pub fn mem_ctx_bits(p: &FgsimtParams) -> u32 {
    if p.avc {
        p.ctx_bits()
    } else {
        0
    }
}

/// An illegal instruction at the SIQ's head, everything older done: its `pc`, `insn`,
/// `mask` and `tid_base`.
pub fn illegal(warp_size: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("pc", 32),
        uint("insn", 32),
        uint("mask", warp_size),
        uint("tid_base", 32),
    ]))
}

/// The SIU's warp instruction at the SIQ's head, decoded.
struct Decoded {
    legal: Value,
    fence: Value,
    simple: Value,
    mul: Value,
    div: Value,
    /// An FP operation of SAU0's lane FP unit; fdiv.s or fsqrt.s (SAU1).
    fp: Value,
    fdiv: Value,
    mem: Value,
    /// Returns data through the SLWQ (loads, LR, SC, AMOs).
    load: Value,
    /// +m: an affine unit-stride load the SMU takes whole (`affine_load_head`).
    aload: Value,
    /// A materialisation right after its own instruction (`warp_inst`'s `mat_after`).
    mat_after: Value,
    uses_rs1: Value,
    uses_rs2: Value,
    uses_rs3: Value,
    /// Writes a register other than x0.
    writes: Value,
    /// Registers 0-63 (x0-x31, f0-f31).
    rs1: Value,
    rs2: Value,
    rs3: Value,
    rd: Value,
    /// The SAUs' micro-op fields (`lane::sau::x_uop`, but valid, slot and the unit's
    /// long and FP operations).
    sau: Vec<(&'static str, Value)>,
    /// The memory micro-op's fields (`sgu::x_uop` and `mem_info` but slot, valid, last).
    mem_fields: Vec<(&'static str, Value)>,
    /// The SLWQ entry's `funct3` (LW's for the AMOs).
    load_funct3: Value,
}

/// The L1 op code of a memory instruction.
fn mem_op(insn: &Value, store: &Value, lr: &Value, sc: &Value, amo: &Value) -> Value {
    let f5 = insn.slice(31, 27);
    let o = |v: u64| k(insn, v, op::BITS);
    let amo_op = priority_mux(
        &[
            (is(&f5, 0x01), o(op::SWAP)),
            (is(&f5, 0x00), o(op::ADD)),
            (is(&f5, 0x04), o(op::XOR)),
            (is(&f5, 0x0c), o(op::AND)),
            (is(&f5, 0x08), o(op::OR)),
            (is(&f5, 0x10), o(op::MIN)),
            (is(&f5, 0x14), o(op::MAX)),
            (is(&f5, 0x18), o(op::MINU)),
        ],
        &o(op::MAXU),
    );
    priority_mux(
        &[
            (store.clone(), o(op::STORE)),
            (lr.clone(), o(op::LR)),
            (sc.clone(), o(op::SC)),
            (amo.clone(), amo_op),
        ],
        &o(op::LOAD),
    )
}

/// Decodes `insn` of the warp instruction at `pc` of the warp at `tid_base` (in context
/// `ctx` with `warps` > 1: its registers are numbered `ctx * 64 + r`).
fn decode_head(
    insn: &Value,
    pc: &Value,
    (tid_base, ctx): (&Value, Option<&Value>),
    mask: &Value,
) -> Decoded {
    let c = decode(insn, false, 32, true);
    let fp = c.fp.as_ref().expect("decoded with F");
    let f3 = insn.slice(14, 12);
    let (rs1, rs2, rd) = (
        fp.f1.cat(&insn.slice(19, 15)),
        fp.f2.cat(&insn.slice(24, 20)),
        fp.wfd.cat(&insn.slice(11, 7)),
    );
    let (rd0, rs1_0, rs2_0) = (is(&rd, 0), is(&rs1, 0), is(&rs2, 0));
    let reg = |r: Value| match ctx {
        Some(ctx) => ctx.cat(&r),
        None => r,
    };
    let (rs1, rs2, rd) = (reg(rs1), reg(rs2), reg(rd));
    let tidx = [
        is(&insn.slice(6, 0), 0x0b),
        is(&insn.slice(31, 25), 0),
        is(&f3, 4),
        rs1_0,
        rs2_0,
    ]
    .iter()
    .fold(k(insn, 1, 1), |a, b| &a & b);
    let system = is(&insn.slice(6, 0), 0x73);
    // Rounding modes 5 and 6 are reserved; dyn (7) is frm, 0 in kernels (README).
    let bad_rm = &fp.rm_used & &(&is(&f3, 5) | &is(&f3, 6));
    let legal = &(&c.legal & &!&(&system | &bad_rm)) | &tidx;
    let rm = mux(&is(&f3, 7), &k(insn, 0, 3), &f3);
    let fence = &c.fence | &c.fence_i;
    let mem = c.memory();
    let mul = &c.muldiv & &!&f3.bit(2);
    let div = &c.muldiv & &f3.bit(2);
    let fp_op = &fp.unit_op & &!&bad_rm;
    let fdiv = &fp_op & &is(&fp.unit, unit::DIVSQRT);
    let fpu_op = &fp_op & &!&fdiv;
    let others = any(&[
        fence.clone(),
        mem.clone(),
        c.muldiv.clone(),
        fp.unit_op.clone(),
    ]);
    let simple = &(&legal & &!&others) | &tidx;
    let amo_like = any(&[c.amo.clone(), c.lr.clone(), c.sc.clone()]);
    let wxd = &c.wxd | &tidx;
    let link = &c.jal | &c.jalr;
    let b = |v: u64| k(insn, v, 2);
    let b_sel = priority_mux(
        &[
            (link.clone(), b(b_sel::FOUR)),
            (tidx.clone(), b(b_sel::INDEX)),
            (c.b_imm.clone(), b(b_sel::IMM)),
        ],
        &b(b_sel::RS2),
    );
    let uniform = mux(&c.a_zero, &k(insn, 0, 32), &mux(&tidx, tid_base, pc));
    let sau = vec![
        ("mask", mask.clone()),
        ("rd", rd.clone()),
        ("fn", c.alu_fn.clone()),
        (
            "a_uniform",
            any(&[c.a_pc.clone(), c.a_zero.clone(), link, tidx.clone()]),
        ),
        ("uniform", uniform),
        ("b_sel", b_sel),
        ("imm", c.imm.clone()),
        ("wb", &simple & &wxd),
        ("branch", c.branch.clone()),
        ("jalr", c.jalr.clone()),
        ("funct3", f3.clone()),
        ("fp_unit", fp.unit.clone()),
        ("fp_op", fp.op.clone()),
        ("rm", rm),
    ];
    let size = mux(&amo_like, &k(insn, 2, 2), &f3.slice(1, 0));
    let mem_fields = vec![
        ("mask", mask.clone()),
        ("imm", mux(&amo_like, &k(insn, 0, 32), &c.imm)),
        ("size", size),
        ("op", mem_op(insn, &c.store, &c.lr, &c.sc, &c.amo)),
        ("store", &(&c.store | &c.sc) | &c.amo),
        ("pc", pc.clone()),
        ("tid_base", tid_base.clone()),
    ];
    Decoded {
        legal,
        fence,
        simple,
        mul,
        div,
        fp: fpu_op,
        fdiv,
        load: &c.load | &amo_like,
        aload: k(insn, 0, 1),
        mat_after: k(insn, 0, 1),
        mem,
        uses_rs1: c.uses_rs1.clone(),
        uses_rs2: c.uses_rs2.clone(),
        uses_rs3: fp.uses_rs3.clone(),
        writes: &wxd & &!&rd0,
        load_funct3: mux(&amo_like, &k(insn, 2, 3), &f3),
        rs1,
        rs2,
        rs3: reg(k(insn, 1, 1).cat(&insn.slice(31, 27))),
        rd,
        sau,
        mem_fields,
    }
}

/// A unit's sequencer stage: `valid`, the `slot` and the instruction's fields.
struct Seq {
    valid: Value,
    slot: Value,
    fields: Vec<(&'static str, Value)>,
}

impl Seq {
    fn field(&self, name: &str) -> &Value {
        match name {
            "valid" => &self.valid,
            "slot" => &self.slot,
            _ => {
                let found = self.fields.iter().find(|(n, _)| *n == name);
                &found.unwrap_or_else(|| panic!("no field {name}")).1
            }
        }
    }

    /// In its last slot (or idle): the unit takes an instruction for the next cycle.
    fn free(&self, p: &FgsimtParams) -> Value {
        let last = is(&self.slot, p.threads_per_lane() as u64 - 1);
        !&self.valid | &last
    }

    /// Drives every field of the record `b` from the field of that name.
    fn drive(&self, m: &mut ModuleBuilder, b: &Bundle) {
        let Bundle::Fields(fields) = b else {
            panic!("a micro-op is a record")
        };
        for (name, _, dst) in fields {
            m.connect(dst.value(), self.field(name));
        }
    }
}

/// The read stage of unit `name`: loads `fields` when `issue`, then steps through the
/// T slots.
fn sequencer(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    name: &str,
    issue: &Value,
    fields: &[(&'static str, Value)],
) -> Seq {
    let valid = m.reg(&format!("{name}_valid"), 1, false);
    let slot = m.reg(&format!("{name}_slot"), slot_bits(p), 0u64);
    let last = is(&slot, p.threads_per_lane() as u64 - 1);
    let one = k(&valid, 1, 1);
    m.when(issue, |m| {
        m.connect(&valid, &one);
        m.connect(&slot, &k(&slot, 0, slot.width()));
    })
    .elsewhen(&valid, |m| {
        m.connect(&slot, &(&slot + &k(&slot, 1, slot.width())));
        m.when(&last, |m| m.connect(&valid, &!&one));
    });
    let fields = fields
        .iter()
        .map(|(n, v)| {
            let r = m.reg_en(&format!("{name}_{n}"), v.width(), ResetValue::None, issue);
            m.connect(&r, v);
            (*n, r)
        })
        .collect();
    Seq {
        valid,
        slot,
        fields,
    }
}

/// `s` one cycle later (the execute stage), without the fields only read (the sources).
fn later(m: &mut ModuleBuilder, name: &str, s: &Seq) -> Seq {
    let valid = m.reg(&format!("{name}_ex_valid"), 1, false);
    m.connect(&valid, &s.valid);
    let mut delay = |n: &str, v: &Value| {
        let r = m.reg(&format!("{name}_ex_{n}"), v.width(), ResetValue::None);
        m.connect(&r, v);
        r
    };
    let slot = delay("slot", &s.slot);
    let fields = s
        .fields
        .iter()
        .filter(|(n, _)| !n.starts_with("rs"))
        .map(|(n, v)| (*n, delay(n, v)))
        .collect();
    Seq {
        valid,
        slot,
        fields,
    }
}

/// A down-counter loaded with `load` when `set`, else decremented to zero; 7 bits hold
/// every latency and occupancy (at most 34 + 32).
fn countdown(m: &mut ModuleBuilder, name: &str, set: &Value, load: &Value) -> Value {
    let c = m.reg(name, 7, 0u64);
    let zero = is(&c, 0);
    let next = mux(&zero, &c, &(&c - &k(&c, 1, 7)));
    m.connect(&c, &mux(set, load, &next));
    c
}

/// Per register (x0-x31, f0-f31 of each context): cycles until a consumer may issue
/// (`wait`), and whether a load's writeback is still to start (`loading`); x0 is never
/// busy.
struct Board {
    wait: Vec<Value>,
    loading: Value,
}

impl Board {
    fn wait_of(&self, reg: &Value) -> Value {
        onehot_mux(&onehot_decode(reg, self.wait.len() as u32), &self.wait)
    }

    fn loading_of(&self, reg: &Value) -> Value {
        self.loading.dshr(reg).bit(0)
    }

    fn ready(&self, reg: &Value) -> Value {
        &is(&self.wait_of(reg), 0) & &!&self.loading_of(reg)
    }
}

/// The scoreboard of `contexts` x 64 registers: an issue writing `rd` (`set`) with
/// latency `latency` (a load: none, `loading` instead); a load writeback of `slu_rd`
/// starting (`slu_start`).
fn scoreboard(
    m: &mut ModuleBuilder,
    contexts: u32,
    (set, rd, latency, load): (&Value, &Value, &Value, &Value),
    (slu_start, slu_rd): (&Value, &Value),
) -> Board {
    let zero7 = k(rd, 0, 7);
    let mut wait = Vec::new();
    let mut loading = Vec::new();
    let waited = mux(load, &zero7, &(latency - &k(rd, 1, 7)));
    for r in 0..64 * contexts as u64 {
        if r % 64 == 0 {
            wait.push(zero7.clone());
            loading.push(k(rd, 0, 1));
            continue;
        }
        let hit = set & &is(rd, r);
        wait.push(countdown(m, &format!("wait{r}"), &hit, &waited));
        let l = m.reg(&format!("loading{r}"), 1, false);
        m.when(&hit, |m| m.connect(&l, load))
            .elsewhen(&(slu_start & &is(slu_rd, r)), |m| {
                m.connect(&l, &k(rd, 0, 1))
            });
        loading.push(l);
    }
    let loading = cat(&loading.iter().rev().collect::<Vec<_>>());
    Board { wait, loading }
}

/// The issue decisions for the head `d` (valid `head`): to SAU0, SAU1, the memory unit,
/// or none (a fence); the latency of the SAU issue.
struct Issue {
    sau: [Value; 2],
    mem: Value,
    /// +m: an affine load to the SMU's `aload` port.
    aload: Value,
    fence: Value,
    latency: Value,
}

/// The units' state the issue looks at.
struct Busy<'a> {
    sau: [&'a Seq; 2],
    mem: &'a Seq,
    /// No memory instruction's slots in the read or execute stage.
    mem_idle: Value,
    port_wait: [&'a Value; 2],
    div_wait: &'a Value,
    /// The SMU has space and the SLWQ has room.
    space: Value,
    slwq_room: Value,
}

fn issue(p: &FgsimtParams, head: &Value, d: &Decoded, b: &Board, u: &Busy) -> Issue {
    let lat = |v: u32| k(head, v as u64, 7);
    let (pm, pd) = (p.mul_latency, p.div_latency());
    let (pf, pq) = (p.fp_latency(), p.fdiv_latency());
    let src = [
        (&d.uses_rs1, &d.rs1),
        (&d.uses_rs2, &d.rs2),
        (&d.uses_rs3, &d.rs3),
    ]
    .iter()
    .fold(head.clone(), |a, (uses, r)| &a & &(&!*uses | &b.ready(r)));
    let ok = src;
    let (wait_rd, loading_rd) = (b.wait_of(&d.rd), b.loading_of(&d.rd));
    // A producer of latency P writes after the register's previous producer. A
    // materialisation right after its instruction (`mat_after`: nothing was dispatched
    // between them, and that instruction issued with no other producer of the register
    // pending) writes other threads than its one pending producer, so it need not wait.
    let waw = |pl: u32| {
        any(&[
            !&d.writes,
            d.mat_after.clone(),
            &!&loading_rd & &wait_rd.lt(&lat(pl)),
        ])
    };
    let port = |i: usize, pl: u32| &u.sau[i].free(p) & &u.port_wait[i].le(&lat(pl + 1));
    let simple = &(&ok & &d.simple) & &waw(1);
    let long = |class: &Value, pl: u32, unit: usize| &(&ok & class) & &(&waw(pl) & &port(unit, pl));
    let sau0 = any(&[
        &simple & &port(0, 1),
        long(&d.mul, pm, 0),
        long(&d.fp, pf, 0),
    ]);
    let div = &long(&d.div, pd, 1) | &long(&d.fdiv, pq, 1);
    let sau1 = &(&(&simple & &!&port(0, 1)) & &port(1, 1)) | &(&div & &is(u.div_wait, 0));
    let load_ok = &!&d.load | &(&u.slwq_room & &(&!&d.writes | &b.ready(&d.rd)));
    let mem = &(&(&(&ok & &d.mem) & &!&d.aload) & &(&u.mem.free(p) & &u.space)) & &load_ok;
    // +m: an affine load goes to the SMU whole once every earlier memory slot has.
    let aload = &(&(&ok & &d.aload) & &(&u.mem_idle & &u.space)) & &load_ok;
    let latency = priority_mux(
        &[
            (d.mul.clone(), lat(pm)),
            (d.div.clone(), lat(pd)),
            (d.fp.clone(), lat(pf)),
            (d.fdiv.clone(), lat(pq)),
        ],
        &lat(1),
    );
    Issue {
        sau: [sau0, sau1],
        mem,
        aload,
        fence: head & &d.fence,
        latency,
    }
}

/// The SIU (`FgsimtSiu`). Ports: `inst` (`bundles::warp_inst`); to every lane
/// `sau<u>_r`, `sau<u>_x`, `mem_r`, `mem_x`, `slu_x` (the micro-ops of `lane/`); to the
/// SMU side `mem_info`, `space` in, `load_ready` in, `pop` out; `illegal`, `stop` in,
/// `idle` out.
pub fn siu(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtSiu");
    let w = p.warp_size;
    let inst = m.io("inst", Dir::In, &crate::fgsimt::bundles::warp_inst(p));
    let space = m.input("space", 1);
    let load_ready = m.input("load_ready", 1);
    let stop = m.input("stop", 1);
    let packed = siq_entry(p, &inst);
    let siq = m.instance("siq", &fifo(p, p.siq_depth, packed.width())?);
    m.connect(&siq.port("enq_valid"), inst.valid());
    m.connect(&siq.port("enq_bits"), &packed);
    m.connect(inst.ready(), &siq.port("enq_ready"));
    let head = siq.port("deq_bits");
    let (pc, insn) = (head.slice(31, 0), head.slice(63, 32));
    let (mask, tid_base) = (head.slice(63 + w, 64), head.slice(95 + w, 64 + w));
    let top = packed.width() - 1 - p.mat_after() as u32;
    let ctx = (p.warps > 1).then(|| head.slice(top, top + 1 - p.ctx_bits()));
    let mut d = decode_head(&insn, &pc, (&tid_base, ctx.as_ref()), &mask);
    // A materialisation after its instruction passes that instruction's pending write
    // when the instruction issued with no other producer of the register pending
    // (`clean`: registered at every issue).
    let clean = p.mat_after().then(|| m.reg("last_issue_clean", 1, false));
    if let Some(clean) = &clean {
        d.mat_after = &head.bit(top + 1) & clean;
    }
    let compact = compact_sources(p, &head, &mut d);
    let stacks = (p.avc && p.affine == Affine::Abm)
        .then(|| (m.input("stack_top", 32), m.input("stack_region", 32)));
    let aload = affine_load_head(p, &insn, &compact, stacks.as_ref().map(|(t, r)| (t, r)));
    d.aload = aload.0.clone();
    let head_valid = &siq.port("deq_valid") & &!&stop;
    let go: Vec<Value> = ["sau0", "sau1", "mem", "aload"]
        .iter()
        .map(|n| m.wire(&format!("issue_{n}"), 1))
        .collect();
    let (seqs, mem) = unit_sequencers(&mut m, p, (&d, &compact, ctx.as_ref()), &go);
    let (latency, port_wait, div_wait) = unit_waits(&mut m, p, &d, &go);
    let slwq = m.instance("slwq", &fifo(p, p.slwq_depth, p.reg_bits() + 3 + w)?);
    m.connect(&slwq.port("enq_valid"), &(&(&go[2] & &d.load) | &go[3]));
    m.connect(
        &slwq.port("enq_bits"),
        &cat(&[&mask, &d.load_funct3, &d.rd]),
    );
    let passes = p.hit_masks().then(|| Passes {
        pass: m.input("load_pass", w),
        fill: m.input("load_fill", w),
        whole: m.input("load_whole", 1),
        first: m.input("load_first", 1),
    });
    let wb = load_writeback(&mut m, p, &slwq, (&load_ready, passes.as_ref()));
    let (slu, slu_start) = (wb.slu, wb.start);
    // Such a materialisation leaves the register's entry to its instruction (whose
    // write, to other threads, comes as late or later; its own is done in a cycle).
    let set = &(&any(&go) & &d.writes) & &!&d.mat_after;
    let entry = slwq.port("deq_bits");
    let slu_rd = entry.slice(p.reg_bits() - 1, 0);
    let board = scoreboard(
        &mut m,
        p.warps,
        (&set, &d.rd, &latency, &(&go[2] | &go[3])),
        (&wb.release, &slu_rd),
    );
    if let Some(clean) = &clean {
        m.when(&any(&go), |m| m.connect(clean, &board.ready(&d.rd)));
    }
    let mem_x = later(&mut m, "mem", &mem);
    let space = memory_space(&mut m, p, space, &go);
    let busy = Busy {
        sau: [&seqs[0], &seqs[1]],
        mem: &mem,
        mem_idle: &!&mem.valid & &!&mem_x.valid,
        port_wait: [&port_wait[0], &port_wait[1]],
        div_wait: &div_wait,
        space: space.clone(),
        slwq_room: slwq.port("enq_ready"),
    };
    let is_ = issue(p, &head_valid, &d, &board, &busy);
    affine_load_port(&mut m, p, &go[3], &aload, &mask);
    for (g, v) in go
        .iter()
        .zip([&is_.sau[0], &is_.sau[1], &is_.mem, &is_.aload])
    {
        m.connect(g, v);
    }
    m.connect(&latency, &is_.latency);
    let deq = any(&[
        is_.sau[0].clone(),
        is_.sau[1].clone(),
        is_.mem.clone(),
        is_.aload.clone(),
        is_.fence,
    ]);
    m.connect(&siq.port("deq_ready"), &deq);
    sau_outputs(&mut m, p, &seqs);
    let quiet = quiet((&mem, &mem_x, &slu), &slwq, &port_wait);
    memory_outputs(&mut m, p, &mem, &mem_x);
    illegal_port(
        &mut m,
        w,
        (&head_valid, &d.legal, &quiet),
        (&pc, &insn, &mask, &tid_base),
    );
    let idle_now = &quiet & &is(&siq.port("count"), 0);
    let idle = m.output("idle", 1);
    m.connect(&idle, &idle_now);
    let ctx_idle = match &ctx {
        None => idle_now,
        Some(head_ctx) => {
            let issued = (&any(&go), &latency);
            context_ports(
                &mut m,
                p,
                (&inst, &deq, head_ctx),
                issued,
                (&slu_start, &slu_rd),
                &board,
            )
        }
    };
    let o = m.output("ctx_idle", p.warps);
    m.connect(&o, &ctx_idle);
    if p.sequencer().is_some() {
        fill_ports(&mut m, p, &slu_start, &wb.fill);
    }
    m.finish()
}

/// With the DWS sequencer, the fills: the threads a load writeback starting writes
/// (with hit masks, a pass of it: those but the load's hits; `load_mask`), and
/// `load_done` at one context too (with several, [`context_ports`] gives it with its
/// context).
fn fill_ports(m: &mut ModuleBuilder, p: &FgsimtParams, slu_start: &Value, mask: &Value) {
    let mut ports = vec![("load_mask", mask.clone())];
    if p.warps == 1 {
        ports.push(("load_done", slu_start.clone()));
    }
    for (name, v) in ports {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
}

/// The SIQ's entry for `inst`: its fields (and with +a its compact sources above them,
/// and with contexts its context's number above everything), packed.
fn siq_entry(p: &FgsimtParams, inst: &Bundle) -> Value {
    let f = |n: &str| inst.bits().get(n).value().clone();
    let mut parts = vec![f("tid_base"), f("mask"), f("insn"), f("pc")];
    if p.affine_arith() {
        let src = inst.bits().get("src");
        // Above the fields, from the low bits: rs1's ok, base, stride, then rs2's, rs3's.
        for i in 0..COMPACT_SOURCES as usize {
            let e = src.index(i);
            parts.splice(
                0..0,
                ["stride", "base", "ok"].map(|n| e.get(n).value().clone()),
            );
        }
    }
    // With contexts, the context's number above those; with the sequencer's
    // materialisations, `mat_after` above everything.
    if p.warps > 1 {
        parts.insert(0, f("ctx"));
    }
    if p.mat_after() {
        parts.insert(0, f("mat_after"));
    }
    cat(&parts.iter().collect::<Vec<_>>())
}

/// The read stages of SAU0, SAU1 and the memory unit, loaded from the head `d` (its
/// source registers with their compact sources, and with `avc` its context `ctx`) as
/// `go` issues to each.
fn unit_sequencers(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (d, compact, ctx): (&Decoded, &[[Value; 3]], Option<&Value>),
    go: &[Value],
) -> (Vec<Seq>, Seq) {
    let regs: Vec<Vec<(&'static str, Value)>> = [&d.rs1, &d.rs2, &d.rs3]
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let name = source_fields("sau0")[i];
            let mut v = vec![(name, (*r).clone())];
            if let Some(c) = compact.get(i) {
                let names = compact_fields(name);
                v.extend(names.iter().zip(c).map(|(n, x)| (*n, x.clone())));
            }
            v
        })
        .collect();
    let seqs: Vec<Seq> = (0..2)
        .map(|u| {
            let name = format!("sau{u}");
            let long = [("mul", &d.mul), ("div", &d.div)][u];
            let mut fields = regs[..source_fields(&name).len()].concat();
            fields.extend(d.sau.iter().cloned());
            fields.push((long.0, long.1.clone()));
            fields.push(("fp", [&d.fp, &d.fdiv][u].clone()));
            sequencer(m, p, &name, &go[u], &fields)
        })
        .collect();
    let mut mem_fields = regs[..2].concat();
    mem_fields.extend(d.mem_fields.iter().cloned());
    if let (Some(ctx), true) = (ctx, p.avc) {
        mem_fields.push(("ctx", ctx.clone()));
    }
    let mem = sequencer(m, p, "mem", &go[2], &mem_fields);
    (seqs, mem)
}

/// The SAUs' waits: the issue's latency (a wire, driven from [`issue`]), each SAU's
/// write port's wait (its last issue's latency + T) and the dividers' wait.
fn unit_waits(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    d: &Decoded,
    go: &[Value],
) -> (Value, Vec<Value>, Value) {
    let latency = m.wire("issue_latency", 7);
    let t = p.threads_per_lane();
    let port_wait: Vec<Value> = (0..2)
        .map(|u| {
            let load = &latency + &k(&latency, t as u64, 7);
            countdown(m, &format!("port_wait{u}"), &go[u], &load)
        })
        .collect();
    // The integer and the FP dividers share one wait (a new divide of either kind issues
    // once the last one's dividers have answered).
    let div_start = &go[1] & &(&d.div | &d.fdiv);
    let div_wait = countdown(m, "div_wait", &div_start, &(&latency - &k(&latency, 1, 7)));
    (latency, port_wait, div_wait)
}

/// The SMU's `space` as a memory issue sees it. The SMU counts a memory instruction
/// from its first slot, which arrives in the execute cycle (t + 2) and shows in `space`
/// from t + 3. At T >= 3 the unit's occupancy keeps the next one from issuing before;
/// at T <= 2 the issue also waits until neither of the last two cycles issued one (`go`
/// to the memory unit or the `aload` port), or `space` could over-fill an SMRQ (a lost
/// store, found by bfs at 8 lanes of 8 threads).
fn memory_space(m: &mut ModuleBuilder, p: &FgsimtParams, space: Value, go: &[Value]) -> Value {
    if p.threads_per_lane() > 2 {
        return space;
    }
    let (h1, h2) = (
        m.reg("mem_issued_1", 1, false),
        m.reg("mem_issued_2", 1, false),
    );
    m.connect(&h1, &(&go[2] | &go[3]));
    m.connect(&h2, &h1);
    &space & &!&(&h1 | &h2)
}

/// The SAUs' micro-ops: `sau<u>_r` from each read stage, `sau<u>_x` one cycle later.
fn sau_outputs(m: &mut ModuleBuilder, p: &FgsimtParams, seqs: &[Seq]) {
    for (u, s) in seqs.iter().enumerate() {
        let r = m.io(
            &format!("sau{u}_r"),
            Dir::Out,
            &r_uop(p, &format!("sau{u}")),
        );
        s.drive(m, &r);
        let x = m.io(&format!("sau{u}_x"), Dir::Out, &x_uop(p, u as u32));
        later(m, &format!("sau{u}"), s).drive(m, &x);
    }
}

/// Nothing issued is still in flight: no memory instruction in its read or execute
/// stage (`mem`, `mem_x`), no load waiting in the SLWQ or writing back (`slu`), no SAU
/// write port busy.
fn quiet((mem, mem_x, slu): (&Seq, &Seq, &Seq), slwq: &hdl::Inst, port_wait: &[Value]) -> Value {
    let busy = any(&[
        mem.valid.clone(),
        mem_x.valid.clone(),
        slu.valid.clone(),
        !&is(&slwq.port("count"), 0),
        !&is(&port_wait[0], 0),
        !&is(&port_wait[1], 0),
    ]);
    !&busy
}

/// `illegal`: the head (valid `head`) is not `legal`, reported once everything before
/// it is done (`quiet`), with its pc, instruction, mask and first thread.
fn illegal_port(
    m: &mut ModuleBuilder,
    warp_size: u32,
    (head, legal, quiet): (&Value, &Value, &Value),
    (pc, insn, mask, tid_base): (&Value, &Value, &Value, &Value),
) {
    let ill = m.io("illegal", Dir::Out, &illegal(warp_size));
    m.connect(ill.valid(), &(&(head & &!legal) & quiet));
    for (n, v) in [
        ("pc", pc),
        ("insn", insn),
        ("mask", mask),
        ("tid_base", tid_base),
    ] {
        m.connect(ill.bits().get(n).value(), v);
    }
}

/// With `warps` > 1: `load_done` and `load_ctx` (a load writeback of that context starts:
/// `slu_start`, the SLWQ head's `slu_rd`) out; returns [`context_idle`]'s bits.
fn context_ports(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    head: (&Bundle, &Value, &Value),
    (issue, latency): (&Value, &Value),
    (slu_start, slu_rd): (&Value, &Value),
    board: &Board,
) -> Value {
    let load_ctx = slu_rd.slice(p.reg_bits() - 1, 6);
    let idle = context_idle(m, p, head, (issue, latency, slu_start, &load_ctx), board);
    for (name, v) in [("load_done", slu_start), ("load_ctx", &load_ctx)] {
        let o = m.output(name, v.width());
        m.connect(&o, v);
    }
    idle
}

/// With `warps` > 1, a bit a context: nothing of it is queued (a count of its SIQ
/// entries, from `inst`'s acceptance to the head's dequeue `deq`), no load of it waits
/// for its writeback, and none of its instructions still reads or writes the SRF: a
/// countdown per context, loaded at an issue of the head (`issue`, of context
/// `head_ctx`) with its `latency` + T + 2 cycles (its last slot's write is at t +
/// latency + T) and at a load writeback's start (`slu_start` of `load_ctx`) with T + 3,
/// each keeping the larger.
fn context_idle(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (inst, deq, head_ctx): (&Bundle, &Value, &Value),
    (issue, latency, slu_start, load_ctx): (&Value, &Value, &Value, &Value),
    board: &Board,
) -> Value {
    let t = p.threads_per_lane() as u64;
    let cw = hdl::ir::addr_width(p.siq_depth as u64 + 1);
    let enq = inst.valid() & inst.ready();
    let in_ctx = inst.bits().get("ctx").value();
    let bits: Vec<Value> = (0..p.warps as u64)
        .map(|c| {
            let count = m.reg(&format!("siq_ctx{c}"), cw, 0u64);
            let up = &enq & &is(in_ctx, c);
            let down = deq & &is(head_ctx, c);
            let one = k(&count, 1, cw);
            let next = mux(&up, &(&count + &one), &count);
            m.connect(&count, &mux(&down, &(&next - &one), &next));
            let drain = m.reg(&format!("drain_ctx{c}"), 7, 0u64);
            let left = mux(&is(&drain, 0), &drain, &(&drain - &k(&drain, 1, 7)));
            let issued = mux(
                &(issue & &is(head_ctx, c)),
                &(latency + &k(latency, t + 2, 7)),
                &k(latency, 0, 7),
            );
            let written = mux(
                &(slu_start & &is(load_ctx, c)),
                &k(latency, t + 3, 7),
                &k(latency, 0, 7),
            );
            let most = |a: &Value, b: &Value| mux(&a.lt(b), b, a);
            m.connect(&drain, &most(&most(&left, &issued), &written));
            let at = 64 * c as u32;
            let loading = board.loading.slice(at + 63, at);
            &(&is(&count, 0) & &is(&drain, 0)) & &is(&loading, 0)
        })
        .collect();
    cat(&bits.iter().rev().collect::<Vec<_>>())
}

/// The SIQ head's compact sources (+a): (ok, base, stride) of rs1, rs2, rs3, above the
/// instruction's fields. A compact source is not read from the SRF, so it needs no wait
/// (`d`'s uses cleared).
fn compact_sources(p: &FgsimtParams, head: &Value, d: &mut Decoded) -> Vec<[Value; 3]> {
    let compact: Vec<[Value; 3]> = (0..COMPACT_SOURCES * p.affine_arith() as u32)
        .map(|i| {
            let at = 96 + p.warp_size + 49 * i;
            [
                head.bit(at),
                head.slice(at + 32, at + 1),
                head.slice(at + 48, at + 33),
            ]
        })
        .collect();
    let uses = [&mut d.uses_rs1, &mut d.uses_rs2, &mut d.uses_rs3];
    for (u, c) in uses.into_iter().zip(&compact) {
        *u = &*u & &!&c[0];
    }
    compact
}

/// +m (seed 000, section 2.6; the golden model's `Asrf::affine_load`): whether the
/// SIQ's head is a load (lb, lbu, lh, lhu, lw, flw) whose base is compact with a stride
/// of its element size, its address aligned (a misaligned one takes the lanes, which
/// fault) and its elements clear of the uncached region (which the wide port does not
/// serve) and, with `avc`, of the private stacks; with thread 0's address and log2 of
/// the size.
fn affine_load_head(
    p: &FgsimtParams,
    insn: &Value,
    compact: &[[Value; 3]],
    stacks: Option<(&Value, &Value)>,
) -> (Value, Value, Value) {
    let zero = k(insn, 0, 1);
    if p.affine != Affine::Abm {
        return (zero.clone(), k(insn, 0, 32), k(insn, 0, 2));
    }
    let [ok, base, stride] = &compact[0];
    let opcode = insn.slice(6, 0);
    let f3 = insn.slice(14, 12);
    let size = f3.slice(1, 0);
    let sizes = [(0, 1), (1, 2), (2, 4)];
    let int_load = &is(&opcode, 0x03) & &!&is(&f3, 3) & &!&is(&f3, 6) & &!&is(&f3, 7);
    let load = &int_load | &(&is(&opcode, 0x07) & &is(&f3, 2));
    let unit = sizes.iter().fold(zero.clone(), |a, &(s, bytes)| {
        &a | &(&is(&size, s) & &is(stride, bytes))
    });
    let addr = base + &insn.slice(31, 20).as_signed().sext(32).as_unsigned();
    let low = addr.slice(1, 0);
    let aligned = any(&[is(&size, 0), &is(&size, 1) & &!&low.bit(0), is(&low, 0)]);
    // The elements span [addr, addr + warp_size << size); the uncached region
    // [uncached_base, + uncached_size) must not meet it.
    let span = (p.warp_size as u64) << 2;
    let lo = p.uncached_base.saturating_sub(span);
    let hi = p.uncached_base + p.uncached_size;
    let a = addr.zext(33);
    let clear = &a.lt(&k(&a, lo, 33)) | &!&a.lt(&k(&a, hi, 33));
    // With `avc`, likewise the private stacks [stack_top - stack_region, stack_top) (the
    // golden model's `Asrf::private_stacks`): such a load goes to the lanes.
    let clear = match stacks {
        Some((top, region)) => {
            let t = top.zext(33);
            let low = &t - &region.zext(33);
            let span = k(&t, span, 33);
            let lo = mux(&low.lt(&span), &k(&t, 0, 33), &(&low - &span));
            &clear & &(&a.lt(&lo) | &!&a.lt(&t))
        }
        None => clear,
    };
    let when = &(&(&(&load & ok) & &unit) & &aligned) & &clear;
    (when, addr, size)
}

/// The SMU's `aload` port (+m): the head's affine load in its issue cycle.
fn affine_load_port(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    go: &Value,
    head: &(Value, Value, Value),
    mask: &Value,
) {
    if p.affine != Affine::Abm {
        return;
    }
    let port = m.io(
        "aload",
        Dir::Out,
        &crate::fgsimt::bundles::affine_load(p.warp_size),
    );
    m.connect(port.valid(), go);
    for (f, v) in [("addr", &head.1), ("size", &head.2), ("mask", mask)] {
        m.connect(port.bits().get(f).value(), v);
    }
}

/// A queue of `depth` entries of `width` bits (pipelined: a full queue takes an entry in
/// a cycle one leaves).
fn fifo(p: &FgsimtParams, depth: u32, width: u32) -> Result<Rc<Module>, HdlErrors> {
    queue(&QueueParams {
        depth,
        width,
        flow: false,
        pipe: true,
        sram_threshold_bits: p.sram_threshold_bits,
    })
}

/// With hit masks, the SMU's passes of the oldest load (`bundles::load_data`): the
/// threads a pass writes, whether it is the load's last, and whether it is its first.
struct Passes {
    pass: Value,
    fill: Value,
    whole: Value,
    first: Value,
}

/// The SLU's side of the load writeback.
struct Writeback {
    slu: Seq,
    /// A writeback (with hit masks, a pass) starts.
    start: Value,
    /// ... and releases its destination register in the scoreboard (with hit masks, its
    /// first pass only: a run-ahead group may have loaded the register again since).
    release: Value,
    /// The threads it fills (with hit masks, those it writes but the load's hits).
    fill: Value,
}

/// The SLU's sequencer: starts on the SLWQ's head once the SMU has its data (with hit
/// masks, a pass's: `load_take` out, and the head leaves the SLWQ at its last pass) and
/// the SLU is idle; `pop` in its read cycles, `slu_x` one cycle later.
fn load_writeback(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    slwq: &hdl::Inst,
    (ready, passes): (&Value, Option<&Passes>),
) -> Writeback {
    let w = p.warp_size;
    let entry = slwq.port("deq_bits");
    let idle = m.wire("slu_idle", 1);
    let start = &(&slwq.port("deq_valid") & ready) & &idle;
    if passes.is_none() {
        m.connect(&slwq.port("deq_ready"), &start);
    }
    let rb = p.reg_bits();
    let (rd, funct3) = (entry.slice(rb - 1, 0), entry.slice(rb + 2, rb));
    let threads = entry.slice(rb + 2 + w, rb + 3);
    let (mask, fill, release) = match passes {
        None => (threads.clone(), threads, start.clone()),
        Some(ps) => {
            m.connect(&slwq.port("deq_ready"), &(&start & &ps.whole));
            let take = m.output("load_take", 1);
            m.connect(&take, &start);
            (&threads & &ps.pass, &threads & &ps.fill, &start & &ps.first)
        }
    };
    let fields = [("rd", rd), ("funct3", funct3), ("mask", mask)];
    let slu = sequencer(m, p, "slu", &start, &fields);
    m.connect(&idle, &!&slu.valid);
    let pop = m.output("pop", 1);
    m.connect(&pop, &slu.valid);
    let slu_x = later(m, "slu", &slu);
    let x = m.io("slu_x", Dir::Out, &slu::x_uop(p));
    slu_x.drive(m, &x);
    let busy = &slu.valid | &slu_x.valid;
    Writeback {
        slu: Seq { valid: busy, ..slu },
        start,
        release,
        fill,
    }
}

/// The memory unit's micro-ops: `mem_r`, `mem_x` and `mem_info`.
fn memory_outputs(m: &mut ModuleBuilder, p: &FgsimtParams, mem: &Seq, x: &Seq) {
    let r = m.io("mem_r", Dir::Out, &r_uop(p, "mem"));
    mem.drive(m, &r);
    let xo = m.io("mem_x", Dir::Out, &sgu::x_uop(p));
    x.drive(m, &xo);
    let info = m.io("mem_info", Dir::Out, &mem_info(mem_ctx_bits(p)));
    let last = is(&x.slot, p.threads_per_lane() as u64 - 1);
    for n in ["valid", "op", "store", "pc", "tid_base"] {
        m.connect(info.get(n).value(), x.field(n));
    }
    if mem_ctx_bits(p) > 0 {
        m.connect(info.get("ctx").value(), x.field("ctx"));
    }
    m.connect(info.get("last").value(), &last);
}
