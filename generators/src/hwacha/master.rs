//! The master sequencer (Figure 8.8): the slots every lane shares. A slot holds one
//! issued vector operation's static state (what to compute, base register specifiers,
//! scalar operands, vector length) and its data hazards against the older operations in
//! flight (one dependence bit per older slot: RAW, WAR and WAW alike, since each is
//! cleared the same way, strip by strip, by the lane sequencers). Slots form a ring in
//! issue order, so a slot's age is its distance from `head`; the head retires once every
//! lane has sequenced all of its strips, and its dependence bits are dropped everywhere.
//! Memory instructions and divides take several slots (Table 8.4, `slots_taken`): the
//! lanes sequence the first, the others are bookkeeping that retires right after it.
//!
//! A new configuration (`cfg`, only taken while empty) makes every lane clear its
//! register files (the golden model zeroes the data registers and sets vp0); nothing
//! issues until they are done.

use super::lane::memory::reduction_shape;
use super::lane::regmap::layout_fields;
use super::lane::uop::{red, unit, vinsn};
use super::params::HwachaParams;
use super::scalar::smu::reg_write as vresp_shape;
use super::scalar::vbranch_shape;
use super::vmu::Fifo;
use hdl::ir::addr_width;
use hdl::{Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// Bits of the configuration's register counts: #vv (0-256) and #vp (0-16).
pub const NVV_BITS: u32 = 9;
pub const NVP_BITS: u32 = 5;

/// The configuration the lanes lay registers out by (`regmap::layout_fields`).
pub fn cfg_shape(p: &HwachaParams) -> Shape {
    Shape::valid(Shape::bundle(
        layout_fields(p)
            .into_iter()
            .map(|(name, w)| Shape::field(name, Shape::UInt(w)))
            .collect(),
    ))
}

/// Bits of a slot index.
pub fn slot_bits(p: &HwachaParams) -> u32 {
    addr_width(p.seq_entries as u64).max(1)
}

/// The registers an operation reads and writes: (valid, register) pairs per file.
struct Uses {
    reads_vv: Vec<(Value, Value)>,
    writes_vv: Vec<(Value, Value)>,
    reads_vp: Vec<(Value, Value)>,
    writes_vp: Vec<(Value, Value)>,
}

fn uses(op: &Bundle) -> Uses {
    let g = |n: &str| op.get(n).value().clone();
    let plu = g("unit").eq(&g("unit").konst(Bits::from_u64(g("unit").width(), 2)));
    Uses {
        reads_vv: vec![
            (g("rs1_v"), g("rs1")),
            (g("rs2_v"), g("rs2")),
            (g("rs3_v"), g("rs3")),
        ],
        writes_vv: vec![(&g("wr") & &!&g("rd_pred"), g("rd"))],
        reads_vp: vec![
            (g("pred_on"), g("pred")),
            (plu.clone(), g("ps1")),
            (plu.clone(), g("ps2")),
            (plu, g("ps3")),
        ],
        writes_vp: vec![(&g("wr") & &g("rd_pred"), g("prd"))],
    }
}

/// Whether any register of `a` is one of `b`.
fn overlap(a: &[(Value, Value)], b: &[(Value, Value)]) -> Value {
    let mut any = a[0].0.konst(Bits::zero(1));
    for (va, ra) in a {
        for (vb, rb) in b {
            any = &any | &(&(va & vb) & &ra.eq(rb));
        }
    }
    any
}

/// Whether younger operation `new` must wait for older `old` (RAW, WAR or WAW).
fn depends(new: &Bundle, old: &Bundle) -> Value {
    let (n, o) = (uses(new), uses(old));
    let raw = &overlap(&n.reads_vv, &o.writes_vv) | &overlap(&n.reads_vp, &o.writes_vp);
    let war = &overlap(&n.writes_vv, &o.reads_vv) | &overlap(&n.writes_vp, &o.reads_vp);
    let waw = &overlap(&n.writes_vv, &o.writes_vv) | &overlap(&n.writes_vp, &o.writes_vp);
    &(&raw | &war) | &waw
}

/// Whether an operation reads its operands out to the lanes' memory side (memory
/// instructions and reductions), whose queue keeps program order.
fn readout(op: &Bundle) -> Value {
    let u = op.get("unit").value();
    u.eq(&u.konst(Bits::from_u64(u.width(), unit::MEM)))
}

/// `x + k` modulo `m`, for `x < m` and `k <= m`.
fn advance(x: &Value, k: &Value, m: u32) -> Value {
    let w = x.width().max(k.width()) + 1;
    let sum = &x.zext(w) + &k.zext(w);
    let limit = sum.konst(Bits::from_u64(w, m as u64));
    let wrapped = sum.ge(&limit).mux(&(&sum - &limit), &sum);
    wrapped.slice(x.width() - 1, 0)
}

/// Most sequencer slots an instruction takes (an AMO's VGU, VCU, VSU and VLU).
pub const MAX_SLOTS_PER_OP: u32 = 4;

/// The sequencer slots `op` takes, allocated in Table 8.4's order: the first is the one
/// the lanes sequence (its readout or computation), the others its bookkeeping
/// operations (VCU: the VMU's address translation; VLU: load writeback; VIDU: divide
/// writeback), which hold their slots until the first retires. Unit-stride and strided
/// accesses: VPU, VCU, then VSU or VLU; indexed accesses: VGU, VCU, then VSU or VLU; AMOs:
/// VGU, VCU, VSU, VLU; divides: VQU, VIDU; every other operation one slot.
fn slots_taken(op: &Bundle) -> Value {
    let g = |n: &str| op.get(n).value().clone();
    let k = |v: u64| g("mem").konst(Bits::from_u64(3, v));
    let amo = g("mem_op").eq(&g("mem_op").konst(Bits::from_u64(2, 2)));
    let mem = amo.mux(&k(4), &k(3));
    g("mem").mux(&mem, &g("div").mux(&k(2), &k(1)))
}

/// The master sequencer's ports (`master_sequencer`'s doc comment lists them).
struct MasterPorts {
    issue: Bundle,
    cfg: Bundle,
    done: Vec<Value>,
    lane_busy: Vec<Value>,
    lane_clearing: Vec<Value>,
    lane_mem_ready: Vec<Value>,
    idle: Value,
    reds: Vec<Bundle>,
    red_ack: Value,
    vresp: Bundle,
    vbranch: Bundle,
    valid_out: Value,
    alloc_out: Value,
    head_out: Value,
    clear: Value,
}

/// The slot ring: each slot's static state, valid bit and dependences, and the ring's
/// head, tail and count.
struct SlotRegs {
    slots: Vec<Bundle>,
    valid: Vec<Value>,
    deps: Vec<Value>,
    mdeps: Vec<Value>,
    head: Value,
    tail: Value,
    count: Value,
    valid_v: Value,
}

/// This cycle's issue and retirement: which slots the issued instruction fills, which
/// retires, and the reduction queue.
struct IssueCtl {
    retire: Value,
    retiring: Value,
    taking: Value,
    fire: Value,
    alloc: Value,
    companions: Value,
    redq: Fifo,
    red_kind: Value,
    is_red: Value,
}

/// Ports: `issue` (decoupled decoded vector instruction) and `cfg` in; to the lanes
/// `slot_<k>` (static state), `valid`, `dep_<k>` (older slots slot k waits for), `alloc`
/// (one-hot: the slot filled this cycle, with `new`, the instruction it gets), `mdep_<k>`
/// (older memory instructions, whose readouts go first), `head`, `nvv`/`nvp` and `clear` (a one-cycle
/// pulse); from lane `l`: `done_<l>` (slots with no strips left in the lane),
/// `clearing_<l>`, `busy_<l>` (micro-ops or accesses in flight), `mem_ready_<l>` (room
/// for a memory command) and `red_<l>` (its part of a reduction); `red_ack`, `vresp`
/// (vfirst's result for a shared register) and `vbranch` (a consensual jump's outcome)
/// to the scalar unit, and `idle` out.
pub fn master_sequencer(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("MasterSequencer");
    let n = p.seq_entries;
    let sb = slot_bits(p);
    let io = master_ports(&mut m, p, n, sb);
    let cfg = cfg_regs(&mut m, p);
    let sr = slot_regs(&mut m, n, sb, &io);
    let ic = issue_control(&mut m, p, &io, &sr, &cfg)?;
    reductions(&mut m, &io, &ic);
    m.connect(&io.alloc_out, &ic.alloc);
    slot_updates(&mut m, n, &io, &sr, &ic);
    ring_pointers(&mut m, n, &sr, &ic);
    m.finish()
}

/// The ports, in the order of the module's port list (but `nvv`/`nvp`, `new` and the
/// per-slot outputs).
fn master_ports(m: &mut ModuleBuilder, p: &HwachaParams, n: u32, sb: u32) -> MasterPorts {
    let issue = m.io("issue", Dir::In, &Shape::decoupled(vinsn()));
    let cfg = m.io("cfg", Dir::In, &cfg_shape(p));
    let done: Vec<Value> = (0..p.lanes)
        .map(|l| m.input(&format!("done_{l}"), n))
        .collect();
    let lane_busy: Vec<Value> = (0..p.lanes)
        .map(|l| m.input(&format!("busy_{l}"), 1))
        .collect();
    let lane_clearing: Vec<Value> = (0..p.lanes)
        .map(|l| m.input(&format!("clearing_{l}"), 1))
        .collect();
    let lane_mem_ready: Vec<Value> = (0..p.lanes)
        .map(|l| m.input(&format!("mem_ready_{l}"), 1))
        .collect();
    let idle = m.output("idle", 1);
    let reds: Vec<Bundle> = (0..p.lanes)
        .map(|l| m.io(&format!("red_{l}"), Dir::In, &reduction_shape()))
        .collect();
    let red_ack = m.output("red_ack", 1);
    let vresp = m.io("vresp", Dir::Out, &vresp_shape());
    let vbranch = m.io("vbranch", Dir::Out, &vbranch_shape());
    let valid_out = m.output("valid", n);
    let alloc_out = m.output("alloc", n);
    let head_out = m.output("head", sb);
    let clear = m.output("clear", 1);
    MasterPorts {
        issue,
        cfg,
        done,
        lane_busy,
        lane_clearing,
        lane_mem_ready,
        idle,
        reds,
        red_ack,
        vresp,
        vbranch,
        valid_out,
        alloc_out,
        head_out,
        clear,
    }
}

/// The configuration registers (`regmap::layout_fields`: `nvv`, `nvp`, ...) and their
/// outputs of the same names.
fn cfg_regs(m: &mut ModuleBuilder, p: &HwachaParams) -> Vec<(&'static str, Value)> {
    layout_fields(p)
        .into_iter()
        .map(|(name, w)| {
            let r = m.reg(&format!("cfg_{name}"), w, 0u64);
            let out = m.output(name, w);
            m.connect(&out, &r);
            (name, r)
        })
        .collect()
}

/// The slot ring's registers and their outputs to the lanes (`slot_<k>`, `dep_<k>`,
/// `mdep_<k>`, `valid`, `head`, and `new`).
fn slot_regs(m: &mut ModuleBuilder, n: u32, sb: u32, io: &MasterPorts) -> SlotRegs {
    let shape = vinsn();
    let slots: Vec<Bundle> = (0..n)
        .map(|k| m.reg_bundle(&format!("slot{k}"), &shape))
        .collect();
    let valid: Vec<Value> = (0..n)
        .map(|k| m.reg(&format!("valid{k}"), 1, 0u64))
        .collect();
    let deps: Vec<Value> = (0..n).map(|k| m.reg(&format!("dep{k}"), n, 0u64)).collect();
    // Older readouts (memory instructions, reductions), which go to the lane's memory
    // side first.
    let mdeps: Vec<Value> = (0..n)
        .map(|k| m.reg(&format!("mdep{k}"), n, 0u64))
        .collect();
    let head = m.reg("head", sb, 0u64);
    let tail = m.reg("tail", sb, 0u64);
    let count = m.reg("count", addr_width(n as u64 + 1), 0u64);
    // The instruction being allocated, for the lanes to load their progress from.
    let new = m.io("new", Dir::Out, &shape);
    m.connect_bundle(&new, io.issue.bits());
    for k in 0..n as usize {
        let out = m.io(&format!("slot_{k}"), Dir::Out, &shape);
        m.connect_bundle(&out, &slots[k]);
        let dep_out = m.output(&format!("dep_{k}"), n);
        m.connect(&dep_out, &deps[k]);
        let mdep_out = m.output(&format!("mdep_{k}"), n);
        m.connect(&mdep_out, &mdeps[k]);
    }
    let valid_v = hdl::cat(&valid.iter().rev().collect::<Vec<_>>());
    m.connect(&io.valid_out, &valid_v);
    m.connect(&io.head_out, &head);
    SlotRegs {
        slots,
        valid,
        deps,
        mdeps,
        head,
        tail,
        count,
        valid_v,
    }
}

/// Retirement, configuration, the issue handshake (room, memory and reduction
/// back-pressure, `idle`), and the slots an issued instruction fills.
fn issue_control(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &MasterPorts,
    sr: &SlotRegs,
    cfg_regs: &[(&'static str, Value)],
) -> Result<IssueCtl, HdlErrors> {
    let n = p.seq_entries;
    let (issue, cfg, done, count, tail) = (&io.issue, &io.cfg, &io.done, &sr.count, &sr.tail);
    let all_done = done.iter().skip(1).fold(done[0].clone(), |a, d| &a & d);
    let any_busy = io.lane_busy.iter().fold(m.lit(0, 1), |a, b| &a | b);
    let clearing = io.lane_clearing.iter().fold(m.lit(0, 1), |a, b| &a | b);
    let head_onehot = hdl::helpers::onehot_decode(&sr.head, n);
    let retire = &(&head_onehot & &all_done) & &sr.valid_v;
    let retiring = retire.or_r();

    let empty = count.eq(&count.konst(Bits::zero(count.width())));
    // A new configuration comes only while `idle` (the scalar unit waits for it) and
    // clears the lanes.
    let take_cfg = cfg.valid().clone();
    m.connect(&io.clear, &take_cfg);
    m.when(&take_cfg, |m| {
        for (name, r) in cfg_regs {
            m.connect(r, cfg.bits().get(name).value());
        }
    });
    // Room for every slot the instruction takes.
    let taking = slots_taken(issue.bits());
    let cw = count.width().max(taking.width()) + 1;
    let full = (&count.zext(cw) + &taking.zext(cw)).gt(&count.konst(Bits::from_u64(cw, n as u64)));
    // Reductions: the kind and destination of each in flight, in program order (the
    // lanes' reducers answer in that order).
    let redq = Fifo::new(m, p, "redq", n, 2 + 6)?;
    let red_kind = issue.bits().get("red").value().clone();
    let is_red = red_kind.ne(&red_kind.konst(Bits::zero(2)));
    let mem_ready = io.lane_mem_ready.iter().fold(m.lit(1, 1), |a, r| &a & r);
    let mem_blocked = &(&readout(issue.bits()) & &!&mem_ready) | &(&is_red & &!&redq.enq_ready());
    m.connect(
        issue.ready(),
        &!&(&(&(&full | &clearing) | cfg.valid()) | &mem_blocked),
    );
    m.connect(&io.idle, &(&empty & &!&(&any_busy | &clearing)));
    let fire = issue.fire();
    let alloc = fire.repeat(n) & hdl::helpers::onehot_decode(tail, n);
    // The bookkeeping slots after it: valid, with no registers and no strips.
    let mut companions = m.lit(0, n);
    for i in 1..MAX_SLOTS_PER_OP.min(n) {
        let at = advance(tail, &m.lit(i as u64, 3), n);
        let wanted = &fire & &taking.gt(&m.lit(i as u64, 3));
        companions = &companions | &(wanted.repeat(n) & hdl::helpers::onehot_decode(&at, n));
    }
    Ok(IssueCtl {
        retire,
        retiring,
        taking,
        fire,
        alloc,
        companions,
        redq,
        red_kind,
        is_red,
    })
}

/// Reductions: queue each issued one; once every lane has its part, combine, answer
/// the scalar unit (`vresp` for vfirst, `vbranch` for a consensual jump) and release
/// the lanes.
fn reductions(m: &mut ModuleBuilder, io: &MasterPorts, ic: &IssueCtl) {
    let (redq, fire, reds, vresp, vbranch) = (&ic.redq, &ic.fire, &io.reds, &io.vresp, &io.vbranch);
    m.connect(&redq.enq_valid(), &(fire & &ic.is_red));
    let rd = io.issue.bits().get("rd").value().slice(5, 0);
    m.connect(&redq.enq_bits(), &hdl::cat(&[&rd, &ic.red_kind]));
    // Every lane has its part: combine, answer the scalar unit, release the lanes.
    let all_valid = reds.iter().fold(m.lit(1, 1), |a, r| &a & r.valid());
    let done = &all_valid & &redq.deq_valid();
    m.connect(&io.red_ack, &done);
    m.connect(&redq.deq_ready(), &done);
    let red_head = redq.deq_bits();
    let (kind, dest) = (red_head.slice(1, 0), red_head.slice(7, 2));
    let g = |r: &Bundle, f: &str| r.bits().get(f).value().clone();
    let every = reds.iter().fold(m.lit(1, 1), |a, r| &a & &g(r, "all"));
    let some = reds.iter().fold(m.lit(0, 1), |a, r| &a | &g(r, "any"));
    let (mut best_found, mut best_index, mut best_value) =
        (m.lit(0, 1), m.lit(0, 32), m.lit(0, 64));
    for r in reds {
        let better = &g(r, "found") & &(!&best_found | &g(r, "index").lt(&best_index));
        best_index = better.mux(&g(r, "index"), &best_index);
        best_value = better.mux(&g(r, "value"), &best_value);
        best_found = &best_found | &g(r, "found");
    }
    let first = kind.eq(&m.lit(red::FIRST, 2));
    m.connect(vresp.valid(), &(&done & &first));
    m.connect(vresp.bits().get("rd").value(), &dest);
    m.connect(vresp.bits().get("data").value(), &best_value);
    m.connect(vbranch.valid(), &(&done & &!&first));
    let taken = kind.eq(&m.lit(red::ALL, 2)).mux(&every, &some);
    m.connect(vbranch.bits().get("taken").value(), &taken);
}

/// Each slot: filled by the issued instruction (with its dependences on the older
/// slots still in flight), made a bookkeeping slot, or dropping retired dependences.
fn slot_updates(m: &mut ModuleBuilder, n: u32, io: &MasterPorts, sr: &SlotRegs, ic: &IssueCtl) {
    let (issue, slots, deps, mdeps, retire) =
        (&io.issue, &sr.slots, &sr.deps, &sr.mdeps, &ic.retire);
    let still = &sr.valid_v & &!retire;
    for k in 0..n as usize {
        let mine = ic.alloc.bit(k as u32);
        // Older operations still in flight that this one conflicts with.
        let (mut dep_bits, mut mdep_bits) = (Vec::new(), Vec::new());
        let is_mem = readout(issue.bits());
        for (j, slot) in slots.iter().enumerate() {
            if j == k {
                dep_bits.push(m.lit(0, 1));
                mdep_bits.push(m.lit(0, 1));
            } else {
                let older = still.bit(j as u32);
                dep_bits.push(&older & &depends(issue.bits(), slot));
                mdep_bits.push(&(&older & &is_mem) & &readout(slot));
            }
        }
        let as_vec = |bits: &[Value]| hdl::cat(&bits.iter().rev().collect::<Vec<_>>());
        let (new_dep, new_mdep) = (as_vec(&dep_bits), as_vec(&mdep_bits));
        let bookkeeping = ic.companions.bit(k as u32);
        m.when(&mine, |m| {
            m.connect_bundle(&slots[k], issue.bits());
            m.connect(&deps[k], &new_dep);
            m.connect(&mdeps[k], &new_mdep);
        })
        .elsewhen(&bookkeeping, |m| {
            for (leaf, _) in slots[k].leaves() {
                let zero = leaf.konst(Bits::zero(leaf.width()));
                m.connect(leaf, &zero);
            }
            let none = m.lit(0, n);
            m.connect(&deps[k], &none);
            m.connect(&mdeps[k], &none);
        })
        .otherwise(|m| {
            m.connect(&deps[k], &(&deps[k] & &!retire));
            m.connect(&mdeps[k], &(&mdeps[k] & &!retire));
        });
        let v = &(&mine | &bookkeeping) | &(&sr.valid[k] & &!&retire.bit(k as u32));
        m.connect(&sr.valid[k], &v);
    }
}

/// The ring's tail (past the issued instruction's slots), head (past the retired
/// slot) and count.
fn ring_pointers(m: &mut ModuleBuilder, n: u32, sr: &SlotRegs, ic: &IssueCtl) {
    let (tail, head, count, taking) = (&sr.tail, &sr.head, &sr.count, &ic.taking);
    let (fire, retiring) = (&ic.fire, &ic.retiring);
    m.when(fire, |m| m.connect(tail, &advance(tail, taking, n)));
    let one = count.konst(Bits::from_u64(count.width(), 1));
    m.when(retiring, |m| m.connect(head, &advance(head, &one, n)));
    let taken = taking
        .zext(count.width().max(3))
        .slice(count.width() - 1, 0);
    let counted = fire.mux(&(count + &taken), count);
    let counted = retiring.mux(&(&counted - &one), &counted);
    m.connect(count, &counted);
}
