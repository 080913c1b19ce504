//! Hwacha golden model, worker-thread memory instructions: unit-stride, constant-stride
//! and indexed vector loads and stores of every width and sign, their segment forms,
//! scalar loads and stores (shared- and address-register addresses), vector AMOs,
//! predicate spill and fill, and the misaligned and access-fault exceptions (which leave
//! registers and memory untouched). Expected values are computed here from the bytes the
//! tests put in memory.

mod hwacha_model_rig;

use hwacha_model_rig::*;
use verification::hwacha::model::Field::*;
use verification::hwacha::model::{HwachaError, HwachaParams};
use verification::rng::Rng;

const VLEN: u64 = 8;
/// (suffix, bytes, zero-extending)
const LOADS: [(&str, u64, bool); 7] = [
    ("b", 1, false),
    ("bu", 1, true),
    ("h", 2, false),
    ("hu", 2, true),
    ("w", 4, false),
    ("wu", 4, true),
    ("d", 8, false),
];
const STORES: [(&str, u64); 4] = [("b", 1), ("h", 2), ("w", 4), ("d", 8)];

fn rig() -> Rig {
    let mut rig = Rig::new(HwachaParams::default());
    rig.setcfg(cfg(32, 4, 0, 0));
    assert_eq!(rig.setvl(VLEN), VLEN);
    rig
}

/// Fills `len` bytes at `addr` with random bytes.
fn fill(rig: &mut Rig, rng: &mut Rng, addr: u64, len: u64) {
    for k in 0..len {
        rig.mem.write(addr + k, 1, rng.next_u64() & 0xff);
    }
}

fn extend(raw: u64, bytes: u64, unsigned: bool) -> u64 {
    let shift = 64 - 8 * bytes;
    if unsigned {
        raw
    } else {
        (((raw << shift) as i64) >> shift) as u64
    }
}

/// How a test addresses element `e`, segment `s` of `bytes`-wide accesses.
#[derive(Clone, Copy, Debug)]
enum Addressing {
    Unit,
    Strided(i64),
    /// Offsets in vv20, base in vs1.
    Indexed,
}

/// Offsets for indexed accesses: a permutation of the elements, 64 bytes apart.
fn offsets() -> Vec<u64> {
    (0..VLEN).map(|e| ((e * 5 + 3) % VLEN) * 64).collect()
}

fn address(mode: Addressing, e: u64, s: u64, bytes: u64, segs: u64) -> u64 {
    match mode {
        Addressing::Unit => DATA + (e * segs + s) * bytes,
        Addressing::Strided(st) => (DATA as i64 + 0x800 + e as i64 * st) as u64 + s * bytes,
        Addressing::Indexed => DATA + offsets()[e as usize] + s * bytes,
    }
}

/// Sets up registers for `mode` and returns the instruction word with its predicate.
fn mem_insn(rig: &mut Rig, name: &str, kind: &str, mode: Addressing, segs: u64) -> u64 {
    let (infix, extra) = match mode {
        Addressing::Unit => ("seg", None),
        Addressing::Strided(st) => {
            rig.vmca(1, DATA + 0x800);
            rig.vmca(2, st as u64);
            ("segst", Some((Vars2, 2)))
        }
        Addressing::Indexed => {
            rig.load_vv(20, &offsets());
            rig.vmcs(1, DATA);
            ("segx", None)
        }
    };
    if let Addressing::Unit = mode {
        rig.vmca(1, DATA);
    }
    let mut insn = i(&format!("{name}{infix}{kind}"))
        .f(Vrd, 1)
        .f(Vseglen, segs - 1)
        .f(Vpred, 1);
    insn = match mode {
        Addressing::Indexed => insn.f(Vrs1, 1).f(Vrs2, 20),
        _ => insn.f(Vars1, 1),
    };
    if let Some((f, v)) = extra {
        insn = insn.f(f, v);
    }
    insn.enc()
}

