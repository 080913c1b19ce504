//! The master sequencer's slot allocation (`hwacha::master`) in the IR simulator, against
//! thesis Table 8.4: a unit-stride, strided or indexed load or store takes three slots
//! (VPU or VGU, VCU, VSU or VLU), an AMO four (VGU, VCU, VSU, VLU), a divide two (VQU,
//! VIDU), anything else one; the slots are consecutive in the ring, the lanes are told
//! only of the first (`alloc`), the others hold no registers, and an instruction waits
//! until all of its slots are free.

mod hwacha_rtl_rig;

use generators::hwacha::lane::uop::unit;
use generators::hwacha::master::master_sequencer;
use generators::hwacha::params::HwachaParams;
use hdl::sim::Sim;
use hdl::Design;
use hwacha_rtl_rig::{poke_fields, Fields};

fn load() -> Fields {
    vec![("unit", unit::MEM), ("mem", 1), ("wr", 1), ("rd", 3)]
}

fn indexed_store() -> Fields {
    vec![
        ("unit", unit::MEM),
        ("mem", 1),
        ("mem_op", 1),
        ("mode", 2),
        ("rs1_v", 1),
        ("rs2_v", 1),
    ]
}

fn amo() -> Fields {
    vec![
        ("unit", unit::MEM),
        ("mem", 1),
        ("mem_op", 2),
        ("mode", 2),
        ("wr", 1),
    ]
}

fn divide() -> Fields {
    vec![("unit", unit::MEM), ("div", 1), ("fn", 4), ("wr", 1)]
}

fn add() -> Fields {
    vec![("unit", unit::ALU), ("wr", 1), ("rd", 1)]
}

struct Master {
    sim: Sim,
}

impl Master {
    fn new(p: &HwachaParams) -> Master {
        let mut sim = Sim::new(&Design::new(&master_sequencer(p).unwrap()));
        for port in ["busy_0", "clearing_0", "done_0", "cfg_valid", "red_0_valid"] {
            sim.poke_u64(port, 0).unwrap();
        }
        sim.poke_u64("mem_ready_0", 1).unwrap();
        Master { sim }
    }

    /// Offers `op` for one cycle; returns whether it was taken and the `alloc` it drove.
    fn offer(&mut self, op: &Fields) -> (bool, u64) {
        poke_fields(&mut self.sim, "issue_bits", op);
        self.sim.poke_u64("issue_valid", 1).unwrap();
        let ready = self.sim.peek_u64("issue_ready").unwrap() == 1;
        let alloc = self.sim.peek_u64("alloc").unwrap();
        self.sim.step();
        self.sim.poke_u64("issue_valid", 0).unwrap();
        (ready, alloc)
    }

    fn valid(&mut self) -> u64 {
        self.sim.peek_u64("valid").unwrap()
    }

    /// Lets the lanes report `done` for `cycles` cycles (the head retires once a cycle).
    fn retire(&mut self, done: u64, cycles: u32) {
        self.sim.poke_u64("done_0", done).unwrap();
        for _ in 0..cycles {
            self.sim.step();
        }
        self.sim.poke_u64("done_0", 0).unwrap();
    }
}

#[test]
fn instructions_take_table_8_4s_slots() {
    let p = HwachaParams {
        seq_entries: 4,
        ..HwachaParams::default()
    };
    let mut m = Master::new(&p);
    // A load: slots 0 (the lanes' VPU), 1 and 2 (VCU, VLU).
    assert_eq!(m.offer(&load()), (true, 0b0001));
    assert_eq!(m.valid(), 0b0111);
    for f in ["mem", "wr", "unit", "rd"] {
        let v = m.sim.peek_u64(&format!("slot_1_{f}")).unwrap();
        assert_eq!(v, 0, "bookkeeping slot 1 holds {f} = {v}");
    }
    assert_eq!(m.sim.peek_u64("slot_0_mem").unwrap(), 1);
    assert_eq!(m.offer(&add()), (true, 0b1000));
    assert_eq!(m.valid(), 0b1111);
    // Full: nothing issues.
    assert!(!m.offer(&add()).0);
    // The load retires: one slot frees, enough for an add but not a divide or an AMO.
    m.retire(0b0001, 1);
    assert_eq!(m.valid(), 0b1110);
    assert!(!m.offer(&amo()).0);
    assert!(!m.offer(&divide()).0);
    assert_eq!(m.offer(&add()), (true, 0b0001));
    // Everything retires in order; an AMO then takes the whole ring.
    m.retire(0b1111, 4);
    assert_eq!(m.valid(), 0);
    assert_eq!(m.offer(&amo()), (true, 0b0010));
    assert_eq!(m.valid(), 0b1111);
    m.retire(0b1111, 4);
    // A divide at slot 1 takes slots 1 and 2; an indexed store then wraps: 3, 0, 1 once
    // they are free.
    assert_eq!(m.offer(&divide()), (true, 0b0010));
    assert_eq!(m.valid(), 0b0110);
    assert!(!m.offer(&indexed_store()).0);
    m.retire(0b1111, 2);
    assert_eq!(m.valid(), 0);
    assert_eq!(m.offer(&indexed_store()), (true, 0b1000));
    assert_eq!(m.valid(), 0b1011);
}
