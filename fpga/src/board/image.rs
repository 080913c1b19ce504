//! A program's image in the board's memories: the ELF's loadable segments as the block
//! RAM's doublewords and the reset code (the golden model's boot ROM, which jumps to the
//! entry point) as the boot ROM's.

use super::BoardError;
use generators::board::ram::BOOT_WORDS;
use generators::board::BoardImage;
use std::path::Path;
use verification::elf::{self, Program, Ram};
use verification::iss::mem::reset_rom;
use verification::iss::Xlen;

/// Loads `path` for a RAM of `size` bytes at `base`: every segment must lie inside it
/// (the stack, at the top of the program's linked RAM, aliases the RAM's top).
pub fn load(path: &Path, base: u64, size: u64) -> Result<Program, BoardError> {
    let program =
        elf::load_file_in(path, Ram { base, size }).map_err(|error| BoardError::Program {
            path: path.to_path_buf(),
            error,
        })?;
    if program.xlen != Xlen::Rv64 {
        return Err(BoardError::NotRv64(path.to_path_buf()));
    }
    Ok(program)
}

/// The RAM's doublewords (from `base`, up to the last one a segment touches) and the
/// boot ROM's, for `program` loaded at `base`.
pub fn image(program: &Program, base: u64) -> BoardImage {
    let mut ram: Vec<u64> = Vec::new();
    for seg in &program.segments {
        for (i, byte) in seg.data.iter().enumerate() {
            let offset = seg.addr - base + i as u64;
            let word = (offset / 8) as usize;
            if word >= ram.len() {
                ram.resize(word + 1, 0);
            }
            ram[word] |= u64::from(*byte) << (8 * (offset % 8));
        }
    }
    let rom = reset_rom(program.entry, Xlen::Rv64);
    let mut boot = [0u64; BOOT_WORDS];
    for (w, chunk) in boot.iter_mut().zip(rom.chunks(8)) {
        *w = u64::from_le_bytes(chunk.try_into().expect("the ROM is whole doublewords"));
    }
    BoardImage { ram, boot }
}
