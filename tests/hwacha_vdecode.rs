//! The master sequencer's decode of issued vector instructions (`hwacha::vdecode`), in
//! the IR simulator, against the golden model's decoder: for random configurations and
//! random legal vector instructions of every class the vector side runs, the decoded
//! bundle equals the fields the RTL tests' issuer derives from the model's `Insn`
//! (`hwacha_rtl_rig::insn_fields`), and instructions it does not run are flagged.

mod hwacha_rtl_rig;

use generators::hwacha::lane::uop::vinsn;
use generators::hwacha::vdecode::{vdecode, Config};
use hdl::sim::Sim;
use hdl::{Design, Dir, ModuleBuilder, Shape};
use hwacha_rtl_rig::*;
use verification::hwacha::model::{Field, Vcfg};
use verification::rng::Rng;

/// A module around `vdecode`: the `vissue` fields and the configuration in, the bundle
/// and `unsupported` out.
fn wrapper() -> Design {
    let mut m = ModuleBuilder::new("VdecodeTop");
    let issue = m.io(
        "issue",
        Dir::In,
        &Shape::bundle(
            ["bits", "vlen", "s1", "s2", "s3", "a1", "a2"]
                .iter()
                .map(|n| Shape::field(n, Shape::UInt(64)))
                .collect(),
        ),
    );
    let cfg = Config {
        vv64: m.input("vv64", 10),
        vv32: m.input("vv32", 10),
        vp: m.input("vp", 10),
        frm: m.input("frm", 3),
    };
    let decoded = vdecode(&mut m, "decoded", &issue, &cfg);
    let port = m.io("vinsn", Dir::Out, &vinsn());
    m.connect_bundle(&port, &decoded.vinsn);
    let flag = m.output("unsupported", 1);
    m.connect(&flag, &decoded.unsupported);
    let scalar = m.output("scalar_fp", 1);
    m.connect(&scalar, &decoded.scalar_fp);
    Design::new(&m.finish().unwrap())
}

