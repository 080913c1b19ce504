//! `HwachaRocc`: the RoCC unit (thesis Table 8.1). It decodes the control-thread
//! instructions of Table 7.1 from the RoCC command exactly as the golden model's
//! `control.rs` does (the command's fields are put back into the instruction word and
//! matched against `opcodes-hwacha`), holds the architectural `vcfg`, `vlen` and `maxvl`
//! so that `vsetvl`, `vgetcfg` and `vgetvl` are answered at once, and passes the commands
//! that need no answer (`vsetcfg`/`vuncfg`, `vmcs`, `vmca`, `vf`) through the VCMDQ to the
//! scalar unit, in order. A `vf` carries the `vlen` of its issue; one with vlen 0 is
//! dropped. Per Table 8.1, `vsetcfg`, `vsetvl`, `vmca` and `vf` also go through the
//! VRCMDQ to the vector runahead unit (`vrcmd`); a command waits until every queue it
//! goes to has room. An illegal command is never accepted: once everything before it has
//! finished it raises illegal-instruction (cause 2, tval the instruction word) on `xcpt`
//! for as long as the core presents it, and the core traps on it (precisely: mepc is the
//! command's instruction, as in the golden model). While `halt` is high (the unit holds
//! a worker-thread exception for the core) no command is accepted, so that the core's
//! trap and a command never meet (`bus::rocc_exception`).

use super::params::HwachaParams;
use super::scalar::decode::parse;
use crate::examples::queue::{queue, QueueParams};
use crate::rocket::bus::{rocc_command, rocc_response};
use hdl::helpers::priority_mux;
use hdl::ir::addr_width;
use hdl::{
    cat, mux, Bits, Bundle, Dir, Field, HdlErrors, Inst, Module, ModuleBuilder, Shape, Value,
};
use std::rc::Rc;

/// The control-thread encoding file (shared with the assembler and the golden model).
const CONTROL: &str = include_str!("../../../verification/src/hwacha/opcodes/opcodes-hwacha");

/// VCMDQ command kinds.
pub mod vcmd {
    pub const VMCS: u64 = 0;
    pub const VMCA: u64 = 1;
    pub const VF: u64 = 2;
    /// `vsetcfg` or `vuncfg`: `value` is the new vcfg (0 for vuncfg).
    pub const CFG: u64 = 3;
}

/// VRCMDQ command kinds (`value`: the vcfg, the new vlen, the address, the vf address).
pub mod vrcmd {
    pub const CFG: u64 = 0;
    pub const VSETVL: u64 = 1;
    pub const VMCA: u64 = 2;
    pub const VF: u64 = 3;
}

/// Exception causes (RISC-V mcause values, the golden model's table).
pub mod cause {
    pub const FETCH_MISALIGNED: u64 = 0;
    pub const FETCH_FAULT: u64 = 1;
    pub const ILLEGAL: u64 = 2;
    pub const LOAD_MISALIGNED: u64 = 4;
    pub const LOAD_FAULT: u64 = 5;
    pub const STORE_MISALIGNED: u64 = 6;
    pub const STORE_FAULT: u64 = 7;
}

/// Bits of a vector length: up to the largest maxvl of any configuration.
pub fn vlen_bits(p: &HwachaParams) -> u32 {
    let packing = if p.mixed_precision { 4 } else { 1 };
    let max = packing * p.bank_entries.min(p.pred_entries) as u64 * (p.lanes * p.strip()) as u64;
    addr_width(max + 1)
}

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// A VCMDQ or VRCMDQ entry: kind, register (vs index for vmcs, va for vmca), value (rs1,
/// the vf address, the vcfg, or a VRCMDQ vsetvl's new vlen) and the vlen a vf runs
/// with.
pub fn vcmd_entry(p: &HwachaParams) -> Shape {
    Shape::bundle(vec![
        uint("cmd", 2),
        uint("reg", 6),
        uint("value", 64),
        uint("vlen", vlen_bits(p)),
    ])
}

/// Exception report: the cause and tval while valid.
pub fn xcpt_shape() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("cause", 4), uint("tval", 64)]))
}

/// `2^k / d` (k+1 bits) for a `d` of at least 1: restoring division of a power of two.
fn pow2_div(k: u32, d: &Value) -> Value {
    let w = d.width() + 1;
    let d = d.zext(w);
    let mut r = d.konst(Bits::zero(w));
    let mut q = Vec::new();
    for i in (0..=k).rev() {
        let bit = d.konst(Bits::from_u64(w, (i == k) as u64));
        let shifted = &r.slice(w - 2, 0).cat(&bit.slice(0, 0));
        let fits = shifted.ge(&d);
        r = mux(&fits, &(shifted - &d), shifted);
        q.push(fits);
    }
    let refs: Vec<&Value> = q.iter().collect();
    cat(&refs)
}

