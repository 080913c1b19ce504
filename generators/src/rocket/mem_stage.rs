//! The core's MEM stage (`core.rs`, module comment: MEM): the oldest unretired
//! instruction, so nothing here is speculative. Data accesses (loads requested from EX,
//! the request killed in the D$ if the load does not enter MEM or faults; posted stores
//! with the D$; AMOs as a read then a write with the AMO ALU), LR/SC, CSRs, RoCC commands, fences, and the instruction's
//! completion or trap (an accelerator's exception first, `bus::rocc_exception`) with
//! MEM's redirects.

use super::core::{any_of, cause, k, rd_of, sext64, Ex, Id, Lits, MemRegs, Ports, Redirects, Regs};
use super::csr::CsrAccess;
use super::decode::Ctrl;
use hdl::helpers::priority_mux;
use hdl::{cat, mux, ModuleBuilder, ResetValue, Value};

/// Byte-lane mask of an access of `2^size` bytes at `addr` within its doubleword.
fn lane_mask(addr: &Value, size: &Value) -> Value {
    let bytes = priority_mux(
        &[
            (size.eq(&k(size, 0, 2)), k(size, 0x01, 8)),
            (size.eq(&k(size, 1, 2)), k(size, 0x03, 8)),
            (size.eq(&k(size, 2, 2)), k(size, 0x0f, 8)),
        ],
        &k(size, 0xff, 8),
    );
    bytes.dshl(&addr.slice(2, 0))
}

/// Byte offset within the doubleword, in bits (for shifting data into its lanes).
fn lane_shift(addr: &Value) -> Value {
    cat(&[&addr.slice(2, 0), &k(addr, 0, 3)])
}

/// Sign- or zero-extends the low `2^size` bytes of `v` to `xlen` bits (on RV32 a word
/// is the whole register).
fn extend(v: &Value, size: &Value, unsigned: &Value, xlen: u32) -> Value {
    let ext = |w: u32| {
        mux(
            unsigned,
            &v.slice(w - 1, 0).zext(xlen),
            &v.slice(w - 1, 0).as_signed().sext(xlen).as_unsigned(),
        )
    };
    if xlen == 32 {
        return priority_mux(
            &[
                (size.eq(&k(size, 0, 2)), ext(8)),
                (size.eq(&k(size, 1, 2)), ext(16)),
            ],
            &v.slice(31, 0),
        );
    }
    priority_mux(
        &[
            (size.eq(&k(size, 0, 2)), ext(8)),
            (size.eq(&k(size, 1, 2)), ext(16)),
            (size.eq(&k(size, 2, 2)), ext(32)),
        ],
        v,
    )
}

/// MEM's data access state and values.
pub(super) struct MemAccess {
    pub(super) state: Value,
    pub(super) amo_old: Value,
    pub(super) resv_valid: Value,
    pub(super) resv_addr: Value,
    pub(super) mf3: Value,
    pub(super) word_op: Value,
    pub(super) live_mem: Value,
    pub(super) sc_checked: Value,
    pub(super) sc_ok: Value,
    pub(super) sc_fail: Value,
    pub(super) accesses: Value,
    pub(super) loaded: Value,
    pub(super) store_data: Value,
    pub(super) mask: Value,
    pub(super) acc_trap: Value,
    pub(super) access_done: Value,
    /// EX's load request was taken and the load enters MEM (without an exception),
    /// awaiting its data.
    pub(super) ex_kept: Value,
}

/// `state == v` for MEM's access state.
fn state_is(state: &Value, v: u64) -> Value {
    state.eq(&k(state, v, 2))
}

/// Sign-extends the low word of `v` for the .w AMOs (`word_op`) of RV64; on RV32 every
/// AMO is one, on the whole register.
fn sext_w(word_op: &Value, v: &Value) -> Value {
    if v.width() == 32 {
        return v.clone();
    }
    mux(
        word_op,
        &v.slice(31, 0).as_signed().sext(64).as_unsigned(),
        v,
    )
}

