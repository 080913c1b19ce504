//! `HwachaScalar`: the scalar unit (thesis Figure 8.4, Table 8.2). `frontend.rs` joins it
//! to the RoCC unit (`HwachaFrontend`); `fetch.rs` builds its F and D stages.
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
mod fetch;
pub mod fpu;
mod frontend;
pub mod smu;

pub use frontend::frontend;

use super::params::HwachaParams;
use super::rocc::{cause, vcmd, vcmd_entry, vlen_bits, xcpt_shape};
use crate::arith::adder::Style;
use crate::rocket::alu::alu;
use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::cache::cache;
use crate::rocket::decode::alu_fn;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{CacheParams, MulDivParams, MulKind};
use decode::{decode, Config, Decoded};
use fetch::{fetch, fetch_regs, refill_slots, FetchRegs};
use hdl::helpers::{onehot_decode, priority_mux};
use hdl::{
    cat, mux, Bits, Bundle, Dir, Field, HdlErrors, Inst, Mem, MemStyle, Module, ModuleBuilder,
    Shape, Value,
};
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

/// `count + 1` ones from bit `first` up (a register range), 64 bits.
fn range_mask(first: &Value, count: &Value) -> Value {
    let ones = &first.konst(Bits::from_u64(9, 2)).dshl(count) - &first.konst(Bits::from_u64(9, 1));
    ones.zext(64).dshl(first)
}

/// `k(value, width)`: a constant of the unit.
type K<'a> = &'a dyn Fn(u64, u32) -> Value;

/// The constants every block uses: `k` and the 1-bit one and zero.
struct Consts<'a> {
    k: K<'a>,
    one: Value,
    zero: Value,
}

/// The unit's ports (`scalar_unit`'s doc comment lists them).
struct Ports {
    cmd: Bundle,
    busy: Value,
    imem_req: Bundle,
    imem_resp: Bundle,
    dmem_req: Bundle,
    dmem_resp: Bundle,
    vissue: Bundle,
    vresp: Bundle,
    vbranch: Bundle,
    vidle: Value,
    halt: Value,
    vcfg: Bundle,
    xcpt: Bundle,
    trace: Bundle,
    vstop: Value,
}

/// The blocks of Figure 8.4 the unit instantiates: the vector I$, the MulDiv, the SMU.
struct Blocks {
    icache: Inst,
    md: Inst,
    smu: Inst,
}

/// Architectural state (vs, va, vcfg, vlen), the run flag, and the registers that
/// track long-latency writers (the scoreboard, the SMU's store sources, the MulDiv's
/// destination).
struct ArchState {
    vs_file: Mem,
    va_file: Mem,
    vcfg: Value,
    vlen: Value,
    running: Value,
    scoreboard: Value,
    store_regs: Value,
    md_busy: Value,
    md_rd: Value,
    zero64: Value,
}

impl ArchState {
    /// A combinational read of vs (vs0 reads 0).
    fn read_vs(&self, m: &mut ModuleBuilder, k: K, idx: &Value) -> Value {
        mux(&idx.eq(&k(0, 6)), &self.zero64, &m.read(&self.vs_file, idx))
    }
}

/// Everything declared before the pipeline's logic: ports, blocks and registers.
struct Unit {
    io: Ports,
    blocks: Blocks,
    arch: ArchState,
    f: FetchRegs,
    /// A consensual jump of X has been issued and waits for `vbranch`.
    x_issued: Value,
}

/// X's instruction, decoded, with its operands and its hazards.
struct XOperands {
    d: Decoded,
    rd: Value,
    rs2: Value,
    v1: Value,
    v2: Value,
    v3: Value,
    a1: Value,
    a2: Value,
    smem_store: Value,
    src_mask: Value,
    dst_mask: Value,
    hazard: Value,
    smu_busy: Value,
    drained: Value,
}

/// X's access address and size, and its exception.
struct XExcept {
    base: Value,
    size: Value,
    xcpt: Value,
    cause: Value,
    tval: Value,
}

/// X's issue control: when the instruction leaves the stage, and the block's end.
struct XControl {
    alu_op: Value,
    cj: Value,
    go: Value,
    md_req: Bundle,
    smu_req: Bundle,
    vissue_now: Value,
    branch_done: Value,
    taken: Value,
    seg_k: Value,
    seg_last: Value,
    x_fire: Value,
    xcpt_fire: Value,
    abort: Value,
}

