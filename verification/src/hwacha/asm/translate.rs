//! Translation of a mixed RV64 + Hwacha assembly file into input for GNU as.
//!
//! Every statement whose mnemonic starts with `v` (or that has an `@` predicate prefix)
//! is Hwacha: the RV64 assembler has no such mnemonics (RVV is not enabled), so the
//! split needs no guessing. Hwacha statements become `.8byte` (worker thread, 64-bit) or
//! `.insn` (control thread, 32-bit RoCC) directives; everything else passes through
//! untouched. Lines stay one-to-one and the C preprocessor's line markers are kept, so
//! GNU as reports its own errors at the original file and line too.
//!
//! Label arithmetic: a `vcjal` to a label becomes `.8byte word | ((target - .) / 8 <<
//! 35)`, which GNU as can only evaluate when nothing between the two labels may change
//! size at link time. The output therefore starts with `.option norelax`: linker
//! relaxation could otherwise shrink a `call` between a jump and its target after the
//! offset was fixed. A file with such jumps that turns relaxation back on
//! (`.option relax`) is refused.
//! `vf label` needs no such care: it becomes `auipc` + `vf` with `%pcrel_hi`/`%pcrel_lo`
//! relocations, like GNU as's own `la`.

use super::error::{AsmError, AsmErrorKind, AsmErrors};
use super::syntax::{assemble, Assembled};

/// Translates `source` (typically C preprocessor output); `file` names it in errors
/// until a line marker says otherwise.
pub fn translate(source: &str, file: &str) -> Result<String, AsmErrors> {
    let mut out = String::with_capacity(source.len() + source.len() / 2);
    out.push_str(".option norelax\n");
    // Re-synchronise GNU as's line count after the line added above.
    out.push_str(&format!("# 1 \"{}\"\n", escape(file)));
    let mut location = (file.to_string(), 1usize);
    let mut errors = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut labels = 0usize;
    // Where the file turns relaxation back on, and whether it has vcjal label offsets
    // that relaxation could invalidate.
    let mut relax_at = None;
    let mut label_jumps = false;
    for line in source.lines() {
        if let Some((number, name)) = line_marker(line) {
            location = (name, number);
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut translated = Vec::new();
        let mut any_hwacha = false;
        for stmt in statements(line) {
            let (labels_text, body) = split_labels(stmt);
            let mnemonic = body
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            track_block(&mut blocks, &mnemonic);
            // `vsize = 16` is a GNU as symbol assignment, not an instruction.
            let assignment = body
                .trim_start_matches(|c: char| {
                    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
                })
                .trim_start()
                .strip_prefix('=')
                .is_some_and(|rest| !rest.starts_with('='));
            let hwacha = !assignment && (body.starts_with('@') || mnemonic.starts_with('v'));
            if !hwacha {
                if mnemonic == ".option" && body.split_whitespace().nth(1) == Some("relax") {
                    relax_at.get_or_insert_with(|| location.clone());
                }
                translated.push(stmt.trim().to_string());
                continue;
            }
            any_hwacha = true;
            let result = if blocks.contains(&Block::Parametric) {
                Err(AsmErrorKind::InMacro)
            } else {
                assemble(body)
            };
            match result {
                Ok(assembled) => {
                    match assembled {
                        Assembled::ControlPcrel { .. } => labels += 1,
                        Assembled::WorkerJump { .. } => label_jumps = true,
                        _ => {}
                    }
                    let label = format!(".Lhwacha_vf{labels}");
                    translated.push(format!("{labels_text}{}", assembled.gas(&label)));
                }
                Err(kind) => errors.push(AsmError {
                    file: location.0.clone(),
                    line: location.1,
                    kind,
                }),
            }
        }
        if any_hwacha {
            out.push_str(&translated.join("; "));
        } else {
            out.push_str(line);
        }
        out.push('\n');
        location.1 += 1;
    }
    if let (Some((file, line)), true) = (relax_at, label_jumps) {
        errors.push(AsmError {
            file,
            line,
            kind: AsmErrorKind::Relaxation,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(AsmErrors(errors))
    }
}

fn escape(file: &str) -> String {
    file.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A C preprocessor line marker (`# 12 "prog.S" 2` or `#line 12 "prog.S"`): the line
/// number of the next line and its file.
fn line_marker(line: &str) -> Option<(usize, String)> {
    let rest = line.trim_start().strip_prefix('#')?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let number = rest[..digits].parse().ok()?;
    let name = rest[digits..].trim_start().strip_prefix('"')?;
    let mut file = String::new();
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some((number, file)),
            '\\' => file.push(chars.next()?),
            c => file.push(c),
        }
    }
    None
}

/// The statements of a line: split at `;`, up to a `#` comment, outside strings.
fn statements(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            ';' => {
                out.push(&line[start..i]);
                start = i + 1;
            }
            '#' => {
                out.push(&line[start..i]);
                return out;
            }
            _ => {}
        }
    }
    out.push(&line[start..]);
    out
}

