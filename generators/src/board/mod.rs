//! `rocket-board`: an FPGA board top for the `rocket` tile (no accelerator): its outer
//! memory port served by a block RAM preloaded with a program, and an HTIF bridge that
//! carries the program's console output and exit code over an 8N1 UART.
//!
//! One file per block:
//! - `mod.rs`: the top (`RocketBoard`): tile, RAM, bridge, UART; its parameters.
//! - `ram.rs`: the block RAM and boot ROM, shared by the tile and the bridge.
//! - `htif.rs`: the HTIF bridge (exit, the `write` system call, putchar).
//! - `uart.rs`: the UART transmitter.
//!
//! Ports: `uart_tx` (the UART's line), `exit_valid` and `exit_code` (for LEDs). Clock
//! and reset are the module's own: the board's pin-level wrapper (`fpga::board`) feeds
//! them from the oscillator and a synchronised reset button.
//!
//! Without a program (`accelgen generate rocket-board`) the RAM and the boot ROM are
//! zero; `fpga::board::build` elaborates the top with a program's image
//! ([`BoardImage`]). The Verilog does not depend on the program's contents (they are in
//! `program.hex` and `boot.hex`), only on `tohost`/`fromhost`.

pub mod htif;
pub mod ram;
pub mod uart;

use crate::rocket::params::RocketParams;
use crate::rocket::tile::tile;
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module, ModuleBuilder};
use ram::BOOT_WORDS;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The ULX3S's oscillator (25 MHz) over 115200 baud, rounded.
pub const DEFAULT_BAUD_DIV: u32 = 217;

/// The tile's parameters (design `rocket`'s, without `rocc`) and the board's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RocketBoardParams {
    #[serde(flatten)]
    pub tile: RocketParams,
    /// Block RAM size in KiB (a power of two).
    pub ram_kib: u32,
    /// Clock cycles per UART bit.
    pub baud_div: u32,
    /// Addresses of the HTIF mailbox (the ELF's `tohost` and `fromhost` symbols).
    pub tohost: u64,
    pub fromhost: u64,
}

impl Default for RocketBoardParams {
    fn default() -> Self {
        RocketBoardParams {
            // An FPGA has no SRAM macros: every array is inferred (block or LUT RAM).
            tile: RocketParams {
                sram_threshold_bits: crate::memory::NEVER_SRAM_BITS,
                ..RocketParams::default()
            },
            ram_kib: 64,
            baud_div: DEFAULT_BAUD_DIV,
            tohost: 0x8000_0000,
            fromhost: 0x8000_0040,
        }
    }
}

impl RocketBoardParams {
    /// The block RAM's size in bytes.
    pub fn ram_bytes(&self) -> u64 {
        u64::from(self.ram_kib) << 10
    }
}

/// The program a board starts with: RAM doublewords from the RAM's start, and the boot
/// ROM's doublewords (the reset code that jumps to the program's entry).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardImage {
    pub ram: Vec<u64>,
    pub boot: [u64; BOOT_WORDS],
}

/// The largest block RAM, in KiB (an ECP5-85F has 208 DP16KD blocks of 2 KiB of data).
pub const MAX_RAM_KIB: u64 = 256;

fn board_params() -> Vec<Param> {
    let mut v = crate::rocket::params::params();
    v.extend([
        Param::int(
            "ram_kib",
            1,
            MAX_RAM_KIB,
            "block RAM size in KiB (addresses wrap modulo it)",
        )
        .pow2(),
        Param::int(
            "baud_div",
            4,
            1 << 16,
            "clock cycles per UART bit (clock / baud rate)",
        ),
        Param::int(
            "tohost",
            0x2000,
            (1 << 32) - 8,
            "address of the HTIF tohost word (the ELF's symbol)",
        )
        .hex(),
        Param::int(
            "fromhost",
            0x2000,
            (1 << 32) - 8,
            "address of the HTIF fromhost word (the ELF's symbol)",
        )
        .hex(),
    ]);
    v
}

pub struct RocketBoard;

impl Generator for RocketBoard {
    type Params = RocketBoardParams;
    const NAME: &'static str = "rocket-board";
    const DESCRIPTION: &'static str =
        "FPGA board top: the rocket tile, a preloaded block RAM and an HTIF console on a UART";

    fn params() -> Vec<Param> {
        board_params()
    }

    fn validate(p: &RocketBoardParams) -> Result<(), ParamError> {
        schema::check_fields(&board_params(), p)?;
        p.tile.validate()?;
        p.tile.require_rv64()?;
        let t = &p.tile;
        for (name, addr) in [("tohost", p.tohost), ("fromhost", p.fromhost)] {
            if addr % 8 != 0 {
                return Err(ParamError::new(
                    name,
                    format!("{addr:#x} is not 8-byte aligned"),
                ));
            }
            if addr < t.uncached_base || addr + 8 > t.uncached_base + t.uncached_size {
                return Err(ParamError::new(
                    name,
                    format!("{addr:#x} must lie in the uncached region (the D$ would hide the host's writes)"),
                ));
            }
        }
        if p.tohost == p.fromhost {
            return Err(ParamError::new("fromhost", "must differ from tohost"));
        }
        Ok(())
    }

    fn build(p: &RocketBoardParams) -> Result<Rc<Module>, HdlErrors> {
        board_top(p, &BoardImage::default())
    }
}

/// The board top with `image` preloaded (words past the RAM's size are an error).
pub fn board_top(p: &RocketBoardParams, image: &BoardImage) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RocketBoard");
    let uart_tx = m.output("uart_tx", 1);
    let exit_valid = m.output("exit_valid", 1);
    let exit_code = m.output("exit_code", 32);

    let t = m.instance("tile", &tile(&p.tile, false)?);
    for unused in ["rocc_resp", "rocc_xcpt", "rocc_mem_req"] {
        m.tie_off(&t.io(unused));
    }
    let zero = m.lit(0, 1);
    m.connect(&t.port("rocc_busy"), &zero);
    m.connect(t.io("rocc_cmd").ready(), &zero);

    let ram = m.instance(
        "memory",
        &ram::board_ram(p.ram_bytes() / 8, &image.ram, &image.boot)?,
    );
    m.connect_bundle(&ram.io("mem_req"), &t.io("mem_req"));
    m.connect_bundle(&t.io("mem_resp"), &ram.io("mem_resp"));

    let bridge = m.instance("htif", &htif::htif_bridge(p.tohost, p.fromhost)?);
    let req = t.io("mem_req");
    m.connect(&bridge.port("snoop_valid"), &req.fire());
    m.connect(&bridge.port("snoop_write"), req.bits().get("write").value());
    m.connect(&bridge.port("snoop_addr"), req.bits().get("addr").value());
    m.connect(&bridge.port("snoop_data"), req.bits().get("data").value());
    m.connect_bundle(&ram.io("host_req"), &bridge.io("host_req"));
    m.connect_bundle(&bridge.io("host_resp"), &ram.io("host_resp"));

    let uart = m.instance("uart", &uart::uart_tx(p.baud_div)?);
    m.connect_bundle(&uart.io("data"), &bridge.io("tx"));
    m.connect(&uart_tx, &uart.port("tx"));
    m.connect(&exit_valid, &bridge.port("exit_valid"));
    m.connect(&exit_code, &bridge.port("exit_code"));
    m.finish()
}
