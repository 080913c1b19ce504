//! Test rig for the Hwacha golden model: a unit with its own memory, control-thread
//! commands built from the encoding table, and a field encoder for worker code.

#![allow(dead_code)] // each test file uses part of the rig

use verification::hwacha::encoding::{table, Field, Instruction, Thread};
use verification::hwacha::model::{Hwacha, HwachaError, HwachaParams, Vcfg};
use verification::iss::mem::Memory;
use verification::iss::rocc;
use verification::iss::Xlen;

pub const RAM: u64 = 0x8000_0000;
pub const RAM_SIZE: u64 = 4 << 20;
/// Where `Rig::run` puts worker code.
pub const CODE: u64 = RAM + 0x1000;
/// A data area for the tests.
pub const DATA: u64 = RAM + 0x10_0000;

/// The instruction (or pseudo-instruction) `name` of `thread`.
fn instruction(thread: Thread, name: &str) -> &'static Instruction {
    table()
        .get(name)
        .filter(|i| i.thread == thread)
        .unwrap_or_else(|| panic!("no {thread:?} instruction {name}"))
}

/// The worker-thread instructions of the encoding file (pseudo-instructions aside).
pub fn worker_instructions() -> impl Iterator<Item = &'static Instruction> {
    table()
        .instructions()
        .iter()
        .filter(|i| i.thread == Thread::Worker && !i.pseudo)
}

/// A worker instruction being encoded: its name's fixed bits plus operand fields.
#[derive(Clone)]
pub struct I {
    name: String,
    fields: Vec<(Field, u64)>,
}

pub fn i(name: &str) -> I {
    I {
        name: name.to_string(),
        fields: Vec::new(),
    }
}

impl I {
    /// Sets operand field `f` (a later value for the same field wins).
    pub fn f(mut self, f: Field, v: u64) -> I {
        self.fields.retain(|(g, _)| *g != f);
        self.fields.push((f, v));
        self
    }

    /// The same operands on another instruction.
    pub fn rename(mut self, name: &str) -> I {
        self.name = name.to_string();
        self
    }

    /// The instruction word. A field the instruction does not have is a test bug.
    pub fn enc(&self) -> u64 {
        let p = instruction(Thread::Worker, &self.name);
        let mut bits = p.bits;
        for &(f, v) in &self.fields {
            let flag = matches!(f, Field::Vd | Field::Vs1 | Field::Vs2 | Field::Vs3);
            // Operand-kind flags may also be fixed by the encoding; setting one to the
            // value the encoding fixes is allowed.
            if flag && !p.has(f) {
                assert_eq!(p.bits & f.mask(), f.put(v), "{}: flag {f:?}", self.name);
                continue;
            }
            assert!(p.has(f), "{} has no field {f:?}", self.name);
            assert_eq!(
                f.put(v) >> f.range().1,
                v & (f.mask() >> f.range().1),
                "{f:?} {v}"
            );
            bits |= f.put(v);
        }
        bits
    }
}

pub fn stop() -> u64 {
    i("vstop").enc()
}

/// A control-thread instruction word.
pub fn ctl_word(name: &str, fields: &[(Field, u64)]) -> u32 {
    let p = instruction(Thread::Control, name);
    let mut bits = p.bits;
    for &(f, v) in fields {
        assert!(p.has(f), "{name} has no field {f:?}");
        bits |= f.put(v);
    }
    bits as u32
}

pub fn cfg(vv64: u32, vp: u32, vv32: u32, vv16: u32) -> Vcfg {
    Vcfg {
        vv64,
        vp,
        vv32,
        vv16,
    }
}

/// A unit with 4 MiB of RAM.
pub struct Rig {
    pub hw: Hwacha,
    pub mem: Memory,
}

impl Rig {
    pub fn new(params: HwachaParams) -> Rig {
        Rig {
            hw: Hwacha::new(params).unwrap(),
            mem: Memory::new(RAM, RAM_SIZE, RAM, Xlen::Rv64),
        }
    }

