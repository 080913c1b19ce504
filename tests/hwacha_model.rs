//! The Hwacha golden model: encodings, control thread, maximum vector length, the
//! illegal-instruction rules and worker-thread exceptions, traces, and a program on the
//! RV64 ISS driving the unit through its RoCC port.
//!
//! Worker code is encoded here from the encoding files' fields (a tiny field encoder), and
//! expected values are computed in the tests, independently of the model.

mod hwacha_model_rig;

use hwacha_model_rig::*;
use verification::hwacha::model::{
    Effect, Field, FpOp, HwachaError, HwachaParams, Illegal, Op, Vcfg,
};
use verification::rng::Rng;
use Field::*;

// The encoding files' parsing, tiling, line counts and overlaps are tested with the
// shared table (verification/src/hwacha/encoding.rs).

#[test]
fn every_worker_encoding_decodes_to_its_own_name() {
    let rig = Rig::new(HwachaParams::default());
    let mut mixed = 0;
    for p in worker_instructions() {
        // With its d flag set where it has one (an AMO needs a vector destination).
        let bits = if p.has(Vd) {
            p.bits | Vd.put(1)
        } else {
            p.bits
        };
        let insn = rig
            .hw
            .decode(bits)
            .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        assert_eq!(insn.name, p.name);
        if let Op::Fp(FpOp::Widening { to, from, .. }) = insn.op {
            assert!(from.bits() < to.bits(), "{}", p.name);
            mixed += 1;
        }
    }
    // The mixed-precision forms, which the thesis's tables do not list: vfadd/vfsub/vfmul
    // .s.h, .d.h and .d.s, and the four fused multiply-adds .d.h.
    assert_eq!(mixed, 13);
}

#[test]
fn memory_encodings_agree_with_their_names() {
    // Width (43..42), unsigned (44), stride (41), mode (63..61), address-register flag
    // (48) and load/store opcode: what the name says must be what the bits say.
    let rig = Rig::new(HwachaParams::default());
    let mut count = 0;
    for p in worker_instructions() {
        let Ok(insn) = rig.hw.decode(p.bits) else {
            continue;
        };
        let (m, load) = match insn.op {
            Op::Load(m) => (m, true),
            Op::Store(m) => (m, false),
            _ => continue,
        };
        count += 1;
        let v = p.bits;
        assert_eq!(m.width.bytes(), 1 << (v >> 42 & 3), "{}", p.name);
        assert_eq!(m.unsigned, v >> 44 & 1 == 1, "{}", p.name);
        assert_eq!(v >> 7 & 31, if load { 0x16 } else { 0x1e }, "{}", p.name);
        use verification::hwacha::model::Mode;
        let (mode_bits, strided, addr) = match m.mode {
            Mode::Unit => (4, 0, 0),
            Mode::Strided => (4, 1, 0),
            Mode::Indexed => (5, 0, 0),
            Mode::Shared => (0, 0, 0),
            Mode::Address => (0, 0, 1),
        };
        assert_eq!(v >> 61, mode_bits, "{}", p.name);
        assert_eq!(v >> 41 & 1, strided, "{}", p.name);
        assert_eq!(v >> 48 & 1, addr, "{}", p.name);
    }
    // 7 load and 4 store widths in each of five modes.
    assert_eq!(count, 5 * 11);
}