const MODES: [Addressing; 4] = [
    Addressing::Unit,
    Addressing::Strided(40),
    Addressing::Strided(-24),
    Addressing::Indexed,
];

#[test]
fn vector_loads_every_width_mode_and_segment_count() {
    let mut rig = rig();
    let mut rng = Rng::new(11);
    for mode in MODES {
        for (kind, bytes, unsigned) in LOADS {
            for segs in [1, 3] {
                fill(&mut rig, &mut rng, DATA, 0x1000);
                let mask: Vec<bool> = (0..VLEN).map(|_| rng.chance(70)).collect();
                let old: Vec<Vec<u64>> = (0..segs)
                    .map(|_| (0..VLEN).map(|_| rng.next_u64()).collect())
                    .collect();
                for (s, o) in old.iter().enumerate() {
                    rig.load_vv(1 + s as u64, o);
                }
                rig.load_vp(1, &mask);
                let insn = mem_insn(&mut rig, "vl", kind, mode, segs);
                rig.run(&[insn, stop()]).unwrap();
                for s in 0..segs {
                    for e in 0..VLEN {
                        let want = if mask[e as usize] {
                            let a = address(mode, e, s, bytes, segs);
                            extend(rig.read(a, bytes as usize), bytes, unsigned)
                        } else {
                            old[s as usize][e as usize]
                        };
                        assert_eq!(
                            rig.hw.state().vv(1 + s as u32, e),
                            want,
                            "vl{kind} {mode:?} segs {segs} element {e} segment {s}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn vector_stores_every_width_mode_and_segment_count() {
    let mut rig = rig();
    let mut rng = Rng::new(12);
    for mode in MODES {
        for (kind, bytes) in STORES {
            for segs in [1, 2] {
                fill(&mut rig, &mut rng, DATA, 0x1000);
                let before: Vec<u64> = (0..0x1000).map(|k| rig.read(DATA + k, 1)).collect();
                let mask: Vec<bool> = (0..VLEN).map(|_| rng.chance(70)).collect();
                let data: Vec<Vec<u64>> = (0..segs)
                    .map(|_| (0..VLEN).map(|_| rng.next_u64()).collect())
                    .collect();
                for (s, d) in data.iter().enumerate() {
                    rig.load_vv(1 + s as u64, d);
                }
                rig.load_vp(1, &mask);
                let insn = mem_insn(&mut rig, "vs", kind, mode, segs);
                rig.run(&[insn, stop()]).unwrap();
                // Expected memory: the old bytes with each active element's bytes on top.
                let mut want = before.clone();
                for e in 0..VLEN {
                    if !mask[e as usize] {
                        continue;
                    }
                    for s in 0..segs {
                        let a = address(mode, e, s, bytes, segs) - DATA;
                        for k in 0..bytes {
                            want[(a + k) as usize] = data[s as usize][e as usize] >> (8 * k) & 0xff;
                        }
                    }
                }
                let got: Vec<u64> = (0..0x1000).map(|k| rig.read(DATA + k, 1)).collect();
                assert!(got == want, "vs{kind} {mode:?} segs {segs}");
            }
        }
    }
}

#[test]
fn scalar_loads_and_stores() {
    let mut rig = rig();
    let mut rng = Rng::new(13);
    fill(&mut rig, &mut rng, DATA, 0x100);
    rig.vmca(3, DATA + 0x40);
    rig.vmcs(9, DATA + 0x20);
    for (kind, bytes, unsigned) in LOADS {
        for segs in [1u64, 2] {
            // Through the address register (vla*) and the shared register (vls*).
            for (name, field, reg, base) in [
                ("vlaseg", Vars1, 3, DATA + 0x40),
                ("vlsseg", Vrs1, 9, DATA + 0x20),
            ] {
                let insn = i(&format!("{name}{kind}"))
                    .f(Vrd, 10)
                    .f(Vseglen, segs - 1)
                    .f(field, reg);
                rig.run(&[insn.enc(), stop()]).unwrap();
                for s in 0..segs {
                    let want = extend(rig.read(base + s * bytes, bytes as usize), bytes, unsigned);
                    assert_eq!(
                        rig.hw.state().vs(10 + s as u32),
                        want,
                        "{name}{kind} seg {s}"
                    );
                }
            }
        }
    }
    for (kind, bytes) in STORES {
        for (name, field, reg, base) in [
            ("vsaseg", Vars1, 3, DATA + 0x40),
            ("vssseg", Vrs1, 9, DATA + 0x20),
        ] {
            rig.vmcs(20, rng.next_u64());
            rig.vmcs(21, rng.next_u64());
            rig.mem.write(base, 8, 0);
            rig.mem.write(base + 8, 8, 0);
            let insn = i(&format!("{name}{kind}"))
                .f(Vrs2, 20)
                .f(Vseglen, 1)
                .f(field, reg);
            rig.run(&[insn.enc(), stop()]).unwrap();
            let m = u64::MAX >> (64 - 8 * bytes);
            for s in 0..2 {
                let v = rig.hw.state().vs(20 + s as u32);
                assert_eq!(
                    rig.read(base + s * bytes, bytes as usize),
                    v & m,
                    "{name}{kind} seg {s}"
                );
            }
        }
    }
}

#[test]
fn atomic_memory_operations() {
    let mut rig = rig();
    let mut rng = Rng::new(14);
    type Amo = fn(u64, u64, u64) -> u64; // (old, operand, width mask) -> new
    let ops: [(&str, Amo); 9] = [
        ("swap", |_, b, _| b),
        ("add", |a, b, _| a.wrapping_add(b)),
        ("xor", |a, b, _| a ^ b),
        ("and", |a, b, _| a & b),
        ("or", |a, b, _| a | b),
        (
            "min",
            |a, b, m| if signed(a, m) <= signed(b, m) { a } else { b },
        ),
        (
            "max",
            |a, b, m| if signed(a, m) >= signed(b, m) { a } else { b },
        ),
        ("minu", |a, b, m| if a & m <= b & m { a } else { b }),
        ("maxu", |a, b, m| if a & m >= b & m { a } else { b }),
    ];
    fn signed(x: u64, m: u64) -> i64 {
        if m == u64::MAX {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    }
    for (op, f) in ops {
        for (w, bytes) in [("w", 4u64), ("d", 8)] {
            let m = u64::MAX >> (64 - 8 * bytes);
            // Vector addresses (one word each, 16 bytes apart) and vector operands.
            let mask: Vec<bool> = (0..VLEN).map(|_| rng.chance(70)).collect();
            let init: Vec<u64> = (0..VLEN).map(|_| rng.next_u64()).collect();
            let src: Vec<u64> = (0..VLEN).map(|_| rng.next_u64()).collect();
            let old_vd: Vec<u64> = (0..VLEN).map(|_| rng.next_u64()).collect();
            for e in 0..VLEN {
                rig.mem.write(DATA + 16 * e, 8, init[e as usize]);
            }
            rig.load_vv(1, &(0..VLEN).map(|e| DATA + 16 * e).collect::<Vec<_>>());
            rig.load_vv(2, &src);
            rig.load_vv(3, &old_vd);
            rig.load_vp(1, &mask);
            let name = format!("vamo{op}.{w}");
            let insn = i(&name)
                .f(Vd, 1)
                .f(Vs1, 1)
                .f(Vs2, 1)
                .f(Vrd, 3)
                .f(Vrs1, 1)
                .f(Vrs2, 2)
                .f(Vpred, 1);
            rig.run(&[insn.enc(), stop()]).unwrap();
            for e in 0..VLEN as usize {
                let a = DATA + 16 * e as u64;
                let old = init[e] & m;
                let (want_mem, want_vd) = if mask[e] {
                    let ret = if bytes == 4 {
                        old as u32 as i32 as i64 as u64
                    } else {
                        old
                    };
                    (f(old, src[e], m) & m, ret)
                } else {
                    (old, old_vd[e])
                };
                assert_eq!(rig.read(a, bytes as usize), want_mem, "{name} element {e}");
                assert_eq!(
                    rig.hw.state().vv(3, e as u64),
                    want_vd,
                    "{name} element {e}"
                );
            }
            // A shared address and a shared operand: vlen AMOs on one word, in order.
            rig.mem.write(DATA, 8, init[0]);
            rig.vmcs(1, DATA);
            rig.vmcs(2, src[0]);
            rig.load_vp(1, &[true; 8]);
            let insn = i(&name)
                .f(Vd, 1)
                .f(Vrd, 3)
                .f(Vrs1, 1)
                .f(Vrs2, 2)
                .f(Vpred, 1);
            rig.run(&[insn.enc(), stop()]).unwrap();
            let mut word = init[0] & m;
            for e in 0..VLEN {
                let ret = if bytes == 4 {
                    word as u32 as i32 as i64 as u64
                } else {
                    word
                };
                assert_eq!(rig.hw.state().vv(3, e), ret, "{name} shared, element {e}");
                word = f(word, src[0], m) & m;
            }
            assert_eq!(rig.read(DATA, bytes as usize), word, "{name} shared");
        }
    }
}

#[test]
fn predicate_spill_and_fill() {
    let mut rig = rig();
    let bits = [true, false, false, true, true, false, true, false];
    rig.load_vp(2, &bits);
    rig.vmca(4, DATA + 0x300);
    rig.mem.write(DATA + 0x300, 8, 0x1234_5678_9abc_def0);
    rig.mem.write(DATA + 0x308, 8, 0x7777);
    // vps ignores the guard: vp0 cleared first.
    let vpclear0 = i("vpop").f(Vprd, 0).enc();
    let vps = i("vps").f(Vprs2, 2).f(Vars1, 4).enc();
    rig.run(&[vpclear0, vps, stop()]).unwrap();
    for (e, b) in bits.iter().enumerate() {
        let want = if *b { 0xff } else { 0 };
        assert_eq!(rig.read(DATA + 0x300 + e as u64, 1), want, "byte {e}");
    }
    assert_eq!(rig.read(DATA + 0x308, 8), 0x7777, "beyond vlen untouched");
    // vpl reads bit 0 of each byte.
    let bytes = [0x01, 0xfe, 0x03, 0x00, 0x81, 0x10, 0xff, 0x02];
    for (e, b) in bytes.iter().enumerate() {
        rig.mem.write(DATA + 0x400 + e as u64, 1, *b);
    }
    rig.vmca(4, DATA + 0x400);
    rig.run(&[i("vpl").f(Vprd, 3).f(Vars1, 4).enc(), stop()])
        .unwrap();
    assert_eq!(
        rig.vp(3, VLEN),
        bytes.iter().map(|b| b & 1 == 1).collect::<Vec<_>>()
    );
}

#[test]
fn misaligned_and_faulting_accesses_have_no_effect() {
    let mut rig = rig();
    let old: Vec<u64> = (0..VLEN).map(|e| 0x100 + e).collect();
    rig.load_vv(1, &old);
    rig.vmca(1, DATA + 2);
    let second = CODE + 8;
    let vlw = i("vlsegw").f(Vrd, 1).f(Vars1, 1).enc();
    let marker = i("vaddi").f(Vrd, 5).f(Vrs1, 0).f(Vimm, 1).enc();
    rig.vmcs(5, 0);
    assert_eq!(
        rig.run(&[marker, vlw, stop()]),
        Err(HwachaError::MisalignedAccess {
            pc: second,
            addr: DATA + 2,
            size: 4,
            store: false
        })
    );
    // The instruction before the faulting one retired; the faulting one changed nothing.
    assert_eq!(rig.hw.state().vs(5), 1);
    assert_eq!(rig.vv(1, VLEN), old);
    // A store whose sixth element leaves memory: nothing is written, the exception names
    // the first faulting address.
    let end = RAM + RAM_SIZE;
    rig.vmca(1, end - 5 * 8);
    rig.mem.write(end - 8, 8, 0xabcd);
    let vsd = i("vssegd").f(Vrd, 1).f(Vars1, 1).enc();
    assert_eq!(
        rig.run(&[vsd, stop()]),
        Err(HwachaError::AccessFault {
            pc: CODE,
            addr: end,
            size: 8,
            store: true
        })
    );
    assert_eq!(rig.read(end - 40, 8), 0);
    assert_eq!(rig.read(end - 8, 8), 0xabcd);
    // Misaligned stores and AMOs (a store exception, as on RISC-V).
    rig.vmca(1, DATA + 4);
    assert!(matches!(
        rig.run(&[vsd, stop()]),
        Err(HwachaError::MisalignedAccess { store: true, addr, size: 8, .. }) if addr == DATA + 4
    ));
    rig.vmcs(1, DATA + 2);
    let amo = i("vamoadd.w").f(Vd, 1).f(Vrd, 3).f(Vrs1, 1).f(Vrs2, 2);
    assert!(matches!(
        rig.run(&[amo.enc(), stop()]),
        Err(HwachaError::MisalignedAccess {
            store: true,
            size: 4,
            ..
        })
    ));
    // Masked-off elements are not accessed, so they cannot fault.
    rig.load_vp(1, &[true, false, false, false, false, false, false, false]);
    rig.vmca(1, end - 8);
    let masked = i("vlsegd").f(Vrd, 1).f(Vars1, 1).f(Vpred, 1).enc();
    assert_eq!(rig.run(&[masked, stop()]), Ok(()));
    assert_eq!(rig.hw.state().vv(1, 0), 0xabcd);
    // A scalar load from outside memory.
    rig.vmcs(9, 0x40);
    let vlsd = i("vlssegd").f(Vrd, 2).f(Vrs1, 9).enc();
    assert_eq!(
        rig.run(&[vlsd, stop()]),
        Err(HwachaError::AccessFault {
            pc: CODE,
            addr: 0x40,
            size: 8,
            store: false
        })
    );
}

/// Memory-order mode: the commands' work waits for a fence while their responses do not,
/// and the elements of an AMO instruction are applied in the order the memory reports
/// (each claims the first reported AMO of its address, size, operation and operand); an
/// element the memory did not report goes after those it did, in element order. Expected
/// values from the operations' definitions.
#[test]
fn amos_in_the_memorys_order() {
    use verification::tb::memory::{amo, AmoRecord};
    let mut rig = rig();
    assert_eq!(rig.setvl(4), 4);
    let operands = [1u64, 2, 4, 8];
    rig.load_vv(1, &[DATA; 4]);
    rig.load_vv(2, &operands);
    rig.load_vv(4, &[DATA + 64; 4]);
    rig.write_u64s(DATA, &[100]);
    rig.write_u64s(DATA + 64, &[0xf0]);
    rig.hw.follow_memory_order(&[]);
    let add = i("vamoadd.d").f(Vd, 1).f(Vs1, 1).f(Vs2, 1);
    let code = [
        add.clone().f(Vrd, 3).f(Vrs1, 1).f(Vrs2, 2).enc(),
        i("vamoxor.w")
            .f(Vd, 1)
            .f(Vs1, 1)
            .f(Vs2, 1)
            .f(Vrd, 5)
            .f(Vrs1, 4)
            .f(Vrs2, 2)
            .enc(),
        stop(),
    ];
    rig.run(&code).unwrap();
    // Nothing happened yet; control responses are immediate.
    assert_eq!(rig.read(DATA, 8), 100);
    assert_eq!(rig.ctl("vgetvl", &[(Rd, 1)], 0).unwrap(), 4);
    let record = |addr, bytes, op, operand| AmoRecord {
        port: 3,
        addr,
        bytes,
        op,
        operand,
    };
    // add: elements 2, 0, 3, 1 (operands 4, 1, 8, 2), behind an AMO no element makes;
    // xor: only element 3 reported.
    let mut performed = vec![record(DATA, 8, amo::ADD, 16)];
    performed.extend([2, 0, 3, 1].map(|e| record(DATA, 8, amo::ADD, operands[e])));
    performed.push(record(DATA + 64, 4, amo::XOR, 8));
    rig.hw.memory_amos(&performed);
    rig.hw.catch_up(&mut rig.mem).unwrap();
    assert_eq!(rig.vv(3, 4), [104, 113, 100, 105]);
    assert_eq!(rig.read(DATA, 8), 115);
    // xor: element 3, then 0, 1, 2.
    assert_eq!(rig.vv(5, 4), [0xf8, 0xf9, 0xfb, 0xf0]);
    assert_eq!(rig.read(DATA + 64, 4), 0xf0 ^ 0xf);
    // The claimed reports are used up: the same block again, with no report, goes in
    // element order, from the values the first run left; the stray report stays unused.
    rig.run(&code).unwrap();
    rig.hw.catch_up(&mut rig.mem).unwrap();
    assert_eq!(rig.vv(3, 4), [115, 116, 118, 122]);
    assert_eq!(rig.read(DATA, 8), 130);
}

/// Alike AMO elements (one address, operand 1: a counter) are told apart by the lane
/// whose memory port performed them: with two lanes of 8-element strips, elements 0-7
/// are lane 0's (port 3 here) and 8-15 lane 1's (port 4), each lane's in element order.
/// Without the lanes' ports they go in element order.
#[test]
fn alike_amos_are_told_apart_by_their_lanes() {
    use verification::tb::memory::{amo, AmoRecord};
    let ports = [4, 4, 3, 4, 3, 3, 4, 4, 4, 3, 3, 4, 3, 4, 3, 3];
    // Walking `ports`: the k-th AMO goes to the next element of its lane.
    let by_lanes = [
        1002, 1004, 1005, 1009, 1010, 1012, 1014, 1015, 1000, 1001, 1003, 1006, 1007, 1008, 1011,
        1013,
    ];
    let in_order: Vec<u64> = (1000..1016).collect();
    for (lane_ports, want) in [(&[3, 4][..], &by_lanes[..]), (&[][..], &in_order[..])] {
        let mut rig = Rig::new(HwachaParams {
            lanes: 2,
            ..HwachaParams::default()
        });
        rig.setcfg(cfg(4, 1, 0, 0));
        assert_eq!(rig.setvl(16), 16);
        rig.load_vv(1, &[DATA; 16]);
        rig.load_vv(2, &[1; 16]);
        rig.write_u64s(DATA, &[1000]);
        rig.hw.follow_memory_order(lane_ports);
        let add = i("vamoadd.d").f(Vd, 1).f(Vs1, 1).f(Vs2, 1);
        rig.run(&[add.f(Vrd, 3).f(Vrs1, 1).f(Vrs2, 2).enc(), stop()])
            .unwrap();
        let performed: Vec<AmoRecord> = ports
            .iter()
            .map(|&port| AmoRecord {
                port,
                addr: DATA,
                bytes: 8,
                op: amo::ADD,
                operand: 1,
            })
            .collect();
        rig.hw.memory_amos(&performed);
        rig.hw.catch_up(&mut rig.mem).unwrap();
        assert_eq!(rig.vv(3, 16), want, "lane ports {lane_ports:?}");
        assert_eq!(rig.read(DATA, 8), 1016);
    }
}
