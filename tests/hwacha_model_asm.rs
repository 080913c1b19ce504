//! The Hwacha golden model under a program written in Hwacha assembly (built with the
//! project's assembler) on the RV64 ISS: the thesis's conditional SAXPY (integer),
//! strip-mined by the control thread and checked by it against its own scalar loop, for
//! 1, 2, 4 and 8 lanes (so for maximum vector lengths 8 to 64). Also: the assembler and
//! the model agree on the instructions' names.

use std::cell::RefCell;
use std::rc::Rc;
use verification::elf;
use verification::hwacha::asm::{assemble, build, AsmOptions, Assembled};
use verification::hwacha::model::{Hwacha, HwachaParams};
use verification::iss::{Iss, IssConfig, Stop};

/// Elements (`.equ N` in the program).
const N: usize = 37;

const PROGRAM: &str = r#"
  .equ N, 37
  .text
  .globl main
main:
  vsetcfg 256, 2                # maxvl = 8 per lane
  li a4, 3
  vmcs vs1, a4                  # a = 3
  li a0, N
  la a1, cond
  la a2, x
  la a3, y
loop:
  vsetvl t2, a0                 # (vf label uses t0 for its auipc)
  vmca va0, a1
  vmca va1, a2
  vmca va2, a3
  vf blk
  add a1, a1, t2
  slli t1, t2, 3
  add a2, a2, t1
  add a3, a3, t1
  sub a0, a0, t2
  bnez a0, loop
  # y[i] must be cond[i] ? 3 * x[i] + y0[i] : y0[i]
  la a1, cond
  la a2, x
  la a3, y
  la a5, y0
  li a0, N
check:
  lb t0, 0(a1)
  ld t1, 0(a2)
  ld t2, 0(a5)
  ld t3, 0(a3)
  beqz t0, 1f
  li t4, 3
  mul t1, t1, t4
  add t2, t2, t1
1:
  bne t2, t3, fail
  addi a1, a1, 1
  addi a2, a2, 8
  addi a3, a3, 8
  addi a5, a5, 8
  addi a0, a0, -1
  bnez a0, check
  li a0, 0
  ret
fail:
  li a0, 1
  ret

  .align 3
blk:
  vpset vp0
  vlb vv0, va0                  # cond
  vcmpeq vp1, vv0, vs0          # vp1 = cond == 0
  @!vp1 vld vv1, va1
  @!vp1 vld vv2, va2
  @!vp1 vmul vv1, vv1, vs1
  @!vp1 vadd vv2, vv2, vv1
  @!vp1 vsd vv2, va2
  vstop

  .data
  .align 3
x:
  .set k, 0
  .rept N
  .dword k * 1000 - 12345
  .set k, k + 1
  .endr
y:
  .set k, 0
  .rept N
  .dword 5 - k * 77
  .set k, k + 1
  .endr
y0:
  .set k, 0
  .rept N
  .dword 5 - k * 77
  .set k, k + 1
  .endr
cond:
  .set k, 0
  .rept N
  .byte (k * 7) % 3
  .set k, k + 1
  .endr
"#;

#[test]
fn conditional_saxpy_for_every_lane_count() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("csaxpy.S");
    std::fs::write(&src, PROGRAM).unwrap();
    let elf_path = dir.path().join("csaxpy.elf");
    build(&src, &elf_path, &AsmOptions::default()).unwrap();
    let program = elf::load_file(&elf_path).unwrap();
    for lanes in [1, 2, 4, 8] {
        let params = HwachaParams {
            lanes,
            ..HwachaParams::default()
        };
        let unit = Rc::new(RefCell::new(Hwacha::new(params).unwrap()));
        unit.borrow_mut().set_tracing(true);
        let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
        iss.attach_rocc(Box::new(unit.clone()));
        assert_eq!(
            iss.run(Some(10_000_000), None).unwrap(),
            Stop::Exit(0),
            "{lanes} lanes: {:?}",
            unit.borrow().exception()
        );
        let mut unit = unit.borrow_mut();
        assert_eq!(unit.state().maxvl, 8 * lanes as u64);
        assert_eq!(unit.exception(), None);
        // One block of 9 instructions per strip.
        let strips = N.div_ceil(8 * lanes as usize);
        assert_eq!(unit.take_trace().len(), 9 * strips, "{lanes} lanes");
    }
}

#[test]
fn assembler_and_model_agree_on_names() {
    let unit = Hwacha::new(HwachaParams::default()).unwrap();
    for (statement, name) in [
        ("vadd vv1, vv2, vv3", "vadd"),
        ("@!vp1 vsub vv1, vs2, vv3", "vsub"),
        ("vaddi vs1, vs0, -0x10000", "vaddi"),
        ("vlw vv1, va2", "vlsegw"),
        ("vlstw vv1, va1, va2", "vlsegstw"),
        ("vlxw vv1, vs2, vv3", "vlsegxw"),
        ("vlad vs1, va2", "vlasegd"),
        ("vssd vs2, vs3", "vsssegd"),
        ("vamoadd.d vv1, 0(vv2), vs3", "vamoadd.d"),
        ("vcmpeq vp1, vv2, vs0", "vcmpeq"),
        ("vpset vp0", "vpop"),
        ("vfirst vs1, vv2", "vfirst"),
        ("vfmadd.d vv3, vv1, vv2, vs5, rtz", "vfmadd.d"),
        ("vcjal.any vs1, 16", "vcjal"),
        ("vstop", "vstop"),
    ] {
        let word = match assemble(statement) {
            Ok(Assembled::Worker(w)) => w,
            other => panic!("{statement}: {other:?}"),
        };
        let insn = unit
            .decode(word)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
        assert_eq!(insn.name, name, "{statement}");
    }
}
