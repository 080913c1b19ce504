//! `BoardRam`: the board's memory behind the tile's outer port: a block RAM of 64-bit
//! words preloaded with the program (`program.hex`) and a 4-word boot ROM preloaded with
//! the reset code (`boot.hex`), both inferred synchronous-read memories (Yosys maps the
//! RAM to block RAM: DP16KD on ECP5, SB_RAM40_4K on iCE40).
//!
//! Addresses below `RAM_START` (0x2000) read the boot ROM (the tile's reset vector is
//! 0x1000; the ROM repeats every 32 bytes there); every other address is RAM, answered
//! modulo the RAM's size, so a program linked for a large RAM at 0x80000000 with its
//! stack at the top of 256 MiB runs as long as image, heap and stack fit: the stack's
//! top aliases the RAM's top. Writes to the ROM are dropped.
//!
//! Two requesters share the one RAM port: the tile (`mem_req`, tagged) and the HTIF
//! bridge (`host_req`), which has priority: the tile's request waits (`ready` low) in a
//! cycle the bridge uses the port. Every accepted request is answered the next cycle on
//! its requester's response port (reads with the doubleword, writes with zero).

use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::tile::TAG_BITS;
use hdl::{mux, Bits, Dir, HdlErrors, MemStyle, Module, ModuleBuilder};
use std::rc::Rc;

/// The RAM's hex file, beside the Verilog.
pub const PROGRAM_HEX: &str = "program.hex";
/// The boot ROM's hex file, beside the Verilog.
pub const BOOT_HEX: &str = "boot.hex";
/// Doublewords of the boot ROM.
pub const BOOT_WORDS: usize = 4;
/// Addresses below this are the boot ROM (the tile's RAM lies above the reset ROM).
pub const RAM_START: u64 = 0x2000;

/// A RAM of `words` doublewords (a power of two) holding `ram` from address 0, and the
/// boot ROM holding `boot`. Ports `mem_req`/`mem_resp` (tagged) and
/// `host_req`/`host_resp`.
pub fn board_ram(
    words: u64,
    ram: &[u64],
    boot: &[u64; BOOT_WORDS],
) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("BoardRam");
    let req = m.io("mem_req", Dir::In, &mem_request(TAG_BITS));
    let resp = m.io("mem_resp", Dir::Out, &mem_response(TAG_BITS));
    let hreq = m.io("host_req", Dir::In, &mem_request(0));
    let hresp = m.io("host_resp", Dir::Out, &mem_response(0));
    let host = hreq.valid().clone();
    let one = m.lit(1, 1);
    m.connect(hreq.ready(), &one);
    m.connect(req.ready(), &!&host);
    let field = |f: &str| mux(&host, hreq.bits().get(f).value(), req.bits().get(f).value());
    let (addr, write, data, mask) = (field("addr"), field("write"), field("data"), field("mask"));
    let go = &host | req.valid();
    let is_rom = addr.slice(31, 13).eq(&addr.konst(Bits::zero(19)));

    let aw = hdl::ir::addr_width(words);
    let mem = m.mem("ram", words, 64, MemStyle::Inferred);
    m.mem_init(&mem, PROGRAM_HEX, ram.to_vec());
    let ram_index = addr.slice(aw + 2, 3);
    let rdata = m.read_sync(&mem, &ram_index, &(&go & &!&write));
    m.when(&(&(&go & &write) & &!&is_rom), |m| {
        m.write_masked(&mem, &ram_index, &data, &mask)
    });
    let rom = m.mem("boot", BOOT_WORDS as u64, 64, MemStyle::Inferred);
    m.mem_init(&rom, BOOT_HEX, boot.to_vec());
    let bdata = m.read_sync(&rom, &addr.slice(4, 3), &(&go & &!&write));

    // What the answer of the next cycle is: whose, which tag, ROM or RAM, read or write.
    let r_host = m.reg("r_host", 1, 0u64);
    let r_tile = m.reg("r_tile", 1, 0u64);
    let r_tag = m.reg("r_tag", TAG_BITS, 0u64);
    let r_rom = m.reg("r_rom", 1, 0u64);
    let r_read = m.reg("r_read", 1, 0u64);
    m.connect(&r_host, &host);
    m.connect(&r_tile, &(&!&host & req.valid()));
    m.connect(&r_tag, req.bits().get("tag").value());
    m.connect(&r_rom, &is_rom);
    m.connect(&r_read, &!&write);
    let zero = m.lit(0, 64);
    let answer = mux(&r_read, &mux(&r_rom, &bdata, &rdata), &zero);
    m.connect(resp.valid(), &r_tile);
    m.connect(resp.bits().get("data").value(), &answer);
    m.connect(resp.bits().get("tag").value(), &r_tag);
    m.connect(hresp.valid(), &r_host);
    m.connect(hresp.bits().get("data").value(), &answer);
    m.finish()
}
