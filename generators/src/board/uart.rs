//! `UartTx`: an 8N1 UART transmitter. A byte accepted on `data` (ready/valid) goes out
//! on `tx` as a start bit (0), eight data bits least significant first and a stop bit
//! (1), each held `baud_div` clock cycles; `tx` idles high and comes straight from a
//! register (no glitches on the pin).

use hdl::ir::addr_width;
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// Bits of one frame: start, eight data, stop.
pub const FRAME_BITS: u64 = 10;

/// Ports `data` (decoupled 8-bit, in) and `tx` (out). `baud_div` >= 1 is the clock
/// frequency over the baud rate.
pub fn uart_tx(baud_div: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("UartTx");
    let data = m.io("data", Dir::In, &Shape::decoupled(Shape::UInt(8)));
    let tx = m.output("tx", 1);
    // The frame still to send, low bit on the pin; ones shift in behind it.
    let shift = m.reg("shift", FRAME_BITS as u32, Bits::from_u64(10, 0x3ff));
    let left = m.reg("bits_left", 4, 0u64);
    let cw = addr_width(u64::from(baud_div));
    let count = m.reg("count", cw, 0u64);
    let idle = left.eq(&left.konst(Bits::zero(4)));
    m.connect(data.ready(), &idle);
    m.connect(&tx, &shift.bit(0));
    let last_tick = count.eq(&count.konst(Bits::zero(cw)));
    let reload = count.konst(Bits::from_u64(cw, u64::from(baud_div) - 1));
    m.when(&data.fire(), |m| {
        let one = m.lit(1, 1);
        let zero = m.lit(0, 1);
        let frame = hdl::cat(&[&one, data.bits().value(), &zero]);
        m.connect(&shift, &frame);
        let n = m.lit(FRAME_BITS, 4);
        m.connect(&left, &n);
        m.connect(&count, &reload);
    })
    .elsewhen(&(!&idle), |m| {
        m.when(&last_tick, |m| {
            let one = m.lit(1, 1);
            m.connect(&shift, &one.cat(&shift.slice(9, 1)));
            m.connect(&left, &(&left - &left.konst(Bits::from_u64(4, 1))));
            m.connect(&count, &reload);
        })
        .otherwise(|m| m.connect(&count, &(&count - &count.konst(Bits::from_u64(cw, 1)))));
    });
    m.finish()
}
