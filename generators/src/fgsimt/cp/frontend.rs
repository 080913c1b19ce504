//! The CP's engine side (seed 000, section 3.1 and Figure 3; docs/fgsimt-engine.md, "CP
//! engine side"): the kernel state and warp counter (`kernel_state.rs`), the AWFR/PWFB
//! (`pwfb.rs`) and the warp fetch unit, which fetches the active fragment's instruction,
//! decodes it, resolves unconditional jumps, and hands everything else to the SIU
//! (`bundles::warp_inst`).
//!
//! One warp instruction at a time: fetch at the AWFR's pc through the I$ (a hit answers
//! the next cycle), decode, then
//! - `jal`: the PWFB moves to the target here; the SIU gets the instruction only when it
//!   writes a link (rd != x0). `fence`/`fence.i` go no further (a thread's accesses stay
//!   in order in the SMU; there is no instruction memory to synchronise).
//! - conditional branches wait for the lanes' taken mask (`branch`): all taken or none
//!   moves the AWFR; a split parks the taken threads in the PWFB at the target;
//! - `jalr` waits for the lanes' target (`jump`): 0 (`EXIT_PC`) ends the fragment's
//!   threads; targets that differ across the fragment are a fault (the model's
//!   `DivergentJump`);
//! - the rest go to the SIU and the AWFR moves to pc + 4 as the SIU accepts them.
//!
//! Each warp instruction costs two cycles (fetch, then decode and dispatch) plus a
//! branch's or jump's wait: a functional unit takes a warp instruction every
//! warp_size / lanes cycles (4 in the paper's engine), so with two SAUs the SIU accepts at
//! most one every two cycles.
//!
//! Faults (`bundles::fault`, held): the SIU's (memory alignment), illegal instructions
//! (anything not RV32IMAF, `tidx` or a legal `fence`; SYSTEM instructions, CSR accesses
//! included: kernels may not touch CSRs), `ecall` (11) and `ebreak` (3) as the ISS
//! raises them, misaligned jump and taken-branch targets (0), divergent `jalr` targets,
//! and a RoCC command the runtime never sends.