/// MEM's data access: loads (requested from EX when the port is free, `Ex::load_request`,
/// else from here), stores, AMOs as a read then a write (with the AMO ALU), the LR/SC
/// reservation's check, and the accelerator's exception port. With the D$ a write to a
/// cacheable address is done when the D$ takes it (`cache.rs`, posted writes); every
/// other access waits for its answer.
pub(super) fn mem_access(
    m: &mut ModuleBuilder,
    ports: &Ports,
    mem_regs: &MemRegs,
    mem_ctrl: &Ctrl,
    e: &Ex,
    l: &Lits,
) -> MemAccess {
    let (mem, mem_addr) = (&mem_regs.stage, mem_regs.addr.clone());
    let (dmem_req, dmem_resp, rocc_xcpt) = (&ports.dmem_req, &ports.dmem_resp, &ports.rocc_xcpt);
    // Access state: 0 issue, 1 await response, 2 issue the AMO's write, 3 await it.
    let state = m.reg("mem_state", 2, 0u64);
    let amo_old = m.reg("amo_old", l.xlen, ResetValue::None);
    let resv_valid = m.reg("reservation_valid", 1, false);
    let resv_addr = m.reg("reservation_addr", l.xlen, ResetValue::None);
    let st = |v: u64| state_is(&state, v);
    let mf3 = mem.insn.slice(14, 12);
    let msize = mf3.slice(1, 0);
    let live_mem = &mem.valid & &!&mem.exc;
    // The SC's reservation check goes through a register, which keeps the 64-bit compare
    // off the request and completion paths: an SC decides in its second cycle in MEM
    // (`sc_checked`, cleared as MEM loads in `mem_advance`), a cycle per SC. The
    // reservation does not change while an SC waits in MEM: only a completion or a trap,
    // which ends the SC's stay, changes it.
    let resv_match = m.reg("reservation_match", 1, false);
    m.connect(&resv_match, &(&resv_valid & &resv_addr.eq(&mem_addr)));
    let sc_checked = m.reg("sc_checked", 1, false);
    m.connect(&sc_checked, &l.one1);
    let sc_ok = &(&resv_match & &sc_checked) & &mem_ctrl.sc;
    let sc_fail = &(&mem_ctrl.sc & &sc_checked) & &!&resv_match;
    let accesses =
        &(&(&mem_ctrl.load | &mem_ctrl.store) | &(&mem_ctrl.amo | &mem_ctrl.lr)) | &sc_ok;
    let dresp = dmem_resp.valid().clone();
    let dresp_data = dmem_resp.bits().get("data").value().clone();
    let lanes = dresp_data.dshr(&lane_shift(&mem_addr));
    let loaded = extend(&lanes, &msize, &mf3.bit(2), l.xlen);

    let (word_op, amo_new) = amo_alu(l, &mem.insn, &msize, &amo_old, &mem_regs.rs2);
    // The AMO's new value goes through a register: its write waits one cycle in state 2
    // for it (a cycle per AMO), which keeps the AMO ALU off the store data's path.
    let amo_store = m.reg("amo_store", l.xlen, ResetValue::None);
    let amo_computed = m.reg("amo_computed", 1, false);
    m.connect(&amo_computed, &st(2));
    m.when(&st(2), |m| m.connect(&amo_store, &amo_new));
    let store_value = mux(&mem_ctrl.amo, &amo_store, &mem_regs.rs2);
    let store_data = store_value.zext(64).dshl(&lane_shift(&mem_addr));
    let mask = lane_mask(&mem_addr, &msize);
    let is_write_phase = &(&mem_ctrl.store | &mem_ctrl.sc) | &(&mem_ctrl.amo & &state.bit(1));
    // An accelerator's exception traps before MEM's instruction while it has started
    // nothing (`bus::rocc_exception`), ahead of its own exceptions.
    let acc_trap = &(&mem.valid & &st(0)) & rocc_xcpt.valid();
    m.connect(rocc_xcpt.ready(), &acc_trap);
    let issue = &(&(&live_mem & &accesses) & &(&st(0) | &(&st(2) & &amo_computed))) & &!&acc_trap;
    // EX's load takes the port when MEM does not use it.
    let ex_issue = &e.load_request & &!&issue;
    let esize = e.funct3.slice(1, 0);
    m.connect(dmem_req.valid(), &(&issue | &ex_issue));
    let db = dmem_req.bits();
    for (name, value) in [
        ("addr", mux(&issue, &mem_addr, &e.addr).slice(31, 0)),
        ("write", &issue & &is_write_phase),
        ("data", store_data.clone()),
        ("mask", mux(&issue, &mask, &lane_mask(&e.addr, &esize))),
        ("size", mux(&issue, &msize, &esize).zext(3)),
    ] {
        m.connect(db.get(name).value(), &value);
    }
    let mem_fire = &issue & dmem_req.ready();
    let posted = match &ports.dcache_pending {
        Some(_) => &(&mem_fire & &is_write_phase) & &mem_regs.cached,
        None => l.zero1.clone(),
    };
    let answered = &(&accesses & &dresp) & &(&st(3) | &(&st(1) & &!&mem_ctrl.amo));
    let access_done = &answered | &posted;
    m.when(&mem_fire, |m| {
        m.connect(&state, &(&state + &k(&state, 1, 2)))
    });
    m.when(&(&(&dresp & &st(1)) & &mem_ctrl.amo), |m| {
        let old = dresp_data.dshr(&lane_shift(&mem_addr));
        m.connect(&amo_old, &old.slice(l.xlen - 1, 0));
        m.connect(&state, &k(&state, 2, 2));
    });
    MemAccess {
        state,
        amo_old,
        resv_valid,
        resv_addr,
        mf3,
        word_op,
        live_mem,
        sc_checked,
        sc_ok,
        sc_fail,
        accesses,
        loaded,
        store_data,
        mask,
        acc_trap,
        access_done,
        ex_kept: ex_request_kept(m, ports, e, &(&ex_issue & dmem_req.ready())),
    }
}