/// The ALU's result and write enable, and the vpc after X's instruction.
struct AluOut {
    out: Value,
    we: Value,
    next_pc: Value,
}

/// A vs write port: valid, register, data.
type Writer = (Value, Value, Value);

/// The VCMDQ command taken this cycle that matters past `commands`.
struct Command {
    vf: Value,
    value: Value,
}

/// Ports: `vcmd` (VCMDQ, in), `busy`, `imem_*`/`dmem_*` (I$ refill and SMU memory),
/// `vissue`, `vresp`, `vbranch`, `vidle`, `vcfg`, `halt`, `xcpt`, `trace`, `vstop` (a
/// block's vstop executed: the VRU's acknowledgement).
pub fn scalar_unit(p: &HwachaParams, ram: RamWindow) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaScalar");
    let vb = vlen_bits(p);
    let io = ports(&mut m, p);
    let vidle = io.vidle.clone();
    let k = |v: u64, w: u32| vidle.konst(Bits::from_u64(w, v));
    let c = Consts {
        k: &k,
        one: k(1, 1),
        zero: k(0, 1),
    };
    let blocks = blocks(&mut m, p, &io, &c.zero)?;
    let arch = arch_state(&mut m, vb, c.k);
    let f = fetch_regs(&mut m);
    let x_issued = m.reg("x_issued", 1, false);
    let u = Unit {
        io,
        blocks,
        arch,
        f,
        x_issued,
    };

    let x = x_operands(&mut m, c.k, &u);
    let xe = x_exceptions(&c, ram, &u, &x);
    let ctl = x_control(&mut m, &c, &u, &x, &xe);
    let alu = alu_stage(c.k, &u, &x, &ctl);
    dispatch_units(&mut m, &c, &u, &x, &xe, &ctl);
    dispatch_vissue(&mut m, &c, &u, &x, &xe, &ctl);
    let writers = writeback(&mut m, &c, &u, &x, &ctl, &alu);
    let cmd = commands(&mut m, c.k, &u, &writers);
    let fo = fetch(&mut m, &c, ram, &u, &ctl, &alu.next_pc, &cmd.vf);
    refill_slots(&mut m, c.k, &u, &fo, &ctl.x_fire);
    block_control(&mut m, &c, &u, &x, &xe, &ctl, &cmd);
    m.finish()
}

/// The ports, in the order of the module's port list.
fn ports(m: &mut ModuleBuilder, p: &HwachaParams) -> Ports {
    Ports {
        cmd: m.io("vcmd", Dir::In, &Shape::decoupled(vcmd_entry(p))),
        busy: m.output("busy", 1),
        imem_req: m.io("imem_req", Dir::Out, &mem_request(0)),
        imem_resp: m.io("imem_resp", Dir::In, &mem_response(0)),
        dmem_req: m.io("dmem_req", Dir::Out, &mem_request(0)),
        dmem_resp: m.io("dmem_resp", Dir::In, &mem_response(0)),
        vissue: m.io("vissue", Dir::Out, &vissue_shape(p)),
        vresp: m.io("vresp", Dir::In, &reg_write()),
        vbranch: m.io("vbranch", Dir::In, &vbranch_shape()),
        vidle: m.input("vidle", 1),
        halt: m.input("halt", 1),
        vcfg: m.io("vcfg", Dir::Out, &vcfg_shape()),
        xcpt: m.io("xcpt", Dir::Out, &xcpt_shape()),
        trace: m.io("trace", Dir::Out, &trace_shape()),
        vstop: m.output("vstop", 1),
    }
}

/// Blocks: the vector I$, the MulDiv, the SMU, with their memory ports.
fn blocks(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &Ports,
    zero: &Value,
) -> Result<Blocks, HdlErrors> {
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
                posted_writes: false,
            },
        )?,
    );
    m.connect_bundle(&io.imem_req, &icache.io("mem_req"));
    m.connect_bundle(&icache.io("mem_resp"), &io.imem_resp);
    // Worker code is not written while blocks run (the control thread writes a block
    // before its vf), so the I$ is never invalidated.
    m.connect(&icache.port("invalidate"), zero);
    let md = m.instance(
        "muldiv",
        &muldiv(&MulDivParams {
            mul: MulKind::Pipelined,
            mul_bits_per_cycle: 1,
            mul_early_out: false,
            mul_stages: p.stages_imul,
            div_bits_per_cycle: p.idiv_bits_per_cycle,
            div_early_out: false,
            adders: Style::Inferred,
            registered_result: false,
        })?,
    );
    let smu = m.instance("smu", &smu()?);
    m.connect_bundle(&io.dmem_req, &smu.io("mem_req"));
    m.connect_bundle(&smu.io("mem_resp"), &io.dmem_resp);
    Ok(Blocks { icache, md, smu })
}

