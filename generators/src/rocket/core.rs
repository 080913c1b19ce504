//! `RocketCore`: the five-stage in-order pipeline.
//!
//! - IF: a three-entry fetch queue fed by up to two outstanding I-side requests; after a
//!   redirect the responses still in flight are dropped. Fetch predicts fall-through,
//!   or follows the BTB (`bpred.rs`) looked up with the pc it requests (`fetch.rs`).
//! - ID (the queue's head): with the BHT, jal and predicted-taken branches redirect
//!   fetch from here; decode, register read
//!   with bypasses from EX, MEM and WB, an interlock on EX's results not yet available
//!   (a load's, a CSR read's, multiply/divide until it leaves EX); a result MEM makes
//!   (loads, CSR reads, AMOs, RoCC responses) is taken late, in EX
//!   (`late_operands.rs`).
//! - EX: ALU, branch and jump resolution (a mispredicted one redirects fetch the next
//!   cycle, from MEM, and squashes ID and EX),
//!   address generation with the misaligned and access-fault checks of the memory map,
//!   a load's D$ request (with the D$; killed the next cycle if the load does not enter
//!   MEM or faults),
//!   multiply/divide through the `muldiv_*` ports (EX waits for the result).
//! - MEM: the oldest unretired instruction, so nothing here is speculative: exceptions
//!   trap here (younger instructions squashed), an accelerator's exception traps before
//!   the instruction here (`bus::rocc_exception`), CSRs, data accesses (a load EX
//!   requested waits here for its data; stores to cacheable addresses complete as the
//!   D$ takes them; AMOs as a read then a write), LR/SC, fences, and RoCC commands.
//! - WB: register write and the commit trace.
//!
//! ID decodes once; EX and MEM hold the decoded control in registers (`Ctrl::registers`)
//! beside the instruction word, which keeps the decoder off their paths.
//!
//! `core` assembles the stages from one function per block: IF is in `fetch.rs`, MEM in
//! `mem_stage.rs`, ID, EX and WB here.

use super::alu::{alu, branch_taken, sum_equals};
use super::bpred::{Bht, Btb, Resolution};
use super::bus::{
    mem_request, mem_response, muldiv_request, muldiv_response, rocc_command, rocc_exception,
    rocc_response,
};
use super::csr::{CsrAccess, CsrFile};
use super::decode::{decode, Ctrl};
use super::fetch::{fetch, Fetch};
use super::late_operands::Late;
use super::mem_stage::{commit, csr_access, fences, mem_access, mem_advance, rocc_port, MemAccess};
use super::params::{MemoryKind, Predictor, RocketParams};
use super::trace::trace_shape;
use crate::arith::adder::Style as AdderStyle;
use hdl::helpers::priority_mux;
use hdl::{
    mux, Bits, Bundle, Dir, HdlErrors, Mem, MemStyle, Module, ModuleBuilder, ResetValue, Value,
};
use std::rc::Rc;

/// Where execution starts (the reset ROM).
pub const RESET_VECTOR: u64 = 0x1000;
/// The reset ROM's size in bytes.
pub const ROM_SIZE: u64 = 32;

pub(super) mod cause {
    pub const INSN_MISALIGNED: u64 = 0;
    pub const INSN_ACCESS_FAULT: u64 = 1;
    pub const ILLEGAL_INSN: u64 = 2;
    pub const BREAKPOINT: u64 = 3;
    pub const LOAD_MISALIGNED: u64 = 4;
    pub const LOAD_ACCESS_FAULT: u64 = 5;
    pub const STORE_MISALIGNED: u64 = 6;
    pub const STORE_ACCESS_FAULT: u64 = 7;
    pub const ECALL_M: u64 = 11;
}

/// The predictors the configuration has, trained from EX's resolution a cycle later.
pub(super) struct Predictors {
    pub btb: Option<Btb>,
    pub bht: Option<Bht>,
}

/// A pipeline register holding one instruction and its pending exception: `valid` and
/// `exc` have a reset, the instruction's data (pc, word, cause, tval) is only observed
/// under `valid` and has none.
pub(super) struct Stage {
    pub valid: Value,
    pub pc: Value,
    pub insn: Value,
    pub exc: Value,
    pub cause: Value,
    pub tval: Value,
}

impl Stage {
    /// The stage's registers, pc and tval `xlen` bits wide.
    pub(super) fn new(m: &mut ModuleBuilder, name: &str, xlen: u32) -> Stage {
        Stage {
            valid: m.reg(&format!("{name}_valid"), 1, false),
            pc: m.reg(&format!("{name}_pc"), xlen, ResetValue::None),
            insn: m.reg(&format!("{name}_insn"), 32, ResetValue::None),
            exc: m.reg(&format!("{name}_exc"), 1, false),
            cause: m.reg(&format!("{name}_cause"), 4, ResetValue::None),
            tval: m.reg(&format!("{name}_tval"), xlen, ResetValue::None),
        }
    }

    /// Loads the instruction of `from` with exception state (`exc`, `cause`, `tval`).
    pub(super) fn load(
        &self,
        m: &mut ModuleBuilder,
        pc: &Value,
        insn: &Value,
        exc: (&Value, &Value, &Value),
    ) {
        m.connect(&self.pc, pc);
        m.connect(&self.insn, insn);
        m.connect(&self.exc, exc.0);
        m.connect(&self.cause, exc.1);
        m.connect(&self.tval, exc.2);
    }
}

