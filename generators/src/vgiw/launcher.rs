//! The launcher, module `VgiwLauncher`: the control processor's side of a kernel launch
//! (seed 004 section 3.1, step 7: "the runtime loads the block sequence and the
//! per-block configurations into the BBS"). It takes the SIMT runtime's RoCC commands
//! (`kernels/runtime/simt.h`, decoded as the FG-SIMT engine decodes them): `stack` and
//! `globals` set registers (the threads' sp and their gp and tp, which the fabric's CVUs
//! inject); `launch` (n threads from `entry`) looks the kernel up in the **kernel
//! directory**, starts the configurator on its image and hands the BBS the launch, and
//! answers the command once the BBS is idle again (every thread has completed, so every
//! store of the kernel is in the L1 the host reads through).
//!
//! **The directory** (written by the loader, `verification::tb::vgiw`): at `image_base`,
//! 16 bytes a kernel, read with 64-bit reads on `dir_req`/`dir_resp`:
//!
//! ```text
//! dw0: [31:0] the kernel's entry address, [63:32] its CVT words a block (the BBS's
//!      `launch.words`: the tile is 64 times as many threads)
//! dw1: [31:0] the address of its block 0 in memory (the configurator's `image`)
//! ```
//!
//! ended by an entry of address 0. A launch of an entry the directory does not hold
//! (address 0 included), or a command the runtime never sends, raises `fault` (code `FAULT_NO_KERNEL`, or
//! `FAULT_BAD_COMMAND`) and stops the launcher: no command is taken after it.

use crate::fgsimt::cp::kernel_state::simt_command;
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use crate::vgiw::bbs::{launch_shape, word_bits};
use crate::vgiw::params::VgiwParams;
use crate::vgiw::{k, uint};
use hdl::{Dir, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// `fault.code`: a command the runtime never sends.
pub const FAULT_BAD_COMMAND: u64 = 1;
/// `fault.code`: a launch of an entry without a directory entry.
pub const FAULT_NO_KERNEL: u64 = 2;

/// Bytes of a directory entry.
pub const ENTRY_BYTES: u64 = 16;

#[derive(Clone, Copy)]
enum S {
    Idle,
    Ask,
    Wait,
    Launch,
    Run,
    Respond,
    Fault,
}
const STATE_BITS: u32 = 3;

/// The `fault` port: valid once the launcher has stopped, with why and the entry.
pub fn fault_shape() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("code", 2), uint("entry", 32)]))
}

/// A 32-bit register.
fn reg32(m: &mut ModuleBuilder, name: &str) -> Value {
    m.reg(name, 32, 0u64)
}

