//! Pipeline registers of the fixed-latency floating-point units: a cut through a unit's
//! datapath registers the valid bit and every value crossing it, so a unit built with
//! more cuts gives the same results, later by one cycle a cut. Registers reset to zero
//! (the IR has no reset-less registers yet) and load every cycle: the units accept one
//! operation a cycle and never stall.

use hdl::{ModuleBuilder, Value};

/// One cut: values passed through it come out registered (`<name>_<k>` for the k-th
/// value passed, or `<name>_<label>`) when the cut is on, unchanged when it is off.
pub struct Stage<'a> {
    m: &'a mut ModuleBuilder,
    name: &'a str,
    on: bool,
    passed: usize,
}

impl<'a> Stage<'a> {
    pub fn new(m: &'a mut ModuleBuilder, name: &'a str, on: bool) -> Stage<'a> {
        Stage {
            m,
            name,
            on,
            passed: 0,
        }
    }

    /// `v` after the cut, with its signedness.
    pub fn pass(&mut self, v: &Value) -> Value {
        let label = self.passed.to_string();
        self.passed += 1;
        self.pass_as(&label, v)
    }

    /// `v` after the cut in a register named `<name>_<label>`, with its signedness.
    pub fn pass_as(&mut self, label: &str, v: &Value) -> Value {
        if !self.on {
            return v.clone();
        }
        let r = self
            .m
            .reg(&format!("{}_{label}", self.name), v.width(), 0u64);
        self.m.connect(&r, &v.as_unsigned());
        if v.is_signed() {
            r.as_signed()
        } else {
            r
        }
    }
}

/// Drives a unit's outputs `out_valid`, `result` and `flags`, through an output register
/// cut `out` if `register`.
pub fn outputs(
    m: &mut ModuleBuilder,
    register: bool,
    valid: &Value,
    result: &Value,
    flags: &Value,
) {
    let mut cut = Stage::new(m, "out", register);
    let outs = [valid, result, flags].map(|v| cut.pass(v));
    for (name, v) in ["out_valid", "result", "flags"].iter().zip(&outs) {
        let port = m.output(name, v.width());
        m.connect(&port, v);
    }
}