pub(super) fn k(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// `v` (at most 64 bits) sign-extended to 64 bits: an RV32 register value as the ISS
/// and the 64-bit ports (trace, RoCC, multiply/divide) hold it.
pub(super) fn sext64(v: &Value) -> Value {
    v.as_signed().sext(64).as_unsigned()
}

/// `prior` if it holds, else an exception if any of `checks` holds, with `cause` and
/// `tval`: the stage's, chosen by the instruction's kind (each kind raises one, or one of
/// two told apart by an early check), not by the checks, which keeps the late checks
/// (the memory map's, on an address's upper bits) off all but the exception bit.
fn first_exception(
    prior: (Value, Value, Value),
    checks: &[Value],
    (cause, tval): (&Value, &Value),
) -> (Value, Value, Value) {
    let (exc, prior_cause, prior_tval) = prior;
    (
        checks.iter().fold(exc.clone(), |acc, c| &acc | c),
        mux(&exc, &prior_cause, cause),
        mux(&exc, &prior_tval, tval),
    )
}

/// The core's ports (shapes in `bus.rs` and `trace.rs`).
pub(super) struct Ports {
    pub(super) imem_req: Bundle,
    pub(super) imem_resp: Bundle,
    pub(super) dmem_req: Bundle,
    pub(super) dmem_resp: Bundle,
    pub(super) md_req: Bundle,
    pub(super) md_resp: Bundle,
    pub(super) md_kill: Value,
    pub(super) icache_inv: Value,
    pub(super) dcache_inv: Value,
    pub(super) rocc_cmd: Bundle,
    pub(super) rocc_resp: Bundle,
    pub(super) rocc_busy: Value,
    pub(super) rocc_xcpt: Bundle,
    pub(super) trace: Bundle,
    /// The FPU's request, response and kill (`fpu.rs`), with the F extension.
    pub(super) fpu: Option<(Bundle, Bundle, Value)>,
    /// With the D$ (`memory = "cache"`): its posted writes have not all reached memory
    /// (`cache.rs`). Its presence makes cacheable stores complete as the D$ takes them,
    /// and loads request from EX.
    pub(super) dcache_pending: Option<Value>,
    /// With the D$: cancels the lookup of the load request EX sent the cycle before.
    pub(super) dcache_kill: Option<Value>,
}

impl Ports {
    fn new(m: &mut ModuleBuilder, fpu: bool, dcache: bool) -> Ports {
        Ports {
            imem_req: m.io("imem_req", Dir::Out, &mem_request(0)),
            imem_resp: m.io("imem_resp", Dir::In, &mem_response(0)),
            dmem_req: m.io("dmem_req", Dir::Out, &mem_request(0)),
            dmem_resp: m.io("dmem_resp", Dir::In, &mem_response(0)),
            md_req: m.io("muldiv_req", Dir::Out, &muldiv_request()),
            md_resp: m.io("muldiv_resp", Dir::In, &muldiv_response()),
            md_kill: m.output("muldiv_kill", 1),
            icache_inv: m.output("icache_invalidate", 1),
            dcache_inv: m.output("dcache_invalidate", 1),
            rocc_cmd: m.io("rocc_cmd", Dir::Out, &rocc_command()),
            rocc_resp: m.io("rocc_resp", Dir::In, &rocc_response()),
            rocc_busy: m.input("rocc_busy", 1),
            rocc_xcpt: m.io("rocc_xcpt", Dir::In, &rocc_exception()),
            trace: m.io("trace", Dir::Out, &trace_shape()),
            fpu: fpu.then(|| {
                (
                    m.io("fpu_req", Dir::Out, &super::fpu::request()),
                    m.io("fpu_resp", Dir::In, &super::fpu::response()),
                    m.output("fpu_kill", 1),
                )
            }),
            dcache_pending: dcache.then(|| m.input("dcache_writes_pending", 1)),
            dcache_kill: dcache.then(|| m.output("dcache_kill", 1)),
        }
    }
}

/// The literals the stages share, the register width, and how their adders are built.
pub(super) struct Lits {
    pub zero1: Value,
    pub one1: Value,
    /// Zero as wide as the memory side's data (64 bits).
    pub zero64: Value,
    /// Zero and four as wide as a register (`xlen`).
    pub zero_x: Value,
    pub four: Value,
    /// The `xlen` parameter: 32 or 64.
    pub xlen: u32,
    /// The `adders` parameter: every sum and compare of the core's datapath.
    pub adders: AdderStyle,
}

impl Lits {
    fn new(m: &mut ModuleBuilder, xlen: u32, adders: AdderStyle) -> Lits {
        let (zero1, one1, zero64) = (m.lit(0, 1), m.lit(1, 1), m.lit(0, 64));
        let zero_x = if xlen == 64 {
            zero64.clone()
        } else {
            m.lit(0, xlen)
        };
        Lits {
            zero1,
            one1,
            zero64,
            zero_x,
            four: m.lit(4, xlen),
            xlen,
            adders,
        }
    }
}

/// Redirects (fetch restarts at the target; younger instructions are squashed): from MEM
/// (traps, mret, fence.i), from EX (mispredictions), and predicted-taken ones from decode
/// (the BHT's). The BTB's predictions steer the requests
/// themselves (`fetch.rs`) and squash nothing.
pub(super) struct Redirects {
    pub mem_redirect: Value,
    pub mem_target: Value,
    pub ex_redirect: Value,
    pub ex_target: Value,
    /// `mem_redirect | ex_redirect`.
    pub redirect: Value,
    pub id_redirect: Value,
    pub id_target: Value,
    pub any_redirect: Value,
    pub fetch_target: Value,
    /// fence.i in MEM holds fetch.
    pub fetch_hold: Value,
}

impl Redirects {
    fn new(m: &mut ModuleBuilder, xlen: u32) -> Redirects {
        // Redirects (fetch restarts at the target; younger instructions are squashed).
        let mem_redirect = m.wire("mem_redirect", 1);
        let mem_target = m.wire("mem_target", xlen);
        let ex_redirect = m.wire("ex_redirect", 1);
        let ex_target = m.wire("ex_target", xlen);
        let redirect = &mem_redirect | &ex_redirect;
        let target = mux(&mem_redirect, &mem_target, &ex_target);
        // Predicted-taken redirects from decode (BHT) or from an arriving instruction (BTB).
        let id_redirect = m.wire("id_redirect", 1);
        let id_target = m.wire("id_target", xlen);
        let any_redirect = &redirect | &id_redirect;
        let fetch_target = mux(&redirect, &target, &id_target);
        let fetch_hold = m.wire("fetch_hold", 1);
        Redirects {
            mem_redirect,
            mem_target,
            ex_redirect,
            ex_target,
            redirect,
            id_redirect,
            id_target,
            any_redirect,
            fetch_target,
            fetch_hold,
        }
    }
}

/// EX's pipeline registers: the instruction, its operands, the next pc fetch went on to
/// after it, and whether that pc is the instruction's `pc + imm` or its `pc + 4`
/// (compared in ID, where the prediction is known, so EX resolves a branch or jal by
/// picking one of the two bits with `taken`).
pub(super) struct ExRegs {
    pub(super) stage: Stage,
    /// The operands EX uses: its registers', or WB's value for a late one
    /// (`late_operands.rs`).
    pub(super) rs1: Value,
    pub(super) rs2: Value,
    /// The F extension's third operand.
    pub(super) rs3: Option<Value>,
    /// The operand registers (rs1, rs2, with the F extension rs3).
    pub(super) rs_q: Vec<Value>,
    pub(super) late: Late,
    pub(super) pred: Value,
    pub(super) pred_is_target: Value,
    pub(super) pred_is_link: Value,
}

/// MEM's pipeline registers: the instruction, EX's result, the data address and the
/// operands.
pub(super) struct MemRegs {
    pub(super) stage: Stage,
    pub(super) result: Value,
    /// The F extension: the flags the FPU raised.
    pub(super) fflags: Option<Value>,
    pub(super) addr: Value,
    /// The address is outside the uncached region: with the D$ a write to it is posted.
    pub(super) cached: Value,
    pub(super) rs1: Value,
    pub(super) rs2: Value,
}

/// WB's record: the register write and the commit trace's fields.
pub(super) struct WbRegs {
    pub(super) valid: Value,
    pub(super) pc: Value,
    pub(super) insn: Value,
    pub(super) rd: Value,
    pub(super) value: Value,
    pub(super) mem_addr: Value,
    pub(super) mem_data: Value,
    pub(super) mem_mask: Value,
}

/// The register file, the stage registers behind ID, and the CSRs.
pub(super) struct Regs {
    pub(super) rf: Mem,
    /// The F extension: which f registers have been written (`read_register`).
    pub(super) f_written: Option<Value>,
    pub(super) ex: ExRegs,
    pub(super) mem: MemRegs,
    pub(super) wb: WbRegs,
    pub(super) csrs: CsrFile,
    pub(super) mem_csr: CsrAccess,
}

/// What ID produces: the decoded control (with EX's and MEM's registers of it), the
/// operands after the bypasses, the interlock and the exceptions known at decode.
pub(super) struct Id {
    pub(super) ctrl: Ctrl,
    pub(super) ex_ctrl: Ctrl,
    pub(super) mem_ctrl: Ctrl,
    /// MEM's instruction writes a register other than x0.
    pub(super) mem_writes: Value,
    pub(super) rs1: Value,
    pub(super) rs2: Value,
    pub(super) rs3: Option<Value>,
    pub(super) hazard: Value,
    /// Per source: written by MEM's instruction with a result MEM makes, which EX takes
    /// late (`late_operands.rs`).
    pub(super) late: Vec<Value>,
    pub(super) exc: (Value, Value, Value),
    /// EX's result (driven by EX), bypassed to ID.
    pub(super) ex_result: Value,
}

/// What EX produces for its control, resolution and MEM.
pub(super) struct Ex {
    pub(super) go: Value,
    pub(super) mem_go: Value,
    pub(super) mem_free: Value,
    pub(super) flush: Value,
    pub(super) funct3: Value,
    pub(super) link: Value,
    pub(super) taken: Value,
    pub(super) jump_target: Value,
    pub(super) addr: Value,
    /// `addr` is outside the uncached region.
    pub(super) cached: Value,
    /// With the D$: EX's load requests its data, unless MEM uses the port
    /// (`mem_stage::mem_access`), before it is known whether the load advances or
    /// faults: a request that turns out not to enter MEM with the load is killed.
    pub(super) load_request: Value,
    pub(super) exc: (Value, Value, Value),
}

/// `rocc`: an accelerator is attached (else custom-0..3 are illegal instructions).
pub fn core(p: &RocketParams, rocc: bool) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RocketCore");
    let ports = Ports::new(&mut m, p.fpu, p.memory == MemoryKind::Cache);
    let lits = Lits::new(&mut m, p.xlen, p.adders);
    let redirects = Redirects::new(&mut m, p.xlen);

    // ---- IF: fetch queue -------------------------------------------------------------
    let Fetch {
        q,
        q_pred,
        outstanding,
        id_go,
        mut predictors,
    } = fetch(
        &mut m,
        p,
        &ports.imem_req,
        &ports.imem_resp,
        &lits,
        &redirects,
    );

    let regs = stage_registers(&mut m, p.xlen, p.fpu);

    // ---- ID ----------------------------------------------------------------------------
    let id = decode_stage(&mut m, rocc, &q[0], &regs, &lits);

    // ---- EX ----------------------------------------------------------------------------
    let ex = execute(&mut m, p, &regs, &id, &ports, &lits, &redirects);
    let fp_ready = fpu_port(&mut m, &regs, &id.ex_ctrl, &ex, &ports);
    muldiv_port(&mut m, &ports, &regs.ex, &id.ex_ctrl, &ex, &lits, fp_ready);
    // The decode-stage BHT exists before `resolve` trains it (`issue` predicts with it).
    if p.predictor == Predictor::Bht {
        predictors.bht = Some(Bht::new(&mut m, p.bht_entries));
    }
    resolve(&mut m, &regs.ex, &id.ex_ctrl, &ex, &redirects, &predictors);
    let ex_free = &!&regs.ex.stage.valid | &ex.go;
    let late = &regs.ex.late;
    late.update(&mut m, &regs.ex, &regs.wb, &id, (&ex_free, &ex.mem_go));
    issue(
        &mut m,
        p,
        (&q[0], &q_pred[0], &id_go),
        &id,
        &ex,
        &regs.ex,
        &lits,
        &redirects,
        &predictors,
    );

    // ---- MEM ---------------------------------------------------------------------------
    let acc = mem_access(&mut m, &ports, &regs.mem, &id.mem_ctrl, &ex, &lits);
    let (csr_read, csr_new, csr_illegal, rs1_field) = csr_access(&mut m, &regs, &id.mem_ctrl, &acc);
    let rocc_done = rocc_port(
        &mut m,
        &ports,
        &regs.mem,
        &id.mem_ctrl,
        &acc,
        &rs1_field,
        &lits,
    );
    let fence = fences(&mut m, &ports, &id.mem_ctrl, &acc, &outstanding, &redirects);
    let mem_done = commit(
        &mut m,
        &ports,
        &regs,
        &id.mem_ctrl,
        &acc,
        (&csr_new, &csr_illegal),
        (rocc_done, fence),
        &ex.mem_go,
        &lits,
        &redirects,
    );
    let result = mem_advance(&mut m, &ports, &regs, &id, &ex, &acc, &csr_read);

    // ---- WB ----------------------------------------------------------------------------
    writeback(
        &mut m,
        &ports,
        &regs,
        &id,
        &acc,
        (&mem_done, &result),
        &lits,
    );
    m.finish()
}

