//! Loading RV64 and RV32 ELF executables for the golden model.
//!
//! The header is checked by hand first so that the common mistakes (not an ELF, a
//! big-endian file, another machine, an object file, a truncated file, flags asking for
//! extensions the model lacks) get a precise message; the `object` crate then reads
//! program headers and symbols. The ELF class (32 or 64) is the program's XLEN.

use crate::iss::Xlen;
use object::elf::{FileHeader32, FileHeader64, PT_LOAD};
use object::read::elf::{ElfFile, FileHeader, ProgramHeader};
use object::{LittleEndian, Object, ObjectSymbol, SymbolKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// e_machine of RISC-V.
const EM_RISCV: u16 = 243;
/// e_type of a linked executable.
const ET_EXEC: u16 = 2;
/// e_flags bits of RISC-V: compressed instructions, the float ABI, the E base.
const EF_RISCV_RVC: u32 = 0x1;
const EF_RISCV_FLOAT_ABI: u32 = 0x6;
const EF_RISCV_FLOAT_ABI_QUAD: u32 = 0x6;
const EF_RISCV_RVE: u32 = 0x8;

/// A loadable program: its segments, entry point and HTIF mailbox addresses.
#[derive(Debug, Clone)]
pub struct Program {
    /// The register width, from the ELF class.
    pub xlen: Xlen,
    pub entry: u64,
    pub segments: Vec<Segment>,
    /// Address of the `tohost` word.
    pub tohost: u64,
    /// Address of the `fromhost` word; programs that never make system calls may omit it.
    pub fromhost: Option<u64>,
    /// Every named symbol's address (the first of each name), for hosts that read or set
    /// program variables.
    pub symbols: BTreeMap<String, u64>,
    /// The size in bytes of every named function symbol (the first of each name), for
    /// tools that read a function's code (the VGIW kernel compiler).
    pub function_sizes: BTreeMap<String, u64>,
}

impl Program {
    /// The address of symbol `name`.
    pub fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).copied()
    }
}

/// One PT_LOAD segment, with its zero-filled tail (.bss) materialised.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Physical load address (p_paddr, as Spike's loader uses).
    pub addr: u64,
    pub data: Vec<u8>,
}

/// Why a file cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("cannot read {path}: {err}")]
    Io { path: PathBuf, err: std::io::Error },
    #[error("not an ELF file (bad magic number)")]
    NotElf,
    #[error("unknown ELF class {0} (neither 32-bit nor 64-bit)")]
    BadClass(u8),
    #[error("not a little-endian ELF file; RISC-V is little-endian")]
    NotLittleEndian,
    #[error("ELF machine is {0}, not RISC-V ({EM_RISCV})")]
    WrongMachine(u16),
    #[error("ELF type is {0}, not an executable ({ET_EXEC}); link the program first")]
    NotExecutable(u16),
    #[error("ELF flags {flags:#x} ask for {what}, which the model does not implement")]
    UnsupportedFlags { flags: u32, what: &'static str },
    #[error("truncated ELF file: {what} ends at byte {end} but the file has {len} bytes")]
    Truncated { what: String, end: u64, len: u64 },
    #[error("malformed ELF file: {0}")]
    Malformed(String),
    #[error("ELF file has no loadable segment")]
    NoSegments,
    #[error(
        "ELF file has no `tohost` symbol, so the program could never report its exit code (HTIF)"
    )]
    MissingTohost,
    #[error(
        "ELF segment at {addr:#x} (+{len:#x} bytes) is outside simulated RAM {base:#x}..{end:#x}"
    )]
    OutsideRam {
        addr: u64,
        len: u64,
        base: u64,
        end: u64,
    },
}

/// The RAM a program loads into: its segments must lie inside, and are checked before
/// any memory is allocated for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ram {
    pub base: u64,
    pub size: u64,
}

impl Ram {
    /// The golden model's (and Spike's) default RAM, which the designs' defaults match.
    pub const DEFAULT: Ram = Ram {
        base: crate::iss::mem::DEFAULT_RAM_BASE,
        size: crate::iss::mem::DEFAULT_RAM_SIZE,
    };

    /// Whether `len` bytes at `addr` lie inside.
    pub fn holds(&self, addr: u64, len: u64) -> bool {
        addr >= self.base
            && addr
                .checked_add(len)
                .is_some_and(|end| end <= self.base.saturating_add(self.size))
    }
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(w)
}

/// Reads and parses an ELF file for the default RAM ([`Ram::DEFAULT`]).
pub fn load_file(path: &Path) -> Result<Program, ElfError> {
    load_file_in(path, Ram::DEFAULT)
}

/// Reads and parses an ELF file whose segments must lie in `ram`.
pub fn load_file_in(path: &Path, ram: Ram) -> Result<Program, ElfError> {
    let bytes = std::fs::read(path).map_err(|err| ElfError::Io {
        path: path.to_path_buf(),
        err,
    })?;
    parse_in(&bytes, ram)
}

/// Parses an in-memory ELF image for the default RAM ([`Ram::DEFAULT`]).
pub fn parse(bytes: &[u8]) -> Result<Program, ElfError> {
    parse_in(bytes, Ram::DEFAULT)
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// What the flags ask for that the model lacks, if anything.
fn unsupported(flags: u32) -> Option<&'static str> {
    if flags & EF_RISCV_RVC != 0 {
        Some("compressed instructions (C)")
    } else if flags & EF_RISCV_RVE != 0 {
        Some("the E base (16 registers)")
    } else if flags & EF_RISCV_FLOAT_ABI == EF_RISCV_FLOAT_ABI_QUAD {
        Some("the quad-precision float ABI (Q)")
    } else {
        None
    }
}