/// Ports: `rocc_cmd`, `rocc_resp`, `rocc_busy`; `dir_req`/`dir_resp` (memory, 64-bit
/// reads); `launch` (to the BBS's) and `bbs_busy`; `cfg_start` and `cfg_image` (the
/// configurator's `start` and `image`); `gp`, `tp` (the fabric's); `fault`.
pub fn launcher(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("VgiwLauncher");
    let wb = word_bits(p);
    let cmd = m.io("rocc_cmd", Dir::In, &rocc_command());
    let resp = m.io("rocc_resp", Dir::Out, &rocc_response());
    let busy = m.output("rocc_busy", 1);
    let req = m.io("dir_req", Dir::Out, &mem_request(0));
    let dresp = m.io("dir_resp", Dir::In, &mem_response(0));
    let launch = m.io("launch", Dir::Out, &launch_shape(wb));
    let bbs_busy = m.input("bbs_busy", 1);
    let fault = m.io("fault", Dir::Out, &fault_shape());

    let state = m.reg("state", STATE_BITS, S::Idle as u64);
    let is = |s: S| state.eq(&k(&state, s as u64, STATE_BITS));
    let goto = |m: &mut ModuleBuilder, s: S| {
        let v = m.lit(s as u64, STATE_BITS);
        m.connect(&state, &v);
    };
    let [top, bytes, gp, tp, entry, n, dir, blocks_at] = [
        "stack_top",
        "stack_bytes",
        "gp_r",
        "tp_r",
        "entry",
        "n",
        "dir_addr",
        "blocks_at",
    ]
    .map(|name| reg32(&mut m, name));
    let words = m.reg("words", wb + 1, 0u64);
    let resp_rd = m.reg("resp_rd", 5, 0u64);
    let code = m.reg("fault_code", 2, 0u64);
    // Which doubleword of the matching entry the read in flight is.
    let second = m.reg("second", 1, false);

    let c = simt_command(&mut m, &cmd, &is(S::Idle));
    m.when(&(&c.fire & &c.stack), |m| {
        m.connect(&top, &c.rs1);
        m.connect(&bytes, &c.rs2);
    });
    m.when(&(&c.fire & &c.globals), |m| {
        m.connect(&gp, &c.rs1);
        m.connect(&tp, &c.rs2);
    });
    let image_base = k(&dir, p.image_base, 32);
    m.when(&(&c.fire & &c.launch), |m| {
        m.connect(&n, &c.rs1);
        m.connect(&entry, &c.rs2);
        m.connect(&resp_rd, &c.rd);
        m.connect(&dir, &image_base);
        let f = m.lit(0, 1);
        m.connect(&second, &f);
        let none = c.rs1.eq(&k(&c.rs1, 0, 32));
        m.when(&none, |m| goto(m, S::Respond))
            .otherwise(|m| goto(m, S::Ask));
    });
    m.when(&c.bad, |m| {
        let v = m.lit(FAULT_BAD_COMMAND, 2);
        m.connect(&code, &v);
        goto(m, S::Fault);
    });

    // The directory, an entry's first doubleword at a time, then the match's second.
    m.connect(req.valid(), &is(S::Ask));
    let field = |f: &str| req.bits().get(f).value().clone();
    m.connect(&field("addr"), &dir);
    for (f, v) in [("write", 0), ("data", 0), ("mask", 0xff), ("size", 3)] {
        let x = field(f);
        m.connect(&x, &k(&x, v, x.width()));
    }
    m.when(&req.fire(), |m| goto(m, S::Wait));
    let data = dresp.bits().get("data").value();
    let got = &is(S::Wait) & dresp.valid();
    let low = data.slice(31, 0);
    m.when(&got, |m| {
        m.when(&second, |m| {
            m.connect(&blocks_at, &low);
            goto(m, S::Launch);
        })
        .otherwise(|m| {
            let hit = low.eq(&entry);
            let end = low.eq(&k(&low, 0, 32));
            m.when(&end, |m| {
                let v = m.lit(FAULT_NO_KERNEL, 2);
                m.connect(&code, &v);
                goto(m, S::Fault);
            })
            .elsewhen(&hit, |m| {
                m.connect(&words, &data.slice(32 + wb, 32));
                let t = m.lit(1, 1);
                m.connect(&second, &t);
                m.connect(&dir, &(&dir + &k(&dir, 8, 32)));
                goto(m, S::Ask);
            })
            .otherwise(|m| {
                m.connect(&dir, &(&dir + &k(&dir, ENTRY_BYTES, 32)));
                goto(m, S::Ask);
            });
        });
    });

    // The launch, then its end.
    m.connect(launch.valid(), &is(S::Launch));
    let lb = launch.bits();
    for (f, v) in [
        ("threads", &n),
        ("words", &words),
        ("stack_top", &top),
        ("stack_bytes", &bytes),
    ] {
        m.connect(lb.get(f).value(), v);
    }
    let start = launch.fire();
    m.when(&start, |m| goto(m, S::Run));
    m.when(&(&is(S::Run) & &!&bbs_busy), |m| goto(m, S::Respond));
    m.connect(resp.valid(), &is(S::Respond));
    m.connect(resp.bits().get("rd").value(), &resp_rd);
    m.connect(resp.bits().get("data").value(), &k(&n, 0, 64));
    m.when(&resp.fire(), |m| goto(m, S::Idle));
    let idle = &is(S::Idle) | &is(S::Fault);
    m.connect(&busy, &!&idle);

    m.connect(fault.valid(), &is(S::Fault));
    m.connect(fault.bits().get("code").value(), &code);
    m.connect(fault.bits().get("entry").value(), &entry);
    for (name, v) in [
        ("cfg_start", start),
        ("cfg_image", blocks_at),
        ("gp", gp),
        ("tp", tp),
    ] {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    m.finish()
}
