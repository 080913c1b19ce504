//! Hwacha golden model, worker-thread compute: every integer instruction in every operand
//! form (vector/shared sources, vector/scalar destination) under predication, immediates,
//! veidx, vfirst, compares, predicate logic, and consensual jumps. Expected values come
//! from the reference arithmetic below, written for the tests.

mod hwacha_model_rig;

use hwacha_model_rig::*;
use verification::hwacha::encoding::table;
use verification::hwacha::model::Field::*;
use verification::hwacha::model::HwachaParams;
use verification::rng::Rng;

const VLEN: u64 = 8;

/// Operand values with the edge cases of RV64IM arithmetic.
const EDGES: [u64; 12] = [
    0,
    1,
    u64::MAX,
    i64::MIN as u64,
    i64::MAX as u64,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_ffff,
    0xffff_ffff_8000_0000,
    63,
    64,
    2,
];

/// RV64IM semantics, spelled out case by case (division special cases first).
fn reference(name: &str, a: u64, b: u64) -> u64 {
    let (sa, sb) = (a as i64, b as i64);
    let (wa, wb) = (a as i32, b as i32);
    let sext = |x: i32| x as i64 as u64;
    match name {
        "vadd" | "vaddu" => (a as u128 + b as u128) as u64,
        "vsub" => (a as i128 - b as i128) as u64,
        "vsll" => a << (b % 64),
        "vslt" => u64::from(sa < sb),
        "vsltu" => u64::from(a < b),
        "vxor" => a ^ b,
        "vsrl" => a >> (b % 64),
        "vsra" => (sa >> (b % 64)) as u64,
        "vor" => a | b,
        "vand" => a & b,
        "vmul" => (a as u128 * b as u128) as u64,
        "vmulh" => ((sa as i128 * sb as i128) >> 64) as u64,
        "vmulhsu" => ((sa as i128 * b as i128) >> 64) as u64,
        "vmulhu" => ((a as u128 * b as u128) >> 64) as u64,
        "vdiv" => match (sa, sb) {
            (_, 0) => u64::MAX,
            (i64::MIN, -1) => a,
            _ => (sa / sb) as u64,
        },
        "vdivu" => a.checked_div(b).unwrap_or(u64::MAX),
        "vrem" => match (sa, sb) {
            (_, 0) => a,
            (i64::MIN, -1) => 0,
            _ => (sa % sb) as u64,
        },
        "vremu" => a.checked_rem(b).unwrap_or(a),
        "vaddw" => sext(wa.wrapping_add(wb)),
        "vsubw" => sext(wa.wrapping_sub(wb)),
        "vsllw" => sext(((a as u32) << (b % 32)) as i32),
        "vsrlw" => sext(((a as u32) >> (b % 32)) as i32),
        "vsraw" => sext(wa >> (b % 32)),
        "vmulw" => sext(wa.wrapping_mul(wb)),
        "vdivw" => match (wa, wb) {
            (_, 0) => u64::MAX,
            (i32::MIN, -1) => sext(wa),
            _ => sext(wa / wb),
        },
        "vdivuw" => match b as u32 {
            0 => u64::MAX,
            d => sext(((a as u32) / d) as i32),
        },
        "vremw" => match (wa, wb) {
            (_, 0) => sext(wa),
            (i32::MIN, -1) => 0,
            _ => sext(wa % wb),
        },
        "vremuw" => match b as u32 {
            0 => sext(wa),
            d => sext(((a as u32) % d) as i32),
        },
        _ => panic!("no reference for {name}"),
    }
}

const INT_OPS: [&str; 29] = [
    "vadd", "vaddu", "vsub", "vsll", "vslt", "vsltu", "vxor", "vsrl", "vsra", "vor", "vand",
    "vmul", "vmulh", "vmulhsu", "vmulhu", "vdiv", "vdivu", "vrem", "vremu", "vaddw", "vsubw",
    "vsllw", "vsrlw", "vsraw", "vmulw", "vdivw", "vdivuw", "vremw", "vremuw",
];

fn rig() -> Rig {
    let mut rig = Rig::new(HwachaParams::default());
    rig.setcfg(cfg(32, 4, 0, 0));
    assert_eq!(rig.setvl(VLEN), VLEN);
    rig
}