/// The register file and the EX, MEM and WB pipeline registers, then the CSR file and
/// MEM's decoded CSR access.
fn stage_registers(m: &mut ModuleBuilder, xlen: u32, fpu: bool) -> Regs {
    // ---- register file -----------------------------------------------------------------
    // x1..x31 are words 1..31 of an inferred 32 x xlen memory, read combinationally twice
    // in decode and written once in WB, so FPGA flows map it to LUT RAM and ASIC
    // synthesis to a flop array with a balanced read tree; word 0 is never written, and
    // x0 reads as zero outside it. Like any architectural register, its contents are
    // arbitrary until written (no reset).
    // With the F extension f0..f31 are words 32..63.
    let rf = m.mem("rf", if fpu { 64 } else { 32 }, xlen, MemStyle::Inferred);

    // ---- stage registers ---------------------------------------------------------------
    // Operands, results, addresses and WB's record are only observed under their stage's
    // valid bit (WB's: `wb_valid`): no reset.
    let ex_stage = Stage::new(m, "ex", xlen);
    let rs_q: Vec<Value> = (1..=2 + fpu as usize)
        .map(|i| m.reg(&format!("ex_rs{i}"), xlen, ResetValue::None))
        .collect();
    let late = Late::new(m, rs_q.len());
    let mem = MemRegs {
        stage: Stage::new(m, "mem", xlen),
        result: m.reg("mem_result", xlen, ResetValue::None),
        fflags: fpu.then(|| m.reg("mem_fflags", 5, ResetValue::None)),
        addr: m.reg("mem_addr", xlen, ResetValue::None),
        cached: m.reg("mem_cached", 1, ResetValue::None),
        rs1: m.reg("mem_rs1", xlen, ResetValue::None),
        rs2: m.reg("mem_rs2", xlen, ResetValue::None),
    };
    let wb = WbRegs {
        valid: m.reg("wb_valid", 1, false),
        pc: m.reg("wb_pc", xlen, ResetValue::None),
        insn: m.reg("wb_insn", 32, ResetValue::None),
        rd: m.reg("wb_rd", 5 + fpu as u32, ResetValue::None),
        value: m.reg("wb_value", xlen, ResetValue::None),
        mem_addr: m.reg("wb_mem_addr", 64, ResetValue::None),
        mem_data: m.reg("wb_mem_data", 64, ResetValue::None),
        mem_mask: m.reg("wb_mem_mask", 8, ResetValue::None),
    };
    let operand = |i: usize| late.operand(i, &rs_q[i], &wb);
    let ex = ExRegs {
        stage: ex_stage,
        rs1: operand(0),
        rs2: operand(1),
        rs3: fpu.then(|| operand(2)),
        // The next pc fetch went on to after this instruction.
        pred: m.reg("ex_pred", xlen, ResetValue::None),
        pred_is_target: m.reg("ex_pred_is_target", 1, ResetValue::None),
        pred_is_link: m.reg("ex_pred_is_link", 1, ResetValue::None),
        rs_q,
        late,
    };

    let csrs = CsrFile::new(m, xlen, fpu);
    let mem_csr = CsrAccess::registers(m, "mem_csr", xlen, fpu);
    Regs {
        rf,
        f_written: fpu.then(|| m.reg("f_written", 32, 0u64)),
        ex,
        mem,
        wb,
        csrs,
        mem_csr,
    }
}

