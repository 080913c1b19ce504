//! Hwacha assembler: every encoding of the published files round-trips through the
//! disassembler and the assembler; the accepted syntax variants; every error kind with
//! its exact file:line message; and a mixed RV64 + Hwacha program built to an ELF whose
//! control-thread commands (seen by a recording RoCC accelerator in the ISS) and
//! worker-thread words match encodings computed here by hand from the thesis layout.

use std::cell::RefCell;
use std::rc::Rc;
use verification::elf;
use verification::hwacha::asm::{
    assemble, build, disassemble, disassemble_control, translate, AsmOptions, Assembled,
};
use verification::hwacha::encoding::{table, Field, Instruction, Thread};
use verification::iss::mem::Memory;
use verification::iss::rocc::{RoccAccelerator, RoccCommand, RoccError};
use verification::iss::{Iss, IssConfig, Stop};
use verification::rng::Rng;

/// Values to try for a field: its ends, 1, the middle and an uneven value in between,
/// restricted to what the ISA defines.
fn spread(max: u64) -> Vec<u64> {
    let mut v = vec![0, 1, max, max / 2, max / 7 * 5];
    v.retain(|&x| x <= max);
    v.dedup();
    v
}

/// Whether register slot `field` of `word` names a vector data register: its d/1/2/3
/// flag (bits 63..60) when the instruction has that flag as a field or fixes it;
/// otherwise the flag bit belongs to an immediate and the slot is a shared register.
fn slot_is_vector(instr: &Instruction, field: Field, word: u64) -> bool {
    let bit = match field {
        Field::Vrd => 63,
        Field::Vrs1 => 62,
        Field::Vrs2 => 61,
        _ => 60,
    };
    let flag = [Field::Vd, Field::Vs1, Field::Vs2, Field::Vs3][(63 - bit) as usize];
    (instr.has(flag) || instr.mask >> bit & 1 == 1) && word >> bit & 1 == 1
}

/// Legal values of `field` in `word` (whose kind flags are already set).
fn legal(instr: &Instruction, field: Field, word: u64) -> Vec<u64> {
    use Field::*;
    match field {
        Vrd | Vrs1 | Vrs2 | Vrs3 if slot_is_vector(instr, field, word) => spread(255),
        Vrd | Vrs1 | Vrs2 | Vrs3 => spread(63),
        Vrm => vec![0, 1, 2, 3, 4, 7],
        Vcond | Svrdhi => vec![0, 1],
        _ => spread((1 << field.width()) - 1),
    }
}

fn round_trip(instr: &Instruction, word: u64) {
    let text = match instr.thread {
        Thread::Worker => disassemble(word),
        Thread::Control => disassemble_control(word as u32),
    }
    .unwrap_or_else(|e| panic!("{}: {e}", instr.name));
    let decoded = table().decode(instr.thread, word).unwrap();
    assert!(
        decoded.name == instr.name || (!instr.pseudo && decoded.pseudo),
        "{word:#x} of {} decodes as {}",
        instr.name,
        decoded.name
    );
    let again = match assemble(&text) {
        Ok(Assembled::Worker(w)) => w,
        Ok(Assembled::Control(w)) => w as u64,
        other => panic!("`{text}` assembles to {other:?}"),
    };
    assert_eq!(again, word, "`{text}` ({})", instr.name);
    let text_again = match instr.thread {
        Thread::Worker => disassemble(again),
        Thread::Control => disassemble_control(again as u32),
    };
    assert_eq!(text_again.as_deref(), Ok(text.as_str()));
}