/// Elements per bank slice of a vcfg, 32 bits wide (the golden model's
/// `HwachaParams::elements_per_bank`): baseline min(n < 2 ? E : E/n, #vp < 2 ? P :
/// P/#vp); with mixed precision min(4E / max(n', 1), 4 (#vp < 2 ? P : P/#vp)) for
/// n' = 4 #vv64 + 2 #vv32 + #vv16, rounded down to a multiple of the narrowest
/// register's packing, but not below the baseline's.
pub fn elements_per_bank(p: &HwachaParams, vcfg: &Value) -> Value {
    let count = |hi, lo| vcfg.slice(hi, lo).zext(11);
    let (nd, vp, nw, nh) = (count(8, 0), count(13, 9), count(22, 14), count(31, 23));
    let k = |v: u64, w: u32| vcfg.konst(Bits::from_u64(w, v));
    // `2^k / count`, or `2^k` (in 32 bits: a quotient can exceed the vlen width when
    // E >> P) for a count below 2.
    let per = |count: &Value, log: u32| {
        let small = count.lt(&count.konst(Bits::from_u64(count.width(), 2)));
        let q = pow2_div(log, count).zext(32);
        mux(&small, &k(1 << log, 32), &q)
    };
    let min = |a: &Value, b: &Value| mux(&a.lt(b), a, b);
    let (e_log, p_log) = (
        p.bank_entries.trailing_zeros(),
        p.pred_entries.trailing_zeros(),
    );
    let baseline = min(&per(&(&(&nd + &nw) + &nh), e_log), &per(&vp, p_log));
    if !p.mixed_precision {
        return baseline;
    }
    // n' is at most 4 * 511 + 2 * 511 + 511 < 2^12.
    let quarters = &(&nd.zext(12).shl(2) + &nw.zext(12).shl(1)) + &nh.zext(12);
    let packed = min(&per(&quarters, e_log + 2), &per(&vp, p_log).shl(2));
    let zero2 = k(0, 2);
    let low = mux(
        &nh.ne(&k(0, 11)),
        &k(3, 2),
        &mux(&nw.ne(&k(0, 11)), &k(1, 2), &zero2),
    );
    let rounded = &packed & &!&low.zext(32);
    mux(&rounded.lt(&baseline), &baseline, &rounded)
}

/// maxvl of a vcfg (the golden model's `HwachaParams::maxvl`): `elements_per_bank`
/// times L*B*S (a power of two).
pub fn maxvl(p: &HwachaParams, vcfg: &Value) -> Value {
    let e = elements_per_bank(p, vcfg);
    e.shl((p.lanes * p.strip()).trailing_zeros())
        .trunc(vlen_bits(p))
}

/// The RoCC unit's ports (`rocc_unit`'s doc comment lists them).
struct RoccPorts {
    cmd: Bundle,
    resp: Bundle,
    busy: Value,
    vcmd: Bundle,
    vrcmd: Bundle,
    scalar_busy: Value,
    halt: Value,
    xcpt: Bundle,
}

/// The RoCC command as a control-thread instruction: the word, rs1's value, rd, and
/// which Table 7.1 instruction it is.
struct ControlInsn {
    insn: Value,
    rs1: Value,
    rd: Value,
    vsetcfg: Value,
    vsetvl: Value,
    vgetcfg: Value,
    vgetvl: Value,
    vuncfg: Value,
    vmcs: Value,
    vmca: Value,
    vf: Value,
}

impl ControlInsn {
    /// A constant of the unit.
    fn k(&self, v: u64, w: u32) -> Value {
        self.insn.konst(Bits::from_u64(w, v))
    }
}

/// The architectural configuration the unit holds (and `vlen`'s width).
struct RoccState {
    vb: u32,
    configured: Value,
    vcfg: Value,
    vlen: Value,
    cur_maxvl: Value,
}

/// What the command does: its new configuration and vs index, its legality, and where
/// it goes (an answer, the VCMDQ, the VRCMDQ).
struct Class {
    new_cfg: Value,
    vs_index: Value,
    illegal: Value,
    answers: Value,
    enqueues: Value,
    runahead: Value,
}

