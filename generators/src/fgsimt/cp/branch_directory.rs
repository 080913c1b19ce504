//! The re-convergence directory's reader (with the DWS sequencer, `warp_sequencer.rs`;
//! seed 001, section 2.1: a divergent branch re-converges at its immediate
//! post-dominator, and section 2.3's short blocks; docs/fgsimt-engine.md, "DWS in the
//! engine"). The paper marked both by hand; here the loader computes them from each
//! kernel's code (`verification::fgsimt::dws::cfg`) and writes a directory into memory
//! beside the program, and each launch reads its kernel's branches into the
//! sequencer's table through the front end's I$ port before its first warp starts, as
//! the VGIW launcher reads its kernel directory.
//!
//! **The directory**, at `dws_directory`, in 64-bit doublewords:
//!
//! ```text
//! a kernel:        [31:0] its entry address, [63:32] n, its conditional branches
//! then n branches: [31:0] the branch's pc, [63:32] its post-dominator's pc (0: the
//!                  kernel's return), bit 32 set when the block there is short
//! ```
//!
//! kernel after kernel, ended by a kernel of address 0. A launch reads kernels from the
//! start until its entry's, skipping the others' branches, then writes its n branches
//! into the table (`tbl_*`, cleared as the launch is accepted), one a doubleword, and
//! says `ready`. A launch of an entry the directory does not hold, or of a kernel with
//! more branches than the table's `branch_entries`, raises `fault` (a pulse; the front
//! end reports it and halts). Requests wait for `quiet` (the fetch unit has no fetch in
//! the I$); `active` says the reader owns the port.

use super::super::params::FgsimtParams;
use crate::rocket::bus::{mem_request, mem_response, SIZE_BITS};
use hdl::ir::addr_width;
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// States.
const IDLE: u64 = 0;
const ASK: u64 = 1;
const WAIT: u64 = 2;
const STATE_BITS: u32 = 2;

/// The reader of `p`'s directory (`p` has a sequencer). Ports: in `go` (a launch is
/// accepted), `entry` (its kernel's), `quiet`, `resp`; out `req`, `active`, `ready`,
/// `fault`, `tbl_clear`, `tbl_we`, `tbl_index`, `tbl_pc`, `tbl_ipdom`, `tbl_short`.
pub fn branch_directory(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let d = p.sequencer().expect("a directory only with the sequencer");
    let mut m = ModuleBuilder::new("FgsimtBranchDirectory");
    let go = m.input("go", 1);
    let entry = m.input("entry", 32);
    let quiet = m.input("quiet", 1);
    let req = m.io("req", Dir::Out, &mem_request(0));
    let resp = m.io("resp", Dir::In, &mem_response(0));
    let state = m.reg("state", STATE_BITS, IDLE);
    let is = |s: u64| state.eq(&lit(&state, s, STATE_BITS));
    let goto = |m: &mut ModuleBuilder, s: u64| m.connect(&state, &lit(&state, s, STATE_BITS));
    let addr = m.reg("addr", 32, hdl::ResetValue::None);
    let ready = m.reg("ready", 1, false);
    // Reading the launched kernel's branches: how many are left, and the next's index.
    let loading = m.reg("loading", 1, false);
    let cw = addr_width(d.branch_entries as u64 + 1);
    let left = m.reg("left", cw, hdl::ResetValue::None);
    let tw = addr_width(d.branch_entries as u64);
    let index = m.reg("index", tw, hdl::ResetValue::None);

    let ask = &is(ASK) & &quiet;
    m.connect(req.valid(), &ask);
    let rb = req.bits();
    m.connect(rb.get("addr").value(), &addr);
    for (field, width, value) in [("write", 1, 0), ("data", 64, 0), ("mask", 8, 0)] {
        m.connect(rb.get(field).value(), &lit(&addr, value, width));
    }
    m.connect(rb.get("size").value(), &lit(&addr, 3, SIZE_BITS));
    m.when(&(&ask & req.ready()), |m| goto(m, WAIT));

    let word = resp.bits().get("data").value();
    let (low, high) = (word.slice(31, 0), word.slice(63, 32));
    let got = &is(WAIT) & resp.valid();
    let eight = lit(&addr, 8, 32);
    let next = &addr + &eight;
    // A kernel's doubleword: the launched one's, another's (skip its branches) or the
    // end (a fault, as a kernel with more branches than the table holds).
    let header = &got & &!&loading;
    let ours = low.eq(&entry);
    let end = low.eq(&lit(&low, 0, 32));
    let n = high;
    let fits = n.le(&lit(&n, d.branch_entries as u64, 32));
    let none = n.eq(&lit(&n, 0, 32));
    let fault = &header & &(&end | &(&ours & &!&fits));
    let skip = &(&header & &!&end) & &!&ours;
    let found = &(&header & &ours) & &fits;
    let branch = &got & &loading;
    let last = left.eq(&lit(&left, 1, cw));
    let done = &(&found & &none) | &(&branch & &last);
    m.when(&go, |m| {
        m.connect(&addr, &lit(&addr, p.dws_directory, 32));
        m.connect(&ready, &lit(&ready, 0, 1));
        m.connect(&loading, &lit(&ready, 0, 1));
        goto(m, ASK);
    });
    m.when(&skip, |m| {
        let past = &(&n + &lit(&n, 1, 32)).shl(3) + &addr;
        m.connect(&addr, &past.slice(31, 0));
        goto(m, ASK);
    });
    m.when(&(&found & &!&none), |m| {
        m.connect(&addr, &next);
        m.connect(&loading, &lit(&ready, 1, 1));
        m.connect(&left, &n.slice(cw - 1, 0));
        m.connect(&index, &lit(&index, 0, tw));
        goto(m, ASK);
    });
    m.when(&(&branch & &!&last), |m| {
        m.connect(&addr, &next);
        m.connect(&left, &(&left - &lit(&left, 1, cw)));
        m.connect(&index, &(&index + &lit(&index, 1, tw)));
        goto(m, ASK);
    });
    m.when(&done, |m| {
        m.connect(&ready, &lit(&ready, 1, 1));
        m.connect(&loading, &lit(&ready, 0, 1));
        goto(m, IDLE);
    });
    m.when(&fault, |m| goto(m, IDLE));

    let ipdom = &n & &lit(&n, !3u64 & 0xffff_ffff, 32);
    let outputs = [
        ("active", &is(ASK) | &is(WAIT)),
        ("ready", ready.clone()),
        ("fault", fault),
        ("tbl_clear", go.clone()),
        ("tbl_we", branch),
        ("tbl_index", index.clone()),
        ("tbl_pc", low),
        ("tbl_ipdom", ipdom),
        ("tbl_short", n.bit(0)),
    ];
    for (name, v) in outputs {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    m.finish()
}
