//! The trap programs shared by `hwacha_traps.rs` (the golden model alone, precise) and
//! `hwacha_soc.rs` (the RTL in lockstep, worker exceptions imprecise): the checks a
//! trap handler's records are compared with, and the worker-thread blocks that raise
//! each exception.

use std::path::{Path, PathBuf};
use verification::hwacha::asm::{build, AsmOptions};
use verification::hwacha::encoding::{table, Field};

/// The program: the checks, `defs` (macros of its own), the control-thread cases 1-4
/// (all precise: unconfigured vsetvl, a vsetcfg of 257 registers, an instruction not in
/// Table 7.1, vmcs to vs64), which leave the unit configured with 8 registers and vlen 4,
/// then `body` (ending with `TEST_END`) and the blocks: bad_reg (vv9 with 8 configured,
/// at `bad_reg_insn`), stop_block, load_block (vs5 = 77, then a strided load),
/// store_block, amo_block (address vs2), report_block (stores vs5 at vs6), and
/// `data`/`result`.
pub fn program(defs: &str, body: &str) -> String {
    format!("#include \"isa_test.h\"\n\n{CHECKS}\n{defs}\n{CONTROL}{body}\n{BLOCKS}")
}

const CONTROL: &str = r#"TEST_BEGIN
TRAP_HANDLER
  li a0, 4
1:
  vsetvl t1, a0                 # unconfigured: accelerator disabled
  CHECK_INSN(1, 2, 1b)
  li a0, 257
1:
  vsetcfg a0                    # 257 vector data registers
  CHECK_INSN(2, 2, 1b)
  vsetcfg 8, 2
  li a0, 4
  vsetvl t1, a0
1:
  vxcptcause t1                 # not in Table 7.1
  CHECK_INSN(3, 2, 1b)
1:
  .insn VMCS_VS64               # vmcs vs64, a1 (the assembler refuses vs64)
  CHECK_INSN(4, 2, 1b)
"#;

const CHECKS: &str = r#"// mepc is `label`; mtval the 32-bit instruction there.
#define CHECK_INSN(n, cause, label)                 \
  li TESTNUM, n; CHECK(s2, cause);                  \
  la t2, label; bne s3, t2, fail;                   \
  lwu t2, 0(t2); bne s4, t2, fail;

// mepc is `label`; mtval the value of register `reg` (not t2).
#define CHECK_TVAL(n, cause, label, reg)            \
  li TESTNUM, n; CHECK(s2, cause);                  \
  la t2, label; bne s3, t2, fail; bne s4, reg, fail;
"#;

const BLOCKS: &str = r#"  .text
  .align 3
bad_reg:
  vaddi vs5, vs0, 1
bad_reg_insn:
  vadd vv9, vv1, vv2
  vstop
stop_block:
  vstop
load_block:
  vaddi vs5, vs0, 77
  vlstd vv1, va1, va2
  vstop
store_block:
  vsd vv1, va1
  vstop
amo_block:
  vamoadd.d vv1, 0(vs2), vs3
  vstop
report_block:
  vssd vs6, vs5
  vstop

  .data
  .align 3
data: .dword 1, 2, 3, 4, 5, 6, 7, 8
result: .dword 0
"#;

/// Assembles `source` (bare, with `isa_test.h`) into `dir`, defining VMCS_VS64 as the
/// word of `vmcs vs64, a1` (which the assembler refuses).
pub fn assemble(dir: &Path, source: &str) -> PathBuf {
    let vmcs = table().get("vmcs").unwrap();
    let vmcs_vs64 = vmcs.bits | Field::Svrdhi.put(2) | Field::Svrdlo.put(0) | Field::Rs1.put(11);
    let src = dir.join("traps.S");
    std::fs::write(&src, source).unwrap();
    let opts = AsmOptions {
        defines: vec![format!("VMCS_VS64={vmcs_vs64:#x}")],
        bare: true,
        ..AsmOptions::default()
    };
    build(&src, &dir.join("traps.elf"), &opts).unwrap()
}