/// The two command queues, the response register, and the command handshake.
struct Queues {
    q: Inst,
    rq: Inst,
    resp_valid: Value,
    resp_rd: Value,
    resp_data: Value,
    queued: Value,
    all_idle: Value,
    fire: Value,
}

/// Ports: `cmd`/`resp` (RoCC), `busy`, `vcmd` and `vrcmd` (decoupled VCMDQ and VRCMDQ
/// outputs), `scalar_busy` (the scalar unit or the vector side is working), `halt`,
/// `xcpt`.
pub fn rocc_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaRocc");
    let io = rocc_ports(&mut m, p);
    let vb = vlen_bits(p);
    let ci = control_insn(&io.cmd);
    let st = rocc_state(&mut m, p, vb);
    let cl = classify(&ci, &st);
    let qs = queues(&mut m, p, &io, &cl, vb)?;
    let new_vlen = enqueue(&mut m, &io, &ci, &cl, &st, &qs);
    respond(&mut m, &io, &ci, &cl, &st, &qs, &new_vlen);
    m.finish()
}

/// The ports, in the order of the module's port list.
fn rocc_ports(m: &mut ModuleBuilder, p: &HwachaParams) -> RoccPorts {
    RoccPorts {
        cmd: m.io("cmd", Dir::In, &rocc_command()),
        resp: m.io("resp", Dir::Out, &rocc_response()),
        busy: m.output("busy", 1),
        vcmd: m.io("vcmd", Dir::Out, &Shape::decoupled(vcmd_entry(p))),
        vrcmd: m.io("vrcmd", Dir::Out, &Shape::decoupled(vcmd_entry(p))),
        scalar_busy: m.input("scalar_busy", 1),
        halt: m.input("halt", 1),
        xcpt: m.io("xcpt", Dir::Out, &xcpt_shape()),
    }
}

/// Decode: the command's fields put back into the instruction word and matched
/// against the Table 7.1 lines of `opcodes-hwacha`.
fn control_insn(cmd: &Bundle) -> ControlInsn {
    let c = cmd.bits();
    let f = |n: &str| c.get(n).value().clone();
    let insn = cat(&[
        &f("funct7"),
        &f("rs2"),
        &f("rs1"),
        &f("xd"),
        &f("xs1"),
        &f("xs2"),
        &f("rd"),
        &f("opcode"),
    ]);
    let rs1 = f("rs1_val");
    let k = |v: u64, w: u32| insn.konst(Bits::from_u64(w, v));
    let lines = parse(CONTROL);
    let is = |name: &str| {
        let l = lines
            .iter()
            .find(|l| l.name == name)
            .expect("a Table 7.1 line");
        (&insn.zext(64) & &k(l.mask, 64)).eq(&k(l.bits, 64))
    };
    let [vsetcfg, vsetvl, vgetcfg, vgetvl, vuncfg, vmcs, vmca, vf] = [
        "vsetcfg", "vsetvl", "vgetcfg", "vgetvl", "vuncfg", "vmcs", "vmca", "vf",
    ]
    .map(is);
    ControlInsn {
        rd: f("rd"),
        insn,
        rs1,
        vsetcfg,
        vsetvl,
        vgetcfg,
        vgetvl,
        vuncfg,
        vmcs,
        vmca,
        vf,
    }
}

/// The architectural state: configured, vcfg, vlen, and the maxvl of vcfg.
fn rocc_state(m: &mut ModuleBuilder, p: &HwachaParams, vb: u32) -> RoccState {
    let configured = m.reg("configured", 1, false);
    // The reset configuration (256 vv64, 16 vp), reported once configured the same way.
    let vcfg = m.reg("vcfg", 32, 256 | 16 << 9);
    let vlen = m.reg("vlen", vb, 0u64);
    let cur_maxvl = maxvl(p, &vcfg);
    RoccState {
        vb,
        configured,
        vcfg,
        vlen,
        cur_maxvl,
    }
}