/// The destination register field.
pub(super) fn rd_of(insn: &Value) -> Value {
    insn.slice(11, 7)
}

/// The register-file index of an instruction's destination: `rd`, or with the F
/// extension `{fp.wfd, rd}` (f registers are entries 32..63 of the register file).
pub(super) fn rd_index(insn: &Value, ctrl: &Ctrl) -> Value {
    match &ctrl.fp {
        Some(fp) => fp.wfd.cat(&rd_of(insn)),
        None => rd_of(insn),
    }
}

/// A source operand's register-file index, whether it is read, and (F extension) whether
/// it is read as raw bits.
struct Source<'a> {
    idx: Value,
    uses: &'a Value,
    raw: Option<&'a Value>,
}

/// The sources of ID's instruction: rs1 and rs2, with the F extension as f or x
/// registers, and rs3.
fn sources<'a>(insn: &Value, ctrl: &'a Ctrl, one: &Value) -> Vec<Source<'a>> {
    let (rs1, rs2) = (insn.slice(19, 15), insn.slice(24, 20));
    match &ctrl.fp {
        None => vec![
            Source {
                idx: rs1,
                uses: &ctrl.uses_rs1,
                raw: None,
            },
            Source {
                idx: rs2,
                uses: &ctrl.uses_rs2,
                raw: None,
            },
        ],
        Some(fp) => vec![
            Source {
                idx: fp.f1.cat(&rs1),
                uses: &ctrl.uses_rs1,
                raw: Some(&fp.raw1),
            },
            Source {
                idx: fp.f2.cat(&rs2),
                uses: &ctrl.uses_rs2,
                raw: Some(&fp.raw2),
            },
            Source {
                idx: one.cat(&insn.slice(31, 27)),
                uses: &fp.uses_rs3,
                raw: None,
            },
        ],
    }
}

/// The register file's value of entry `idx`; with the F extension an f register never
/// written reads as the canonical NaN, or as zero when read `raw` (the ISS's reads).
fn read_register(m: &mut ModuleBuilder, regs: &Regs, idx: &Value, raw: Option<&Value>) -> Value {
    let value = m.read(&regs.rf, idx);
    let Some(written) = &regs.f_written else {
        return value;
    };
    let unwritten = &idx.bit(5) & &!&written.dshr(&idx.slice(4, 0)).bit(0);
    let canonical = k(&value, CANONICAL_NAN, 32);
    let fill = match raw {
        Some(raw) => mux(raw, &k(&value, 0, 32), &canonical),
        None => canonical,
    };
    mux(&unwritten, &fill, &value)
}

/// The F extension's checks in ID (`ctrl.fp`): its instructions are illegal while
/// `mstatus.FS` is Off or with a bad rounding mode (5, 6, or 7 with `frm` above 4), and
/// wait while a CSR instruction is in EX or MEM, so that FS and `frm` are current.
/// Returns `(legal, hazard)`.
fn fp_checks(regs: &Regs, id: &Stage, d: (&Ctrl, &Ctrl, &Ctrl)) -> Option<(Value, Value)> {
    let (id_ctrl, ex_ctrl, mem_ctrl) = d;
    let (fp, enabled, fcsrs) = (
        id_ctrl.fp.as_ref()?,
        regs.csrs.fp_enabled()?,
        regs.csrs.fp.as_ref()?,
    );
    let rm = id.insn.slice(14, 12);
    let below5 = |v: &Value| v.lt(&k(v, 5, 3));
    let rm_ok = &(&!&fp.rm_used | &below5(&rm)) | &(&rm.eq(&k(&rm, 7, 3)) & &below5(&fcsrs.frm));
    let legal = &id_ctrl.legal & &!&(&fp.any & &!&(&enabled & &rm_ok));
    let (ex, mem) = (&regs.ex.stage, &regs.mem.stage);
    let csr_busy = &(&ex.valid & &ex_ctrl.csr) | &(&mem.valid & &mem_ctrl.csr);
    Some((legal, &fp.any & &csr_busy))
}

/// The canonical NaN of single precision.
const CANONICAL_NAN: u64 = 0x7fc0_0000;