/// Parses an in-memory ELF image whose segments must lie in `ram`.
pub fn parse_in(bytes: &[u8], ram: Ram) -> Result<Program, ElfError> {
    if bytes.len() < 6 || bytes[..4] != *b"\x7fELF" {
        return Err(ElfError::NotElf);
    }
    // The header's size and where its fields are, by class.
    let (xlen, ehdr, flags_at) = match bytes[4] {
        1 => (Xlen::Rv32, 52, 36),
        2 => (Xlen::Rv64, 64, 48),
        class => return Err(ElfError::BadClass(class)),
    };
    if bytes[5] != 1 {
        return Err(ElfError::NotLittleEndian);
    }
    let len = bytes.len() as u64;
    if bytes.len() < ehdr {
        return Err(ElfError::Truncated {
            what: "the ELF header".into(),
            end: ehdr as u64,
            len,
        });
    }
    let machine = u16_at(bytes, 18);
    if machine != EM_RISCV {
        return Err(ElfError::WrongMachine(machine));
    }
    let etype = u16_at(bytes, 16);
    if etype != ET_EXEC {
        return Err(ElfError::NotExecutable(etype));
    }
    let flags = u32_at(bytes, flags_at);
    if let Some(what) = unsupported(flags) {
        return Err(ElfError::UnsupportedFlags { flags, what });
    }
    // (offset, entry size, count) of the program and section header tables.
    let tables = match xlen {
        Xlen::Rv32 => [
            (
                u32_at(bytes, 28) as u64,
                u16_at(bytes, 42),
                u16_at(bytes, 44),
            ),
            (
                u32_at(bytes, 32) as u64,
                u16_at(bytes, 46),
                u16_at(bytes, 48),
            ),
        ],
        Xlen::Rv64 => [
            (u64_at(bytes, 32), u16_at(bytes, 54), u16_at(bytes, 56)),
            (u64_at(bytes, 40), u16_at(bytes, 58), u16_at(bytes, 60)),
        ],
    };
    let names = ["the program header table", "the section header table"];
    for (what, (off, entsize, num)) in names.into_iter().zip(tables) {
        let end = off.saturating_add(entsize as u64 * num as u64);
        if end > len {
            return Err(ElfError::Truncated {
                what: what.into(),
                end,
                len,
            });
        }
    }
    let program = match xlen {
        Xlen::Rv32 => load::<FileHeader32<LittleEndian>>(bytes, ram)?,
        Xlen::Rv64 => load::<FileHeader64<LittleEndian>>(bytes, ram)?,
    };
    Ok(Program { xlen, ..program })
}

/// Reads the segments and symbols of a header-checked ELF image of class `E` (the
/// result's `xlen` is the caller's to set).
fn load<E: FileHeader<Endian = LittleEndian>>(bytes: &[u8], ram: Ram) -> Result<Program, ElfError> {
    let len = bytes.len() as u64;
    let file = ElfFile::<E>::parse(bytes).map_err(|e| ElfError::Malformed(e.to_string()))?;
    let endian = LittleEndian;
    let mut segments = Vec::new();
    for ph in file.elf_program_headers() {
        if ph.p_type(endian) != PT_LOAD || ph.p_memsz(endian).into() == 0 {
            continue;
        }
        let (off, filesz) = (ph.p_offset(endian).into(), ph.p_filesz(endian).into());
        let end = off.saturating_add(filesz);
        if end > len {
            return Err(ElfError::Truncated {
                what: format!("the segment loaded at {:#x}", ph.p_paddr(endian).into()),
                end,
                len,
            });
        }
        let memsz: u64 = ph.p_memsz(endian).into();
        let addr: u64 = ph.p_paddr(endian).into();
        if memsz < filesz {
            return Err(ElfError::Malformed(format!(
                "segment at {addr:#x} has a memory size smaller than its file size"
            )));
        }
        if !ram.holds(addr, memsz) {
            return Err(ElfError::OutsideRam {
                addr,
                len: memsz,
                base: ram.base,
                end: ram.base.saturating_add(ram.size),
            });
        }
        let mut data = bytes[off as usize..end as usize].to_vec();
        let memsz = usize::try_from(memsz)
            .map_err(|_| ElfError::Malformed(format!("segment size {memsz:#x} is too large")))?;
        data.resize(memsz, 0);
        segments.push(Segment { addr, data });
    }
    if segments.is_empty() {
        return Err(ElfError::NoSegments);
    }
    // The first symbol of a name wins, as `symbol_by_name` would pick it.
    let mut symbols = BTreeMap::new();
    let mut function_sizes = BTreeMap::new();
    for s in file.symbols() {
        if let Ok(name) = s.name() {
            if !name.is_empty() {
                symbols.entry(name.to_string()).or_insert(s.address());
                if s.kind() == SymbolKind::Text {
                    function_sizes.entry(name.to_string()).or_insert(s.size());
                }
            }
        }
    }
    let tohost = *symbols.get("tohost").ok_or(ElfError::MissingTohost)?;
    Ok(Program {
        xlen: Xlen::Rv64,
        entry: file.entry(),
        segments,
        tohost,
        fromhost: symbols.get("fromhost").copied(),
        symbols,
        function_sizes,
    })
}