/// Leading `name:` labels (including GNU as local labels `1:`), and the rest.
fn split_labels(stmt: &str) -> (String, &str) {
    let mut labels = String::new();
    let mut rest = stmt.trim_start();
    loop {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')))
            .unwrap_or(rest.len());
        let after = rest[end..].trim_start();
        match after.strip_prefix(':') {
            Some(next) if end > 0 => {
                labels.push_str(&rest[..end]);
                labels.push_str(": ");
                rest = next.trim_start();
            }
            _ => return (labels, rest.trim_end()),
        }
    }
}

/// A GNU as block directive the translator is inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// `.macro`, `.irp`, `.irpc`: the body's operands are substituted later.
    Parametric,
    /// `.rept`: the body is repeated as written.
    Repeat,
}

fn track_block(blocks: &mut Vec<Block>, mnemonic: &str) {
    match mnemonic {
        ".macro" | ".irp" | ".irpc" => blocks.push(Block::Parametric),
        ".rept" => blocks.push(Block::Repeat),
        ".endm" | ".endr" => {
            blocks.pop();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert_eq!(
            line_marker("# 12 \"prog.S\" 2"),
            Some((12, "prog.S".into()))
        );
        assert_eq!(line_marker("#line 3 \"a\\\"b\""), Some((3, "a\"b".into())));
        assert_eq!(line_marker("# comment"), None);
        assert_eq!(line_marker("#12 \"unterminated"), None);
    }

    #[test]
    fn statements_and_labels() {
        assert_eq!(
            statements(r#" li a0, 1; .string "a;#b" # c"#),
            [" li a0, 1", r#" .string "a;#b" "#]
        );
        assert_eq!(
            split_labels("a: 1: vadd vv1, vv1, vv1"),
            ("a: 1: ".to_string(), "vadd vv1, vv1, vv1")
        );
        assert_eq!(split_labels(" li a0, 1 "), (String::new(), "li a0, 1"));
    }

    #[test]
    fn lines_stay_one_to_one() {
        let src =
            "# 1 \"p.S\"\n.text\nblk: @vp1 vadd vv1, vv2, vs3; vstop # end\n  li a0, 1 # keep\nvlen = 16\n";
        let out = translate(src, "p.S").unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], ".option norelax");
        assert_eq!(lines[1], "# 1 \"p.S\"");
        assert_eq!(lines[2], "# 1 \"p.S\"");
        assert_eq!(lines[3], ".text");
        assert_eq!(
            lines[4],
            "blk: .8byte 0xc00000060201163f; .8byte 0x0000000000000c3f"
        );
        assert_eq!(lines[5], "  li a0, 1 # keep");
        assert_eq!(lines[6], "vlen = 16");
    }

    #[test]
    fn errors_carry_marker_locations() {
        let src = "# 7 \"inc.h\" 1\n vaddd vv1, vv1, vv1\n .rept 2\n vstop\n .endr\n .macro m r\n vadd \\r, \\r, \\r\n .endm\n .option relax\n vcjal.all vs1, 1f\n";
        let errs = translate(src, "p.S").unwrap_err();
        let text: Vec<String> = errs.0.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            text,
            [
                "inc.h:7: unknown mnemonic `vaddd`",
                "inc.h:12: Hwacha instructions cannot be in a GNU as `.macro`, `.irp` or \
                 `.irpc` body (their operands are only known after substitution); use a C \
                 preprocessor macro",
                "inc.h:14: `.option relax` would let the linker move code after GNU as \
                 fixed the vcjal label offsets of this file (Hwacha files assemble without \
                 relaxation)"
            ]
        );
    }
}