/// ID (the fetch queue's head, `id`): decode, register read with bypasses from EX, MEM
/// and WB, an interlock on EX's results not yet available (loads, CSR reads, AMOs and
/// RoCC responses until they leave EX; multiply/divide and FPU operations until they
/// leave EX), the sources MEM's instruction will write taken late in EX, and the
/// exceptions known at decode.
fn decode_stage(m: &mut ModuleBuilder, rocc: bool, id: &Stage, regs: &Regs, l: &Lits) -> Id {
    let (ex, mem) = (&regs.ex.stage, &regs.mem.stage);
    let (wb_valid, wb_rd, wb_value) = (
        regs.wb.valid.clone(),
        regs.wb.rd.clone(),
        regs.wb.value.clone(),
    );
    let (zero1, zero_x) = (l.zero1.clone(), l.zero_x.clone());
    let id_ctrl = decode(&id.insn, rocc, l.xlen, regs.f_written.is_some());
    let ex_ctrl = id_ctrl.registers(m, "ex_ctrl");
    let mem_ctrl = id_ctrl.registers(m, "mem_ctrl");
    let writes = |valid: &Value, ctrl: &Ctrl, insn: &Value| {
        let rd = rd_index(insn, ctrl);
        &(valid & &ctrl.wxd) & &!&rd.eq(&k(insn, 0, rd.width()))
    };
    let ex_writes = writes(&ex.valid, &ex_ctrl, &ex.insn);
    let mem_writes = writes(&mem.valid, &mem_ctrl, &mem.insn);
    let ex_bypassable = match &ex_ctrl.fp {
        Some(fp) => &(&ex_ctrl.result_in_execute() & &!&ex_ctrl.muldiv) & &!&fp.unit_op,
        None => &ex_ctrl.result_in_execute() & &!&ex_ctrl.muldiv,
    };
    let mem_bypassable = mem_ctrl.result_in_execute();
    let ex_result = m.wire("ex_result", l.xlen);

    let mut hazard = zero1.clone();
    let (mut operands, mut late) = (vec![], vec![]);
    for src in sources(&id.insn, &id_ctrl, &l.one1) {
        let idx = src.idx;
        // x0 is never bypassed (WB shows rd 0 for instructions that write nothing).
        let nonzero = !&idx.eq(&k(&idx, 0, idx.width()));
        let matches =
            |w: &Value, insn: &Value, ctrl: &Ctrl| &(w & &rd_index(insn, ctrl).eq(&idx)) & &nonzero;
        let (in_ex, in_mem, in_wb) = (
            matches(&ex_writes, &ex.insn, &ex_ctrl),
            matches(&mem_writes, &mem.insn, &mem_ctrl),
            &(&wb_valid & &wb_rd.eq(&idx)) & &nonzero,
        );
        // MEM's own results are taken late, in EX; EX's wait in ID.
        late.push(&(&!&in_ex & &in_mem) & &!&mem_bypassable);
        hazard = &hazard | &(&(&(src.uses & &nonzero) & &in_ex) & &!&ex_bypassable);
        let file = read_register(m, regs, &idx, src.raw);
        operands.push(priority_mux(
            &[
                (in_ex, ex_result.clone()),
                (in_mem, regs.mem.result.clone()),
                (in_wb, wb_value.clone()),
            ],
            &mux(&nonzero, &file, &zero_x),
        ));
    }
    let legal = match fp_checks(regs, id, (&id_ctrl, &ex_ctrl, &mem_ctrl)) {
        Some((legal, wait)) => {
            hazard = &hazard | &wait;
            legal
        }
        None => id_ctrl.legal.clone(),
    };

    // Exceptions known at decode: fetch faults first, then illegal, ecall, ebreak.
    let illegal_bits = mux(
        &id.insn.slice(1, 0).eq(&k(&id.insn, 3, 2)),
        &id.insn.zext(l.xlen),
        &id.insn.slice(15, 0).zext(l.xlen),
    );
    let (illegal, ecall, ebreak) = (!&legal, &id_ctrl.ecall, &id_ctrl.ebreak);
    let id_exc = first_exception(
        (id.exc.clone(), id.cause.clone(), id.tval.clone()),
        &[illegal.clone(), ecall.clone(), ebreak.clone()],
        (
            &priority_mux(
                &[
                    (illegal.clone(), k(&id.cause, cause::ILLEGAL_INSN, 4)),
                    (ecall.clone(), k(&id.cause, cause::ECALL_M, 4)),
                ],
                &k(&id.cause, cause::BREAKPOINT, 4),
            ),
            &priority_mux(
                &[(illegal, illegal_bits), (ebreak.clone(), id.pc.clone())],
                &zero_x,
            ),
        ),
    );
    Id {
        ctrl: id_ctrl,
        ex_ctrl,
        mem_ctrl,
        mem_writes,
        rs1: operands[0].clone(),
        rs2: operands[1].clone(),
        rs3: operands.get(2).cloned(),
        hazard,
        late,
        exc: id_exc,
        ex_result,
    }
}