#[test]
fn decoded_instructions_match_the_golden_models_decode() {
    let design = wrapper();
    let mut sim = Sim::new(&design);
    let mut rng = Rng::new(0xdec0de);
    let p = generators::hwacha::params::HwachaParams::default();
    let (mut checked, mut classes) = (0, std::collections::HashSet::new());
    let mut dynamic = 0;
    for k in 0..if long() { 400 } else { 60 } {
        let (setup, lines) = if k % 3 == 2 {
            random_fp_program(&mut rng, &p, 30)
        } else {
            random_program(&mut rng, &p, 30, true)
        };
        let gold = golden(&p, &setup, &lines);
        let cfg: Vcfg = setup.cfg;
        for (k, v) in [("vv64", cfg.vv64), ("vv32", cfg.vv32), ("vp", cfg.vp)] {
            sim.poke_u64(k, v as u64).unwrap();
        }
        // The dynamic rounding mode, for instructions of rm = 7 (the issuer's is RNE).
        let frm = rng.below(5);
        sim.poke_u64("frm", frm).unwrap();
        for (insn, line) in gold.insns.iter().zip(&lines) {
            let vs = |r: u32| setup.vs[r as usize];
            let va = |r: u32| setup.va[r as usize];
            let Some(mut want) = insn_fields(&cfg, insn, &vs, &va) else {
                continue;
            };
            if insn.has(Field::Vrm) && insn.get(Field::Vrm) == 7 {
                want.retain(|f| f.0 != "rm");
                want.push(("rm", frm));
                dynamic += 1;
            }
            want.push(("vlen", setup.vlen));
            // The scalar unit's operands: shared registers of the slots, address registers.
            let shared = |f: Field| {
                if insn.has(f) && !insn.is_vv(f) {
                    vs(insn.get(f))
                } else {
                    0
                }
            };
            let address = |f: Field| if insn.has(f) { va(insn.get(f)) } else { 0 };
            for (port, v) in [
                ("bits", insn.bits),
                ("vlen", setup.vlen),
                ("s1", shared(Field::Vrs1)),
                ("s2", shared(Field::Vrs2)),
                ("s3", shared(Field::Vrs3)),
                ("a1", address(Field::Vars1)),
                ("a2", address(Field::Vars2)),
            ] {
                sim.poke_u64(&format!("issue_{port}"), v).unwrap();
            }
            assert_eq!(sim.peek_u64("unsupported").unwrap(), 0, "{line}");
            for f in FIELDS.iter().chain(&["vlen"]) {
                let expected = want.iter().find(|(n, _)| n == f).map_or(0, |(_, v)| *v);
                let got = sim.peek_u64(&format!("vinsn_{f}")).unwrap();
                // Fields an operation does not use are free (the issuer leaves them 0).
                if used(f, &want) {
                    assert_eq!(got, expected, "{line}: field {f}");
                }
            }
            classes.insert(std::mem::discriminant(&insn.op));
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} instructions");
    assert!(dynamic > 50, "only {dynamic} of the dynamic rounding mode");
    assert!(
        classes.len() >= 8,
        "only {} instruction classes",
        classes.len()
    );
    // A segment access of several registers (which the scalar unit splits) is flagged.
    for line in ["vlsegd vv1, va2, 2", "vssegw vv1, va2, 8"] {
        sim.poke_u64("issue_bits", asm(line)).unwrap();
        assert_eq!(sim.peek_u64("unsupported").unwrap(), 1, "{line}");
    }
    // FP on shared registers goes to the scalar FPU; vector FP and compares do not.
    for (line, scalar) in [
        ("vfmul.s vs1, vs2, vs3", 1),
        ("vfcvt.d.l vs1, vs2", 1),
        ("vfmadd.d vs1, vs2, vs3, vs4", 1),
        ("vfsqrt.h vs1, vs2", 1),
        ("vfmadd.d.h vs1, vs2, vs3, vs4", 1),
        ("vfadd.d.s vv1, vv2, vv3", 0),
        ("vfdiv.d vv1, vv2, vs3", 0),
        ("vfmul.s vv1, vs2, vs3", 0),
        ("vcmpflt.d vp1, vs2, vs3", 0),
        ("vadd vs1, vs2, vs3", 0),
    ] {
        sim.poke_u64("issue_bits", asm(line)).unwrap();
        assert_eq!(sim.peek_u64("unsupported").unwrap(), 0, "{line}");
        assert_eq!(sim.peek_u64("scalar_fp").unwrap(), scalar, "{line}");
    }
    // A reserved frm (5-7) makes instructions of the dynamic mode illegal (RISC-V), and
    // only those.
    for frm in 5..8 {
        sim.poke_u64("frm", frm).unwrap();
        for (line, illegal) in [
            ("vfadd.d vv1, vv2, vv3", 1),
            ("vfcvt.w.s vs1, vs2", 1),
            ("vfsqrt.h vv1, vv2", 1),
            ("vfadd.d vv1, vv2, vv3, rtz", 0),
            ("vfsqrt.s vv1, vv2, rmm", 0),
            ("vfmin.d vv1, vv2, vv3", 0),
            ("vcmpflt.d vp1, vv2, vv3", 0),
            ("vadd vv1, vv2, vv3", 0),
        ] {
            sim.poke_u64("issue_bits", asm(line)).unwrap();
            assert_eq!(
                sim.peek_u64("unsupported").unwrap(),
                illegal,
                "frm {frm}: {line}"
            );
        }
    }
}

/// Whether field `f` matters for the operation the issuer described: its register
/// specifiers only when the operand is a register, the memory fields only for memory
/// instructions, scalars only when used.
fn used(f: &str, want: &Fields) -> bool {
    let has = |n: &str| want.iter().any(|(k, v)| *k == n && *v != 0);
    let value = |n: &str| want.iter().find(|(k, _)| *k == n).map_or(0, |(_, v)| *v);
    // veidx shifts by operand 2; loads other than strided ones have no stride.
    let eidx = !has("mem") && value("unit") == 0 && value("fn") == 11;
    let strideless_load = has("mem") && value("mem_op") == 0 && value("mode") != 1;
    match f {
        "rs1" => has("rs1_v"),
        "rs2" => has("rs2_v"),
        "rd" | "rd_width" => has("wr") && !has("rd_pred"),
        "prd" => has("rd_pred"),
        "pred" | "pred_neg" => has("pred_on"),
        "ps1" | "ps2" | "ps3" | "table" => want.iter().any(|(k, v)| *k == "unit" && *v == 2),
        "s1" => !has("rs1_v") && !eidx,
        "s2" => !has("rs2_v") && !strideless_load,
        "rs3" => has("rs3_v"),
        // The rounding mode of FP operations that round; the format of those on
        // FMAs and FCmp (FConv's formats are in `fn`).
        "rm" => want.iter().any(|(k, _)| *k == "rm"),
        "fmt" => [4, 6].contains(&value("unit")),
        "mem_op" | "amo_fn" | "mode" | "width" | "unsigned" => has("mem"),
        "fn" | "word" => !has("mem") && !want.iter().any(|(k, v)| *k == "unit" && *v == 2),
        _ => true,
    }
}
