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
use hdl::{cat, mux, Bits, Dir, Field, HdlErrors, Module, ModuleBuilder, Shape, Value};
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
    let max = p.bank_entries.min(p.pred_entries) as u64 * (p.lanes * p.strip()) as u64;
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

/// maxvl of a vcfg (the golden model's `HwachaParams::maxvl`): elements per bank
/// min(n < 2 ? E : E/n, #vp < 2 ? P : P/#vp), times L*B*S (a power of two).
pub fn maxvl(p: &HwachaParams, vcfg: &Value) -> Value {
    let vb = vlen_bits(p);
    let n =
        &(&vcfg.slice(8, 0).zext(10) + &vcfg.slice(22, 14).zext(10)) + &vcfg.slice(31, 23).zext(10);
    let vp = vcfg.slice(13, 9).zext(10);
    // Elements per bank, in 32 bits: a quotient can exceed the vlen width when E >> P.
    let per = |count: &Value, entries: u32| {
        let small = count.lt(&count.konst(Bits::from_u64(10, 2)));
        let q = pow2_div(entries.trailing_zeros(), count).zext(32);
        mux(&small, &count.konst(Bits::from_u64(32, entries as u64)), &q)
    };
    let (a, b) = (per(&n, p.bank_entries), per(&vp, p.pred_entries));
    let e = mux(&a.lt(&b), &a, &b);
    e.shl((p.lanes * p.strip()).trailing_zeros()).trunc(vb)
}