/// Architectural state: vs1-63 (vs0 reads 0), va0-31, the block's vcfg and vlen, and
/// the scoreboard's registers.
fn arch_state(m: &mut ModuleBuilder, vb: u32, k: K) -> ArchState {
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
    ArchState {
        vs_file,
        va_file,
        vcfg,
        vlen,
        running,
        scoreboard,
        store_regs,
        md_busy,
        md_rd,
        zero64,
    }
}

/// X: decode and operands, and the scoreboard check.
fn x_operands(m: &mut ModuleBuilder, k: K, u: &Unit) -> XOperands {
    let (arch, ir) = (&u.arch, &u.f.d_slot.bits);
    let cfg = Config {
        vv64: arch.vcfg.slice(8, 0).zext(10),
        vv32: arch.vcfg.slice(22, 14).zext(10),
        vv16: arch.vcfg.slice(31, 23).zext(10),
        vp: arch.vcfg.slice(13, 9).zext(10),
    };
    let d = decode(ir, &cfg);
    let (rd, rs1, rs2, rs3) = (
        ir.slice(21, 16),
        ir.slice(29, 24),
        ir.slice(38, 33),
        ir.slice(46, 41),
    );
    let (v1, v2, v3) = (
        arch.read_vs(m, k, &rs1),
        arch.read_vs(m, k, &rs2),
        arch.read_vs(m, k, &rs3),
    );
    let (a1, a2) = (
        m.read(&arch.va_file, &ir.slice(28, 24)),
        m.read(&arch.va_file, &ir.slice(37, 33)),
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
    let hazard = &(&(&src_mask | &dst_mask) & &arch.scoreboard).or_r()
        | &(&dst_mask & &arch.store_regs).or_r();
    let smu_busy = u.blocks.smu.port("busy");
    let drained = &!&arch.scoreboard.or_r() & &!&smu_busy;
    XOperands {
        d,
        rd,
        rs2,
        v1,
        v2,
        v3,
        a1,
        a2,
        smem_store,
        src_mask,
        dst_mask,
        hazard,
        smu_busy,
        drained,
    }
}

/// Exceptions of X, in the golden model's order: fetch, legality, the access checks.
fn x_exceptions(c: &Consts, ram: RamWindow, u: &Unit, x: &XOperands) -> XExcept {
    let (k, d) = (c.k, &x.d);
    let (ir, ir_pc, ir_fault) = (&u.f.d_slot.bits, &u.f.d_slot.pc, &u.f.d_slot.fault);
    let base = mux(&d.amode, &x.a1, &x.v1);
    let size = d.size.clone();
    let bytes_m1 = &k(1, 64).dshl(&size) - &k(1, 64);
    let misaligned = (&base & &bytes_m1).or_r();
    let len = (&d.seglen.zext(64) + &k(1, 64)).dshl(&size);
    let off = &base - &k(ram.base, 64);
    let end = k(ram.base.wrapping_add(ram.size), 64);
    let base_in = off.lt(&k(ram.size, 64));
    let all_in = &base_in & &(&k(ram.size, 64) - &off).ge(&len);
    let load_store = |load: u64, store: u64| mux(&d.load, &k(load, 4), &k(store, 4));
    let (xcpt, cause, tval) = {
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
        let any = cases.iter().fold(c.zero.clone(), |a, (c, _, _)| &a | c);
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
    XExcept {
        base,
        size,
        xcpt,
        cause,
        tval,
    }
}

/// X: what the instruction needs to leave the stage, and the block's end.
fn x_control(m: &mut ModuleBuilder, c: &Consts, u: &Unit, x: &XOperands, xe: &XExcept) -> XControl {
    let (d, io, x_issued) = (&x.d, &u.io, &u.x_issued);
    let ir_valid = &u.f.d_slot.valid;
    let alu_op = &(&d.alu | &d.lui) | &d.auipc;
    let cj = &d.cjal | &d.cjalr;
    let local = [&alu_op, &d.muldiv, &d.smem, &d.stop, &d.fence, &cj]
        .into_iter()
        .fold(c.zero.clone(), |a, b| &a | b);
    let issue = !&local;
    let go = &(&(ir_valid & &!&xe.xcpt) & &!&x.hazard) & &!&io.halt;
    let md_req = u.blocks.md.io("req");
    let smu_req = u.blocks.smu.io("req");
    let vissue_now = &go & &(&issue | &(&cj & &!x_issued));
    let branch_done = &(&(&go & &cj) & x_issued) & io.vbranch.valid();
    let taken = &branch_done & io.vbranch.bits().get("taken").value();
    // A segment access of n registers goes to the vector side as n accesses of one, part
    // k moving register rd + k at k element widths past the base; a unit-stride one
    // becomes strided by the whole segment (rd + k keeps the model's register order and
    // lets the decode give each part its register's width).
    let seg_k = m.reg("seg_k", 3, 0u64);
    let seg_last = seg_k.eq(&d.seglen);
    let x_fire = &go
        & &priority_mux(
            &[
                (alu_op.clone(), c.one.clone()),
                (d.muldiv.clone(), md_req.ready() & &!&u.arch.md_busy),
                (d.smem.clone(), smu_req.ready().clone()),
                (d.stop.clone(), x.drained.clone()),
                (d.fence.clone(), &x.drained & &io.vidle),
                (cj.clone(), branch_done.clone()),
            ],
            &(io.vissue.ready() & &seg_last),
        );
    let xcpt_fire = &(&(ir_valid & &xe.xcpt) & &x.drained) & &!&io.halt;
    // The block ends at an exception, its own or (`halt`) one elsewhere in the unit.
    let abort = &xcpt_fire | &io.halt;
    XControl {
        alu_op,
        cj,
        go,
        md_req,
        smu_req,
        vissue_now,
        branch_done,
        taken,
        seg_k,
        seg_last,
        x_fire,
        xcpt_fire,
        abort,
    }
}

/// The ALU: scalar int/imm ops, vlui/vauipc (immediate in the upper 32 bits), links;
/// and the target of a consensual jump.
fn alu_stage(k: K, u: &Unit, x: &XOperands, ctl: &XControl) -> AluOut {
    let (d, ir, ir_pc) = (&x.d, &u.f.d_slot.bits, &u.f.d_slot.pc);
    let imm = ir.slice(63, 32).as_signed().sext(64).as_unsigned();
    let upper = imm.shl(32);
    let a = priority_mux(
        &[(d.lui.clone(), k(0, 64)), (d.auipc.clone(), ir_pc.clone())],
        &x.v1,
    );
    let b = priority_mux(
        &[
            (d.imm.clone(), imm.clone()),
            (d.shamt.clone(), ir.slice(37, 32).zext(64)),
            (&d.lui | &d.auipc, upper),
        ],
        &x.v2,
    );
    let fn_ = mux(&ctl.alu_op, &d.alu_fn, &k(alu_fn::ADD, alu_fn::WIDTH));
    let link = ir_pc + &k(8, 64);
    let out = mux(&ctl.cj, &link, &alu(Style::Prefix, &fn_, &a, &b, &d.word));
    let we = &(&ctl.x_fire & &ctl.alu_op) | &ctl.taken;
    let cj_base = mux(&d.cjal, ir_pc, &x.v1);
    let cj_off = ir.slice(63, 35).as_signed().sext(64).as_unsigned().shl(3);
    let target = &(&cj_base + &cj_off) & &k(!7, 64);
    let next_pc = mux(&ctl.taken, &target, &link);
    AluOut { out, we, next_pc }
}

/// Dispatch to the MulDiv and the SMU (with the SMU's store-data read of vs).
fn dispatch_units(
    m: &mut ModuleBuilder,
    c: &Consts,
    u: &Unit,
    x: &XOperands,
    xe: &XExcept,
    ctl: &XControl,
) {
    let (d, ir, md, smu) = (&x.d, &u.f.d_slot.bits, &u.blocks.md, &u.blocks.smu);
    let (md_req, smu_req) = (&ctl.md_req, &ctl.smu_req);
    m.connect(
        md_req.valid(),
        &(&(&ctl.go & &d.muldiv) & &!&u.arch.md_busy),
    );
    let mb = md_req.bits();
    m.connect(mb.get("funct3").value(), &ir.slice(52, 50));
    m.connect(mb.get("word").value(), &d.word);
    m.connect(mb.get("in1").value(), &x.v1);
    m.connect(mb.get("in2").value(), &x.v2);
    m.connect(&md.port("kill"), &c.zero);
    m.connect(md.io("resp").ready(), &c.one);
    m.connect(smu_req.valid(), &(&ctl.go & &d.smem));
    let sb = smu_req.bits();
    m.connect(sb.get("load").value(), &d.load);
    m.connect(sb.get("unsigned").value(), &d.unsigned);
    m.connect(sb.get("size").value(), &xe.size);
    m.connect(sb.get("seglen").value(), &d.seglen);
    m.connect(sb.get("reg").value(), &mux(&d.load, &x.rd, &x.rs2));
    m.connect(sb.get("addr").value(), &xe.base);
    let sdata = u.arch.read_vs(m, c.k, &smu.port("sreg"));
    m.connect(&smu.port("sdata"), &sdata);
}

/// Dispatch to the vector-issue port: the instruction with its operand values, a
/// segment access split into its one-register parts.
fn dispatch_vissue(
    m: &mut ModuleBuilder,
    c: &Consts,
    u: &Unit,
    x: &XOperands,
    xe: &XExcept,
    ctl: &XControl,
) {
    let (k, d, size) = (c.k, &x.d, &xe.size);
    let (ir, ir_pc) = (&u.f.d_slot.bits, &u.f.d_slot.pc);
    let (vissue, halt, seg_k) = (&u.io.vissue, &u.io.halt, &ctl.seg_k);
    m.connect(vissue.valid(), &ctl.vissue_now);
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
    let seg_offset = part.zext(64).dshl(size);
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
    let seg_bytes = (&d.seglen.zext(64) + &k(1, 64)).dshl(size);
    let (s1, a1_part) = (only(&d.rs_shared[0], &x.v1), only(&d.has_ars1, &x.a1));
    for (name, v) in [
        ("bits", mux(&segmented, &part_bits, ir)),
        ("pc", ir_pc.clone()),
        // An indexed segment's base is a shared register.
        ("s1", mux(&d.has_ars1, &s1, &(&s1 + &seg_offset))),
        ("s2", only(&d.rs_shared[1], &x.v2)),
        ("s3", only(&d.rs_shared[2], &x.v3)),
        ("a1", &a1_part + &seg_offset),
        ("a2", mux(&unit_seg, &seg_bytes, &only(&d.has_ars2, &x.a2))),
    ] {
        m.connect(vi.get(name).value(), &v);
    }
    m.when(&vissue.fire(), |m| {
        m.connect(seg_k, &mux(&ctl.seg_last, &k(0, 3), &(seg_k + &k(1, 3))))
    });
    m.when(halt, |m| m.connect(seg_k, &k(0, 3)));
    m.connect(vi.get("vlen").value(), &u.arch.vlen);
    m.when(&vissue.fire(), |m| m.connect(&u.x_issued, &ctl.cj));
    m.when(&(&ctl.branch_done | halt), |m| {
        m.connect(&u.x_issued, &c.zero)
    });
}

/// W: register writes (their trace) and the scoreboard; returns the vs write ports
/// (ALU, MulDiv, SMU, `vresp`).
fn writeback(
    m: &mut ModuleBuilder,
    c: &Consts,
    u: &Unit,
    x: &XOperands,
    ctl: &XControl,
    alu: &AluOut,
) -> [Writer; 4] {
    let (k, d, arch, md) = (c.k, &x.d, &u.arch, &u.blocks.md);
    let (vresp, scoreboard, store_regs) = (&u.io.vresp, &arch.scoreboard, &arch.store_regs);
    let md_resp = md.io("resp");
    let smu_wb = u.blocks.smu.io("wb");
    let writers = [
        (alu.we.clone(), x.rd.clone(), alu.out.clone()),
        (
            md_resp.valid().clone(),
            arch.md_rd.clone(),
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
        let t = u.io.trace.get(name);
        m.connect(t.valid(), valid);
        m.connect(t.bits().get("rd").value(), r);
        m.connect(t.bits().get("data").value(), data);
    }
    let clear = writers[1..].iter().fold(k(0, 64), |acc, (v, r, _)| {
        &acc | &(&v.repeat(64) & &onehot_decode(r, 64))
    });
    let sets_rd = &(&ctl.x_fire & &d.rd_shared) & &!&ctl.alu_op & &!&ctl.cj;
    let set = &sets_rd.repeat(64) & &x.dst_mask;
    m.connect(scoreboard, &(&(scoreboard & &!&clear) | &set));
    m.when(md.io("resp").valid(), |m| m.connect(&arch.md_busy, &c.zero));
    m.when(&ctl.md_req.fire(), |m| {
        m.connect(&arch.md_rd, &x.rd);
        m.connect(&arch.md_busy, &c.one);
    });
    m.when(&!&x.smu_busy, |m| m.connect(store_regs, &k(0, 64)));
    m.when(&ctl.smu_req.fire(), |m| {
        m.connect(store_regs, &(&x.smem_store.repeat(64) & &x.src_mask))
    });
    writers
}

/// VCMDQ commands, taken while no block runs, and the register-file write ports.
fn commands(m: &mut ModuleBuilder, k: K, u: &Unit, writers: &[Writer; 4]) -> Command {
    let (cmd, halt, arch) = (&u.io.cmd, &u.io.halt, &u.arch);
    let c = cmd.bits();
    let c_kind = c.get("cmd").value().clone();
    let c_value = c.get("value").value().clone();
    let c_reg = c.get("reg").value().clone();
    let is_cfg = c_kind.eq(&k(vcmd::CFG, 2));
    m.connect(cmd.ready(), &(&!&arch.running & &(&!&is_cfg | &u.io.vidle)));
    let take = |kind: u64| &cmd.fire() & &c_kind.eq(&k(kind, 2));
    // While halted, vmcs, vmca and vf are dropped (the golden model's imprecise mode);
    // configurations still apply, so the vector side keeps the RoCC unit's.
    let live = |kind: u64| &take(kind) & &!halt;
    let (vmcs, vmca, vf, cfg_fire) = (
        live(vcmd::VMCS),
        live(vcmd::VMCA),
        live(vcmd::VF),
        take(vcmd::CFG),
    );
    m.connect(u.io.vcfg.valid(), &cfg_fire);
    m.connect(u.io.vcfg.bits().get("vcfg").value(), &c_value.slice(31, 0));
    m.when(&cfg_fire, |m| m.connect(&arch.vcfg, &c_value.slice(31, 0)));
    // One write port per writer; the scoreboard keeps two of them from writing one
    // register in a cycle (vmcs comes only while no block runs).
    for (v, idx, data) in writers {
        m.when(v, |m| m.write(&arch.vs_file, idx, data));
    }
    m.when(&vmcs, |m| m.write(&arch.vs_file, &c_reg, &c_value));
    m.when(&vmca, |m| {
        m.write(&arch.va_file, &c_reg.slice(4, 0), &c_value)
    });
    Command { vf, value: c_value }
}

/// Block start and end (`vf`, vstop, exceptions), the exception port and `busy`.
fn block_control(
    m: &mut ModuleBuilder,
    c: &Consts,
    u: &Unit,
    x: &XOperands,
    xe: &XExcept,
    ctl: &XControl,
    cmd: &Command,
) {
    let (io, running) = (&u.io, &u.arch.running);
    m.when(&cmd.vf, |m| {
        m.connect(running, &c.one);
        m.connect(&u.f.pc, &cmd.value);
        m.connect(&u.arch.vlen, io.cmd.bits().get("vlen").value());
    });
    let stop = &ctl.x_fire & &x.d.stop;
    m.when(&stop, |m| m.connect(running, &c.zero));
    m.connect(&io.vstop, &stop);
    m.when(&ctl.abort, |m| {
        m.connect(running, &c.zero);
        m.connect(&u.f.d_slot.valid, &c.zero);
        m.connect(&u.f.fb.valid, &c.zero);
    });
    m.connect(io.xcpt.valid(), &ctl.xcpt_fire);
    m.connect(io.xcpt.bits().get("cause").value(), &xe.cause);
    m.connect(io.xcpt.bits().get("tval").value(), &xe.tval);
    m.connect(&io.busy, &(running | &!&io.vidle));
}