/// Whether EX's taken load request is kept: its load enters MEM with no exception. Else
/// the D$ kills its lookup the next cycle (`dcache_kill`, from a register).
fn ex_request_kept(m: &mut ModuleBuilder, ports: &Ports, e: &Ex, fired: &Value) -> Value {
    let kept = &(fired & &e.go) & &!&e.exc.0;
    if let Some(kill) = &ports.dcache_kill {
        let q = m.reg("dcache_kill_q", 1, false);
        m.connect(&q, &(fired & &!&kept));
        m.connect(kill, &q);
    }
    kept
}

/// The AMO ALU (MEM): the new value from the old one and rs2. Returns `word_op` (a .w
/// AMO) and the new value.
fn amo_alu(
    l: &Lits,
    insn: &Value,
    msize: &Value,
    amo_old: &Value,
    mem_rs2: &Value,
) -> (Value, Value) {
    // AMO arithmetic on the (sign-extended, for .w) old value and rs2.
    let word_op = msize.eq(&k(msize, 2, 2));
    let (old, src) = (sext_w(&word_op, amo_old), sext_w(&word_op, mem_rs2));
    let funct5 = insn.slice(31, 27);
    let f5 = |v: u64| funct5.eq(&k(&funct5, v, 5));
    // min/max compare by the sign of one 65-bit subtraction (which cannot overflow),
    // sign- (amomin/max) or zero-extended (amominu/maxu, funct5 bit 3); for equal values
    // either operand is the answer.
    let msb = l.xlen - 1;
    let ext = |v: &Value| cat(&[&(&!&funct5.bit(3) & &v.bit(msb)), v]);
    let (difference, _) = l.adders.sub(&ext(&old), &ext(&src));
    let below = difference.bit(l.xlen);
    let old_plus_src = l.adders.add(&old, &src);
    let (lesser, greater) = (mux(&below, &old, &src), mux(&below, &src, &old));
    let amo_new = priority_mux(
        &[
            (f5(0x00), old_plus_src),
            (f5(0x01), src.clone()),
            (f5(0x04), &old ^ &src),
            (f5(0x08), &old | &src),
            (f5(0x0c), &old & &src),
            (f5(0x10), lesser.clone()),
            (f5(0x14), greater.clone()),
            (f5(0x18), lesser),
        ],
        &greater,
    );
    (word_op, amo_new)
}