fn operands(rng: &mut Rng) -> Vec<u64> {
    (0..VLEN)
        .map(|_| {
            if rng.chance(60) {
                EDGES[rng.below(EDGES.len() as u64) as usize]
            } else {
                rng.next_u64()
            }
        })
        .collect()
}

#[test]
fn integer_ops_every_operand_form_under_predication() {
    let mut rig = rig();
    let mut rng = Rng::new(5);
    for name in INT_OPS {
        // (d, 1, 2) flags: vector = vv, else shared.
        for (d, v1, v2) in [(1, 1, 1), (1, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 0)] {
            for negate in [0, 1] {
                let (a, b, old) = (operands(&mut rng), operands(&mut rng), operands(&mut rng));
                let mask: Vec<bool> = (0..VLEN).map(|_| rng.chance(50)).collect();
                rig.load_vv(1, &a);
                rig.load_vv(2, &b);
                rig.load_vv(3, &old);
                rig.load_vp(1, &mask);
                rig.vmcs(1, a[0]);
                rig.vmcs(2, b[0]);
                rig.vmcs(3, 0x5555);
                let mut insn = i(name)
                    .f(Vd, d)
                    .f(Vs1, v1)
                    .f(Vs2, v2)
                    .f(Vrd, 3)
                    .f(Vrs1, 1)
                    .f(Vrs2, 2);
                if d == 1 {
                    insn = insn.f(Vpred, 1).f(Vn, negate);
                } else if negate == 1 {
                    continue; // a scalar instruction is never predicated
                }
                rig.run(&[insn.enc(), stop()]).unwrap();
                let ctx = format!("{name} d={d} 1={v1} 2={v2} n={negate}");
                if d == 0 {
                    assert_eq!(rig.hw.state().vs(3), reference(name, a[0], b[0]), "{ctx}");
                    continue;
                }
                assert_eq!(rig.hw.state().vs(3), 0x5555, "{ctx}: vs3 untouched");
                for e in 0..VLEN as usize {
                    let x = if v1 == 1 { a[e] } else { a[0] };
                    let y = if v2 == 1 { b[e] } else { b[0] };
                    let want = if mask[e] ^ (negate == 1) {
                        reference(name, x, y)
                    } else {
                        old[e]
                    };
                    assert_eq!(
                        rig.hw.state().vv(3, e as u64),
                        want,
                        "{ctx} element {e}: {x:#x} {y:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn destination_may_be_a_source() {
    // vv1 = vv1 + vv1, element by element.
    let mut rig = rig();
    let a: Vec<u64> = (0..VLEN).map(|k| k * 1000 + 7).collect();
    rig.load_vv(1, &a);
    let add = i("vadd")
        .f(Vd, 1)
        .f(Vs1, 1)
        .f(Vs2, 1)
        .f(Vrd, 1)
        .f(Vrs1, 1)
        .f(Vrs2, 1);
    rig.run(&[add.enc(), stop()]).unwrap();
    assert_eq!(rig.vv(1, VLEN), a.iter().map(|x| 2 * x).collect::<Vec<_>>());
    // Elements at and beyond vlen are not touched.
    rig.setvl(3);
    rig.run(&[add.enc(), stop()]).unwrap();
    let want: Vec<u64> = (0..VLEN)
        .map(|k| {
            if k < 3 {
                4 * a[k as usize]
            } else {
                2 * a[k as usize]
            }
        })
        .collect();
    assert_eq!(rig.vv(1, VLEN), want);
}

#[test]
fn scalar_immediate_ops() {
    let mut rig = rig();
    let mut rng = Rng::new(9);
    let imms: [i32; 8] = [0, 1, -1, 5, -0x10000, i32::MIN, i32::MAX, 0x7ff];
    for _ in 0..40 {
        let a = if rng.chance(50) {
            EDGES[rng.below(12) as usize]
        } else {
            rng.next_u64()
        };
        let imm = imms[rng.below(8) as usize];
        let sh = rng.below(64);
        let shw = rng.below(32);
        rig.vmcs(1, a);
        let sx = imm as i64 as u64;
        let cases: [(&str, u64, u64); 13] = [
            ("vaddi", imm as u32 as u64, a.wrapping_add(sx)),
            (
                "vslti",
                imm as u32 as u64,
                u64::from((a as i64) < imm as i64),
            ),
            ("vsltiu", imm as u32 as u64, u64::from(a < sx)),
            ("vandi", imm as u32 as u64, a & sx),
            ("vori", imm as u32 as u64, a | sx),
            ("vxori", imm as u32 as u64, a ^ sx),
            ("vslli", sh, a << sh),
            ("vsrli", sh, a >> sh),
            ("vsrai", sh, ((a as i64) >> sh) as u64),
            (
                "vaddiw",
                imm as u32 as u64,
                (a as i32).wrapping_add(imm) as i64 as u64,
            ),
            ("vslliw", shw, ((a as u32) << shw) as i32 as i64 as u64),
            ("vsrliw", shw, ((a as u32) >> shw) as i32 as i64 as u64),
            ("vsraiw", shw, ((a as i32) >> shw) as i64 as u64),
        ];
        for (name, field, want) in cases {
            let f = match name {
                "vslli" | "vsrli" | "vsrai" => Vshamt,
                "vslliw" | "vsrliw" | "vsraiw" => Vshamtw,
                _ => Vimm,
            };
            let insn = i(name).f(Vrd, 2).f(Vrs1, 1).f(f, field);
            rig.run(&[insn.enc(), stop()]).unwrap();
            assert_eq!(rig.hw.state().vs(2), want, "{name} {a:#x} {field:#x}");
        }
    }
    // vlui and vauipc put the immediate in the upper 32 bits; vauipc adds its vpc.
    let code = [
        i("vlui").f(Vrd, 4).f(Vimm, 0x1234_5678).enc(),
        i("vlui").f(Vrd, 5).f(Vimm, 0xffff_fffe).enc(),
        i("vauipc").f(Vrd, 6).f(Vimm, 1).enc(),
        // vlui + vaddi build any 64-bit constant.
        i("vlui").f(Vrd, 7).f(Vimm, 0x0123_4568).enc(),
        i("vaddi").f(Vrd, 7).f(Vrs1, 7).f(Vimm, 0x89ab_cdef).enc(),
        // vs0 stays zero.
        i("vaddi").f(Vrd, 0).f(Vrs1, 0).f(Vimm, 5).enc(),
        stop(),
    ];
    rig.run(&code).unwrap();
    let s = rig.hw.state();
    assert_eq!(s.vs(4), 0x1234_5678_0000_0000);
    assert_eq!(s.vs(5), 0xffff_fffe_0000_0000);
    assert_eq!(s.vs(6), (1u64 << 32) + CODE + 16);
    assert_eq!(s.vs(7), 0x0123_4567_89ab_cdef);
    assert_eq!(s.vs(0), 0);
}

#[test]
fn veidx_and_vfirst() {
    let mut rig = rig();
    let mask = [false, false, false, true, false, true, true, false];
    rig.load_vp(1, &mask);
    rig.load_vv(2, &[9; 8]);
    rig.vmcs(1, 3);
    let a: Vec<u64> = (0..VLEN).map(|k| 100 + k).collect();
    rig.load_vv(1, &a);
    let code = [
        // vv2 = eidx << vs1 under vp1.
        i("veidx").f(Vrd, 2).f(Vrs1, 1).f(Vpred, 1).enc(),
        // vs2 = first active element of vv1 under vp1, vs3 under !vp1.
        i("vfirst").f(Vrd, 2).f(Vrs1, 1).f(Vpred, 1).enc(),
        i("vfirst").f(Vrd, 3).f(Vrs1, 1).f(Vpred, 1).f(Vn, 1).enc(),
        // vp2 is all false (vsetcfg cleared it): vfirst returns 0.
        i("vfirst").f(Vrd, 4).f(Vrs1, 1).f(Vpred, 2).enc(),
        stop(),
    ];
    rig.vmcs(4, 77);
    rig.run(&code).unwrap();
    let want: Vec<u64> = (0..VLEN)
        .map(|k| if mask[k as usize] { k << 3 } else { 9 })
        .collect();
    assert_eq!(rig.vv(2, VLEN), want);
    let s = rig.hw.state();
    assert_eq!((s.vs(2), s.vs(3), s.vs(4)), (103, 100, 0));
}

#[test]
fn compares_write_predicates_under_predication() {
    let mut rig = rig();
    let mut rng = Rng::new(3);
    for (name, f) in [
        ("vcmpeq", (|a, b| a == b) as fn(u64, u64) -> bool),
        ("vcmplt", |a, b| (a as i64) < (b as i64)),
        ("vcmpltu", |a, b| a < b),
    ] {
        for (v1, v2) in [(1, 1), (1, 0), (0, 1), (0, 0)] {
            let a = operands(&mut rng);
            let mut b = operands(&mut rng);
            b[1] = a[1]; // some equal pairs
            b[4] = a[4];
            let mask: Vec<bool> = (0..VLEN).map(|_| rng.chance(60)).collect();
            let old: Vec<bool> = (0..VLEN).map(|_| rng.chance(50)).collect();
            rig.load_vv(1, &a);
            rig.load_vv(2, &b);
            rig.load_vp(1, &mask);
            rig.load_vp(3, &old);
            rig.vmcs(1, a[2]);
            rig.vmcs(2, b[2]);
            let insn = i(name)
                .f(Vs1, v1)
                .f(Vs2, v2)
                .f(Vprd, 3)
                .f(Vrs1, 1)
                .f(Vrs2, 2)
                .f(Vpred, 1);
            rig.run(&[insn.enc(), stop()]).unwrap();
            for e in 0..VLEN as usize {
                let x = if v1 == 1 { a[e] } else { a[2] };
                let y = if v2 == 1 { b[e] } else { b[2] };
                let want = if mask[e] { f(x, y) } else { old[e] };
                assert_eq!(
                    rig.hw.state().vp(3, e as u64),
                    want,
                    "{name} {v1}{v2} element {e}"
                );
            }
        }
    }
}

#[test]
fn predicate_logic_truth_tables() {
    // vp1, vp2, vp3 walk through all eight combinations over the eight elements; every
    // pseudo-instruction of the encoding file must compute its named function.
    let mut rig = rig();
    let bit = |e: u64, k: u64| e >> k & 1 == 1;
    rig.load_vp(1, &(0..VLEN).map(|e| bit(e, 2)).collect::<Vec<_>>());
    rig.load_vp(2, &(0..VLEN).map(|e| bit(e, 1)).collect::<Vec<_>>());
    rig.load_vp(3, &(0..VLEN).map(|e| bit(e, 0)).collect::<Vec<_>>());
    type Logic = fn(bool, bool, bool) -> bool;
    let functions: [(&str, Logic); 11] = [
        ("vpclear", |_, _, _| false),
        ("vpset", |_, _, _| true),
        ("vpxorxor", |a, b, c| (a ^ b) ^ c),
        ("vpxoror", |a, b, c| (a ^ b) | c),
        ("vpxorand", |a, b, c| (a ^ b) & c),
        ("vporxor", |a, b, c| (a | b) ^ c),
        ("vporor", |a, b, c| (a | b) | c),
        ("vporand", |a, b, c| (a | b) & c),
        ("vpandxor", |a, b, c| (a & b) ^ c),
        ("vpandor", |a, b, c| (a & b) | c),
        ("vpandand", |a, b, c| (a & b) & c),
    ];
    for (name, f) in functions {
        let p = table().get(name).unwrap();
        assert!(p.pseudo, "{name}");
        let mut bits = p.bits;
        for (field, reg) in [(Vprd, 0), (Vprs1, 1), (Vprs2, 2), (Vprs3, 3)] {
            if p.has(field) {
                bits |= field.put(reg);
            }
        }
        // vp0 is the destination: the next instruction's guard is vp0 itself, so restore
        // it with vpset before anything else runs.
        let vpset = table().get("vpset").unwrap().bits;
        rig.run(&[bits, stop()]).unwrap();
        let got = rig.vp(0, VLEN);
        rig.run(&[vpset, stop()]).unwrap();
        for e in 0..VLEN {
            assert_eq!(
                got[e as usize],
                f(bit(e, 2), bit(e, 1), bit(e, 0)),
                "{name} element {e}"
            );
        }
    }
}

#[test]
fn consensual_jumps() {
    let mut rig = rig();
    // vp1: elements 0-7 all true; vp2: only element 5.
    rig.load_vp(1, &[true; 8]);
    rig.load_vp(2, &[false, false, false, false, false, true, false, false]);
    // Each jump skips the next instruction (an add of 1 to vs10) when taken and links
    // into vs20+k.
    let skip = |name: &str, pred: u64, n: u64, cond: u64, link: u64| {
        i(name)
            .f(Vcimm, 2)
            .f(Vcond, cond)
            .f(Vpred, pred)
            .f(Vn, n)
            .f(Vrd, link)
    };
    let bump = i("vaddi").f(Vrd, 10).f(Vrs1, 10).f(Vimm, 1).enc();
    let cases = [
        (skip("vcjal", 1, 0, 0, 21), true),  // all of vp1
        (skip("vcjal", 2, 0, 0, 22), false), // all of vp2: no
        (skip("vcjal", 2, 0, 1, 23), true),  // any of vp2
        (skip("vcjal", 1, 1, 1, 24), false), // any of !vp1: no
        (skip("vcjal", 3, 0, 1, 25), false), // any of vp3 (all false)
        (skip("vcjal", 3, 1, 0, 26), true),  // all of !vp3
    ];
    for (k, (jump, taken)) in cases.into_iter().enumerate() {
        rig.vmcs(10, 0);
        rig.vmcs(20 + k as u64 + 1, 0xdead);
        rig.run(&[jump.enc(), bump, stop()]).unwrap();
        let s = rig.hw.state();
        assert_eq!(s.vs(10), u64::from(!taken), "case {k}");
        let link = if taken { CODE + 8 } else { 0xdead };
        assert_eq!(s.vs(21 + k as u32), link, "case {k}");
    }
    // vcjalr: target = (vs5 + offset) with the low three bits cleared.
    rig.vmcs(10, 0);
    rig.vmcs(5, CODE + 8 * 3 + 5 - 16);
    let code = [
        i("vcjalr")
            .f(Vcimm, 2)
            .f(Vrs1, 5)
            .f(Vrd, 6)
            .f(Vpred, 1)
            .enc(),
        bump,
        bump,
        stop(),
    ];
    rig.run(&code).unwrap();
    assert_eq!(rig.hw.state().vs(10), 0);
    assert_eq!(rig.hw.state().vs(6), CODE + 8);
    // A backward jump: loop five times, adding 3 to every element of vv1 each time.
    // vs1 counts; vcmplt of two shared registers sets vp2 for every element.
    rig.load_vv(1, &[0; 8]);
    rig.vmcs(1, 0);
    rig.vmcs(2, 5);
    rig.vmcs(3, 3);
    let code = [
        i("vadd")
            .f(Vd, 1)
            .f(Vs1, 1)
            .f(Vrd, 1)
            .f(Vrs1, 1)
            .f(Vrs2, 3)
            .enc(),
        i("vaddi").f(Vrd, 1).f(Vrs1, 1).f(Vimm, 1).enc(),
        i("vcmplt").f(Vprd, 2).f(Vrs1, 1).f(Vrs2, 2).enc(),
        i("vcjal")
            .f(Vcimm, (-3i64 as u64) & ((1 << 29) - 1))
            .f(Vpred, 2)
            .f(Vcond, 1)
            .enc(),
        stop(),
    ];
    rig.run(&code).unwrap();
    assert_eq!(rig.vv(1, VLEN), vec![15; 8]);
    assert_eq!(rig.hw.state().vs(1), 5);
}

#[test]
fn vfence_orders_nothing_visible() {
    let mut rig = rig();
    let code = [
        i("vfence").f(Vprev, 15).f(Vsucc, 15).enc(),
        i("vaddi").f(Vrd, 1).f(Vrs1, 0).f(Vimm, 42).enc(),
        stop(),
        i("vaddi").f(Vrd, 1).f(Vrs1, 0).f(Vimm, 1).enc(),
    ];
    rig.run(&code).unwrap();
    assert_eq!(rig.hw.state().vs(1), 42);
}