use super::super::bundles::{self, branch_result, cause, fault, jump_result, warp_inst};
use super::super::params::FgsimtParams;
use super::kernel_state::{funct7, kernel_state};
use super::pwfb::pwfb;
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use crate::rocket::decode::decode;
use hdl::helpers::{lowest_one, onehot_encode};
use hdl::{mux, Bits, Bundle, Dir, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The fetch unit's states.
const FETCH: u64 = 0;
const WAIT: u64 = 1;
const DISPATCH: u64 = 2;
const BRANCH: u64 = 3;
const JUMP: u64 = 4;
const HALTED: u64 = 5;
const STATE_BITS: u32 = 3;

const OPCODE_SYSTEM: u64 = 0x73;
const OPCODE_CUSTOM0: u64 = 0x0b;
/// `tidx`'s funct3: xd only.
const TIDX_FUNCT3: u64 = 4;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// A fault to report: (`cause`, `tval`), the faulting thread's index in the warp as a
/// one-hot `who` (within the mask), and whether it happens.
struct Fault {
    when: Value,
    cause: Value,
    tval: Value,
    who: Value,
}

/// A branch's or jump's PWFB update (`pwfb.rs` ports) when its result arrives.
struct Update {
    when: Value,
    pc: Value,
    exit: Value,
    push: Value,
    push_mask: Value,
    fault: Fault,
}

/// What decode says about the fetched instruction.
struct Decoded {
    /// A fault at decode (illegal, ecall, ebreak, misaligned jal target).
    fault: Fault,
    branch: Value,
    jalr: Value,
    /// Goes to the SIU.
    to_siu: Value,
    /// The AWFR's next pc when the instruction is neither a branch nor a jalr.
    next_pc: Value,
    /// Branch target.
    target: Value,
}

/// Ports: `rocc_cmd`, `rocc_resp`, `rocc_busy`; `fetch_req`/`fetch_resp` (to the I$);
/// `inst` (to the SIU), `branch`, `jump`, `exec_fault`, `exec_idle`, `smu_idle`; out
/// `warp_start`, `tid_base`, `stack_top`, `stack_bytes`, `gp`, `tp` (the SRF's initial
/// values), `fault`, `ftrace`.
pub fn frontend(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtFrontend");
    let w = p.warp_size;
    let ks = m.instance("kernel_state", &kernel_state(p)?);
    let pw = m.instance("pwfb", &pwfb(w)?);
    for (name, shape, dir) in [
        ("rocc_cmd", rocc_command(), Dir::In),
        ("rocc_resp", rocc_response(), Dir::Out),
    ] {
        let io = m.io(name, dir, &shape);
        match dir {
            Dir::In => m.connect_bundle(&ks.io(name), &io),
            Dir::Out => m.connect_bundle(&io, &ks.io(name)),
        }
    }
    let ports = Ports {
        fetch_req: m.io("fetch_req", Dir::Out, &mem_request(0)),
        fetch_resp: m.io("fetch_resp", Dir::In, &mem_response(0)),
        inst: m.io("inst", Dir::Out, &warp_inst(w)),
        branch: m.io("branch", Dir::In, &branch_result(w)),
        jump: m.io("jump", Dir::In, &jump_result()),
        exec_fault: m.io("exec_fault", Dir::In, &fault()),
        fault: m.io("fault", Dir::Out, &fault()),
        ftrace: m.io("ftrace", Dir::Out, &bundles::ftrace(w)),
    };
    for name in ["exec_idle", "smu_idle"] {
        let v = m.input(name, 1);
        m.connect(&ks.port(name), &v);
    }
    for (out, from) in [
        ("rocc_busy", "rocc_busy"),
        ("warp_start", "start"),
        ("tid_base", "tid_base"),
        ("stack_top", "stack_top"),
        ("stack_bytes", "stack_bytes"),
        ("gp", "gp"),
        ("tp", "tp"),
    ] {
        let v = ks.port(from);
        let o = m.output(out, v.width());
        m.connect(&o, &v);
    }
    m.connect(&pw.port("start"), &ks.port("start"));
    m.connect(&pw.port("start_pc"), &ks.port("entry"));
    m.connect(&pw.port("start_mask"), &ks.port("start_mask"));
    fetch_unit(&mut m, &ks, &pw, &ports);
    m.finish()
}

struct Ports {
    fetch_req: Bundle,
    fetch_resp: Bundle,
    inst: Bundle,
    branch: Bundle,
    jump: Bundle,
    exec_fault: Bundle,
    fault: Bundle,
    ftrace: Bundle,
}

/// The fetch/decode/dispatch state machine and its PWFB updates.
fn fetch_unit(m: &mut ModuleBuilder, ks: &Inst, pw: &Inst, io: &Ports) {
    let state = m.reg("fetch_state", STATE_BITS, FETCH);
    let is = |s: u64| state.eq(&lit(&state, s, STATE_BITS));
    let goto = |m: &mut ModuleBuilder, s: u64| m.connect(&state, &lit(&state, s, STATE_BITS));
    let pc = m.reg("pc", 32, hdl::ResetValue::None);
    let insn = m.reg("insn", 32, hdl::ResetValue::None);
    let mask = pw.port("awfr_mask_out");
    let w = mask.width();

    // Fetch.
    let fetch = &(&is(FETCH) & &ks.port("running")) & &pw.port("awfr_valid");
    let req = io.fetch_req.bits();
    m.connect(io.fetch_req.valid(), &fetch);
    m.connect(req.get("addr").value(), &pw.port("awfr_pc_out"));
    for (field, width) in [("write", 1), ("data", 64), ("mask", 8)] {
        m.connect(req.get(field).value(), &lit(&pc, 0, width));
    }
    m.connect(
        req.get("size").value(),
        &lit(&pc, 2, crate::rocket::bus::SIZE_BITS),
    );
    m.when(&(&fetch & io.fetch_req.ready()), |m| {
        m.connect(&pc, &pw.port("awfr_pc_out"));
        goto(m, WAIT);
    });
    let resp = io.fetch_resp.bits().get("data").value();
    m.when(&(&is(WAIT) & io.fetch_resp.valid()), |m| {
        m.connect(
            &insn,
            &mux(&pc.bit(2), &resp.slice(63, 32), &resp.slice(31, 0)),
        );
        goto(m, DISPATCH);
    });

    // Dispatch.
    let d = decode_insn(&insn, &pc, &mask);
    let dispatch = &is(DISPATCH) & &!&d.fault.when;
    let to_siu = &dispatch & &d.to_siu;
    m.connect(io.inst.valid(), &to_siu);
    let ib = io.inst.bits();
    for (field, v) in [("pc", &pc), ("insn", &insn), ("mask", &mask)] {
        m.connect(ib.get(field).value(), v);
    }
    m.connect(ib.get("tid_base").value(), &ks.port("tid_base"));
    let gone = &dispatch & &(&!&d.to_siu | io.inst.ready());
    let plain = &(&gone & &!&d.branch) & &!&d.jalr;
    m.when(&(&gone & &d.branch), |m| goto(m, BRANCH));
    m.when(&(&gone & &d.jalr), |m| goto(m, JUMP));
    m.when(&plain, |m| goto(m, FETCH));

    let br = resolve_branch(io, &is(BRANCH), &pc, &mask, &d.target);
    let jr = resolve_jump(io, &is(JUMP), &mask);
    // Plain instructions move the AWFR to their next pc when dispatched; branches and
    // jumps when their result arrives (at most one of the three in a cycle).
    let zero_w = lit(&mask, 0, w);
    let upd_pc = mux(&br.when, &br.pc, &mux(&jr.when, &jr.pc, &d.next_pc));
    for (port, v) in [
        ("upd_pc", upd_pc),
        ("upd_exit_mask", mux(&jr.when, &jr.exit, &zero_w)),
        ("upd_push", &br.when & &br.push),
        ("upd_push_pc", d.target.clone()),
        ("upd_push_mask", br.push_mask.clone()),
    ] {
        m.connect(&pw.port(port), &v);
    }
    let update = &(&plain | &br.when) | &jr.when;
    m.connect(&pw.port("update"), &update);
    m.when(&(&br.when | &jr.when), |m| goto(m, FETCH));
    m.connect(io.ftrace.valid(), &update);
    let tb = io.ftrace.bits();
    for (field, v) in [("pc", &pc), ("insn", &insn), ("mask", &mask)] {
        m.connect(tb.get(field).value(), v);
    }

    let decode_fault = Fault {
        when: &is(DISPATCH) & &d.fault.when,
        ..d.fault
    };
    let ks_fault = Fault {
        when: ks.port("bad_cmd"),
        cause: lit(&pc, cause::ILLEGAL_INSTRUCTION, 5),
        tval: lit(&pc, 0, 32),
        who: lit(&mask, 0, w),
    };
    report_faults(
        m,
        io,
        ks,
        &[decode_fault, br.fault, jr.fault, ks_fault],
        (&state, &pc),
    );
    m.connect(&ks.port("warp_done"), &(&pw.port("done") & &is(FETCH)));
    m.connect(&ks.port("halt"), &is(HALTED));
    m.when(&is(HALTED), |m| goto(m, HALTED));
}

/// Decodes the fetched instruction: what goes where, and the faults of decode.
fn decode_insn(insn: &Value, pc: &Value, mask: &Value) -> Decoded {
    let c = decode(insn, true, 32, true);
    let opcode = insn.slice(6, 0);
    let rd0 = insn.slice(11, 7).eq(&lit(insn, 0, 5));
    let funct3 = insn.slice(14, 12);
    let system = opcode.eq(&lit(insn, OPCODE_SYSTEM, 7));
    let tidx = &(&(&opcode.eq(&lit(insn, OPCODE_CUSTOM0, 7))
        & &insn.slice(31, 25).eq(&lit(insn, funct7::TIDX, 7)))
        & &funct3.eq(&lit(insn, TIDX_FUNCT3, 3)))
        & &insn.slice(24, 15).eq(&lit(insn, 0, 10));
    let fp = c.fp.as_ref().expect("decoded with the F extension");
    let rm = insn.slice(14, 12);
    let bad_rm = &fp.rm_used & &(&rm.eq(&lit(insn, 5, 3)) | &rm.eq(&lit(insn, 6, 3)));
    let ecall = &c.ecall;
    let ebreak = &c.ebreak;
    let illegal =
        &(&(&!&c.legal | &bad_rm) | &(&system & &!&(ecall | ebreak))) | &(&c.rocc & &!&tidx);
    let jal_target = pc + &c.imm;
    let misaligned_jal = &c.jal & &jal_target.bit(1);
    let k5 = |v: u64| lit(insn, v, 5);
    let cause = mux(
        &illegal,
        &k5(cause::ILLEGAL_INSTRUCTION),
        &mux(
            ecall,
            &k5(cause::ECALL),
            &mux(
                ebreak,
                &k5(cause::BREAKPOINT),
                &k5(cause::MISALIGNED_TARGET),
            ),
        ),
    );
    let tval = mux(
        &illegal,
        insn,
        &mux(ecall, &lit(insn, 0, 32), &mux(ebreak, pc, &jal_target)),
    );
    let when = &(&illegal | &(ecall | ebreak)) | &misaligned_jal;
    let to_siu = !&(&(&(&c.jal & &rd0) | &c.fence) | &c.fence_i);
    Decoded {
        fault: Fault {
            when,
            cause,
            tval,
            who: lowest_one(mask),
        },
        branch: c.branch.clone(),
        jalr: c.jalr.clone(),
        to_siu,
        next_pc: mux(&c.jal, &jal_target, &(pc + &lit(pc, 4, 32))),
        target: pc + &c.imm,
    }
}

/// A branch's result: the PWFB update it makes and its fault (a misaligned target
/// some thread takes).
fn resolve_branch(io: &Ports, waiting: &Value, pc: &Value, mask: &Value, target: &Value) -> Update {
    let got = waiting & io.branch.valid();
    let taken = io.branch.bits().get("taken").value() & mask;
    let none = taken.eq(&lit(mask, 0, mask.width()));
    let all = taken.eq(mask);
    let fault = Fault {
        when: &(&got & &!&none) & &target.bit(1),
        cause: lit(pc, cause::MISALIGNED_TARGET, 5),
        tval: target.clone(),
        who: lowest_one(&taken),
    };
    Update {
        when: &got & &!&fault.when,
        pc: mux(&all, target, &(pc + &lit(pc, 4, 32))),
        exit: lit(mask, 0, mask.width()),
        push: &!&none & &!&all,
        push_mask: taken,
        fault,
    }
}

/// A jalr's result: its PWFB update (a target of 0 ends the fragment's threads) and its
/// fault (divergent or misaligned targets).
fn resolve_jump(io: &Ports, waiting: &Value, mask: &Value) -> Update {
    let got = waiting & io.jump.valid();
    let jb = io.jump.bits();
    let target = jb.get("target").value().clone();
    let agree = jb.get("agree").value();
    let exit = target.eq(&lit(&target, 0, 32));
    let fault = Fault {
        when: &got & &(&!agree | &target.bit(1)),
        cause: mux(
            agree,
            &lit(&target, cause::MISALIGNED_TARGET, 5),
            &lit(&target, cause::DIVERGENT_JUMP, 5),
        ),
        tval: target.clone(),
        who: lowest_one(mask),
    };
    Update {
        when: &got & &!&fault.when,
        pc: target,
        exit: mux(&exit, mask, &lit(mask, 0, mask.width())),
        push: lit(mask, 0, 1),
        push_mask: lit(mask, 0, mask.width()),
        fault,
    }
}

/// The first fault (the SIU's, being of an older instruction, before the front end's)
/// goes to the `fault` port and halts the engine.
fn report_faults(
    m: &mut ModuleBuilder,
    io: &Ports,
    ks: &Inst,
    faults: &[Fault],
    (state, pc): (&Value, &Value),
) {
    let out = io.fault.bits();
    let regs: Vec<Value> = ["cause", "pc", "thread", "tval"]
        .iter()
        .map(|f| m.reg(&format!("fault_{f}"), out.get(f).value().width(), 0u64))
        .collect();
    let valid = m.reg("fault_valid", 1, false);
    let ef = io.exec_fault.bits();
    let tid_base = ks.port("tid_base");
    let mut pending = lit(pc, 0, 1);
    let mut chosen: Option<[Value; 4]> = None;
    let exec = [
        ef.get("cause").value().clone(),
        ef.get("pc").value().clone(),
        ef.get("thread").value().clone(),
        ef.get("tval").value().clone(),
    ];
    let cases =
        std::iter::once((io.exec_fault.valid().clone(), exec)).chain(faults.iter().map(|f| {
            let thread = &tid_base + &onehot_encode(&f.who).zext(32);
            (
                f.when.clone(),
                [f.cause.clone(), pc.clone(), thread, f.tval.clone()],
            )
        }));
    for (when, values) in cases.collect::<Vec<_>>().into_iter().rev() {
        chosen = Some(match chosen {
            None => values,
            Some(prev) => std::array::from_fn(|i| mux(&when, &values[i], &prev[i])),
        });
        pending = &pending | &when;
    }
    let chosen = chosen.expect("at least one fault source");
    m.when(&(&pending & &!&valid), |m| {
        m.connect(&valid, &lit(&valid, 1, 1));
        for (r, v) in regs.iter().zip(&chosen) {
            m.connect(r, v);
        }
        m.connect(state, &lit(state, HALTED, STATE_BITS));
    });
    m.connect(io.fault.valid(), &valid);
    for (f, r) in ["cause", "pc", "thread", "tval"].iter().zip(&regs) {
        m.connect(out.get(f).value(), r);
    }
}
