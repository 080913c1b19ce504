//! `HwachaScalar`: the scalar unit (thesis Figure 8.4, Table 8.2). `frontend.rs` joins it
//! to the RoCC unit (`HwachaFrontend`).
//!
//! The scalar unit takes VCMDQ commands in order while no block runs: `vmcs`/`vmca`
//! write vs/va, `vsetcfg`/`vuncfg` wait for the vector side to go idle and announce the
//! new vcfg on `vcfg` (the vector side clears its registers), and `vf` starts a block.
//! A block runs through an in-order, single-issue pipeline:
//! - F: the vector I$ (the rocket `Cache`, blocking; hits stream at one per cycle) is
//!   asked for the next sequential vpc while the two D slots have room for the answer; a
//!   misaligned vpc or one outside the memory window is not fetched but carried to X as
//!   a fault.
//! - D: two instruction slots, `ir` (the one X works on) and the fetch buffer `fb`.
//! - X: decode and legality (`decode.rs`, from the encoding file), operand read of vs/va,
//!   the scoreboard check, and dispatch: the ALU result (scalar int/imm ops, vlui,
//!   vauipc, the link of a taken consensual jump), the MulDiv (rocket `MulDiv`), the
//!   scalar memory unit (`smu.rs`), or the vector-issue port `vissue` for every other
//!   legal instruction (vector ones, vfirst, scalar floating point) with its shared and
//!   address operand values; a vector segment access of n registers as n one-register
//!   accesses, part k to register rd + k at base + k element widths (unit stride made
//!   strided by the segment's size). `vcjal`/`vcjalr` are issued too and wait in X for
//!   `vbranch`; `vfence` waits for the vector side's `vidle`; `vstop` and exceptions
//!   wait until nothing is in flight.
//! - W: the register writes at the end of X's cycle, and the long-latency results
//!   (MulDiv, SMU loads, `vresp` for vfirst and scalar FP) whenever they arrive: the
//!   scoreboard holds one pending bit per vs register for them (vs0 too, so that its
//!   writers stay ordered), and the X stage stalls on a pending source or destination.
//!
//! `halt` (the unit holds an exception for the core) ends the running block as an
//! exception does and drops `vmcs`, `vmca` and `vf` commands until it falls.
//!
//! Fetch runs ahead only in straight-line code: it waits after a jump, a vstop or a
//! fault until X executes it (a jump's target is then the next fetch), so nothing
//! fetched is ever off the path; only an exception, which ends the block, discards the
//! fetched instructions behind it. Exceptions (the golden model's table) go out on
//! `xcpt` once nothing older is in flight. `trace` shows every vs write of the block (ALU, MulDiv, SMU; `vresp`
//! writes are the testbench's own) for lockstep checking.

pub mod decode;
mod frontend;
pub mod smu;

pub use frontend::frontend;

use super::params::HwachaParams;
use super::rocc::{cause, vcmd, vcmd_entry, vlen_bits, xcpt_shape};
use crate::rocket::alu::alu;
use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::cache::cache;
use crate::rocket::decode::alu_fn;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{CacheParams, MulDivParams, MulKind};
use decode::{decode, Config};
use hdl::helpers::{onehot_decode, priority_mux};
use hdl::{cat, mux, Bits, Dir, Field, HdlErrors, MemStyle, Module, ModuleBuilder, Shape, Value};
use smu::{reg_write, smu};
use std::rc::Rc;

/// The memory the worker thread may access (fetches, scalar loads and stores): outside
/// it they fault, as outside the golden model's RAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RamWindow {
    pub base: u64,
    pub size: u64,
}

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// The vector-issue port: the instruction, its vpc, vlen, and the values of the shared
/// (`s1`-`s3`, zero where the slot names no shared register) and address registers
/// (`a1`, `a2`: as1/as2 of unit-stride and strided accesses, zero otherwise).
pub fn vissue_shape(p: &HwachaParams) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("bits", 64),
        uint("pc", 64),
        uint("vlen", vlen_bits(p)),
        uint("s1", 64),
        uint("s2", 64),
        uint("s3", 64),
        uint("a1", 64),
        uint("a2", 64),
    ]))
}

/// A consensual jump's outcome, from the vector side.
pub fn vbranch_shape() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("taken", 1)]))
}

/// A new configuration, announced to the vector side.
pub fn vcfg_shape() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("vcfg", 32)]))
}