/// MEM's CSR access: the read, the new value and the legality check. Returns
/// `(csr_read, csr_new, csr_illegal, rs1_field)`.
pub(super) fn csr_access(
    m: &mut ModuleBuilder,
    regs: &Regs,
    mem_ctrl: &Ctrl,
    acc: &MemAccess,
) -> (Value, Value, Value, Value) {
    let (mem, mf3, mem_csr) = (&regs.mem.stage, &acc.mf3, &regs.mem_csr);
    // CSRs: legal if the register exists and a write does not target a read-only one.
    let csr_read = regs.csrs.read(m, mem_csr);
    let rs1_field = mem.insn.slice(19, 15);
    let csr_src = mux(
        &mf3.bit(2),
        &rs1_field.zext(regs.mem.rs1.width()),
        &regs.mem.rs1,
    );
    let csr_op = mf3.slice(1, 0);
    let csr_new = priority_mux(
        &[
            (csr_op.eq(&k(&csr_op, 1, 2)), csr_src.clone()),
            (csr_op.eq(&k(&csr_op, 2, 2)), &csr_read | &csr_src),
        ],
        &(&csr_read & &!&csr_src),
    );
    let csr_illegal = &mem_ctrl.csr & &regs.csrs.illegal(mem_csr);
    (csr_read, csr_new, csr_illegal, rs1_field)
}

/// MEM's RoCC command port: the command leaves from here; with xd the response comes
/// back here. Returns when the RoCC instruction is done.
pub(super) fn rocc_port(
    m: &mut ModuleBuilder,
    ports: &Ports,
    mem_regs: &MemRegs,
    mem_ctrl: &Ctrl,
    acc: &MemAccess,
    rs1_field: &Value,
    l: &Lits,
) -> Value {
    let (mem, state) = (&mem_regs.stage, &acc.state);
    let (rocc_cmd, rocc_resp, zero_x) = (&ports.rocc_cmd, &ports.rocc_resp, &l.zero_x);
    let st = |v: u64| state_is(state, v);
    // RoCC: the command leaves from here; with xd the response comes back here.
    let xd = mem.insn.bit(14);
    let rocc_live = &acc.live_mem & &mem_ctrl.rocc;
    // A command leaves once the core's posted writes are in memory, where the
    // accelerator's accesses go.
    m.connect(
        rocc_cmd.valid(),
        &(&(&rocc_live & &st(0)) & &!&writes_pending(ports)),
    );
    let rc = rocc_cmd.bits();
    for (name, value) in [
        ("funct7", mem.insn.slice(31, 25)),
        ("rs2", mem.insn.slice(24, 20)),
        ("rs1", rs1_field.clone()),
        ("xd", xd.clone()),
        ("xs1", mem.insn.bit(13)),
        ("xs2", mem.insn.bit(12)),
        ("rd", rd_of(&mem.insn)),
        ("opcode", mem.insn.slice(6, 0)),
        (
            "rs1_val",
            sext64(&mux(&mem.insn.bit(13), &mem_regs.rs1, zero_x)),
        ),
        (
            "rs2_val",
            sext64(&mux(&mem.insn.bit(12), &mem_regs.rs2, zero_x)),
        ),
    ] {
        m.connect(rc.get(name).value(), &value);
    }
    m.when(&rocc_cmd.fire(), |m| m.connect(state, &k(state, 1, 2)));
    let rocc_wait = &(&rocc_live & &xd) & &st(1);
    m.connect(rocc_resp.ready(), &rocc_wait);
    &(&rocc_cmd.fire() & &!&xd) | &rocc_resp.fire()
}

/// The D$'s posted writes have not all reached memory (0 without the D$).
fn writes_pending(ports: &Ports) -> Value {
    let pending = &ports.dcache_pending;
    pending.clone().unwrap_or_else(|| k(&ports.rocc_busy, 0, 1))
}

