//! `accelgen asm`: builds mixed RV64 + Hwacha programs that the ISS runs, with `-I`,
//! `-D` and `--bare`, from one `.S` file or from C and `.S` sources linked together (C
//! inline assembly holding Hwacha control-thread instructions); bad input fails with exit
//! code 1, located messages and no output.

use assert_cmd::Command;
use std::path::Path;

fn accelgen(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("accelgen").unwrap();
    cmd.current_dir(dir);
    cmd
}

/// Returns the exit code `N` (from `-D`), plus what an included header adds; the worker
/// block is linked in but not run (the ISS has no Hwacha unit attached here).
const PROGRAM: &str = r#"
#include "extra.h"
  .text
  .globl main
main:
  li a0, N + EXTRA
  ret
  .align 3
block:
  @!vp1 vadd.vs vv1, vv2, vs3
  vstop
"#;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Names in `dir`, sorted: a failed build must leave nothing behind.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn builds_a_program_the_iss_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "prog.S", PROGRAM);
    write(dir.path(), "inc/extra.h", "#define EXTRA 2\n");
    let out = accelgen(dir.path())
        .args(["asm", "prog.S", "-o", "prog.elf", "-I", "inc", "-D", "N=40"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert_eq!(listing(dir.path()), ["inc", "prog.S", "prog.elf"]);
    let run = accelgen(dir.path())
        .args(["iss", "prog.elf"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(42));
}

#[test]
fn bare_programs_bring_their_own_start() {
    let dir = tempfile::tempdir().unwrap();
    // isa_test.h comes from the runtime directory, always on the include path.
    let source = r#"
#include "isa_test.h"
TEST_BEGIN
  li TESTNUM, 1
  j 1f
  .align 3
block:
  vsetcfg 4, 1
  vstop
1:
TEST_END
"#;
    write(dir.path(), "bare.S", source);
    accelgen(dir.path())
        .args(["asm", "--bare", "bare.S", "-o", "bare.elf"])
        .assert()
        .success();
    accelgen(dir.path())
        .args(["iss", "bare.elf"])
        .assert()
        .code(0);
}

#[test]
fn hwacha_errors_are_located_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let source = "#include \"blk.h\"\n  .text\n  vadd vv1, vv2, vs64\n  vsetvl a0\n";
    write(dir.path(), "bad.S", source);
    write(dir.path(), "blk.h", "  vstop\n  vaddd vv1, vv2, vv3\n");
    // An earlier good build of the same output must survive a failed one.
    write(dir.path(), "bad.elf", "old");
    fails_keeping_old_output(
        dir.path(),
        &["asm", "bad.S", "-o", "bad.elf"],
        "error: blk.h:2: unknown mnemonic `vaddd`\n\
         bad.S:3: operand 3: register `vs64` out of range (vs0-vs63)\n\
         bad.S:4: `vsetvl` takes 2 operands, found 1\n",
        "bad.elf",
    );
    assert_eq!(listing(dir.path()), ["bad.S", "bad.elf", "blk.h"]);
}

/// Runs `args` in `dir`: exit code 1, nothing on stdout, exactly `stderr`, and the
/// earlier `output` file (holding "old") untouched.
fn fails_keeping_old_output(dir: &Path, args: &[&str], stderr: &str, output: &str) {
    let out = accelgen(dir).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr), stderr);
    assert_eq!(std::fs::read_to_string(dir.join(output)).unwrap(), "old");
}