/// Ports: `cmd`/`resp` (RoCC), `busy`, `vcmd` and `vrcmd` (decoupled VCMDQ and VRCMDQ
/// outputs), `scalar_busy` (the scalar unit or the vector side is working), `halt`,
/// `xcpt`.
pub fn rocc_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaRocc");
    let cmd = m.io("cmd", Dir::In, &rocc_command());
    let resp = m.io("resp", Dir::Out, &rocc_response());
    let busy = m.output("busy", 1);
    let vcmd_out = m.io("vcmd", Dir::Out, &Shape::decoupled(vcmd_entry(p)));
    let vrcmd_out = m.io("vrcmd", Dir::Out, &Shape::decoupled(vcmd_entry(p)));
    let scalar_busy = m.input("scalar_busy", 1);
    let halt = m.input("halt", 1);
    let xcpt = m.io("xcpt", Dir::Out, &xcpt_shape());
    let vb = vlen_bits(p);

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

    let configured = m.reg("configured", 1, false);
    // The reset configuration (256 vv64, 16 vp), reported once configured the same way.
    let vcfg = m.reg("vcfg", 32, 256 | 16 << 9);
    let vlen = m.reg("vlen", vb, 0u64);
    let cur_maxvl = maxvl(p, &vcfg);

    let new_cfg = (&rs1 | &insn.slice(31, 20).zext(64)).slice(31, 0);
    let total = &(&new_cfg.slice(8, 0).zext(10) + &new_cfg.slice(22, 14).zext(10))
        + &new_cfg.slice(31, 23).zext(10);
    let bad_cfg = &total.gt(&k(256, 10)) | &new_cfg.slice(13, 9).gt(&k(16, 5));
    let vs_index = cat(&[&insn.slice(22, 20), &insn.slice(11, 7)]);
    let known = [
        &vsetcfg, &vsetvl, &vgetcfg, &vgetvl, &vuncfg, &vmcs, &vmca, &vf,
    ]
    .into_iter()
    .fold(k(0, 1), |a, b| &a | b);
    let illegal = &(&(&!&known | &(&!&configured & &!&vsetcfg)) | &(&vsetcfg & &bad_cfg))
        | &(&vmcs & &vs_index.ge(&k(64, 8)));
    let answers = &(&vsetvl | &vgetcfg) | &vgetvl;
    let vf_live = &vf & &vlen.ne(&k(0, vb));
    let enqueues = &(&(&vsetcfg | &vuncfg) | &(&vmcs | &vmca)) | &vf_live;
    let runahead = &(&(&vsetcfg | &vsetvl) | &vmca) | &vf_live;

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
    let q = command_queue(&mut m, "vcmdq", p.vcmdq_entries)?;
    let rq = command_queue(&mut m, "vrcmdq", p.vrcmdq_entries)?;
    let resp_valid = m.reg("resp_valid", 1, false);
    let resp_rd = m.reg("resp_rd", 5, 0u64);
    let resp_data = m.reg("resp_data", 64, 0u64);
    let queued = q
        .port("count")
        .ne(&q.port("count").konst(Bits::zero(q.port("count").width())));
    let all_idle = &(&(&!&queued & &!&scalar_busy) & &!&resp_valid) & &!&halt;
    let slot_free = &!&resp_valid | resp.ready();
    // An answered command waits for the response register, a queued one for room in its
    // queues; a dropped vf goes at once, an illegal one never.
    let room = |needs: &Value, q: &hdl::Inst| &!needs | &q.port("enq_ready");
    let ready = &(&(&!&answers | &slot_free) & &room(&enqueues, &q)) & &room(&runahead, &rq);
    m.connect(cmd.ready(), &(&(&ready & &!&illegal) & &!&halt));
    let fire = cmd.fire();
    let accept = |c: &Value| &fire & c;

    // The VCMDQ entry of the command.
    let kind = priority_mux(
        &[
            (vmcs.clone(), k(vcmd::VMCS, 2)),
            (vmca.clone(), k(vcmd::VMCA, 2)),
            (vf.clone(), k(vcmd::VF, 2)),
        ],
        &k(vcmd::CFG, 2),
    );
    let reg = mux(&vmcs, &vs_index.slice(5, 0), &insn.slice(11, 7).zext(6));
    let offset = cat(&[&insn.slice(31, 25), &insn.slice(11, 7)])
        .as_signed()
        .sext(64)
        .as_unsigned();
    let value = priority_mux(
        &[
            (vsetcfg.clone(), new_cfg.zext(64)),
            (vuncfg.clone(), k(0, 64)),
            (vf.clone(), &rs1 + &offset),
        ],
        &rs1,
    );
    m.connect(&q.port("enq_valid"), &accept(&enqueues));
    m.connect(&q.port("enq_bits"), &cat(&[&kind, &reg, &value, &vlen]));
    let rkind = priority_mux(
        &[
            (vsetvl.clone(), k(vrcmd::VSETVL, 2)),
            (vmca.clone(), k(vrcmd::VMCA, 2)),
            (vf.clone(), k(vrcmd::VF, 2)),
        ],
        &k(vrcmd::CFG, 2),
    );
    let new_vlen = mux(&rs1.lt(&cur_maxvl.zext(64)), &rs1.trunc(vb), &cur_maxvl);
    let rvalue = mux(&vsetvl, &new_vlen.zext(64), &value);
    m.connect(&rq.port("enq_valid"), &accept(&runahead));
    m.connect(&rq.port("enq_bits"), &cat(&[&rkind, &reg, &rvalue, &vlen]));
    for (out, q) in [(&vcmd_out, &q), (&vrcmd_out, &rq)] {
        let deq = q.port("deq_bits");
        let ob = out.bits();
        m.connect(ob.get("cmd").value(), &deq.slice(71 + vb, 70 + vb));
        m.connect(ob.get("reg").value(), &deq.slice(69 + vb, 64 + vb));
        m.connect(ob.get("value").value(), &deq.slice(63 + vb, vb));
        m.connect(ob.get("vlen").value(), &deq.slice(vb - 1, 0));
        m.connect(out.valid(), &q.port("deq_valid"));
        m.connect(&q.port("deq_ready"), out.ready());
    }

    // Architectural state changes at acceptance, in command order.
    m.when(&accept(&vsetcfg), |m| {
        m.connect(&configured, &k(1, 1));
        m.connect(&vcfg, &new_cfg);
        m.connect(&vlen, &k(0, vb));
    });
    m.when(&accept(&vuncfg), |m| {
        m.connect(&configured, &k(0, 1));
        m.connect(&vcfg, &k(0, 32));
        m.connect(&vlen, &k(0, vb));
    });
    m.when(&accept(&vsetvl), |m| m.connect(&vlen, &new_vlen));
    let answer = priority_mux(
        &[
            (vsetvl.clone(), new_vlen.zext(64)),
            (vgetcfg.clone(), vcfg.zext(64)),
        ],
        &vlen.zext(64),
    );
    m.when(resp.ready(), |m| m.connect(&resp_valid, &k(0, 1)));
    m.when(&accept(&answers), |m| {
        m.connect(&resp_valid, &k(1, 1));
        m.connect(&resp_rd, &f("rd"));
        m.connect(&resp_data, &answer);
    });
    m.connect(resp.valid(), &resp_valid);
    m.connect(resp.bits().get("rd").value(), &resp_rd);
    m.connect(resp.bits().get("data").value(), &resp_data);

    m.connect(xcpt.valid(), &(&(cmd.valid() & &illegal) & &all_idle));
    m.connect(xcpt.bits().get("cause").value(), &k(cause::ILLEGAL, 4));
    m.connect(xcpt.bits().get("tval").value(), &insn.zext(64));
    m.connect(&busy, &(&(&queued | &scalar_busy) | &resp_valid));
    m.finish()
}