/// MEM's fences: fence waits for the accelerator, then drops the D$; fence.i waits for
/// the fetches in flight, then drops the I$ (and refetches, `commit`). Returns
/// `(fence_done, fence_i_done)`.
pub(super) fn fences(
    m: &mut ModuleBuilder,
    ports: &Ports,
    mem_ctrl: &Ctrl,
    access: &MemAccess,
    outstanding: &Value,
    r: &Redirects,
) -> (Value, Value) {
    let live_mem = access.live_mem.clone();
    // fence waits for the accelerator, then drops the D$ so its writes are seen; fence.i
    // waits for the fetches in flight, then drops the I$ and refetches.
    m.connect(&r.fetch_hold, &(&live_mem & &mem_ctrl.fence_i));
    // `rocc_busy` is taken through a register, which keeps the accelerator's busy logic
    // off MEM's completion path. Safe: busy in a cycle covers every command accepted
    // before it (`bus::rocc_command`), so the registered value covers all but one
    // accepted in the cycle before, which `rocc_fired` covers; a fence can be in MEM no
    // earlier than the cycle after the last command before it fired.
    let (busy_q, fired_q) = (
        m.reg("rocc_busy_q", 1, false),
        m.reg("rocc_fired", 1, false),
    );
    m.connect(&busy_q, &ports.rocc_busy);
    m.connect(&fired_q, &ports.rocc_cmd.fire());
    // Both wait for the core's posted writes to reach memory: the accelerator's and
    // the I$'s accesses go there.
    let drained = !&writes_pending(ports);
    let fence_done = &(&(&(&live_mem & &mem_ctrl.fence) & &!&busy_q) & &!&fired_q) & &drained;
    let fence_i_done =
        &(&(&live_mem & &mem_ctrl.fence_i) & &outstanding.eq(&k(outstanding, 0, 2))) & &drained;
    m.connect(&ports.dcache_inv, &fence_done);
    m.connect(&ports.icache_inv, &fence_i_done);
    (fence_done, fence_i_done)
}

/// MEM's completion: whether MEM's instruction is done, its trap (an accelerator's
/// exception first, `bus::rocc_exception`), the trap, mret and fence.i redirects, the
/// CSR file's updates and the LR/SC reservation. Returns `mem_done`.
#[allow(clippy::too_many_arguments)]
pub(super) fn commit(
    m: &mut ModuleBuilder,
    ports: &Ports,
    regs: &Regs,
    mem_ctrl: &Ctrl,
    access: &MemAccess,
    (csr_new, csr_illegal): (&Value, &Value),
    (rocc_done, (fence_done, fence_i_done)): (Value, (Value, Value)),
    mem_go: &Value,
    l: &Lits,
    r: &Redirects,
) -> Value {
    let (mem, csrs, mem_csr) = (&regs.mem.stage, &regs.csrs, &regs.mem_csr);
    let (live_mem, acc_trap) = (access.live_mem.clone(), access.acc_trap.clone());
    let (resv_valid, resv_addr) = (access.resv_valid.clone(), access.resv_addr.clone());
    // An SC waits for its reservation check (`mem_access`); a failed one is done then.
    let waits = any_of(&[
        access.accesses.clone(),
        mem_ctrl.sc.clone(),
        mem_ctrl.rocc.clone(),
        mem_ctrl.fence.clone(),
        mem_ctrl.fence_i.clone(),
    ]);
    let done = any_of(&[
        &!&waits & &!csr_illegal,
        access.access_done.clone(),
        access.sc_fail.clone(),
        rocc_done,
        fence_done,
        fence_i_done.clone(),
    ]);
    let mem_done = &(&live_mem & &done) & &!&acc_trap;
    let trap = &acc_trap | &(&mem.valid & &(&mem.exc | csr_illegal));
    let acc = ports.rocc_xcpt.bits();
    let trap_cause = priority_mux(
        &[
            (acc_trap.clone(), acc.get("cause").value().clone()),
            (mem.exc.clone(), mem.cause.clone()),
        ],
        &k(&mem.cause, cause::ILLEGAL_INSN, 4),
    );
    let trap_tval = priority_mux(
        &[
            (
                acc_trap.clone(),
                acc.get("tval").value().slice(l.xlen - 1, 0),
            ),
            (mem.exc.clone(), mem.tval.clone()),
        ],
        &mem.insn.zext(l.xlen),
    );
    m.connect(mem_go, &(&mem_done | &trap));
    let mret = &mem_done & &mem_ctrl.mret;
    m.connect(
        &r.mem_redirect,
        &any_of(&[trap.clone(), mret.clone(), fence_i_done]),
    );
    m.connect(
        &r.mem_target,
        &priority_mux(
            &[
                (trap.clone(), csrs.trap_vector()),
                (mret.clone(), csrs.mepc.clone()),
            ],
            &l.adders.add(&mem.pc, &l.four),
        ),
    );
    m.when(&trap, |m| {
        csrs.trap(m, &mem.pc, &trap_cause.zext(l.xlen), &trap_tval);
        m.connect(&resv_valid, &l.zero1);
    });
    m.when(&mret, |m| csrs.mret(m));
    csrs.retire(m, &mem_done);
    if let (Some(fp), Some(fflags)) = (&mem_ctrl.fp, &regs.mem.fflags) {
        let flags = mux(&fp.unit_op, fflags, &k(fflags, 0, 5));
        csrs.accrue(m, &(&mem_done & &fp.any), &flags, &fp.wfd);
    }
    // (`mem_done` of a CSR instruction, without the other kinds' completion terms.)
    let csr_write = &(&(&live_mem & &mem_ctrl.csr) & &mem_csr.writes) & &!&csrs.illegal(mem_csr);
    m.when(&(&csr_write & &!&acc_trap), |m| {
        csrs.write(m, mem_csr, csr_new)
    });
    m.when(&(&mem_done & &mem_ctrl.lr), |m| {
        m.connect(&resv_valid, &l.one1);
        m.connect(&resv_addr, &regs.mem.addr);
    });
    m.when(&(&mem_done & &mem_ctrl.sc), |m| {
        m.connect(&resv_valid, &l.zero1)
    });
    mem_done
}