/// Legality (the configuration's bounds, vmcs's register) and the command's routes.
fn classify(ci: &ControlInsn, st: &RoccState) -> Class {
    let k = |v: u64, w: u32| ci.k(v, w);
    let (insn, rs1, vb) = (&ci.insn, &ci.rs1, st.vb);
    let new_cfg = (rs1 | &insn.slice(31, 20).zext(64)).slice(31, 0);
    let total = &(&new_cfg.slice(8, 0).zext(10) + &new_cfg.slice(22, 14).zext(10))
        + &new_cfg.slice(31, 23).zext(10);
    let bad_cfg = &total.gt(&k(256, 10)) | &new_cfg.slice(13, 9).gt(&k(16, 5));
    let vs_index = cat(&[&insn.slice(22, 20), &insn.slice(11, 7)]);
    let known = [
        &ci.vsetcfg,
        &ci.vsetvl,
        &ci.vgetcfg,
        &ci.vgetvl,
        &ci.vuncfg,
        &ci.vmcs,
        &ci.vmca,
        &ci.vf,
    ]
    .into_iter()
    .fold(k(0, 1), |a, b| &a | b);
    let illegal = &(&(&!&known | &(&!&st.configured & &!&ci.vsetcfg)) | &(&ci.vsetcfg & &bad_cfg))
        | &(&ci.vmcs & &vs_index.ge(&k(64, 8)));
    let answers = &(&ci.vsetvl | &ci.vgetcfg) | &ci.vgetvl;
    let vf_live = &ci.vf & &st.vlen.ne(&k(0, vb));
    let enqueues = &(&(&ci.vsetcfg | &ci.vuncfg) | &(&ci.vmcs | &ci.vmca)) | &vf_live;
    let runahead = &(&(&ci.vsetcfg | &ci.vsetvl) | &ci.vmca) | &vf_live;
    Class {
        new_cfg,
        vs_index,
        illegal,
        answers,
        enqueues,
        runahead,
    }
}

/// The VCMDQ and VRCMDQ, the response register, and the command handshake.
fn queues(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &RoccPorts,
    cl: &Class,
    vb: u32,
) -> Result<Queues, HdlErrors> {
    let command_queue = |m: &mut ModuleBuilder, name: &str, depth: u32| {
        let params = QueueParams {
            depth,
            width: 72 + vb,
            flow: false,
            pipe: false,
            sram_threshold_bits: p.sram_threshold_bits,
        };
        Ok::<_, HdlErrors>(m.instance(name, &queue(&params)?))
    };
    let q = command_queue(m, "vcmdq", p.vcmdq_entries)?;
    let rq = command_queue(m, "vrcmdq", p.vrcmdq_entries)?;
    let resp_valid = m.reg("resp_valid", 1, false);
    let resp_rd = m.reg("resp_rd", 5, 0u64);
    let resp_data = m.reg("resp_data", 64, 0u64);
    let queued = q
        .port("count")
        .ne(&q.port("count").konst(Bits::zero(q.port("count").width())));
    let all_idle = &(&(&!&queued & &!&io.scalar_busy) & &!&resp_valid) & &!&io.halt;
    let slot_free = &!&resp_valid | io.resp.ready();
    // An answered command waits for the response register, a queued one for room in its
    // queues; a dropped vf goes at once, an illegal one never.
    let room = |needs: &Value, q: &hdl::Inst| &!needs | &q.port("enq_ready");
    let ready =
        &(&(&!&cl.answers | &slot_free) & &room(&cl.enqueues, &q)) & &room(&cl.runahead, &rq);
    m.connect(io.cmd.ready(), &(&(&ready & &!&cl.illegal) & &!&io.halt));
    let fire = io.cmd.fire();
    Ok(Queues {
        q,
        rq,
        resp_valid,
        resp_rd,
        resp_data,
        queued,
        all_idle,
        fire,
    })
}