/// EX's datapath: ALU, branch and jump evaluation, address generation with the
/// misaligned and access-fault checks of the memory map.
fn execute(
    m: &mut ModuleBuilder,
    p: &RocketParams,
    regs: &Regs,
    id: &Id,
    ports: &Ports,
    l: &Lits,
    r: &Redirects,
) -> Ex {
    // Memory map: the reset ROM (readable, executable) and RAM.
    let in_rom = |a: &Value| in_region(a, RESET_VECTOR, ROM_SIZE);
    let in_ram = |a: &Value| in_region(a, p.ram_base, p.ram_size);
    let (ex, mem, ex_ctrl) = (&regs.ex.stage, &regs.mem.stage, &id.ex_ctrl);
    let (ex_rs1, ex_rs2) = (regs.ex.rs1.clone(), regs.ex.rs2.clone());
    let (zero1, zero_x, four) = (l.zero1.clone(), l.zero_x.clone(), l.four.clone());
    let ex_go = m.wire("ex_go", 1);
    let mem_go = m.wire("mem_go", 1);
    let mem_free = &!&mem.valid | &mem_go;
    let flush_ex = &r.mem_redirect | &r.ex_redirect;
    let imm = ex_ctrl.imm.clone();
    let a = priority_mux(
        &[
            (ex_ctrl.a_zero.clone(), zero_x.clone()),
            (ex_ctrl.a_pc.clone(), ex.pc.clone()),
        ],
        &ex_rs1,
    );
    let b = mux(&ex_ctrl.b_imm, &imm, &ex_rs2);
    let adders = l.adders;
    let alu_out = alu(adders, &ex_ctrl.alu_fn, &a, &b, &ex_ctrl.word);
    let link = adders.add(&ex.pc, &four);
    let funct3 = ex.insn.slice(14, 12);
    let taken = &(&ex_ctrl.jal | &ex_ctrl.jalr)
        | &(&ex_ctrl.branch & &branch_taken(adders, &funct3, &ex_rs1, &ex_rs2));
    let (rs1_plus_imm, pc_plus_imm) = (adders.add(&ex_rs1, &imm), adders.add(&ex.pc, &imm));
    let jalr_target = &rs1_plus_imm & &k(&imm, !1, l.xlen);
    let jump_target = mux(&ex_ctrl.jalr, &jalr_target, &pc_plus_imm);
    let jumps = &ex_ctrl.jal | &ex_ctrl.jalr;
    let md_result = muldiv_result(ports, &funct3, l.xlen);
    let mut results = vec![
        (jumps.clone(), link.clone()),
        (ex_ctrl.muldiv.clone(), md_result.clone()),
    ];
    if let (Some(fp), Some((_, resp, _))) = (&ex_ctrl.fp, &ports.fpu) {
        let data = resp.bits().get("data").value().clone();
        results.push((fp.unit_op.clone(), data));
    }
    m.connect(&id.ex_result, &priority_mux(&results, &alu_out));

    let amo_like = &(&ex_ctrl.amo | &ex_ctrl.lr) | &ex_ctrl.sc;
    let addr = mux(&amo_like, &ex_rs1, &rs1_plus_imm);
    let size = funct3.slice(1, 0);
    let misaligned = priority_mux(
        &[
            (size.eq(&k(&size, 1, 2)), addr.bit(0)),
            (size.eq(&k(&size, 2, 2)), addr.slice(1, 0).or_r()),
            (size.eq(&k(&size, 3, 2)), addr.slice(2, 0).or_r()),
        ],
        &zero1,
    );
    let reads = &ex_ctrl.load | &ex_ctrl.lr;
    let writes_mem = &(&ex_ctrl.store | &ex_ctrl.amo) | &ex_ctrl.sc;
    let readable = &in_rom(&addr) | &in_ram(&addr);
    let writable = in_ram(&addr);
    // A jump or branch faults on its target only (misaligned); a memory access on its
    // address only, misaligned first, else outside the memory map.
    let c = |v: u64| k(&ex.cause, v, 4);
    let mem_cause = mux(
        &writes_mem,
        &mux(
            &misaligned,
            &c(cause::STORE_MISALIGNED),
            &c(cause::STORE_ACCESS_FAULT),
        ),
        &mux(
            &misaligned,
            &c(cause::LOAD_MISALIGNED),
            &c(cause::LOAD_ACCESS_FAULT),
        ),
    );
    let cti = &jumps | &ex_ctrl.branch;
    let ex_exc = first_exception(
        (ex.exc.clone(), ex.cause.clone(), ex.tval.clone()),
        &[
            &taken & &jump_target.bit(1),
            &(&reads | &writes_mem) & &misaligned,
            &reads & &!&readable,
            &writes_mem & &!&writable,
        ],
        (
            &mux(&cti, &c(cause::INSN_MISALIGNED), &mem_cause),
            &mux(&cti, &jump_target, &addr),
        ),
    );
    let cached = if p.uncached_size == 0 {
        l.one1.clone()
    } else {
        !&in_region(&addr, p.uncached_base, p.uncached_size)
    };
    // From registers only: the address is the one late path into the D$.
    let load_request = match ports.dcache_pending {
        Some(_) => {
            let ready = &!&regs.ex.late.blocked() & &!&r.ex_redirect;
            &(&ex.valid & &ex_ctrl.load) & &ready
        }
        None => zero1.clone(),
    };
    Ex {
        go: ex_go,
        mem_go,
        mem_free,
        flush: flush_ex,
        funct3,
        link,
        taken,
        jump_target,
        addr,
        cached,
        load_request,
        exc: ex_exc,
    }
}

/// EX's multiply/divide through the `muldiv_*` ports, and when EX advances (`ex_go`:
/// with the F extension also waiting for `fp_ready`, `fpu_port`).
fn muldiv_port(
    m: &mut ModuleBuilder,
    ports: &Ports,
    ex_regs: &ExRegs,
    ex_ctrl: &Ctrl,
    e: &Ex,
    l: &Lits,
    fp_ready: Option<Value>,
) {
    let (ex, md_req, md_resp) = (&ex_regs.stage, &ports.md_req, &ports.md_resp);
    let (mem_free, flush_ex, ex_go) = (e.mem_free.clone(), e.flush.clone(), e.go.clone());
    // Multiply/divide: one request per instruction; EX holds until the result is taken.
    let md_sent = m.reg("md_sent", 1, false);
    // (A multiply/divide raises no exception in EX: only ID's count, off the adders.)
    let ex_md = &(&ex.valid & &ex_ctrl.muldiv) & &!&ex.exc;
    // A late operand (`late_operands.rs`) holds the request and EX.
    let blocked = ex_regs.late.blocked();
    m.connect(
        md_req.valid(),
        &(&(&(&ex_md & &!&md_sent) & &!&flush_ex) & &!&blocked),
    );
    let mb = md_req.bits();
    let (funct3, word, in1, in2) = muldiv_operands(ex_regs, ex_ctrl, &e.funct3);
    m.connect(mb.get("funct3").value(), &funct3);
    m.connect(mb.get("word").value(), &word);
    m.connect(mb.get("in1").value(), &in1);
    m.connect(mb.get("in2").value(), &in2);
    m.connect(md_resp.ready(), &(&(&ex_md & &mem_free) & &!&flush_ex));
    m.connect(&ports.md_kill, &flush_ex);
    let md_ready = &!&ex_md | md_resp.valid();
    let ex_ready = match fp_ready {
        Some(f) => &(&md_ready & &f) & &!&blocked,
        None => &md_ready & &!&blocked,
    };
    m.connect(
        &ex_go,
        &(&(&(&ex.valid & &ex_ready) & &mem_free) & &!&flush_ex),
    );
    m.when(&md_req.fire(), |m| m.connect(&md_sent, &l.one1));
    m.when(&(&ex_go | &flush_ex), |m| m.connect(&md_sent, &l.zero1));
}