/// MEM's result (what its instruction writes back), the access state's reset as it
/// leaves, and EX -> MEM: MEM's registers loaded from EX. Returns the result.
pub(super) fn mem_advance(
    m: &mut ModuleBuilder,
    ports: &Ports,
    regs: &Regs,
    id: &Id,
    e: &Ex,
    access: &MemAccess,
    csr_read: &Value,
) -> Value {
    let (mem_ctrl, mem, ex, state) = (&id.mem_ctrl, &regs.mem.stage, &regs.ex.stage, &access.state);
    let (xlen, fpu) = (regs.mem.result.width(), regs.mem.fflags.is_some());
    let result = priority_mux(
        &[
            (&mem_ctrl.load | &mem_ctrl.lr, access.loaded.clone()),
            (
                mem_ctrl.amo.clone(),
                sext_w(&access.word_op, &access.amo_old),
            ),
            (mem_ctrl.sc.clone(), access.sc_fail.zext(xlen)),
            (mem_ctrl.csr.clone(), csr_read.clone()),
            (
                mem_ctrl.rocc.clone(),
                ports
                    .rocc_resp
                    .bits()
                    .get("data")
                    .value()
                    .slice(xlen - 1, 0),
            ),
        ],
        &regs.mem.result,
    );
    m.when(&e.mem_go, |m| m.connect(state, &k(state, 0, 2)));
    // A load whose request EX sent enters MEM awaiting its data.
    m.when(&access.ex_kept, |m| m.connect(state, &k(state, 1, 2)));
    m.when(&e.mem_free, |m| {
        m.connect(&access.sc_checked, &k(&access.sc_checked, 0, 1));
        m.connect(&mem.valid, &e.go);
        mem.load(m, &ex.pc, &ex.insn, (&e.exc.0, &e.exc.1, &e.exc.2));
        mem_ctrl.load(m, &id.ex_ctrl);
        regs.mem_csr
            .load(m, &CsrAccess::decode(&ex.insn, xlen, fpu));
        if let (Some(r), Some((_, resp, _))) = (&regs.mem.fflags, &ports.fpu) {
            m.connect(r, resp.bits().get("flags").value());
        }
        m.connect(&regs.mem.result, &id.ex_result);
        m.connect(&regs.mem.addr, &e.addr);
        m.connect(&regs.mem.cached, &e.cached);
        m.connect(&regs.mem.rs1, &regs.ex.rs1);
        m.connect(&regs.mem.rs2, &regs.ex.rs2);
    });
    result
}