/// The vs writes of a block, one channel per writer.
pub fn trace_shape() -> Shape {
    Shape::bundle(vec![
        Shape::field("alu", reg_write()),
        Shape::field("muldiv", reg_write()),
        Shape::field("smu", reg_write()),
    ])
}

/// An instruction slot of F/D: the word, its vpc, and the fetch fault in its place (1
/// misaligned vpc, 2 outside memory).
struct Slot {
    valid: Value,
    bits: Value,
    pc: Value,
    fault: Value,
}

impl Slot {
    fn load(&self, m: &mut ModuleBuilder, from: &Slot) {
        m.connect(&self.valid, &from.valid);
        m.connect(&self.bits, &from.bits);
        m.connect(&self.pc, &from.pc);
        m.connect(&self.fault, &from.fault);
    }
}

/// `count + 1` ones from bit `first` up (a register range), 64 bits.
fn range_mask(first: &Value, count: &Value) -> Value {
    let ones = &first.konst(Bits::from_u64(9, 2)).dshl(count) - &first.konst(Bits::from_u64(9, 1));
    ones.zext(64).dshl(first)
}

/// Ports: `vcmd` (VCMDQ, in), `busy`, `imem_*`/`dmem_*` (I$ refill and SMU memory),
/// `vissue`, `vresp`, `vbranch`, `vidle`, `vcfg`, `halt`, `xcpt`, `trace`.
pub fn scalar_unit(p: &HwachaParams, ram: RamWindow) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaScalar");
    let vb = vlen_bits(p);
    let cmd = m.io("vcmd", Dir::In, &Shape::decoupled(vcmd_entry(p)));
    let busy = m.output("busy", 1);
    let imem_req = m.io("imem_req", Dir::Out, &mem_request(0));
    let imem_resp = m.io("imem_resp", Dir::In, &mem_response(0));
    let dmem_req = m.io("dmem_req", Dir::Out, &mem_request(0));
    let dmem_resp = m.io("dmem_resp", Dir::In, &mem_response(0));
    let vissue = m.io("vissue", Dir::Out, &vissue_shape(p));
    let vresp = m.io("vresp", Dir::In, &reg_write());
    let vbranch = m.io("vbranch", Dir::In, &vbranch_shape());
    let vidle = m.input("vidle", 1);
    let halt = m.input("halt", 1);
    let vcfg_out = m.io("vcfg", Dir::Out, &vcfg_shape());
    let xcpt = m.io("xcpt", Dir::Out, &xcpt_shape());
    let trace = m.io("trace", Dir::Out, &trace_shape());
    let k = |v: u64, w: u32| vidle.konst(Bits::from_u64(w, v));
    let one = k(1, 1);
    let zero = k(0, 1);

    // Blocks: the vector I$, the MulDiv, the SMU.
    let icache = m.instance(
        "icache",
        &cache(
            "HwachaICache",
            &CacheParams {
                sets: p.icache_sets,
                ways: p.icache_ways,
                line_bytes: p.icache_line_bytes,
                uncached_base: 0,
                uncached_size: 0,
                sram_threshold_bits: p.sram_threshold_bits,
            },
        )?,
    );
    m.connect_bundle(&imem_req, &icache.io("mem_req"));
    m.connect_bundle(&icache.io("mem_resp"), &imem_resp);
    // Worker code is not written while blocks run (the control thread writes a block
    // before its vf), so the I$ is never invalidated.
    m.connect(&icache.port("invalidate"), &zero);
    let md = m.instance(
        "muldiv",
        &muldiv(&MulDivParams {
            mul: MulKind::Pipelined,
            mul_bits_per_cycle: 1,
            mul_stages: p.stages_imul,
            div_bits_per_cycle: p.idiv_bits_per_cycle,
        })?,
    );
    let smu = m.instance("smu", &smu()?);
    m.connect_bundle(&dmem_req, &smu.io("mem_req"));
    m.connect_bundle(&smu.io("mem_resp"), &dmem_resp);

    // Architectural state: vs1-63 (vs0 reads 0), va0-31, the block's vcfg and vlen.
    // The register files are inferred memories (issue 17): vs, 64 x 64 bits, read
    // combinationally four times (three operands and the SMU's store data) and written
    // by five ports (ALU, MulDiv, SMU, `vresp`, vmcs); va, 32 x 64, read twice and
    // written by vmca. Combinational reads keep them off SRAM macros whatever
    // `sram_threshold_bits` says (`crate::memory`), so FPGA flows map them to LUT RAM
    // and ASIC synthesis to flop arrays with balanced read trees. Word 0 of vs may be
    // written but vs0 reads as zero outside the memory. Like any architectural
    // register, their contents are arbitrary until written (no reset): programs set
    // the registers they read (vmcs/vmca or a worker write) first.
    let vs_file = m.mem("vs", 64, 64, MemStyle::Inferred);
    let va_file = m.mem("va", 32, 64, MemStyle::Inferred);
    let vcfg = m.reg("vcfg_q", 32, 0u64);
    let vlen = m.reg("vlen", vb, 0u64);
    let running = m.reg("running", 1, false);
    let scoreboard = m.reg("scoreboard", 64, 0u64);
    // The shared registers an SMU store has yet to read (not to be overwritten).
    let store_regs = m.reg("store_regs", 64, 0u64);
    // One MulDiv operation at a time (the pipelined multiplier would take more), so that
    // one destination register suffices.
    let md_busy = m.reg("md_busy", 1, false);
    let md_rd = m.reg("md_rd", 6, 0u64);
    let zero64 = k(0, 64);
    let read_vs = |m: &mut ModuleBuilder, idx: &Value| {
        mux(&idx.eq(&k(0, 6)), &zero64, &m.read(&vs_file, idx))
    };

    // F and D: the fetch pointer, the outstanding fetch, and two instruction slots: the
    // instruction register X works on and a fetch buffer behind it.
    let pc = m.reg("pc", 64, 0u64);
    let f_out = m.reg("f_out", 1, false);
    let f_pc = m.reg("f_pc", 64, 0u64);
    // The outstanding fetch belongs to a block an exception ended: its answer is dropped.
    let f_drop = m.reg("f_drop", 1, false);
    // Fetch waits after a control instruction (jump, vstop) or a fault: the vpc
    // after it is known only when X executes it, so fetch never needs squashing.
    let hold = m.reg("hold", 1, false);
    let slot = |name: &str, m: &mut ModuleBuilder| Slot {
        valid: m.reg(&format!("{name}_valid"), 1, false),
        bits: m.reg(name, 64, 0u64),
        pc: m.reg(&format!("{name}_pc"), 64, 0u64),
        fault: m.reg(&format!("{name}_fault"), 2, 0u64),
    };
    let d_slot = slot("ir", &mut m);
    let fb = slot("fb", &mut m);
    let (ir_valid, ir, ir_pc, ir_fault) = (
        d_slot.valid.clone(),
        d_slot.bits.clone(),
        d_slot.pc.clone(),
        d_slot.fault.clone(),
    );
    // A consensual jump of X has been issued and waits for `vbranch`.
    let x_issued = m.reg("x_issued", 1, false);

    // X: decode and operands.
    let cfg = Config {
        vv64: vcfg.slice(8, 0).zext(10),
        vv32: vcfg.slice(22, 14).zext(10),
        vv16: vcfg.slice(31, 23).zext(10),
        vp: vcfg.slice(13, 9).zext(10),
    };
    let d = decode(&ir, &cfg);
    let (rd, rs1, rs2, rs3) = (
        ir.slice(21, 16),
        ir.slice(29, 24),
        ir.slice(38, 33),
        ir.slice(46, 41),
    );
    let (v1, v2, v3) = (
        read_vs(&mut m, &rs1),
        read_vs(&mut m, &rs2),
        read_vs(&mut m, &rs3),
    );
    let (a1, a2) = (
        m.read(&va_file, &ir.slice(28, 24)),
        m.read(&va_file, &ir.slice(37, 33)),
    );
    let none = k(0, 3);
    let smem_store = &d.smem & &!&d.load;
    let src_mask = [
        (d.rs_shared[0].clone(), rs1.clone(), none.clone()),
        (
            d.rs_shared[1].clone(),
            rs2.clone(),
            mux(&smem_store, &d.seglen, &none),
        ),
        (d.rs_shared[2].clone(), rs3.clone(), none.clone()),
    ]
    .iter()
    .fold(k(0, 64), |acc, (used, r, n)| {
        &acc | &(&used.repeat(64) & &range_mask(r, n))
    });
    let dst_mask = &d.rd_shared.repeat(64) & &range_mask(&rd, &mux(&d.load, &d.seglen, &none));
    let hazard =
        &(&(&src_mask | &dst_mask) & &scoreboard).or_r() | &(&dst_mask & &store_regs).or_r();
    let smu_busy = smu.port("busy");
    let drained = &!&scoreboard.or_r() & &!&smu_busy;

    // Exceptions of X, in the golden model's order: fetch, legality, the access checks.
    let base = mux(&d.amode, &a1, &v1);
    let size = d.size.clone();
    let bytes_m1 = &k(1, 64).dshl(&size) - &k(1, 64);
    let misaligned = (&base & &bytes_m1).or_r();
    let len = (&d.seglen.zext(64) + &k(1, 64)).dshl(&size);
    let off = &base - &k(ram.base, 64);
    let end = k(ram.base.wrapping_add(ram.size), 64);
    let base_in = off.lt(&k(ram.size, 64));
    let all_in = &base_in & &(&k(ram.size, 64) - &off).ge(&len);
    let load_store = |load: u64, store: u64| mux(&d.load, &k(load, 4), &k(store, 4));
    let (x_xcpt, x_cause, x_tval) = {
        let cases = [
            (
                ir_fault.eq(&k(1, 2)),
                k(cause::FETCH_MISALIGNED, 4),
                ir_pc.clone(),
            ),
            (
                ir_fault.eq(&k(2, 2)),
                k(cause::FETCH_FAULT, 4),
                ir_pc.clone(),
            ),
            (!&d.legal, k(cause::ILLEGAL, 4), ir.clone()),
            (
                &d.smem & &misaligned,
                load_store(cause::LOAD_MISALIGNED, cause::STORE_MISALIGNED),
                base.clone(),
            ),
            (
                &d.smem & &!&all_in,
                load_store(cause::LOAD_FAULT, cause::STORE_FAULT),
                mux(&base_in, &end, &base),
            ),
        ];
        let any = cases.iter().fold(zero.clone(), |a, (c, _, _)| &a | c);
        let pick = |i: usize| {
            let v: Vec<(Value, Value)> = cases
                .iter()
                .map(|c| (c.0.clone(), [&c.1, &c.2][i].clone()))
                .collect();
            v
        };
        (
            any,
            priority_mux(&pick(0), &k(0, 4)),
            priority_mux(&pick(1), &k(0, 64)),
        )
    };

    // X: what the instruction needs to leave the stage.
    let alu_op = &(&d.alu | &d.lui) | &d.auipc;
    let cj = &d.cjal | &d.cjalr;
    let local = [&alu_op, &d.muldiv, &d.smem, &d.stop, &d.fence, &cj]
        .into_iter()
        .fold(zero.clone(), |a, b| &a | b);
    let issue = !&local;
    let go = &(&(&ir_valid & &!&x_xcpt) & &!&hazard) & &!&halt;
    let md_req = md.io("req");
    let smu_req = smu.io("req");
    let vissue_now = &go & &(&issue | &(&cj & &!&x_issued));
    let branch_done = &(&(&go & &cj) & &x_issued) & vbranch.valid();
    let taken = &branch_done & vbranch.bits().get("taken").value();
    // A segment access of n registers goes to the vector side as n accesses of one, part
    // k moving register rd + k at k element widths past the base; a unit-stride one
    // becomes strided by the whole segment (rd + k keeps the model's register order and
    // lets the decode give each part its register's width).
    let seg_k = m.reg("seg_k", 3, 0u64);
    let seg_last = seg_k.eq(&d.seglen);
    let x_fire = &go
        & &priority_mux(
            &[
                (alu_op.clone(), one.clone()),
                (d.muldiv.clone(), md_req.ready() & &!&md_busy),
                (d.smem.clone(), smu_req.ready().clone()),
                (d.stop.clone(), drained.clone()),
                (d.fence.clone(), &drained & &vidle),
                (cj.clone(), branch_done.clone()),
            ],
            &(vissue.ready() & &seg_last),
        );
    let xcpt_fire = &(&(&ir_valid & &x_xcpt) & &drained) & &!&halt;
    // The block ends at an exception, its own or (`halt`) one elsewhere in the unit.
    let abort = &xcpt_fire | &halt;

    // The ALU: scalar int/imm ops, vlui/vauipc (immediate in the upper 32 bits), links.
    let imm = ir.slice(63, 32).as_signed().sext(64).as_unsigned();
    let upper = imm.shl(32);
    let a = priority_mux(
        &[(d.lui.clone(), k(0, 64)), (d.auipc.clone(), ir_pc.clone())],
        &v1,
    );
    let b = priority_mux(
        &[
            (d.imm.clone(), imm.clone()),
            (d.shamt.clone(), ir.slice(37, 32).zext(64)),
            (&d.lui | &d.auipc, upper),
        ],
        &v2,
    );
    let fn_ = mux(&alu_op, &d.alu_fn, &k(alu_fn::ADD, alu_fn::WIDTH));
    let link = &ir_pc + &k(8, 64);
    let alu_out = mux(&cj, &link, &alu(&fn_, &a, &b, &d.word));
    let alu_we = &(&x_fire & &alu_op) | &taken;
    let cj_base = mux(&d.cjal, &ir_pc, &v1);
    let cj_off = ir.slice(63, 35).as_signed().sext(64).as_unsigned().shl(3);
    let target = &(&cj_base + &cj_off) & &k(!7, 64);
    let next_pc = mux(&taken, &target, &link);

    // Dispatch.
    m.connect(md_req.valid(), &(&(&go & &d.muldiv) & &!&md_busy));
    let mb = md_req.bits();
    m.connect(mb.get("funct3").value(), &ir.slice(52, 50));
    m.connect(mb.get("word").value(), &d.word);
    m.connect(mb.get("in1").value(), &v1);
    m.connect(mb.get("in2").value(), &v2);
    m.connect(&md.port("kill"), &zero);
    m.connect(md.io("resp").ready(), &one);
    m.connect(smu_req.valid(), &(&go & &d.smem));
    let sb = smu_req.bits();
    m.connect(sb.get("load").value(), &d.load);
    m.connect(sb.get("unsigned").value(), &d.unsigned);
    m.connect(sb.get("size").value(), &size);
    m.connect(sb.get("seglen").value(), &d.seglen);
    m.connect(sb.get("reg").value(), &mux(&d.load, &rd, &rs2));
    m.connect(sb.get("addr").value(), &base);
    let sdata = read_vs(&mut m, &smu.port("sreg"));
    m.connect(&smu.port("sdata"), &sdata);
    m.connect(vissue.valid(), &vissue_now);
    let vi = vissue.bits();
    let only = |used: &Value, v: &Value| &used.repeat(64) & v;
    let segmented = d.seglen.ne(&k(0, 3));
    // Part order: from rd up, except that an indexed load whose destinations include
    // its index register moves that register last, so the parts before it still read
    // the indices (as the model, which reads every index first).
    let n = d.seglen.zext(4) + k(1, 4);
    let into_index = &(&(&segmented & &!&d.has_ars1) & &ir.slice(11, 7).eq(&k(0x16, 5)))
        & &(&ir.slice(40, 33) - &ir.slice(23, 16)).lt(&n.zext(8));
    let after_index = &(&ir.slice(40, 33) - &ir.slice(23, 16)).trunc(4) + &k(1, 4);
    let first = mux(&(&into_index & &after_index.ne(&n)), &after_index, &k(0, 4));
    let sum = &first + &seg_k.zext(4);
    let part = mux(&sum.ge(&n), &(&sum - &n), &sum).trunc(3);
    let seg_offset = part.zext(64).dshl(&size);
    // Unit stride (no as2): strided (bit 41) by the segment's bytes.
    let unit_seg = &(&segmented & &!&d.has_ars2) & &d.has_ars1;
    let part_bits = cat(&[
        &ir.slice(63, 48),
        &k(0, 3),
        &ir.slice(44, 42),
        &(&ir.bit(41) | &unit_seg),
        &ir.slice(40, 24),
        &(&ir.slice(23, 16) + &part.zext(8)),
        &ir.slice(15, 0),
    ]);
    let seg_bytes = (&d.seglen.zext(64) + &k(1, 64)).dshl(&size);
    let (s1, a1_part) = (only(&d.rs_shared[0], &v1), only(&d.has_ars1, &a1));
    for (name, v) in [
        ("bits", mux(&segmented, &part_bits, &ir)),
        ("pc", ir_pc.clone()),
        // An indexed segment's base is a shared register.
        ("s1", mux(&d.has_ars1, &s1, &(&s1 + &seg_offset))),
        ("s2", only(&d.rs_shared[1], &v2)),
        ("s3", only(&d.rs_shared[2], &v3)),
        ("a1", &a1_part + &seg_offset),
        ("a2", mux(&unit_seg, &seg_bytes, &only(&d.has_ars2, &a2))),
    ] {
        m.connect(vi.get(name).value(), &v);
    }
    m.when(&vissue.fire(), |m| {
        m.connect(&seg_k, &mux(&seg_last, &k(0, 3), &(&seg_k + &k(1, 3))))
    });
    m.when(&halt, |m| m.connect(&seg_k, &k(0, 3)));
    m.connect(vi.get("vlen").value(), &vlen);
    m.when(&vissue.fire(), |m| m.connect(&x_issued, &cj));
    m.when(&(&branch_done | &halt), |m| m.connect(&x_issued, &zero));

    // W: register writes and the scoreboard.
    let md_resp = md.io("resp");
    let smu_wb = smu.io("wb");
    let writers = [
        (alu_we.clone(), rd.clone(), alu_out.clone()),
        (
            md_resp.valid().clone(),
            md_rd.clone(),
            md_resp.bits().get("data").value().clone(),
        ),
        (
            smu_wb.valid().clone(),
            smu_wb.bits().get("rd").value().clone(),
            smu_wb.bits().get("data").value().clone(),
        ),
        (
            vresp.valid().clone(),
            vresp.bits().get("rd").value().clone(),
            vresp.bits().get("data").value().clone(),
        ),
    ];
    for (name, (valid, r, data)) in ["alu", "muldiv", "smu"].iter().zip(&writers) {
        let t = trace.get(name);
        m.connect(t.valid(), valid);
        m.connect(t.bits().get("rd").value(), r);
        m.connect(t.bits().get("data").value(), data);
    }
    let clear = writers[1..].iter().fold(k(0, 64), |acc, (v, r, _)| {
        &acc | &(&v.repeat(64) & &onehot_decode(r, 64))
    });
    let sets_rd = &(&x_fire & &d.rd_shared) & &!&alu_op & &!&cj;
    let set = &sets_rd.repeat(64) & &dst_mask;
    m.connect(&scoreboard, &(&(&scoreboard & &!&clear) | &set));
    m.when(md.io("resp").valid(), |m| m.connect(&md_busy, &zero));
    m.when(&md_req.fire(), |m| {
        m.connect(&md_rd, &rd);
        m.connect(&md_busy, &one);
    });
    m.when(&!&smu_busy, |m| m.connect(&store_regs, &k(0, 64)));
    m.when(&smu_req.fire(), |m| {
        m.connect(&store_regs, &(&smem_store.repeat(64) & &src_mask))
    });

    // VCMDQ commands, taken while no block runs.
    let c = cmd.bits();
    let c_kind = c.get("cmd").value().clone();
    let c_value = c.get("value").value().clone();
    let c_reg = c.get("reg").value().clone();
    let is_cfg = c_kind.eq(&k(vcmd::CFG, 2));
    m.connect(cmd.ready(), &(&!&running & &(&!&is_cfg | &vidle)));
    let take = |kind: u64| &cmd.fire() & &c_kind.eq(&k(kind, 2));
    // While halted, vmcs, vmca and vf are dropped (the golden model's imprecise mode);
    // configurations still apply, so the vector side keeps the RoCC unit's.
    let live = |kind: u64| &take(kind) & &!&halt;
    let (vmcs, vmca, vf, cfg_fire) = (
        live(vcmd::VMCS),
        live(vcmd::VMCA),
        live(vcmd::VF),
        take(vcmd::CFG),
    );
    m.connect(vcfg_out.valid(), &cfg_fire);
    m.connect(vcfg_out.bits().get("vcfg").value(), &c_value.slice(31, 0));
    m.when(&cfg_fire, |m| m.connect(&vcfg, &c_value.slice(31, 0)));
    // One write port per writer; the scoreboard keeps two of them from writing one
    // register in a cycle (vmcs comes only while no block runs).
    for (v, idx, data) in &writers {
        m.when(v, |m| m.write(&vs_file, idx, data));
    }
    m.when(&vmcs, |m| m.write(&vs_file, &c_reg, &c_value));
    m.when(&vmca, |m| m.write(&va_file, &c_reg.slice(4, 0), &c_value));

    // Fetch: sequential from `pc`, or X's jump target as it executes the jump. A request
    // needs room for its answer in the two slots once X has taken its instruction.
    let ic_req = icache.io("cpu_req");
    let ic_resp = icache.io("cpu_resp");
    let resp_now = ic_resp.valid().clone();
    let resp_data = ic_resp.bits().get("data").value().clone();
    let arrived = &(&resp_now & &!&f_drop) & &!&abort;
    let ctl_op = resp_data.slice(11, 7);
    // vcjalr 0x19, vcjal 0x1b, vstop 0x18 (vfence, also 0x18, has bit 53 set).
    let stop_like = &ctl_op.eq(&k(0x18, 5)) & &!&resp_data.bit(53);
    let resp_ctl = &resp_data.slice(6, 0).eq(&k(0x3f, 7))
        & &(&(&ctl_op.eq(&k(0x19, 5)) | &ctl_op.eq(&k(0x1b, 5))) | &stop_like);
    let redirect = &x_fire & &cj;
    let holding = &(&hold & &!&redirect) | &(&arrived & &resp_ctl);
    let queued = &(&ir_valid.zext(2) + &fb.valid.zext(2)) + &f_out.zext(2);
    let room = (&queued - &x_fire.zext(2)).lt(&k(2, 2));
    let fetching = &(&(&running & &!&holding) & &room) & &(&(&!&f_out | &resp_now) & &!&abort);
    let fetch_pc = mux(&redirect, &next_pc, &pc);
    let fetch_off = &fetch_pc - &k(ram.base, 64);
    let fetch_ok_addr = fetch_off.lt(&k(ram.size & !7, 64));
    let fetch_fault = mux(
        &fetch_pc.slice(2, 0).or_r(),
        &k(1, 2),
        &mux(&fetch_ok_addr, &k(0, 2), &k(2, 2)),
    );
    let bad = fetch_fault.ne(&k(0, 2));
    // A fault takes a slot in place of an answer, so only while none can arrive.
    let fault_now = &(&fetching & &bad) & &!&f_out;
    let icq = ic_req.bits();
    m.connect(ic_req.valid(), &(&fetching & &!&bad));
    m.connect(icq.get("addr").value(), &fetch_pc.slice(31, 0));
    m.connect(icq.get("write").value(), &zero);
    m.connect(icq.get("data").value(), &k(0, 64));
    m.connect(icq.get("mask").value(), &k(0xff, 8));
    m.connect(icq.get("size").value(), &k(3, 3));
    m.when(&redirect, |m| m.connect(&pc, &next_pc));
    m.when(&resp_now, |m| {
        m.connect(&f_out, &zero);
        m.connect(&f_drop, &zero);
    });
    m.when(&ic_req.fire(), |m| {
        m.connect(&f_out, &one);
        m.connect(&f_pc, &fetch_pc);
        m.connect(&pc, &(&fetch_pc + &k(8, 64)));
    });
    m.when(&(&abort & &(&f_out & &!&resp_now)), |m| {
        m.connect(&f_drop, &one)
    });
    m.connect(&hold, &holding);
    m.when(&fault_now, |m| m.connect(&hold, &one));
    m.when(&(&vf | &abort), |m| m.connect(&hold, &zero));

    // The slots: what arrives goes to the first free one; X's slot refills from the buffer.
    let arrival = Slot {
        valid: &arrived | &fault_now,
        bits: resp_data.clone(),
        pc: mux(&arrived, &f_pc, &fetch_pc),
        fault: mux(&arrived, &k(0, 2), &fetch_fault),
    };
    let ir_free = &!&ir_valid | &x_fire;
    m.when(&ir_free, |m| {
        m.when(&fb.valid, |m| {
            d_slot.load(m, &fb);
            fb.load(m, &arrival);
        })
        .otherwise(|m| d_slot.load(m, &arrival));
    })
    .otherwise(|m| {
        m.when(&arrival.valid, |m| fb.load(m, &arrival));
    });
    m.when(&vf, |m| {
        m.connect(&running, &one);
        m.connect(&pc, &c_value);
        m.connect(&vlen, c.get("vlen").value());
    });
    m.when(&(&x_fire & &d.stop), |m| m.connect(&running, &zero));
    m.when(&abort, |m| {
        m.connect(&running, &zero);
        m.connect(&d_slot.valid, &zero);
        m.connect(&fb.valid, &zero);
    });
    m.connect(xcpt.valid(), &xcpt_fire);
    m.connect(xcpt.bits().get("cause").value(), &x_cause);
    m.connect(xcpt.bits().get("tval").value(), &x_tval);
    m.connect(&busy, &(&running | &!&vidle));
    m.finish()
}