#[test]
fn every_encoding_round_trips() {
    let mut words = 0;
    for instr in table().instructions() {
        let flags: Vec<Field> = instr
            .fields
            .iter()
            .copied()
            .filter(|f| matches!(f, Field::Vd | Field::Vs1 | Field::Vs2 | Field::Vs3))
            .collect();
        let others: Vec<Field> = instr
            .fields
            .iter()
            .copied()
            .filter(|f| !flags.contains(f))
            .collect();
        for kinds in 0..1u64 << flags.len() {
            let mut base = instr.bits;
            for (i, f) in flags.iter().enumerate() {
                base |= f.put(kinds >> i & 1);
            }
            // Variant v gives field i its (v + i)-th legal value, so every value of
            // every field appears in some word.
            let rounds = others
                .iter()
                .map(|&f| legal(instr, f, base).len())
                .max()
                .unwrap_or(1);
            for v in 0..rounds {
                let mut word = base;
                for (i, f) in others.iter().enumerate() {
                    let values = legal(instr, *f, base);
                    word |= f.put(values[(v + i) % values.len()]);
                }
                round_trip(instr, word);
                words += 1;
            }
        }
    }
    assert!(
        table().instructions().len() > 300,
        "all four files are in the table"
    );
    assert!(words > 2000, "{words} words");
}