/// The VCMDQ and VRCMDQ entries of the command, and the queues' outputs; returns the
/// vlen a `vsetvl` sets.
fn enqueue(
    m: &mut ModuleBuilder,
    io: &RoccPorts,
    ci: &ControlInsn,
    cl: &Class,
    st: &RoccState,
    qs: &Queues,
) -> Value {
    let k = |v: u64, w: u32| ci.k(v, w);
    let accept = |c: &Value| &qs.fire & c;
    let (insn, rs1, vb, vlen) = (&ci.insn, &ci.rs1, st.vb, &st.vlen);
    let (vsetvl, vmcs, vmca, vf) = (&ci.vsetvl, &ci.vmcs, &ci.vmca, &ci.vf);
    let (q, rq) = (&qs.q, &qs.rq);
    // The VCMDQ entry of the command.
    let kind = priority_mux(
        &[
            (vmcs.clone(), k(vcmd::VMCS, 2)),
            (vmca.clone(), k(vcmd::VMCA, 2)),
            (vf.clone(), k(vcmd::VF, 2)),
        ],
        &k(vcmd::CFG, 2),
    );
    let reg = mux(vmcs, &cl.vs_index.slice(5, 0), &insn.slice(11, 7).zext(6));
    let offset = cat(&[&insn.slice(31, 25), &insn.slice(11, 7)])
        .as_signed()
        .sext(64)
        .as_unsigned();
    let value = priority_mux(
        &[
            (ci.vsetcfg.clone(), cl.new_cfg.zext(64)),
            (ci.vuncfg.clone(), k(0, 64)),
            (vf.clone(), rs1 + &offset),
        ],
        rs1,
    );
    m.connect(&q.port("enq_valid"), &accept(&cl.enqueues));
    m.connect(&q.port("enq_bits"), &cat(&[&kind, &reg, &value, vlen]));
    let rkind = priority_mux(
        &[
            (vsetvl.clone(), k(vrcmd::VSETVL, 2)),
            (vmca.clone(), k(vrcmd::VMCA, 2)),
            (vf.clone(), k(vrcmd::VF, 2)),
        ],
        &k(vrcmd::CFG, 2),
    );
    let new_vlen = mux(
        &rs1.lt(&st.cur_maxvl.zext(64)),
        &rs1.trunc(vb),
        &st.cur_maxvl,
    );
    let rvalue = mux(vsetvl, &new_vlen.zext(64), &value);
    m.connect(&rq.port("enq_valid"), &accept(&cl.runahead));
    m.connect(&rq.port("enq_bits"), &cat(&[&rkind, &reg, &rvalue, vlen]));
    for (out, q) in [(&io.vcmd, q), (&io.vrcmd, rq)] {
        let deq = q.port("deq_bits");
        let ob = out.bits();
        m.connect(ob.get("cmd").value(), &deq.slice(71 + vb, 70 + vb));
        m.connect(ob.get("reg").value(), &deq.slice(69 + vb, 64 + vb));
        m.connect(ob.get("value").value(), &deq.slice(63 + vb, vb));
        m.connect(ob.get("vlen").value(), &deq.slice(vb - 1, 0));
        m.connect(out.valid(), &q.port("deq_valid"));
        m.connect(&q.port("deq_ready"), out.ready());
    }
    new_vlen
}

/// The state changes at acceptance, the answer of `vsetvl`/`vgetcfg`/`vgetvl`, the
/// illegal-instruction exception, and `busy`.
fn respond(
    m: &mut ModuleBuilder,
    io: &RoccPorts,
    ci: &ControlInsn,
    cl: &Class,
    st: &RoccState,
    qs: &Queues,
    new_vlen: &Value,
) {
    let k = |v: u64, w: u32| ci.k(v, w);
    let accept = |c: &Value| &qs.fire & c;
    let (configured, vcfg, vlen, vb) = (&st.configured, &st.vcfg, &st.vlen, st.vb);
    let (resp, resp_valid) = (&io.resp, &qs.resp_valid);
    // Architectural state changes at acceptance, in command order.
    m.when(&accept(&ci.vsetcfg), |m| {
        m.connect(configured, &k(1, 1));
        m.connect(vcfg, &cl.new_cfg);
        m.connect(vlen, &k(0, vb));
    });
    m.when(&accept(&ci.vuncfg), |m| {
        m.connect(configured, &k(0, 1));
        m.connect(vcfg, &k(0, 32));
        m.connect(vlen, &k(0, vb));
    });
    m.when(&accept(&ci.vsetvl), |m| m.connect(vlen, new_vlen));
    let answer = priority_mux(
        &[
            (ci.vsetvl.clone(), new_vlen.zext(64)),
            (ci.vgetcfg.clone(), vcfg.zext(64)),
        ],
        &vlen.zext(64),
    );
    m.when(resp.ready(), |m| m.connect(resp_valid, &k(0, 1)));
    m.when(&accept(&cl.answers), |m| {
        m.connect(resp_valid, &k(1, 1));
        m.connect(&qs.resp_rd, &ci.rd);
        m.connect(&qs.resp_data, &answer);
    });
    m.connect(resp.valid(), resp_valid);
    m.connect(resp.bits().get("rd").value(), &qs.resp_rd);
    m.connect(resp.bits().get("data").value(), &qs.resp_data);

    m.connect(
        io.xcpt.valid(),
        &(&(io.cmd.valid() & &cl.illegal) & &qs.all_idle),
    );
    m.connect(io.xcpt.bits().get("cause").value(), &k(cause::ILLEGAL, 4));
    m.connect(io.xcpt.bits().get("tval").value(), &ci.insn.zext(64));
    m.connect(&io.busy, &(&(&qs.queued | &io.scalar_busy) | resp_valid));
}