/// EX's FPU operation through the `fpu_*` ports (`fpu.rs`): one request per
/// instruction, with its rounding mode (funct3, or `frm` for 7: ID's interlock keeps
/// `frm` from changing before it gets here); EX holds until the result is taken, as for
/// a multiply. Returns whether EX's instruction has its result (`fp_ready`).
fn fpu_port(
    m: &mut ModuleBuilder,
    regs: &Regs,
    ex_ctrl: &Ctrl,
    e: &Ex,
    ports: &Ports,
) -> Option<Value> {
    let (fp, (req, resp, kill)) = (ex_ctrl.fp.as_ref()?, ports.fpu.as_ref()?);
    let (ex, frm) = (&regs.ex.stage, &regs.csrs.fp.as_ref()?.frm);
    let sent = m.reg("fpu_sent", 1, false);
    let ex_fp = &(&ex.valid & &fp.unit_op) & &!&ex.exc;
    let blocked = regs.ex.late.blocked();
    m.connect(
        req.valid(),
        &(&(&(&ex_fp & &!&sent) & &!&e.flush) & &!&blocked),
    );
    let rm = ex.insn.slice(14, 12);
    let bits = req.bits();
    for (name, value) in [
        ("unit", fp.unit.clone()),
        ("op", fp.op.clone()),
        ("rm", mux(&rm.eq(&k(&rm, 7, 3)), frm, &rm)),
        ("in1", regs.ex.rs1.clone()),
        ("in2", regs.ex.rs2.clone()),
        ("in3", regs.ex.rs3.clone()?),
    ] {
        m.connect(bits.get(name).value(), &value);
    }
    m.connect(resp.ready(), &(&(&ex_fp & &e.mem_free) & &!&e.flush));
    m.connect(kill, &e.flush);
    m.when(&req.fire(), |m| m.connect(&sent, &k(&sent, 1, 1)));
    m.when(&(&e.go | &e.flush), |m| m.connect(&sent, &k(&sent, 0, 1)));
    Some(&!&ex_fp | resp.valid())
}

/// RV32's MULH, MULHSU and MULHU (funct3 1, 2, 3): the high word of a 64-bit product.
fn mul_high(funct3: &Value) -> Value {
    &!&funct3.bit(2) & &funct3.slice(1, 0).or_r()
}

/// The request to the (64-bit) multiply/divide unit: `(funct3, word, in1, in2)`. On RV32
/// MUL, DIV[U] and REM[U] are its *W forms, and MULH[SU|U] its 64-bit MUL of the
/// operands sign- or zero-extended as the instruction's signedness says, whose high
/// word `muldiv_result` takes.
fn muldiv_operands(
    ex_regs: &ExRegs,
    ex_ctrl: &Ctrl,
    funct3: &Value,
) -> (Value, Value, Value, Value) {
    let (rs1, rs2) = (&ex_regs.rs1, &ex_regs.rs2);
    if rs1.width() == 64 {
        return (
            funct3.clone(),
            ex_ctrl.word.clone(),
            rs1.clone(),
            rs2.clone(),
        );
    }
    let high = mul_high(funct3);
    // rs1 is unsigned for MULHU (3), rs2 for MULHSU and MULHU (2, 3).
    let unsigned1 = funct3.eq(&k(funct3, 3, 3));
    let extend = |v: &Value, unsigned: &Value| mux(unsigned, &v.zext(64), &sext64(v));
    (
        mux(&high, &k(funct3, 0, 3), funct3),
        !&high,
        extend(rs1, &unsigned1),
        extend(rs2, &funct3.bit(1)),
    )
}

/// The multiply/divide unit's result as a register value (`muldiv_operands`).
fn muldiv_result(ports: &Ports, funct3: &Value, xlen: u32) -> Value {
    let data = ports.md_resp.bits().get("data").value().clone();
    if xlen == 64 {
        return data;
    }
    mux(&mul_high(funct3), &data.slice(63, 32), &data.slice(31, 0))
}

/// EX's branch and jump resolution: a misprediction redirects fetch the next cycle
/// (from MEM) through registers, and the predictors train from registers too.
fn resolve(
    m: &mut ModuleBuilder,
    ex_regs: &ExRegs,
    ex_ctrl: &Ctrl,
    e: &Ex,
    r: &Redirects,
    predictors: &Predictors,
) {
    let ex = &ex_regs.stage;
    let (taken, jump_target) = (e.taken.clone(), e.jump_target.clone());
    let next_pc = mux(&taken, &jump_target, &e.link);
    let resolved = &e.go & &!&e.exc.0;
    // Whether fetch went on to `next_pc`: branches and jal pick ID's compare with
    // `taken`; jalr's `(rs1 + imm) & !1` is compared without its adder (`sum_equals`, on
    // bits 63..1: bit 0 of `k` is the sum's own).
    let (rs1, imm, pred) = (&ex_regs.rs1, &ex_ctrl.imm, &ex_regs.pred);
    let sum0 = &rs1.bit(0) ^ &imm.bit(0);
    let msb = pred.width() - 1;
    let jalr_ok = &!&pred.bit(0) & &sum_equals(rs1, imm, &pred.slice(msb, 1).cat(&sum0));
    let pred_ok = mux(
        &ex_ctrl.jalr,
        &jalr_ok,
        &mux(&taken, &ex_regs.pred_is_target, &ex_regs.pred_is_link),
    );
    // A misprediction redirects fetch the cycle after it leaves EX, from registers, which
    // keeps the branch comparison and the target adder off fetch's paths; the instruction
    // that entered EX behind it meanwhile is flushed (`flush_ex`). It does not wait for
    // EX's exceptions (the address adder and the region checks): an instruction that
    // leaves EX with one traps in MEM the next cycle, and MEM's redirect overrides
    // (`Redirects`). The target, observed only under `mispredict`, loads every cycle.
    let mispredict = m.reg("mispredict", 1, false);
    let mispredict_target = m.reg("mispredict_target", ex.pc.width(), ResetValue::None);
    m.connect(&mispredict, &(&e.go & &!&pred_ok));
    m.connect(&mispredict_target, &next_pc);
    m.connect(&r.ex_redirect, &mispredict);
    m.connect(&r.ex_target, &mispredict_target);
    // The predictors train the cycle after, from registers, like the redirect: the
    // target adder and the branch comparison stay off their tag compares. The
    // resolution's data is only observed under `train_valid`: no reset, and no enable.
    let (train_valid, train_pc, train_target, train_taken, train_jump) = (
        m.reg("train_valid", 1, false),
        m.reg("train_pc", ex.pc.width(), ResetValue::None),
        m.reg("train_target", ex.pc.width(), ResetValue::None),
        m.reg("train_taken", 1, ResetValue::None),
        m.reg("train_jump", 1, ResetValue::None),
    );
    m.connect(
        &train_valid,
        &(&resolved & &(&ex_ctrl.branch | &ex_ctrl.jal)),
    );
    m.connect(&train_pc, &ex.pc);
    m.connect(&train_target, &jump_target);
    m.connect(&train_taken, &taken);
    m.connect(&train_jump, &ex_ctrl.jal);
    let resolution = Resolution {
        valid: &train_valid,
        pc: &train_pc,
        target: &train_target,
        taken: &train_taken,
        jump: &train_jump,
    };
    if let Some(btb) = &predictors.btb {
        btb.train(m, &resolution);
    }
    if let Some(bht) = &predictors.bht {
        bht.train(m, &resolution);
    }
}