/// Random values in every field: the disassembler accepts exactly the words whose fields
/// all hold legal values, and those round-trip.
#[test]
fn random_field_values_round_trip_or_are_refused() {
    let mut rng = Rng::new(0x4a5a);
    let (mut accepted, mut refused) = (0, 0);
    for instr in table().instructions() {
        for _ in 0..200 {
            let mut word = instr.bits;
            for f in &instr.fields {
                word |= f.put(rng.next_u64());
            }
            let legal_fields = instr.fields.iter().all(|&f| {
                f.get(word) <= *legal(instr, f, word).iter().max().unwrap()
                    && (f != Field::Vrm || !matches!(f.get(word), 5 | 6))
            });
            let text = match instr.thread {
                Thread::Worker => disassemble(word),
                Thread::Control => disassemble_control(word as u32),
            };
            assert_eq!(
                text.is_ok(),
                legal_fields,
                "{word:#x} ({}): {text:?}",
                instr.name
            );
            if legal_fields {
                round_trip(instr, word);
                accepted += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(accepted > 10_000 && refused > 1_000, "{accepted} {refused}");
}

/// Statements stitched from valid and invalid pieces never panic the assembler or the
/// translator; they assemble or give an error.
#[test]
fn garbage_gives_errors_not_panics() {
    let names: Vec<&str> = table().instructions().iter().map(|i| i.name).collect();
    let pieces = [
        "vv1",
        "vs63",
        "vs64",
        "va31",
        "vp15",
        "vp16",
        "a0",
        "x31",
        "x99",
        "0",
        "-1",
        "0x7fffffff",
        "0xffffffffffffffffffff",
        "(",
        ")",
        "0(vv2)",
        "8(a0)",
        "(a0)",
        "%pcrel_lo(1b)",
        "lbl",
        "1f",
        ".",
        "rtz",
        "up",
        "1 +",
        "-(1<<63)*(1<<63)*2/-1",
        "é",
        "\\r",
        "\"",
        "@vp1",
        "@!",
        "@",
        ";",
        "#",
        ":",
        ",",
        ".all",
        ".vv",
        ".aq",
        "",
    ];
    let mut rng = Rng::new(7);
    let pick = |rng: &mut Rng, xs: &[&'static str]| xs[rng.below(xs.len() as u64) as usize];
    let mut source = String::new();
    for _ in 0..20_000 {
        let mut stmt = String::new();
        if rng.chance(20) {
            stmt.push_str(pick(&mut rng, &["@vp3 ", "@!vp1 ", "@s ", "@all ", "@x "]));
        }
        stmt.push_str(names[rng.below(names.len() as u64) as usize]);
        if rng.chance(30) {
            stmt.push_str(pick(
                &mut rng,
                &[".vs", ".v", ".s", ".all", ".any", ".aq", ".x", "."],
            ));
        }
        stmt.push(' ');
        for i in 0..rng.below(6) {
            if i > 0 {
                stmt.push_str(", ");
            }
            stmt.push_str(pick(&mut rng, &pieces));
            if rng.chance(10) {
                stmt.push_str(pick(&mut rng, &pieces));
            }
        }
        let _ = assemble(&stmt);
        source.push_str(&stmt);
        source.push('\n');
    }
    assert!(translate(&source, "fuzz.S").is_err());
}

fn word(text: &str) -> u64 {
    match assemble(text) {
        Ok(Assembled::Worker(w)) => w,
        other => panic!("`{text}`: {other:?}"),
    }
}

#[test]
fn syntax_variants_agree() {
    // Operand kinds from the register names or spelled by a suffix.
    assert_eq!(word("vadd.vs vv1, vv2, vs3"), word("vadd vv1, vv2, vs3"));
    assert_eq!(
        word("vfadd.d.vv vv1, vv2, vv3"),
        word("vfadd.d vv1, vv2, vv3")
    );
    assert_eq!(
        word("vcmpeq.vs vp1, vv2, vs0"),
        word("vcmpeq vp1, vv2, vs0")
    );
    assert_eq!(
        word("vamoadd.w.vs vv1, 0(vv2), vs3"),
        word("vamoadd.w vv1, (vv2), vs3")
    );
    // `vfsqrt.d.s`: the longest instruction name wins, the rest is a kind suffix;
    // `vfcvt.d.s` is the conversion itself.
    assert_eq!(word("vfsqrt.d.s vv1, vs2"), word("vfsqrt.d vv1, vs2"));
    assert_eq!(word("vfcvt.d.s vv1, vs2"), word("vfcvt.d.s.s vv1, vs2"));
    // Unpredicated spellings; upper case.
    assert_eq!(word("@all vadd vv1, vv2, vv3"), word("vadd vv1, vv2, vv3"));
    assert_eq!(word("@vp0 vadd vv1, vv2, vv3"), word("VADD VV1, VV2, VV3"));
    assert_eq!(word("@s vadd vs1, vs2, vs3"), word("vadd vs1, vs2, vs3"));
    // Rounding mode `dyn` is the default; fences default to all sets.
    assert_eq!(
        word("vfadd.s vv1, vv2, vv3, dyn"),
        word("vfadd.s vv1, vv2, vv3")
    );
    assert_eq!(word("vfence 15, 15"), word("vfence"));
    // Constant expressions; a 32-bit immediate may be written unsigned.
    assert_eq!(word("vaddi vs1, vs0, (4*4)+1"), word("vaddi vs1, vs0, 17"));
    assert_eq!(
        word("vaddi vs1, vs0, 0xffffffff"),
        word("vaddi vs1, vs0, -1")
    );
    // A bare vcjal target is a byte offset.
    assert_eq!(
        assemble("vcjal.all vs1, 2f").unwrap(),
        Assembled::WorkerJump {
            word: word("vcjal.all vs1, 0"),
            target: "2f".into()
        }
    );
    assert_eq!(
        assemble("vf 1f, a1").unwrap(),
        Assembled::ControlPcrel {
            word: 0x0105_a02b,
            target: "1f".into(),
            scratch: 11
        }
    );
}

/// The upstream esp-tests spellings: `veidx vd` (source vs0) and `vcjal N, rd, OFF` /
/// `vcjalr N, rd, rs1, OFF` (condition 0 all, 1 any; offset in 8-byte units) assemble to
/// the words of ours, which the disassembler keeps printing. The words are also computed
/// by hand from the encoding file's lines.
#[test]
fn upstream_spellings_assemble_to_the_same_words() {
    let pairs = [
        ("veidx vv3", "veidx vv3, vs0"),
        ("@!vp2 veidx vv255", "@!vp2 veidx vv255, vs0"),
        ("vcjal 0, vs1, 2", "vcjal.all vs1, 16"),
        ("vcjal 1, vs2, -3", "vcjal.any vs2, -24"),
        ("@vp1 vcjalr 1, vs4, vs5, 4", "@vp1 vcjalr.any vs4, vs5, 32"),
        ("vcjalr 0, vs0, vs3, 0", "vcjalr.all vs0, vs3, 0"),
        ("VCJAL 1, vs63, 0x0fffffff", "vcjal.any vs63, 0x7ffffff8"),
    ];
    for (upstream, ours) in pairs {
        assert_eq!(word(upstream), word(ours), "`{upstream}` vs `{ours}`");
    }
    // veidx: 63=1 59..53=2 52..50=6, vrd 23..16, opcode 0x0C; vs1 flag and vrs1 0 (vs0).
    let veidx = 1 << 63 | 2 << 53 | 6 << 50 | 0x0c << 7 | 0x3f;
    assert_eq!(word("veidx vv3"), veidx | 3 << 16);
    assert_eq!(word("@!vp2 veidx vv3"), veidx | 3 << 16 | 1 << 32 | 2 << 12);
    // vcjal: vcimm 63..35 (8-byte units), vcond 34..33, vrd 23..16, opcode 0x1B.
    let units = (-3i64 as u64) & 0x1fff_ffff;
    assert_eq!(
        word("vcjal 1, vs2, -3"),
        units << 35 | 1 << 33 | 2 << 16 | 0x1b << 7 | 0x3f
    );
    // vcjalr: vrs1 31..24, opcode 0x19.
    assert_eq!(
        word("vcjalr 1, vs4, vs5, 4"),
        4 << 35 | 1 << 33 | 5 << 24 | 4 << 16 | 0x19 << 7 | 0x3f
    );
    // The disassembler prints our spelling.
    assert_eq!(
        disassemble(word("vcjal 1, vs2, -3")).unwrap(),
        "vcjal.any vs2, -24"
    );
    assert_eq!(
        disassemble(word("@vp1 vcjalr 1, vs4, vs5, 4")).unwrap(),
        "@vp1 vcjalr.any vs4, vs5, 32"
    );
    assert_eq!(disassemble(word("veidx vv3")).unwrap(), "veidx vv3, vs0");
    // Through the translation too (what `accelgen asm` assembles).
    let ours = translate("  veidx vv1, vs0\n  vcjal.any vs1, 8\n", "a.S").unwrap();
    let upstream = translate("  veidx vv1\n  vcjal 1, vs1, 1\n", "a.S").unwrap();
    assert_eq!(upstream, ours);
}

#[test]
fn upstream_spelling_errors() {
    let lines = [
        "veidx",
        "veidx vs1",
        "vcjal 2, vs1, 1",
        "vcjal 0, vs1, 0x10000000",
        "vcjal 0, vs1, done",
        "vcjal 0, vv1, 1",
        "vcjalr 1, vs1, 8",
        "vcjal.any 1, vs1, 1",
        "vcjal vs1",
    ];
    let source = format!("# 1 \"up.S\"\n{}\n", lines.join("\n"));
    let errors = translate(&source, "ignored.S").unwrap_err();
    let got: Vec<String> = errors.0.iter().map(|e| e.to_string()).collect();
    let expected = [
        "up.S:1: `veidx` takes 1 or 2 operands, found 0",
        "up.S:2: operand 1: expected a vector data register (vv0-vv255), found `vs1`",
        "up.S:3: operand 1: 2 out of range [0, 1]",
        "up.S:4: operand 3: 268435456 out of range [-268435456, 268435455]",
        "up.S:5: operand 3: `done` is not a constant",
        "up.S:6: operand 2: expected a shared register (vs0-vs63), found `vv1`",
        "up.S:7: `vcjalr`: needs a condition suffix, `.all` or `.any`, or the condition as \
         its first operand (0 all, 1 any)",
        "up.S:8: `vcjal` takes 2 operands, found 3",
        "up.S:9: `vcjal`: needs a condition suffix, `.all` or `.any`, or the condition as \
         its first operand (0 all, 1 any)",
    ];
    assert_eq!(got, expected);
}

#[test]
fn gas_directives() {
    let gas = |t: &str| assemble(t).unwrap().gas(".Lx");
    assert_eq!(gas("vstop"), ".8byte 0x0000000000000c3f");
    assert_eq!(gas("vsetvl a0, a1"), ".insn 0x0005e50b");
    assert_eq!(
        gas("vcjal.any vs1, loop"),
        ".8byte 0x0000000200010dbf | (((((loop) - .) >> 3) & 0x1fffffff) << 35)"
    );
    assert_eq!(
        gas("vf blk"),
        ".Lx: auipc x5, %pcrel_hi(blk); .insn s 0x2b, 2, x16, %pcrel_lo(.Lx)(x5)"
    );
    assert_eq!(
        gas("vft %pcrel_lo(1b)(a0)"),
        ".insn s 0x2b, 2, x17, %pcrel_lo(1b)(x10)"
    );
    // 256 vv64 and 16 predicates do not fit the 12-bit immediate.
    assert_eq!(gas("vsetcfg 256, 16"), "li x5, 0x2000; .insn 0x1002a00b");
}

#[test]
fn errors_name_file_and_line() {
    let lines = [
        "vaddd vv1, vv2, vv3",
        "vadd vv1, va2, vv3",
        "vlxw vv1, vv2, vv3",
        "vadd.vs vv1, vv2, vv3",
        "vadd vv1, vv256, vv3",
        "vmcs vs64, a0",
        "vsetvl a0, x32",
        "vaddi vs1, vs0, 0x100000000",
        "vslli vs1, vs2, 64",
        "vlsegd vv1, va2, 9",
        "vcjal.all vs1, 12",
        "vf 2048(a0)",
        "vsetcfg 257, 1",
        "vaddi vs1, vs0, foo",
        "vaddi vs1, vs0, 1 +",
        "vadd vv1, vv2",
        "vcjal vs1, 8",
        "vadd.vvv vv1, vv2, vv3",
        "@vp1 vpop vp1, vp2, vp3, vp4, 0x96",
        "@!vp16 vadd vv1, vv2, vv3",
        "@s vadd vv1, vs1, vs2",
        "@vp1 vsetvl a0, a1",
        "vfadd.d vv1, vv2, vv3, up",
        "vamoadd.d vv1, 8(vv2), vs3",
        "vadd vv1, , vv3",
    ];
    let source = format!("# 10 \"errors.S\"\n{}\n", lines.join("\n"));
    let errors = translate(&source, "ignored.S").unwrap_err();
    let got: Vec<String> = errors.0.iter().map(|e| e.to_string()).collect();
    let expected = [
        "errors.S:10: unknown mnemonic `vaddd`",
        "errors.S:11: operand 2: expected a vector data or shared register (vv0-vv255, vs0-vs63), found `va2`",
        "errors.S:12: operand 2: expected a shared register (vs0-vs63), found `vv2`",
        "errors.S:13: operand 3: expected a shared register (vs0-vs63) for rs2 (suffix `.vs`), found `vv3`",
        "errors.S:14: operand 2: register `vv256` out of range (vv0-vv255)",
        "errors.S:15: operand 1: register `vs64` out of range (vs0-vs63)",
        "errors.S:16: operand 2: register `x32` out of range (x0-x31)",
        "errors.S:17: operand 3: 4294967296 out of range [-2147483648, 4294967295]",
        "errors.S:18: operand 3: 64 out of range [0, 63]",
        "errors.S:19: operand 3: 9 out of range [1, 8]",
        "errors.S:20: operand 2: 12 is not a multiple of 8",
        "errors.S:21: operand 1: 2048 out of range [-2048, 2047]",
        "errors.S:22: operand 1: 257 out of range [0, 256]",
        "errors.S:23: operand 3: `foo` is not a constant",
        "errors.S:24: operand 3: bad expression `1 +`: expression ends early",
        "errors.S:25: `vadd` takes 3 operands, found 2",
        "errors.S:26: `vcjal`: needs a condition suffix, `.all` or `.any`, or the condition as \
         its first operand (0 all, 1 any)",
        "errors.S:27: `vadd.vvv`: bad suffix `.vvv` (`vadd` takes an operand-kind suffix of 2 letters v/s)",
        "errors.S:28: `vpop` cannot be predicated (it always executes under a full mask)",
        "errors.S:29: predicate register `vp16` out of range (vp0-vp15)",
        "errors.S:30: `@s` marks a scalar instruction, but operand 1 is a vector data register",
        "errors.S:31: `@vp1`: control-thread instruction `vsetvl` cannot be predicated",
        "errors.S:32: operand 4: expected a rounding mode (rne, rtz, rdn, rup, rmm, dyn), found `up`",
        "errors.S:33: operand 2: expected an AMO address `0(reg)`, found `8(vv2)`",
        "errors.S:34: operand 2 is empty",
    ];
    assert_eq!(got, expected);
}

/// RoCC commands as the accelerator sees them, and the worker words of each vf block.
#[derive(Default)]
struct Seen {
    commands: Vec<RoccCommand>,
    blocks: Vec<(u64, Vec<u64>)>,
}

/// Accepts every Hwacha control command (vsetvl answers min(rs1, 64)) and, for vf,
/// reads the block's words up to its vstop.
struct Recorder(Rc<RefCell<Seen>>);

const VSTOP: u64 = 0x18 << 7 | 0x3f;

impl RoccAccelerator for Recorder {
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError> {
        let mut seen = self.0.borrow_mut();
        seen.commands.push(*cmd);
        // vf: custom-1, funct7 = imm[11:5], rs2 = 0x10, rd = imm[4:0].
        if cmd.opcode == 1 && cmd.rs2 == 0x10 {
            let imm = ((cmd.funct7 as i64) << 57 >> 52) | cmd.rd as i64;
            let vpc = cmd.rs1_value.wrapping_add(imm as u64);
            let mut words = Vec::new();
            loop {
                let addr = vpc + 8 * words.len() as u64;
                let w = mem
                    .read(addr, 8)
                    .ok_or(RoccError::FetchAccessFault { addr })?;
                words.push(w);
                if w == VSTOP || words.len() == 64 {
                    break;
                }
            }
            seen.blocks.push((vpc, words));
        }
        Ok(cmd.rs1_value.min(64))
    }
}

const PROGRAM: &str = r#"
#include "consts.h"
  .text
  .globl main
main:
  vsetcfg 32, 4                 # fits the immediate
  vsetcfg NV64, 16              # needs t0
  li a0, 100
  vsetvl a0, a0
  li t2, 64
  bne a0, t2, fail
  li a1, 7
  vmcs vs5, a1
  la a2, buf
  vmca va3, a2
  vf blk                        # auipc t0 + vf
  la t1, blk2 - 16
  vf 16(t1)
  mv t3, ra
  call nothing                  # relaxable code between the vf and the blocks
  mv ra, t3
  li a0, 0
  ret
fail:
  li a0, 1
  ret
nothing: ret

  .align 3
blk:
  vpset vp0
  vld vv1, va3
  @!vp2 vadd vv2, vv1, vs5; vfmadd.d vv3, vv1, vv2, vs5, rtz
  vcjal.any vs1, done
  vsd vv2, va3
done:
  vstop
blk2:
  vaddi vs6, vs0, -16
  vstop

  .data
buf: .space 64
"#;

/// A worker instruction of the VR/VR4 formats from its thesis Figure 7.3 fields.
#[allow(clippy::too_many_arguments)]
fn vr(
    op: u64,
    funct: u64,
    kinds: [u64; 4],
    rd: u64,
    rs1: u64,
    rs2: u64,
    rs3: u64,
    p: u64,
    n: u64,
) -> u64 {
    0x3f | op << 7
        | p << 12
        | rd << 16
        | rs1 << 24
        | n << 32
        | rs2 << 33
        | rs3 << 41
        | funct
        | kinds[0] << 63
        | kinds[1] << 62
        | kinds[2] << 61
        | kinds[3] << 60
}

#[test]
fn mixed_program_runs_with_hand_computed_encodings() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("mixed.S");
    std::fs::write(&src, PROGRAM).unwrap();
    let inc = dir.path().join("inc");
    std::fs::create_dir(&inc).unwrap();
    std::fs::write(inc.join("consts.h"), "#define NV64 256\n").unwrap();
    let elf_path = dir.path().join("mixed.elf");
    let opts = AsmOptions {
        include_dirs: vec![inc],
        ..AsmOptions::default()
    };
    build(&src, &elf_path, &opts).unwrap();
    let program = elf::load_file(&elf_path).unwrap();
    let seen = Rc::new(RefCell::new(Seen::default()));
    let config = IssConfig {
        stdout: Box::new(std::io::sink()),
        ..IssConfig::default()
    };
    let mut iss = Iss::new(&program, config).unwrap();
    iss.attach_rocc(Box::new(Recorder(seen.clone())));
    assert_eq!(iss.run(Some(1_000_000), None).unwrap(), Stop::Exit(0));
    let seen = seen.borrow();

    // (opcode, funct7, rs2 field, rd field, rs1 value) of each command.
    let cmds: Vec<(u8, u8, u8, u8, u64)> = seen
        .commands
        .iter()
        .map(|c| (c.opcode, c.funct7, c.rs2, c.rd, c.rs1_value))
        .collect();
    let (blk, blk2) = (seen.blocks[0].0, seen.blocks[1].0);
    assert_eq!(cmds.len(), 7);
    assert_eq!(
        cmds[..4],
        [
            // vsetcfg x0, 32 | 4 << 9: the immediate is funct7:rs2.
            (0, (0x820 >> 5) as u8, 0, 0, 0),
            // vsetcfg t0, 0x100 with t0 = 16 << 9.
            (0, (0x100 >> 5) as u8, 0, 0, 0x2000),
            // vsetvl a0, a0
            (0, 0, 0, 10, 100),
            // vmcs vs5, a1: funct7 2, the register split over 22:20 and 11:7.
            (1, 2, 0, 5, 7),
        ]
    );
    // vmca va3, a2 (a2 = buf, in .data after the code).
    let (op, funct7, rs2, rd, buf) = cmds[4];
    assert_eq!((op, funct7, rs2, rd), (1, 3, 0, 3));
    assert!(buf > blk2);
    // vf blk (auipc t0 + vf with the low offset) and vf 16(t1).
    assert_eq!((cmds[5].0, cmds[5].2), (1, 0x10));
    assert_eq!(cmds[6], (1, 0, 0x10, 16, blk2 - 16));
    assert_eq!(blk % 8, 0);
    assert_eq!(blk2, blk + 8 * 7);

    let vpset_vp0 = 1 << 63 | 1 << 58 | 0xff << 50 | 1 << 49 | 0x0c << 7 | 0x3f;
    // vld: 63..61 = 4, width 43..42 = 3, address register in 28..24, LOAD (0x16).
    let vld = 4 << 61 | 3 << 42 | 3 << 24 | 1 << 16 | 0x16 << 7 | 0x3f;
    // vadd (OP 0x0C, funct 0): vv2 = vv1 + vs5 under !vp2.
    let vadd = vr(0x0c, 0, [1, 1, 0, 0], 2, 1, 5, 0, 2, 1);
    // vfmadd.d (MADD 0x10): formats 56..55 = 54..53 = 1 (double), rm rtz (1) in 52..50.
    let vfmadd = vr(
        0x10,
        1 << 55 | 1 << 53 | 1 << 50,
        [1, 1, 1, 0],
        3,
        1,
        2,
        5,
        0,
        0,
    );
    // vcjal.any vs1, done: JAL (0x1B), two instructions ahead, condition any in 34..33.
    let vcjal = 2 << 35 | 1 << 33 | 1 << 16 | 0x1b << 7 | 0x3f;
    let vsd = 4 << 61 | 3 << 42 | 3 << 24 | 2 << 16 | 0x1e << 7 | 0x3f;
    assert_eq!(
        seen.blocks[0].1,
        [vpset_vp0, vld, vadd, vfmadd, vcjal, vsd, VSTOP]
    );
    // vaddi (OP-IMM 0x04): the immediate in 63..32, vs6 = vs0 - 16.
    let vaddi = ((-16i64 as u64) << 32) | 6 << 16 | 0x04 << 7 | 0x3f;
    assert_eq!(seen.blocks[1].1, [vaddi, VSTOP]);
}