#[test]
fn maxvl_formula() {
    // e = min(n < 2 ? E : E/n, #vp < 2 ? P : P/#vp); maxvl = e * L * B * S, computed by
    // hand for the thesis machine (E = P = 256, B = 4, W = 128, so S = 2).
    let cases: &[(u32, Vcfg, u64)] = &[
        (1, cfg(256, 16, 0, 0), 8),
        (1, cfg(0, 0, 0, 0), 2048),
        (1, cfg(1, 1, 0, 0), 2048),
        (1, cfg(32, 1, 0, 0), 64),
        (1, cfg(32, 4, 0, 0), 64),
        (1, cfg(4, 16, 0, 0), 128),
        (1, cfg(3, 0, 0, 0), 680),
        (1, cfg(2, 2, 2, 1), 408),
        (1, cfg(0, 3, 0, 200), 8),
        (2, cfg(32, 4, 0, 0), 128),
        (4, cfg(256, 16, 0, 0), 32),
        (4, cfg(8, 2, 0, 0), 1024),
        (8, cfg(1, 0, 0, 0), 16384),
        (8, cfg(5, 5, 5, 5), 17 * 8 * 8),
    ];
    for &(lanes, vcfg, want) in cases {
        let params = HwachaParams {
            lanes,
            ..HwachaParams::default()
        };
        assert_eq!(params.maxvl(&vcfg), want, "{lanes} lanes, {vcfg:?}");
        // And through the control thread: vsetvl with a huge request returns maxvl.
        let mut rig = Rig::new(params);
        rig.setcfg(vcfg);
        assert_eq!(rig.hw.state().vlen, 0);
        assert_eq!(rig.setvl(u64::MAX), want);
        assert_eq!(rig.ctl("vgetcfg", &[(Rd, 5)], 0).unwrap(), vcfg.to_bits());
    }
    // 8 <= maxvl <= 2048 per lane on the thesis machine for every legal configuration.
    let p = HwachaParams::default();
    for n in 0..=256 {
        for vp in 0..=16 {
            let m = p.maxvl(&cfg(n, vp, 0, 0));
            assert!((8..=2048).contains(&m), "{n} {vp}: {m}");
        }
    }
}

/// Mixed precision's maxvl (thesis Figure 6.3c and "Register Mapping"), against the
/// packing it stands for: every configuration's doubleword, word and halfword regions
/// (and its packed predicate rows) fit the banks, one strip more would not, and the
/// vector is never shorter than the baseline's.
#[test]
fn mixed_precision_maxvl() {
    // Figure 6.3c: a 10-entry file, one 64-bit and one 32-bit register: 6, not 5.
    let fig = HwachaParams {
        banks: 1,
        bank_entries: 10,
        bank_width: 64,
        pred_entries: 10,
        mixed_precision: true,
        ..HwachaParams::default()
    };
    assert_eq!(fig.maxvl(&cfg(1, 0, 1, 0)), 6);
    assert_eq!(fig.maxvl(&cfg(2, 0, 0, 0)), 5);
    let base = HwachaParams {
        mixed_precision: false,
        ..fig.clone()
    };
    assert_eq!(base.maxvl(&cfg(1, 0, 1, 0)), 5);
    let mut rng = Rng::new(0x3c);
    for lanes in [1, 2, 4] {
        let p = HwachaParams {
            lanes,
            mixed_precision: true,
            ..HwachaParams::default()
        };
        let b = HwachaParams {
            mixed_precision: false,
            ..p.clone()
        };
        for _ in 0..2000 {
            let c = cfg(
                rng.below(40) as u32,
                rng.below(17) as u32,
                rng.below(40) as u32,
                rng.below(40) as u32,
            );
            let e = p.elements_per_bank(&c);
            assert_eq!(p.maxvl(&c), e * lanes as u64 * 8, "{c:?}");
            // Rows a register region needs for `e` strips packed `k` to a row.
            let rows = |e: u64| {
                let packed = |n: u32, k: u64| n as u64 * e.div_ceil(k);
                packed(c.vv64, 1) + packed(c.vv32, 2) + packed(c.vv16, 4)
            };
            let prows = |e: u64| c.vp.max(1) as u64 * e.div_ceil(4);
            assert!(rows(e) <= 256 && prows(e) <= 256, "{c:?}: e {e}");
            // Longer than the baseline's, the next length of whole packed rows would not
            // fit.
            let step = if c.vv16 > 0 {
                4
            } else if c.vv32 > 0 {
                2
            } else {
                1
            };
            let e_base = b.elements_per_bank(&c);
            assert!(e >= e_base, "{c:?}: e {e}, baseline {e_base}");
            let more = (e + step) / step * step;
            if e > e_base {
                assert!(rows(more) > 256 || prows(more) > 256, "{c:?}: e {e}");
            }
        }
    }
    // Narrow registers only: four halfword elements a slot.
    let p = HwachaParams {
        mixed_precision: true,
        ..HwachaParams::default()
    };
    assert_eq!(p.maxvl(&cfg(0, 1, 0, 4)), 256 * 8);
    assert_eq!(p.maxvl(&cfg(0, 4, 0, 8)), 128 * 8);
}