/// ID -> EX: decode-stage prediction (jal always, branches by the BHT), `id_go`, and EX's
/// registers loaded from ID.
#[allow(clippy::too_many_arguments)]
fn issue(
    m: &mut ModuleBuilder,
    p: &RocketParams,
    (id, q_pred0, id_go): (&Stage, &Value, &Value),
    d: &Id,
    e: &Ex,
    ex_regs: &ExRegs,
    l: &Lits,
    r: &Redirects,
    predictors: &Predictors,
) {
    let (ex, id_ctrl, id_exc) = (&ex_regs.stage, &d.ctrl, &d.exc);
    let (id_redirect, id_target) = (r.id_redirect.clone(), r.id_target.clone());
    // ID advances into a free (or freeing) EX unless squashed this cycle.
    let ex_free = &!&ex.valid | &e.go;
    // Decode-stage prediction: jal always, branches by the BHT.
    let bht_taken = match p.predictor {
        Predictor::Bht => {
            let bht = predictors.bht.as_ref().expect("built before resolve");
            let predicted = &id_ctrl.jal | &(&id_ctrl.branch & &bht.predict(&id.pc));
            // A target off a word (pc is aligned, so the immediate's bit 1) is not
            // followed: it would be fetched (the direct memory port refuses the access)
            // before the instruction traps in EX on it.
            let aligned = !&id_ctrl.imm.bit(1);
            &predicted & &aligned
        }
        _ => l.zero1.clone(),
    };
    m.connect(&id_redirect, &(&(&bht_taken & &!&id_exc.0) & id_go));
    m.connect(&id_target, &(&id.pc + &id_ctrl.imm));
    m.connect(
        id_go,
        &(&(&(&id.valid & &!&d.hazard) & &ex_free) & &!&r.redirect),
    );
    // The prediction against this instruction's two candidates, from registers and the
    // decoded immediate: ID's own redirect goes to `pc + imm`, which is `pc + 4` when
    // the immediate is 4.
    let (pc, imm) = (&id.pc, &id_ctrl.imm);
    let pred_is_target = &id_redirect | &sum_equals(pc, imm, q_pred0);
    let pred_is_link = mux(
        &id_redirect,
        &imm.eq(&l.four),
        &sum_equals(pc, &l.four, q_pred0),
    );
    m.when(&ex_free, |m| {
        m.connect(&ex.valid, id_go);
        m.connect(&ex_regs.pred_is_target, &pred_is_target);
        m.connect(&ex_regs.pred_is_link, &pred_is_link);
        ex.load(m, &id.pc, &id.insn, (&id_exc.0, &id_exc.1, &id_exc.2));
        d.ex_ctrl.load(m, id_ctrl);
        for (r, v) in ex_regs
            .rs_q
            .iter()
            .zip([Some(&d.rs1), Some(&d.rs2), d.rs3.as_ref()])
        {
            m.connect(r, v.expect("an operand for each register"));
        }
        m.connect(&ex_regs.pred, &mux(&id_redirect, &id_target, q_pred0));
    });
    m.when(&e.flush, |m| m.connect(&ex.valid, &l.zero1));
}

/// WB: the register write and the commit trace (`trace.rs`).
fn writeback(
    m: &mut ModuleBuilder,
    ports: &Ports,
    regs: &Regs,
    id: &Id,
    access: &MemAccess,
    (mem_done, result): (&Value, &Value),
    l: &Lits,
) {
    let (mem, wb, mem_ctrl) = (&regs.mem.stage, &regs.wb, &id.mem_ctrl);
    let (mem_addr, mask, zero64) = (regs.mem.addr.clone(), access.mask.clone(), l.zero64.clone());
    let wb_rd = wb.rd.clone();
    let stores = &(&mem_ctrl.store | &mem_ctrl.amo) | &access.sc_ok;
    m.connect(&wb.valid, mem_done);
    m.when(mem_done, |m| {
        m.connect(&wb.pc, &mem.pc);
        m.connect(&wb.insn, &mem.insn);
        let w = wb_rd.width();
        m.connect(
            &wb_rd,
            &mux(
                &id.mem_writes,
                &rd_index(&mem.insn, mem_ctrl),
                &k(&wb_rd, 0, w),
            ),
        );
        m.connect(&wb.value, result);
        let aligned = (&mem_addr & &k(&mem_addr, !7, l.xlen)).zext(64);
        m.connect(&wb.mem_addr, &mux(&stores, &aligned, &zero64));
        m.connect(&wb.mem_data, &mux(&stores, &access.store_data, &zero64));
        m.connect(&wb.mem_mask, &mux(&stores, &mask, &k(&mask, 0, 8)));
    });
    // wb_rd is 0 for an instruction that writes no register.
    let writes = &wb.valid & &!&wb_rd.eq(&k(&wb_rd, 0, wb_rd.width()));
    m.when(&writes, |m| m.write(&regs.rf, &wb_rd, &wb.value));
    // The trace shows x registers' writes only (the ISS's commit records).
    let trace_rd = match &regs.f_written {
        Some(written) => {
            let f = &writes & &wb_rd.bit(5);
            let bit = k(written, 1, 32).dshl(&wb_rd.slice(4, 0));
            m.when(&f, |m| m.connect(written, &(written | &bit)));
            mux(&wb_rd.bit(5), &k(&wb_rd, 0, 5), &wb_rd.slice(4, 0))
        }
        None => wb_rd.clone(),
    };
    m.connect(ports.trace.valid(), &wb.valid);
    let tb = ports.trace.bits();
    // On RV32 the trace shows the pc zero- and the value sign-extended, as the ISS.
    for (name, value) in [
        ("pc", &wb.pc.zext(64)),
        ("insn", &wb.insn),
        ("rd", &trace_rd),
        ("value", &sext64(&wb.value)),
        ("mem_addr", &wb.mem_addr),
        ("mem_data", &wb.mem_data),
        ("mem_mask", &wb.mem_mask),
    ] {
        m.connect(tb.get(name).value(), value);
    }
}

/// Whether address `a` lies in `[base, base + size)`: a compare of the bits above the
/// offset when `size` is a power of two dividing `base` (the ROM, and RAM by its
/// parameters' rule), else two magnitude compares.
pub(super) fn in_region(a: &Value, base: u64, size: u64) -> Value {
    let (lo, w) = (size.trailing_zeros(), a.width());
    if size.is_power_of_two() && base.is_multiple_of(size) && lo < w {
        a.slice(w - 1, lo).eq(&k(a, base >> lo, w - lo))
    } else {
        &a.ge(&k(a, base, w)) & &a.lt(&k(a, base.wrapping_add(size), w))
    }
}

pub(super) fn any_of(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}
