//! Physical memory of the golden model: one flat RAM region plus the reset ROM.
//!
//! The layout follows Spike's default machine (RAM at 0x8000_0000, reset vector at 0x1000)
//! so that the same ELF runs unchanged on both and their commit logs can be diffed.

use super::Xlen;

/// Where the reset ROM lives; execution starts here, as on Spike.
pub const RESET_VECTOR: u64 = 0x1000;
/// Default RAM base, the address riscv-tests and our linker script link to.
pub const DEFAULT_RAM_BASE: u64 = 0x8000_0000;
/// Default RAM size: Spike's default of 2 GiB. The host allocates it lazily (zeroed pages).
pub const DEFAULT_RAM_SIZE: u64 = 2 << 30;

/// Reset ROM: the same five instructions Spike's boot ROM executes, so instruction counts
/// (`minstret`, `cycle`) and the HTIF polling schedule line up with Spike's exactly.
/// a0 = mhartid, a1 = address just past the ROM (where Spike keeps its device tree),
/// then jump to the entry point stored at offset 24 (loaded with `ld` on RV64, `lw` on
/// RV32).
const ROM_CODE: [u32; 6] = [
    0x0000_0297, // auipc t0, 0
    0x0202_8593, // addi  a1, t0, 32
    0xf140_2573, // csrr  a0, mhartid
    0x0182_b283, // ld    t0, 24(t0)
    0x0002_8067, // jr    t0
    0,           // padding up to the entry-point word
];
/// RV32's load of the entry point: `lw t0, 24(t0)`.
const ROM_LW_ENTRY: u32 = 0x0182_a283;
pub const ROM_SIZE: usize = 32;

/// The reset ROM's bytes for a program of register width `xlen` entered at `entry` (its
/// address is [`RESET_VECTOR`]), for test benches that load it into a design's memory.
pub fn reset_rom(entry: u64, xlen: Xlen) -> [u8; ROM_SIZE] {
    let mut code = ROM_CODE;
    if xlen == Xlen::Rv32 {
        code[3] = ROM_LW_ENTRY;
    }
    let mut rom = [0u8; ROM_SIZE];
    for (i, w) in code.iter().enumerate() {
        rom[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
    }
    rom[24..32].copy_from_slice(&entry.to_le_bytes());
    rom
}

/// Flat little-endian memory: RAM plus a read-only reset ROM.
pub struct Memory {
    ram_base: u64,
    ram: Vec<u8>,
    rom: [u8; ROM_SIZE],
}

impl Memory {
    /// RAM of `size` bytes at `base`; the reset ROM jumps to `entry` (an RV64 or RV32
    /// ROM, as `xlen` says).
    pub fn new(base: u64, size: u64, entry: u64, xlen: Xlen) -> Memory {
        Memory {
            ram_base: base,
            ram: vec![0; size as usize],
            rom: reset_rom(entry, xlen),
        }
    }

    /// RAM base address.
    pub fn ram_base(&self) -> u64 {
        self.ram_base
    }

    /// RAM size in bytes.
    pub fn ram_size(&self) -> u64 {
        self.ram.len() as u64
    }

    /// Offset into RAM of an access of `len` bytes at `addr`, if it lies wholly in RAM.
    #[inline(always)]
    fn ram_offset(&self, addr: u64, len: usize) -> Option<usize> {
        let off = addr.wrapping_sub(self.ram_base);
        if off < self.ram.len() as u64 && (self.ram.len() as u64 - off) >= len as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    /// Reads `N` bytes at `addr` from RAM or ROM; `None` outside both (an access fault).
    #[inline(always)]
    pub fn read_bytes<const N: usize>(&self, addr: u64) -> Option<[u8; N]> {
        if let Some(off) = self.ram_offset(addr, N) {
            let mut b = [0u8; N];
            b.copy_from_slice(&self.ram[off..off + N]);
            return Some(b);
        }
        let off = addr.wrapping_sub(RESET_VECTOR);
        if off < ROM_SIZE as u64 && ROM_SIZE as u64 - off >= N as u64 {
            let off = off as usize;
            let mut b = [0u8; N];
            b.copy_from_slice(&self.rom[off..off + N]);
            return Some(b);
        }
        None
    }

    /// Writes `N` bytes at `addr`; `false` if outside RAM (the ROM is read-only).
    #[inline(always)]
    pub fn write_bytes<const N: usize>(&mut self, addr: u64, bytes: [u8; N]) -> bool {
        match self.ram_offset(addr, N) {
            Some(off) => {
                self.ram[off..off + N].copy_from_slice(&bytes);
                true
            }
            None => false,
        }
    }

    /// Reads a little-endian value of `size` bytes (1, 2, 4 or 8), zero-extended.
    #[inline(always)]
    pub fn read(&self, addr: u64, size: usize) -> Option<u64> {
        Some(match size {
            1 => self.read_bytes::<1>(addr)?[0] as u64,
            2 => u16::from_le_bytes(self.read_bytes(addr)?) as u64,
            4 => u32::from_le_bytes(self.read_bytes(addr)?) as u64,
            _ => u64::from_le_bytes(self.read_bytes(addr)?),
        })
    }

    /// Writes the low `size` bytes (1, 2, 4 or 8) of `value`, little-endian.
    #[inline(always)]
    pub fn write(&mut self, addr: u64, size: usize, value: u64) -> bool {
        match size {
            1 => self.write_bytes(addr, [value as u8]),
            2 => self.write_bytes(addr, (value as u16).to_le_bytes()),
            4 => self.write_bytes(addr, (value as u32).to_le_bytes()),
            _ => self.write_bytes(addr, value.to_le_bytes()),
        }
    }

    /// Copies `data` into RAM at `addr` (ELF loading); `false` if it does not fit.
    pub fn write_slice(&mut self, addr: u64, data: &[u8]) -> bool {
        match self.ram_offset(addr, data.len()) {
            Some(off) => {
                self.ram[off..off + data.len()].copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    /// Reads `len` bytes of RAM at `addr` (syscall buffers); `None` if not wholly in RAM.
    pub fn slice(&self, addr: u64, len: usize) -> Option<&[u8]> {
        self.ram_offset(addr, len)
            .map(|off| &self.ram[off..off + len])
    }
}