#[test]
fn gnu_as_errors_keep_the_original_location() {
    let dir = tempfile::tempdir().unwrap();
    let source = "  .text\n  vstop\n\n  addx a0, a1\n";
    write(dir.path(), "rv.S", source);
    let out = accelgen(dir.path())
        .args(["asm", "rv.S", "-o", "rv.elf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("rv.S:4: Error: unrecognized opcode `addx a0,a1'"),
        "{stderr}"
    );
    assert_eq!(listing(dir.path()), ["rv.S"]);
}

#[test]
fn bad_paths_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = accelgen(dir.path())
        .args(["asm", "missing.S", "-o", "x.elf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: source missing.S does not exist\n"
    );
    // A directory as a source: said so, on one line, its cause not repeated.
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let out = accelgen(dir.path())
        .args(["asm", "src", "-o", "x.elf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: source src is a directory, not an assembly or C file\n"
    );
    std::fs::remove_dir(dir.path().join("src")).unwrap();

    write(dir.path(), "ok.S", "  .text\n  .globl main\nmain: ret\n");
    let out = accelgen(dir.path())
        .args(["asm", "ok.S", "-o", "no/such/dir/ok.elf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: creating a temporary directory in no/such/dir: "),
        "{stderr}"
    );
    assert_eq!(listing(dir.path()), ["ok.S"]);
}

#[test]
fn the_output_never_replaces_a_source() {
    let dir = tempfile::tempdir().unwrap();
    let source = "  .text\n  .globl main\nmain: ret\n";
    write(dir.path(), "x.S", source);
    for output in ["x.S", "./x.S", "sub/../x.S"] {
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        let out = accelgen(dir.path())
            .args(["asm", "x.S", "-o", output])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{output}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("error: output {output} is also a source; refusing to overwrite it\n")
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x.S")).unwrap(),
            source
        );
    }
    let out = accelgen(dir.path())
        .args(["asm", "x.S", "-o", "sub"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: output sub is a directory; name the ELF file to write\n"
    );
    assert_eq!(listing(dir.path()), ["sub", "x.S"]);
}

#[test]
fn a_bare_program_without_start_fails() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "empty.S", "");
    write(
        dir.path(),
        "nohost.S",
        "  .text\n  .globl _start\n_start: j _start\n",
    );
    for (source, symbol) in [("empty.S", "_start"), ("nohost.S", "tohost")] {
        let out = accelgen(dir.path())
            .args(["asm", "--bare", source, "-o", "p.elf"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{source}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "error: the program defines no `{symbol}`: a --bare program brings its own \
                 `_start` and `tohost` (without --bare, the C start-up code provides them and \
                 calls `main`)\n"
            )
        );
    }
    assert_eq!(listing(dir.path()), ["empty.S", "nohost.S"]);
}

/// Control-thread C whose inline assembly configures the Hwacha unit and runs the worker
/// block of `BLOCKS`, which doubles a vector in memory; returns N + EXTRA + the sum.
const C_MAIN: &str = r#"
#include "extra.h"
long twice(long x);
static long v[5] = {1, 2, 3, 4, 5};
int main(void)
{
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(1ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"(5ul));
    asm volatile("vmca va0, %0" : : "r"(v));
    asm volatile("vf dbl" : : : "t0", "memory");
    long sum = 0;
    for (int i = 0; i < 5; i++)
        sum += v[i];
    return (int)(twice(N) + EXTRA + sum + vl);
}
"#;

const BLOCKS: &str = r#"
  .text
  .globl twice
twice:
  slli a0, a0, 1
  ret
  .align 3
  .globl dbl
dbl:
  vld vv0, va0
  vadd vv0, vv0, vv0
  vsd vv0, va0
  vstop
"#;

#[test]
fn c_and_assembly_sources_link_into_one_program() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.c", C_MAIN);
    write(dir.path(), "blocks.S", BLOCKS);
    write(dir.path(), "inc/extra.h", "#define EXTRA 2\n");
    let out = accelgen(dir.path())
        .args([
            "asm", "main.c", "blocks.S", "-o", "prog.elf", "-I", "inc", "-D", "N=3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert_eq!(
        listing(dir.path()),
        ["blocks.S", "inc", "main.c", "prog.elf"]
    );
    // 2 * 3 + 2 + 2 * (1 + 2 + 3 + 4 + 5) + 5
    accelgen(dir.path())
        .args(["iss", "prog.elf", "--hwacha"])
        .assert()
        .code(43);
}

#[test]
fn errors_of_every_source_are_reported_together() {
    let dir = tempfile::tempdir().unwrap();
    let c =
        "int main(void)\n{\n    asm volatile(\"vmcs vs64, %0\" : : \"r\"(1));\n    return 0;\n}\n";
    write(dir.path(), "bad.c", c);
    write(dir.path(), "bad.S", "  .text\n  vaddd vv1, vv2, vv3\n");
    write(dir.path(), "out.elf", "old");
    // The C file's error is at its line: GCC marks inline assembly with its source line.
    fails_keeping_old_output(
        dir.path(),
        &["asm", "bad.c", "bad.S", "-o", "out.elf"],
        "error: bad.c:3: operand 1: register `vs64` out of range (vs0-vs63)\n\
         bad.S:2: unknown mnemonic `vaddd`\n",
        "out.elf",
    );
    assert_eq!(listing(dir.path()), ["bad.S", "bad.c", "out.elf"]);
}

#[test]
fn c_compiler_errors_are_reported_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.c", "int main(void)\n{\n    return x;\n}\n");
    write(dir.path(), "ok.S", BLOCKS);
    let out = accelgen(dir.path())
        .args(["asm", "bad.c", "ok.S", "-o", "out.elf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: riscv64-unknown-elf-gcc failed compiling bad.c:\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad.c:3:12: error: 'x' undeclared"),
        "{stderr}"
    );
    assert_eq!(listing(dir.path()), ["bad.c", "ok.S"]);
}