    pub fn ctl_bits(&self, name: &str, fields: &[(Field, u64)]) -> u32 {
        ctl_word(name, fields)
    }

    /// Sends instruction word `bits` as the core would, with rs1's value.
    pub fn ctl_raw(&mut self, bits: u32, rs1: u64) -> Result<u64, HwachaError> {
        let mut cmd = rocc::decode(bits);
        if cmd.xs1 {
            cmd.rs1_value = rs1;
        }
        self.hw.command(&cmd, &mut self.mem)
    }

    pub fn ctl(
        &mut self,
        name: &str,
        fields: &[(Field, u64)],
        rs1: u64,
    ) -> Result<u64, HwachaError> {
        self.ctl_raw(ctl_word(name, fields), rs1)
    }

    pub fn setcfg(&mut self, vcfg: Vcfg) {
        self.ctl("vsetcfg", &[], vcfg.to_bits()).unwrap();
    }

    pub fn setvl(&mut self, n: u64) -> u64 {
        self.ctl("vsetvl", &[(Field::Rd, 1)], n).unwrap()
    }

    pub fn vmcs(&mut self, reg: u64, value: u64) {
        let f = [(Field::Svrdhi, reg >> 5), (Field::Svrdlo, reg & 31)];
        self.ctl("vmcs", &f, value).unwrap();
    }

    pub fn vmca(&mut self, reg: u64, value: u64) {
        self.ctl("vmca", &[(Field::Svard, reg)], value).unwrap();
    }

    pub fn vf(&mut self, addr: u64) -> Result<u64, HwachaError> {
        self.ctl("vf", &[], addr)
    }

    /// Writes `code` at `CODE` and runs it with `vf`.
    pub fn run(&mut self, code: &[u64]) -> Result<(), HwachaError> {
        for (k, w) in code.iter().enumerate() {
            assert!(self.mem.write(CODE + 8 * k as u64, 8, *w));
        }
        self.vf(CODE).map(|_| ())
    }

    pub fn write_u64s(&mut self, addr: u64, values: &[u64]) {
        for (k, v) in values.iter().enumerate() {
            assert!(self.mem.write(addr + 8 * k as u64, 8, *v));
        }
    }

    pub fn read(&self, addr: u64, size: usize) -> u64 {
        self.mem.read(addr, size).unwrap()
    }
}

/// Scratch memory the rig's register loaders use (through va31).
pub const SCRATCH: u64 = RAM + 0x30_0000;

impl Rig {
    /// Loads `values` into elements 0.. of vv`reg` with a unit-stride vld (vp0 must be
    /// set for those elements).
    pub fn load_vv(&mut self, reg: u64, values: &[u64]) {
        self.write_u64s(SCRATCH, values);
        self.vmca(31, SCRATCH);
        let vld = i("vlsegd").f(Field::Vrd, reg).f(Field::Vars1, 31).enc();
        self.run(&[vld, stop()]).unwrap();
    }

    /// Sets vp`reg` element k to `bits[k]` with vpl.
    pub fn load_vp(&mut self, reg: u64, bits: &[bool]) {
        for (k, b) in bits.iter().enumerate() {
            assert!(self.mem.write(SCRATCH + k as u64, 1, *b as u64));
        }
        self.vmca(31, SCRATCH);
        let vpl = i("vpl").f(Field::Vprd, reg).f(Field::Vars1, 31).enc();
        self.run(&[vpl, stop()]).unwrap();
    }

    /// Elements 0..n of vv`reg`.
    pub fn vv(&self, reg: u32, n: u64) -> Vec<u64> {
        (0..n).map(|e| self.hw.state().vv(reg, e)).collect()
    }

    /// Elements 0..n of vp`reg`.
    pub fn vp(&self, reg: u32, n: u64) -> Vec<bool> {
        (0..n).map(|e| self.hw.state().vp(reg, e)).collect()
    }
}

/// Whether worker instruction `name` has operand field `f`.
pub fn has_field(name: &str, f: Field) -> bool {
    instruction(Thread::Worker, name).has(f)
}