#[test]
fn other_machine_parameters() {
    let p = HwachaParams {
        lanes: 2,
        banks: 8,
        bank_entries: 512,
        bank_width: 64,
        pred_entries: 128,
        mixed_precision: false,
        max_worker_steps: 100,
    };
    // e = min(512/16, 128/4) = 32; 32 * 2 * 8 * 1.
    assert_eq!(p.maxvl(&cfg(16, 4, 0, 0)), 512);
    let bad = HwachaParams {
        bank_width: 96,
        ..HwachaParams::default()
    };
    assert!(verification::hwacha::model::Hwacha::new(bad).is_err());
    // A machine too large for the model to hold is an error, not an allocation failure.
    let huge = HwachaParams {
        lanes: u32::MAX,
        banks: u32::MAX,
        ..HwachaParams::default()
    };
    let e = verification::hwacha::model::Hwacha::new(huge)
        .err()
        .unwrap();
    assert!(e.to_string().contains("bank_entries * lanes"), "{e}");
    assert_eq!(huge_maxvl(), u64::MAX);
    // The parameters are one serde struct; unknown fields are rejected.
    let p: HwachaParams = serde_json::from_str(r#"{"lanes": 4}"#).unwrap();
    assert_eq!(p.lanes, 4);
    assert_eq!(p.banks, 4);
    assert!(serde_json::from_str::<HwachaParams>(r#"{"lane": 4}"#).is_err());
}

/// maxvl of absurd (unvalidated) parameters saturates instead of overflowing.
fn huge_maxvl() -> u64 {
    let p = HwachaParams {
        lanes: u32::MAX,
        banks: u32::MAX,
        bank_width: 64 * 1024,
        ..HwachaParams::default()
    };
    p.maxvl(&cfg(1, 1, 0, 0))
}

#[test]
fn control_thread() {
    let mut rig = Rig::new(HwachaParams::default());
    // Unconfigured at reset: everything but vsetcfg is an accelerator-disabled exception.
    for (name, fields) in [
        ("vsetvl", vec![(Rd, 1)]),
        ("vgetcfg", vec![(Rd, 1)]),
        ("vgetvl", vec![(Rd, 1)]),
        ("vuncfg", vec![]),
        ("vmcs", vec![(Svrdlo, 1)]),
        ("vmca", vec![(Svard, 1)]),
        ("vf", vec![]),
    ] {
        assert_eq!(
            rig.ctl(name, &fields, 0),
            Err(HwachaError::AcceleratorDisabled { insn: name }),
            "{name}"
        );
    }
    assert_eq!(rig.hw.state().vcfg, Vcfg::RESET);
    assert_eq!(rig.hw.state().maxvl, 8);
    // vsetcfg rs1, imm: the top 52 bits of rs1 with the immediate below them, or a whole
    // vcfg in rs1.
    let bits = cfg(16, 2, 0, 0).to_bits();
    rig.ctl("vsetcfg", &[(Imm12, bits & 0xfff)], bits & !0xfff)
        .unwrap();
    assert_eq!(rig.ctl("vgetcfg", &[(Rd, 1)], 0).unwrap(), bits);
    rig.ctl("vsetcfg", &[], cfg(3, 1, 0, 0).to_bits()).unwrap();
    assert_eq!(rig.hw.state().vcfg, cfg(3, 1, 0, 0));
    rig.ctl("vsetcfg", &[(Imm12, bits & 0xfff)], bits & !0xfff)
        .unwrap();
    assert_eq!(rig.ctl("vgetcfg", &[(Rd, 1)], 0).unwrap(), bits);
    assert_eq!(rig.ctl("vgetvl", &[(Rd, 1)], 0).unwrap(), 0);
    assert_eq!(rig.setvl(5), 5);
    assert_eq!(rig.setvl(1 << 40), 128);
    assert_eq!(rig.ctl("vgetvl", &[(Rd, 1)], 0).unwrap(), 128);
    // Reconfiguring resets vlen.
    rig.setcfg(cfg(16, 2, 0, 0));
    assert_eq!(rig.ctl("vgetvl", &[(Rd, 1)], 0).unwrap(), 0);
    // vmcs reaches vs0-63 through svrdhi:svrdlo; vs0 stays 0; vmca any of va0-31.
    rig.vmcs(63, 0x1234);
    rig.vmcs(0, 99);
    rig.vmca(31, 0xabcd);
    assert_eq!(rig.hw.state().vs(63), 0x1234);
    assert_eq!(rig.hw.state().vs(0), 0);
    assert_eq!(rig.hw.state().va[31], 0xabcd);
    assert_eq!(
        rig.ctl("vmcs", &[(Svrdhi, 2), (Svrdlo, 0)], 1),
        Err(HwachaError::SharedRegisterOutOfRange { index: 64 })
    );
    // Illegal configurations.
    for (vcfg, reason) in [
        (cfg(200, 1, 57, 0), "more than 256 vector data registers"),
        (cfg(8, 17, 0, 0), "more than 16 predicate registers"),
    ] {
        assert_eq!(
            rig.ctl("vsetcfg", &[], vcfg.to_bits()),
            Err(HwachaError::IllegalConfig {
                vcfg: vcfg.to_bits(),
                reason
            })
        );
    }
    // Instructions outside Table 7.1 are not supported.
    let e = rig.ctl("vxcptcause", &[(Rd, 1)], 0).unwrap_err();
    assert!(matches!(e, HwachaError::UnsupportedControl { .. }), "{e}");
    // vuncfg: unconfigured again.
    rig.ctl("vuncfg", &[], 0).unwrap();
    assert!(matches!(
        rig.ctl("vgetvl", &[(Rd, 1)], 0),
        Err(HwachaError::AcceleratorDisabled { .. })
    ));
    assert_eq!(
        rig.hw.exception(),
        Some(&HwachaError::AcceleratorDisabled { insn: "vgetvl" })
    );
}

#[test]
fn vf_with_vlen_zero_does_nothing() {
    let mut rig = Rig::new(HwachaParams::default());
    rig.setcfg(cfg(8, 1, 0, 0));
    // An illegal word: would raise if the block ran.
    assert_eq!(rig.run(&[0xffff_ffff_ffff_ffff]), Ok(()));
    rig.setvl(1);
    assert!(rig.run(&[0xffff_ffff_ffff_ffff]).is_err());
}

/// `vadd vv<rd>, vv<rs1>, vv<rs2>` at full precision.
fn vadd(rd: u64, rs1: u64, rs2: u64) -> I {
    i("vadd")
        .f(Vd, 1)
        .f(Vs1, 1)
        .f(Vs2, 1)
        .f(Vrd, rd)
        .f(Vrs1, rs1)
        .f(Vrs2, rs2)
}

/// Encodings and whether (why) each is illegal under `cfg(4, 2, 2, 2)`: 4 x 64-bit,
/// 2 x 32-bit and 2 x 16-bit data registers, 2 predicate registers.
fn illegal_cases() -> Vec<(u64, Option<Illegal>)> {
    vec![
        (vadd(1, 2, 3).enc(), None),
        (
            vadd(8, 1, 2).enc(),
            Some(Illegal::VvOutOfRange {
                reg: 8,
                configured: 8,
            }),
        ),
        (
            vadd(1, 9, 2).enc(),
            Some(Illegal::VvOutOfRange {
                reg: 9,
                configured: 8,
            }),
        ),
        // vv4 holds 32-bit elements: too narrow for a 64-bit add, fine for vaddw.
        (
            vadd(4, 1, 2).enc(),
            Some(Illegal::Precision {
                reg: 4,
                reg_bits: 32,
                needed: 64,
            }),
        ),
        (vadd(4, 5, 1).rename("vaddw").enc(), None),
        (
            vadd(6, 5, 1).rename("vaddw").enc(),
            Some(Illegal::Precision {
                reg: 6,
                reg_bits: 16,
                needed: 32,
            }),
        ),
        // Loads into narrow registers need only their width.
        (i("vlsegw").f(Vrd, 5).enc(), None),
        (i("vlsegh").f(Vrd, 7).enc(), None),
        (
            i("vlsegd").f(Vrd, 5).enc(),
            Some(Illegal::Precision {
                reg: 5,
                reg_bits: 32,
                needed: 64,
            }),
        ),
        // A segment reaching past the configured registers.
        (
            i("vlsegd").f(Vrd, 2).f(Vseglen, 2).enc(),
            Some(Illegal::Precision {
                reg: 4,
                reg_bits: 32,
                needed: 64,
            }),
        ),
        (
            i("vlsegb").f(Vrd, 6).f(Vseglen, 2).enc(),
            Some(Illegal::VvOutOfRange {
                reg: 8,
                configured: 8,
            }),
        ),
        // Shared destination with a vector source.
        (
            vadd(1, 2, 3).f(Vd, 0).enc(),
            Some(Illegal::SharedDestination),
        ),
        (
            i("vamoadd.d").f(Vs1, 1).f(Vs2, 1).enc(),
            Some(Illegal::SharedDestination),
        ),
        // vfirst reduces into a shared register by definition.
        (i("vfirst").f(Vrd, 3).f(Vrs1, 1).enc(), None),
        // Predicate registers out of range, as guard, source or destination.
        (
            vadd(1, 2, 3).f(Vpred, 2).enc(),
            Some(Illegal::VpOutOfRange {
                reg: 2,
                configured: 2,
            }),
        ),
        (
            i("vcmpeq").f(Vprd, 3).enc(),
            Some(Illegal::VpOutOfRange {
                reg: 3,
                configured: 2,
            }),
        ),
        (
            i("vpop").f(Vprs3, 15).enc(),
            Some(Illegal::VpOutOfRange {
                reg: 15,
                configured: 2,
            }),
        ),
        // Shared registers are vs0-63.
        (
            i("vadd").f(Vrd, 64).enc(),
            Some(Illegal::VsOutOfRange { reg: 64 }),
        ),
        // A scalar instruction must not be predicated.
        (
            i("vadd").f(Vrd, 1).f(Vpred, 1).enc(),
            Some(Illegal::PredicatedScalar {
                pred: 1,
                negate: false,
            }),
        ),
        (
            i("vadd").f(Vrd, 1).f(Vn, 1).enc(),
            Some(Illegal::PredicatedScalar {
                pred: 0,
                negate: true,
            }),
        ),
        (
            i("vcjal").f(Vcond, 2).enc(),
            Some(Illegal::ReservedCondition { cond: 2 }),
        ),
        (0x0123_4567_89ab_cd3f, Some(Illegal::Unknown)),
        (0x0000_0000_0000_0013, Some(Illegal::Unknown)),
    ]
}

#[test]
fn illegal_instruction_rules() {
    let mut rig = Rig::new(HwachaParams::default());
    // 4 x 64-bit, 2 x 32-bit and 2 x 16-bit data registers, 2 predicate registers.
    rig.setcfg(cfg(4, 2, 2, 2));
    rig.setvl(4);
    rig.vmca(0, DATA);
    for (n, (bits, want)) in illegal_cases().into_iter().enumerate() {
        assert_eq!(rig.hw.decode(bits).err(), want, "case {n}: {bits:#x}");
        // Executed, the same word raises the same illegal-instruction exception at its vpc.
        let result = rig.run(&[bits, stop()]);
        match want {
            None => assert_eq!(result, Ok(()), "case {n}"),
            Some(reason) => assert_eq!(
                result,
                Err(HwachaError::IllegalInstruction {
                    pc: CODE,
                    bits,
                    reason
                }),
                "case {n}"
            ),
        }
    }
    // With no predicate registers the unit runs unpredicated: vp0 as guard is legal.
    rig.setcfg(cfg(4, 0, 0, 0));
    rig.setvl(2);
    assert_eq!(rig.run(&[vadd(1, 2, 3).enc(), stop()]), Ok(()));
    assert!(rig.run(&[i("vpop").enc(), stop()]).is_err());
}

#[test]
fn fetch_exceptions_and_runaway_blocks() {
    let params = HwachaParams {
        max_worker_steps: 1000,
        ..HwachaParams::default()
    };
    let mut rig = Rig::new(params);
    rig.setcfg(cfg(8, 1, 0, 0));
    rig.setvl(4);
    assert_eq!(
        rig.vf(CODE + 4),
        Err(HwachaError::MisalignedFetch { pc: CODE + 4 })
    );
    assert_eq!(rig.vf(0x10), Err(HwachaError::FetchFault { pc: 0x10 }));
    // vcjal.all to itself forever.
    assert_eq!(
        rig.run(&[i("vcjal").enc()]),
        Err(HwachaError::StepLimit {
            entry: CODE,
            limit: 1000
        })
    );
    // vf's immediate offset is added to rs1.
    rig.mem.write(CODE + 0x100, 8, stop());
    let bits = rig.ctl_bits("vf", &[(Imm12hi, 0x7f), (Imm12lo, 0x18)]);
    assert_eq!(rig.ctl_raw(bits, CODE + 0x100 + 8), Ok(0));
}

#[test]
fn trace_records_element_register_and_memory_writes() {
    let mut rig = Rig::new(HwachaParams::default());
    rig.setcfg(cfg(8, 2, 0, 0));
    rig.setvl(3);
    rig.vmcs(1, 7);
    rig.vmca(1, DATA);
    rig.hw.set_tracing(true);
    let code = [
        i("vaddi").f(Vrd, 2).f(Vrs1, 1).f(Vimm, 5).enc(),
        i("veidx").f(Vrd, 3).enc(),
        i("vssegd").f(Vrd, 3).f(Vars1, 1).enc(),
        stop(),
    ];
    rig.run(&code).unwrap();
    let trace = rig.hw.take_trace();
    assert_eq!(trace.len(), 4);
    assert_eq!(trace[0].pc, CODE);
    assert_eq!(trace[0].bits, code[0]);
    assert_eq!(trace[0].effects, vec![Effect::Vs { reg: 2, value: 12 }]);
    assert_eq!(
        trace[1].effects,
        (0..3)
            .map(|e| Effect::Vv {
                reg: 3,
                elem: e,
                value: e
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(
        trace[2].effects,
        (0..3)
            .map(|e| Effect::Mem {
                addr: DATA + 8 * e,
                size: 8,
                value: e
            })
            .collect::<Vec<_>>()
    );
    assert!(trace[3].effects.is_empty());
    assert!(rig.hw.take_trace().is_empty());
}

#[test]
fn program_on_the_iss_through_the_rocc_port() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use verification::elf;
    use verification::hwacha::model::Hwacha;
    use verification::iss::{Iss, IssConfig, Stop};
    use verification::toolchain::{build_elf, BuildOptions, Kind};
    // The control thread configures the unit, strip-mines y[i] = 3 * x[i] + y[i] over
    // 20 elements with x[i] = i, y[i] = 100 i (maxvl 8 with all 256 data registers, so
    // three blocks of 8, 8 and 4) and checks the result. Hwacha instructions are emitted as raw words (.insn / .dword) built
    // from the encoding files by the test.
    let vsetcfg = ctl_word("vsetcfg", &[(Rs1, 10)]);
    let vsetvl = ctl_word("vsetvl", &[(Rd, 11), (Rs1, 12)]);
    let vmca1 = ctl_word("vmca", &[(Svard, 1), (Rs1, 13)]);
    let vmca2 = ctl_word("vmca", &[(Svard, 2), (Rs1, 14)]);
    let vmcs1 = ctl_word("vmcs", &[(Svrdlo, 1), (Rs1, 15)]);
    let vf = ctl_word("vf", &[(Rs1, 16)]);
    let block = [
        i("vlsegd").f(Vrd, 1).f(Vars1, 1).enc(),
        i("vlsegd").f(Vrd, 2).f(Vars1, 2).enc(),
        i("vmul")
            .f(Vd, 1)
            .f(Vs1, 1)
            .f(Vrd, 1)
            .f(Vrs1, 1)
            .f(Vrs2, 1)
            .enc(),
        i("vadd")
            .f(Vd, 1)
            .f(Vs1, 1)
            .f(Vs2, 1)
            .f(Vrd, 2)
            .f(Vrs1, 1)
            .f(Vrs2, 2)
            .enc(),
        i("vssegd").f(Vrd, 2).f(Vars1, 2).enc(),
        stop(),
    ];
    let block: String = block.iter().map(|w| format!("  .dword {w:#x}\n")).collect();
    let program = format!(
        r#"
#include "isa_test.h"
TEST_BEGIN
  li a0, {cfg}
  .word {vsetcfg:#x}
  li a5, 3
  .word {vmcs1:#x}
  la a3, x
  la a4, y
  li a2, 20
loop:
  .word {vsetvl:#x}      # a1 = vsetvl a2
  .word {vmca1:#x}
  .word {vmca2:#x}
  la a6, block
  .word {vf:#x}
  slli t0, a1, 3
  add a3, a3, t0
  add a4, a4, t0
  sub a2, a2, a1
  bnez a2, loop
  # check y[i] == 3 * i + 100 * i
  la a4, y
  li t1, 0
  li t2, 20
check:
  ld t3, 0(a4)
  li t4, 103
  mul t4, t4, t1
  li TESTNUM, 2
  bne t3, t4, fail
  addi a4, a4, 8
  addi t1, t1, 1
  bne t1, t2, check
TEST_END

  .align 3
block:
{block}
x:
  .set k, 0
  .rept 20
  .dword k
  .set k, k + 1
  .endr
y:
  .set k, 0
  .rept 20
  .dword 100 * k
  .set k, k + 1
  .endr
"#,
        cfg = cfg(256, 1, 0, 0).to_bits(),
    );
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("saxpy.S");
    std::fs::write(&src, program).unwrap();
    let elf_path = build_elf(
        &[src],
        &dir.path().join("saxpy.elf"),
        &BuildOptions::new(Kind::BareAsm),
    )
    .unwrap();
    let prog = elf::load_file(&elf_path).unwrap();
    let mut iss = Iss::new(&prog, IssConfig::default()).unwrap();
    let unit = Rc::new(RefCell::new(Hwacha::new(HwachaParams::default()).unwrap()));
    iss.attach_rocc(Box::new(unit.clone()));
    assert_eq!(iss.run(Some(1_000_000), None).unwrap(), Stop::Exit(0));
    assert_eq!(unit.borrow().state().maxvl, 8);
    assert_eq!(unit.borrow().exception(), None);
}
